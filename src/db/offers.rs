//! Queries on `offers_made`: when a player last offered a draw or proposed
//! an alliance in a game, and whether they have moved since.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::schema::{game_actions as ga, offers_made as om};
use super::DbConnection;

/// When `user_id` last made an offer of `kind` (`draw`, `alliance`) in the game.
pub fn last_made(
    conn: &mut DbConnection,
    game_id: &str,
    user_id: &str,
    kind: &str,
) -> QueryResult<Option<NaiveDateTime>> {
    om::table
        .filter(om::game_id.eq(game_id))
        .filter(om::user_id.eq(user_id))
        .filter(om::kind.eq(kind))
        .select(om::made_at)
        .first(conn)
        .optional()
}

/// Records that `user_id` made an offer of `kind` in the game at `now`.
pub fn record(
    conn: &mut DbConnection,
    game_id: &str,
    user_id: &str,
    kind: &str,
    now: NaiveDateTime,
) -> QueryResult<()> {
    let mine = om::table
        .filter(om::game_id.eq(game_id))
        .filter(om::user_id.eq(user_id))
        .filter(om::kind.eq(kind));
    diesel::delete(mine).execute(conn)?;
    diesel::insert_into(om::table)
        .values((
            om::game_id.eq(game_id),
            om::user_id.eq(user_id),
            om::kind.eq(kind),
            om::made_at.eq(now),
        ))
        .execute(conn)
        .map(drop)
}

/// Whether `user_id` has moved in the game after `since`.
pub fn moved_since(
    conn: &mut DbConnection,
    game_id: &str,
    user_id: &str,
    since: NaiveDateTime,
) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(
        ga::table
            .filter(ga::game_id.eq(game_id))
            .filter(ga::user_id.eq(user_id))
            .filter(ga::kind.eq("move"))
            .filter(ga::created_at.gt(since)),
    ))
    .get_result(conn)
}

//! Queries on table talk: `chat_messages`, `chat_mutes` and `game_notes`.

use crate::domain::{GameId, UserId};
use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::schema::{chat_messages as cm, chat_mutes as mu, game_notes as gn};
use super::DbConnection;

/// A message as stored: to the whole table when `to_seat` is None.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = cm)]
pub struct ChatRow {
    pub game_id: GameId,
    pub n: i32,
    pub user_id: UserId,
    pub from_seat: String,
    pub to_seat: Option<String>,
    pub body: String,
    pub created_at: NaiveDateTime,
}

pub fn insert(conn: &mut DbConnection, row: &ChatRow) -> QueryResult<()> {
    diesel::insert_into(cm::table)
        .values(row)
        .execute(conn)
        .map(drop)
}

/// The number of the game's last message, 0 if none.
pub fn last_n(conn: &mut DbConnection, game_id: &str) -> QueryResult<i32> {
    cm::table
        .filter(cm::game_id.eq(game_id))
        .select(diesel::dsl::max(cm::n))
        .first::<Option<i32>>(conn)
        .map(|n| n.unwrap_or(0))
}

/// When `user_id` wrote in the game since `since`.
pub fn written_since(
    conn: &mut DbConnection,
    game_id: &str,
    user_id: &str,
    since: NaiveDateTime,
) -> QueryResult<Vec<NaiveDateTime>> {
    cm::table
        .filter(cm::game_id.eq(game_id))
        .filter(cm::user_id.eq(user_id))
        .filter(cm::created_at.gt(since))
        .select(cm::created_at)
        .load(conn)
}

/// The messages after number `after` that `seat` may read (to the table, or
/// private to or from it), oldest first, at most `limit`.
pub fn visible_after(
    conn: &mut DbConnection,
    game_id: &str,
    seat: &str,
    after: i32,
    limit: i64,
) -> QueryResult<Vec<ChatRow>> {
    cm::table
        .filter(cm::game_id.eq(game_id))
        .filter(cm::n.gt(after))
        .filter(
            cm::to_seat
                .is_null()
                .or(cm::to_seat.eq(seat))
                .or(cm::from_seat.eq(seat)),
        )
        .order(cm::n.asc())
        .limit(limit)
        .select(ChatRow::as_select())
        .load(conn)
}

/// Who muted the game's table chat.
pub fn muted(conn: &mut DbConnection, game_id: &str) -> QueryResult<Vec<UserId>> {
    mu::table
        .filter(mu::game_id.eq(game_id))
        .select(mu::user_id)
        .load(conn)
}

/// Mutes (or unmutes) the game's table chat for `user_id`.
pub fn set_muted(
    conn: &mut DbConnection,
    game_id: &str,
    user_id: &str,
    muted: bool,
    now: NaiveDateTime,
) -> QueryResult<()> {
    let mine = mu::table
        .filter(mu::game_id.eq(game_id))
        .filter(mu::user_id.eq(user_id));
    diesel::delete(mine).execute(conn)?;
    if muted {
        diesel::insert_into(mu::table)
            .values((
                mu::game_id.eq(game_id),
                mu::user_id.eq(user_id),
                mu::created_at.eq(now),
            ))
            .execute(conn)?;
    }
    Ok(())
}

/// A player's notes on a game, and when they last changed.
pub fn notes(
    conn: &mut DbConnection,
    game_id: &str,
    user_id: &str,
) -> QueryResult<Option<(String, NaiveDateTime)>> {
    gn::table
        .filter(gn::game_id.eq(game_id))
        .filter(gn::user_id.eq(user_id))
        .select((gn::body, gn::updated_at))
        .first(conn)
        .optional()
}

/// Replaces a player's notes on a game; empty notes are removed.
pub fn set_notes(
    conn: &mut DbConnection,
    game_id: &str,
    user_id: &str,
    body: &str,
    now: NaiveDateTime,
) -> QueryResult<()> {
    let mine = gn::table
        .filter(gn::game_id.eq(game_id))
        .filter(gn::user_id.eq(user_id));
    diesel::delete(mine).execute(conn)?;
    if !body.is_empty() {
        diesel::insert_into(gn::table)
            .values((
                gn::game_id.eq(game_id),
                gn::user_id.eq(user_id),
                gn::body.eq(body),
                gn::updated_at.eq(now),
            ))
            .execute(conn)?;
    }
    Ok(())
}

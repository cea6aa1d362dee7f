//! Queries on `ratings` and `rating_changes`.

use crate::domain::{GameId, UserId};
use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::schema::{rating_changes as rc, ratings as r, users};
use super::DbConnection;

/// A player's current rating.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = r)]
pub struct RatingRow {
    pub user_id: UserId,
    pub mu: f64,
    pub sigma: f64,
    /// `mu - 3 sigma`: what is shown and ranked.
    pub display: f64,
    pub games: i32,
    pub updated_at: NaiveDateTime,
    /// Distinct opponents in the player's counted rated games.
    pub opponents: i32,
}

/// What one rated game did to one player's rating.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = rc)]
pub struct RatingChangeRow {
    pub game_id: GameId,
    pub user_id: UserId,
    pub seat: String,
    pub place: i32,
    pub mu_before: f64,
    pub sigma_before: f64,
    pub mu_after: f64,
    pub sigma_after: f64,
    pub created_at: NaiveDateTime,
    /// Why the game did not count (`too-short`, `early-draw`, `repeated`):
    /// the place is recorded and the rating stands.
    pub uncounted: Option<String>,
}

/// Inserts `fresh` ratings for players who have none yet (a row another
/// transaction inserts first is left as it is), so that every player's row
/// exists to be locked.
pub fn ensure(conn: &mut DbConnection, fresh: &[RatingRow]) -> QueryResult<()> {
    for row in fresh {
        match conn {
            DbConnection::Postgres(c) => diesel::insert_into(r::table)
                .values(row)
                .on_conflict_do_nothing()
                .execute(c)?,
            DbConnection::Sqlite(c) => diesel::insert_into(r::table)
                .values(row)
                .on_conflict_do_nothing()
                .execute(c)?,
        };
    }
    Ok(())
}

/// The ratings of `user_ids`, locked to the end of the transaction on
/// PostgreSQL (in id order, so two games finishing at once with a player in
/// common take them one after the other).
pub fn for_update(conn: &mut DbConnection, user_ids: &[String]) -> QueryResult<Vec<RatingRow>> {
    let q = r::table
        .filter(r::user_id.eq_any(user_ids))
        .order(r::user_id.asc())
        .select(r::all_columns);
    match conn {
        DbConnection::Postgres(c) => q.for_update().load(c),
        DbConnection::Sqlite(c) => q.load(c),
    }
}

pub fn find(conn: &mut DbConnection, user_id: &str) -> QueryResult<Option<RatingRow>> {
    r::table
        .find(user_id)
        .select(RatingRow::as_select())
        .first(conn)
        .optional()
}

/// Writes a player's rating (its row exists: see `ensure`).
pub fn save(conn: &mut DbConnection, row: &RatingRow) -> QueryResult<()> {
    diesel::update(r::table.find(&row.user_id))
        .set(row)
        .execute(conn)
        .map(drop)
}

pub fn insert_changes(conn: &mut DbConnection, rows: &[RatingChangeRow]) -> QueryResult<()> {
    for row in rows {
        diesel::insert_into(rc::table).values(row).execute(conn)?;
    }
    Ok(())
}

/// What game `game_id` did to its players' ratings (none until it finished).
pub fn changes_of_game(
    conn: &mut DbConnection,
    game_id: &str,
) -> QueryResult<Vec<RatingChangeRow>> {
    rc::table
        .filter(rc::game_id.eq(game_id))
        .select(RatingChangeRow::as_select())
        .load(conn)
}

/// A player's rating history, newest first.
pub fn changes_of_user(
    conn: &mut DbConnection,
    user_id: &str,
    limit: i64,
    offset: i64,
) -> QueryResult<Vec<RatingChangeRow>> {
    rc::table
        .filter(rc::user_id.eq(user_id))
        .order((rc::created_at.desc(), rc::game_id.desc()))
        .limit(limit)
        .offset(offset)
        .select(RatingChangeRow::as_select())
        .load(conn)
}

/// The best-rated players with at least `min_games` counted rated games
/// against at least `min_opponents` distinct opponents, best first, with
/// their usernames and bot levels.
pub fn leaderboard(
    conn: &mut DbConnection,
    min_games: i32,
    min_opponents: i32,
    limit: i64,
    offset: i64,
) -> QueryResult<Vec<(RatingRow, String, Option<i32>)>> {
    r::table
        .inner_join(users::table.on(users::id.eq(r::user_id)))
        .filter(r::games.ge(min_games))
        .filter(r::opponents.ge(min_opponents))
        .order((r::display.desc(), r::user_id.asc()))
        .limit(limit)
        .offset(offset)
        .select((RatingRow::as_select(), users::username, users::bot_level))
        .load(conn)
}

/// The games `user_id`'s rating counted that finished after `since`.
pub fn counted_games_since(
    conn: &mut DbConnection,
    user_id: &str,
    since: NaiveDateTime,
) -> QueryResult<Vec<GameId>> {
    rc::table
        .filter(rc::user_id.eq(user_id))
        .filter(rc::uncounted.is_null())
        .filter(rc::created_at.gt(since))
        .select(rc::game_id)
        .load(conn)
}

/// The distinct opponents of `user_id` in the rated games that counted.
pub fn distinct_opponents(conn: &mut DbConnection, user_id: &str) -> QueryResult<i32> {
    let games: Vec<GameId> = rc::table
        .filter(rc::user_id.eq(user_id))
        .filter(rc::uncounted.is_null())
        .select(rc::game_id)
        .load(conn)?;
    let mut others: Vec<UserId> = rc::table
        .filter(rc::game_id.eq_any(&games))
        .filter(rc::user_id.ne(user_id))
        .select(rc::user_id)
        .load(conn)?;
    others.sort();
    others.dedup();
    Ok(i32::try_from(others.len()).unwrap_or(i32::MAX))
}

/// The moves each seat made in the game: (seat, moves).
pub fn moves_per_seat(conn: &mut DbConnection, game_id: &str) -> QueryResult<Vec<(String, i64)>> {
    use super::schema::game_actions as ga;
    ga::table
        .filter(ga::game_id.eq(game_id))
        .filter(ga::kind.eq("move"))
        .filter(ga::seat.is_not_null())
        .group_by(ga::seat)
        .select((ga::seat.assume_not_null(), diesel::dsl::count_star()))
        .load(conn)
}

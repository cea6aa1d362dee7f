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

/// The best-rated players with at least `min_games` rated games, best first,
/// with their usernames and bot levels.
pub fn leaderboard(
    conn: &mut DbConnection,
    min_games: i32,
    limit: i64,
    offset: i64,
) -> QueryResult<Vec<(RatingRow, String, Option<i32>)>> {
    r::table
        .inner_join(users::table.on(users::id.eq(r::user_id)))
        .filter(r::games.ge(min_games))
        .order((r::display.desc(), r::user_id.asc()))
        .limit(limit)
        .offset(offset)
        .select((RatingRow::as_select(), users::username, users::bot_level))
        .load(conn)
}

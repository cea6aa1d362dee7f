//! Queries for time: gifts of time (`time_gifts`) and vacations (`users`).

use crate::domain::GameId;
use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::schema::{game_seats, games, time_gifts, users};
use super::DbConnection;
use crate::games::states::{SeatState, Status};

/// Time one player gave another at a ply.
#[derive(Debug, Clone, Queryable, Insertable)]
#[diesel(table_name = time_gifts)]
pub struct TimeGiftRow {
    pub game_id: GameId,
    pub ply: i32,
    pub from_seat: String,
    pub to_seat: String,
    pub seconds: i64,
    pub created_at: NaiveDateTime,
}

/// Records a gift; the key `(game, ply, from_seat)` refuses a second one
/// from the same seat in the same turn.
pub fn insert_gift(conn: &mut DbConnection, gift: &TimeGiftRow) -> QueryResult<()> {
    diesel::insert_into(time_gifts::table)
        .values(gift)
        .execute(conn)
        .map(drop)
}

/// The seconds given to `to_seat` in the game since its last move (all of
/// them if it has not moved): what its current or next turn holds of gifts.
pub fn given_since_last_move(
    conn: &mut DbConnection,
    game_id: &str,
    to_seat: &str,
) -> QueryResult<i64> {
    use super::schema::game_actions as ga;
    let last_move: Option<i32> = ga::table
        .filter(ga::game_id.eq(game_id))
        .filter(ga::seat.eq(to_seat))
        .filter(ga::kind.eq("move"))
        .select(diesel::dsl::max(ga::ply))
        .first(conn)?;
    let seconds: Vec<i64> = time_gifts::table
        .filter(time_gifts::game_id.eq(game_id))
        .filter(time_gifts::to_seat.eq(to_seat))
        .filter(time_gifts::ply.gt(last_move.unwrap_or(0)))
        .select(time_gifts::seconds)
        .load(conn)?;
    Ok(seconds.into_iter().sum())
}

/// Active games where vacations stop the clock and `user_id` plays, in id
/// order (the order they are locked in).
pub fn vacation_games_of(conn: &mut DbConnection, user_id: &str) -> QueryResult<Vec<String>> {
    games::table
        .inner_join(game_seats::table.on(game_seats::game_id.eq(games::id)))
        .filter(game_seats::user_id.eq(user_id))
        .filter(game_seats::state.eq(SeatState::Joined))
        .filter(games::status.eq(Status::Active))
        .filter(games::vacation.eq(true))
        .select(games::id)
        .order(games::id.asc())
        .load(conn)
}

/// Starts a vacation, unless one is under way. Returns whether it did.
pub fn start_vacation(
    conn: &mut DbConnection,
    user_id: &str,
    credit: i64,
    now: NaiveDateTime,
    until: NaiveDateTime,
) -> QueryResult<bool> {
    diesel::update(
        users::table
            .find(user_id)
            .filter(users::vacation_until.is_null()),
    )
    .set((
        users::vacation_credit.eq(credit),
        users::vacation_credit_at.eq(now),
        users::vacation_started_at.eq(now),
        users::vacation_until.eq(until),
    ))
    .execute(conn)
    .map(|n| n == 1)
}

/// Ends the vacation that was to last until `until`, with the credit held
/// now (when days come back) or unchanged. Returns whether it did (another
/// request may have ended it first).
pub fn end_vacation(
    conn: &mut DbConnection,
    user_id: &str,
    until: NaiveDateTime,
    credit: Option<(i64, NaiveDateTime)>,
) -> QueryResult<bool> {
    let target = users::table
        .find(user_id)
        .filter(users::vacation_until.eq(until));
    let n = match credit {
        Some((credit, at)) => diesel::update(target)
            .set((
                users::vacation_credit.eq(credit),
                users::vacation_credit_at.eq(at),
                users::vacation_started_at.eq(None::<NaiveDateTime>),
                users::vacation_until.eq(None::<NaiveDateTime>),
            ))
            .execute(conn)?,
        None => diesel::update(target)
            .set((
                users::vacation_started_at.eq(None::<NaiveDateTime>),
                users::vacation_until.eq(None::<NaiveDateTime>),
            ))
            .execute(conn)?,
    };
    Ok(n == 1)
}

/// Accounts whose vacation ended by `now`, with its end.
pub fn vacations_over(
    conn: &mut DbConnection,
    now: NaiveDateTime,
    limit: i64,
) -> QueryResult<Vec<(String, NaiveDateTime)>> {
    users::table
        .filter(users::vacation_until.le(now))
        .select((users::id, users::vacation_until.assume_not_null()))
        .limit(limit)
        .load(conn)
}

//! Queries on table talk: `chat_messages`, `chat_mutes` and `game_notes`.

use crate::domain::{GameId, UserId};
use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::schema::{chat_messages as cm, chat_mutes as mu, game_notes as gn};
use super::DbConnection;

/// A message as stored: to the whole table when `to_seat` is None; else
/// private, to the account `to_user_id` (None: to nobody but its writer, for
/// messages written before recipients were stored whose seat was not yet
/// taken).
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
    pub to_user_id: Option<UserId>,
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

/// The messages `reader` may read: to the table, or private from or to them.
fn visible_to<'a>(
    game_id: &'a str,
    reader: &'a str,
) -> cm::BoxedQuery<'a, <DbConnection as Connection>::Backend> {
    cm::table
        .filter(cm::game_id.eq(game_id))
        .filter(
            cm::to_seat
                .is_null()
                .or(cm::user_id.eq(reader))
                .or(cm::to_user_id.eq(reader)),
        )
        .into_boxed()
}

/// The messages `reader` may read after the first `skip` of them, oldest
/// first, at most `limit`. Readers number what they may read 1, 2, 3…, so the
/// numbers say nothing of private messages between the other two.
pub fn visible_page(
    conn: &mut DbConnection,
    game_id: &str,
    reader: &str,
    skip: i64,
    limit: i64,
) -> QueryResult<Vec<ChatRow>> {
    visible_to(game_id, reader)
        .order(cm::n.asc())
        .offset(skip)
        .limit(limit)
        .select(ChatRow::as_select())
        .load(conn)
}

/// The number `reader` knows message `n` by: how many of the messages they
/// may read are numbered `n` or lower in the game.
pub fn number_for(
    conn: &mut DbConnection,
    game_id: &str,
    reader: &str,
    n: i32,
) -> QueryResult<i32> {
    visible_to(game_id, reader)
        .filter(cm::n.le(n))
        .count()
        .get_result::<i64>(conn)
        .map(|c| i32::try_from(c).unwrap_or(i32::MAX))
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

//! Queries on `premoves`.

use crate::domain::{GameId, UserId};
use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::schema::premoves as pm;
use super::DbConnection;

/// A player's premoves in a game: what remains of their lines from `from_ply`.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = pm)]
pub struct PremoveRow {
    pub game_id: GameId,
    pub user_id: UserId,
    pub seat: String,
    pub from_ply: i32,
    pub lines: String,
    pub updated_at: NaiveDateTime,
}

/// Every player's premoves in the game.
pub fn of_game(conn: &mut DbConnection, game_id: &str) -> QueryResult<Vec<PremoveRow>> {
    pm::table
        .filter(pm::game_id.eq(game_id))
        .order(pm::user_id.asc())
        .select(PremoveRow::as_select())
        .load(conn)
}

/// One player's premoves in the game.
pub fn of_player(
    conn: &mut DbConnection,
    game_id: &str,
    user_id: &str,
) -> QueryResult<Option<PremoveRow>> {
    pm::table
        .filter(pm::game_id.eq(game_id))
        .filter(pm::user_id.eq(user_id))
        .select(PremoveRow::as_select())
        .first(conn)
        .optional()
}

/// Stores a player's premoves in place of what they had.
pub fn replace(conn: &mut DbConnection, row: &PremoveRow) -> QueryResult<()> {
    remove(conn, &row.game_id, &row.user_id)?;
    diesel::insert_into(pm::table)
        .values(row)
        .execute(conn)
        .map(drop)
}

/// Removes a player's premoves; answers whether there were any.
pub fn remove(conn: &mut DbConnection, game_id: &str, user_id: &str) -> QueryResult<bool> {
    diesel::delete(
        pm::table
            .filter(pm::game_id.eq(game_id))
            .filter(pm::user_id.eq(user_id)),
    )
    .execute(conn)
    .map(|n| n > 0)
}

/// Removes everyone's premoves in the game.
pub fn clear_game(conn: &mut DbConnection, game_id: &str) -> QueryResult<()> {
    diesel::delete(pm::table.filter(pm::game_id.eq(game_id)))
        .execute(conn)
        .map(drop)
}

//! What live streams show: a person's events after a point, and a game's
//! state each time it changes. The streams themselves (framing, wake-ups,
//! limits) are the edge's; these are the reads they make.

use chrono::NaiveDateTime;

use super::events::{GameResult, LastMove};
use super::listing::{self, EventEntry};
use super::model::Status;
use super::{GameError, Games};
use crate::db::{self, live::Cursor};
use crate::domain::{GameId, UserId};

/// Where a stream of the caller's events starts: after the event `after`
/// (one of theirs), or after everything they have so far; with the id of the
/// event it starts after, if any.
pub async fn events_start(
    games: &Games,
    caller: &UserId,
    after: Option<String>,
) -> Result<(Cursor, Option<String>), GameError> {
    let caller = caller.to_owned();
    db::run(&games.pool, move |conn| match after {
        Some(after) => Ok((listing::event_cursor(conn, &caller, &after)?, Some(after))),
        None => Ok(db::live::latest_cursor(conn, &caller)?),
    })
    .await
}

/// The caller's events after `cursor`, at most `limit`, in stream order.
pub async fn events_since(
    games: &Games,
    caller: &UserId,
    cursor: Cursor,
    limit: i64,
) -> Result<Vec<EventEntry>, GameError> {
    let caller = caller.to_owned();
    db::run(&games.pool, move |conn| {
        listing::entries_after(conn, &caller, cursor, None, limit)
    })
    .await
}

/// A game as it stands after a change.
#[derive(Debug, Clone)]
pub struct GameChange {
    pub game_id: String,
    /// Counts every change of the game.
    pub version: i32,
    pub status: Status,
    pub ply: i32,
    /// The seat to move, while the game is active.
    pub to_move: Option<String>,
    pub position: String,
    pub last_move: Option<LastMove>,
    pub last_move_at: Option<NaiveDateTime>,
    pub result: Option<GameResult>,
    pub updated_at: NaiveDateTime,
}

/// The game as it stands, if it has changed since `version` (always, when
/// `version` is `None`). Reads the game row and its last move, no replay.
pub async fn game_change(
    games: &Games,
    game_id: &GameId,
    version: Option<i32>,
) -> Result<Option<GameChange>, GameError> {
    let game_id = game_id.clone();
    db::run(&games.pool, move |conn| {
        let Some(db::games::StoredGame { row, .. }) = db::games::find_game(conn, &game_id, false)?
        else {
            return Err(GameError::GameNotFound);
        };
        if version.is_some_and(|v| row.version <= v) {
            return Ok(None);
        }
        let last = db::games::last_move(conn, &game_id)?;
        Ok(Some(GameChange {
            result: listing::stored_result(&row)?,
            game_id: row.id.to_string(),
            version: row.version,
            status: row.status,
            ply: row.ply,
            to_move: row.to_move.filter(|_| row.status == Status::Active),
            position: row.position,
            last_move_at: last.as_ref().map(|a| a.created_at),
            last_move: last.map(|a| LastMove {
                notation: a.notation,
                seat: a.seat,
                ply: a.ply,
            }),
            updated_at: row.updated_at,
        }))
    })
    .await
}

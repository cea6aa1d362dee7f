//! Each player's private notes on a game: plans, analysis, what was agreed at
//! the table. Shown to no one but their writer.

use crate::domain::{GameId, UserId};
use chrono::NaiveDateTime;

use crate::db;

use super::model::{load, load_for_update, Loaded};
use super::{GameError, Games};

/// The longest notes, in characters.
pub const MAX_CHARS: usize = 10_000;

/// A player's notes and when they last changed (never, if empty).
pub struct Notes {
    pub text: String,
    pub updated_at: Option<NaiveDateTime>,
}

/// Whether the caller may keep notes on the game: its players, and whoever
/// imported or created it.
fn may_keep_notes(g: &Loaded, user_id: &str) -> Result<(), GameError> {
    let creator = g.row.created_by.as_deref() == Some(user_id);
    if creator || g.joined_seat(user_id).is_ok() {
        Ok(())
    } else {
        Err(GameError::NotAPlayer)
    }
}

/// The caller's notes on the game.
pub async fn read_notes(
    games: &Games,
    caller: &UserId,
    game_id: &GameId,
) -> Result<Notes, GameError> {
    let (caller, id) = (caller.to_owned(), game_id.to_owned());
    db::run(&games.pool, move |conn| {
        let g = load(conn, &id)?;
        may_keep_notes(&g, &caller)?;
        let found = db::chat::notes(conn, &id, &caller)?;
        Ok(match found {
            Some((text, at)) => Notes {
                text,
                updated_at: Some(at),
            },
            None => Notes {
                text: String::new(),
                updated_at: None,
            },
        })
    })
    .await
}

/// Replaces the caller's notes on the game (empty text removes them).
pub async fn write_notes(
    games: &Games,
    caller: &UserId,
    game_id: &GameId,
    text: String,
    now: NaiveDateTime,
) -> Result<Notes, GameError> {
    let n = text.chars().count();
    if n > MAX_CHARS {
        return Err(GameError::invalid(
            "text",
            "length",
            format!("must be at most {MAX_CHARS} characters (it has {n})"),
        ));
    }
    if text.contains('\0') {
        return Err(GameError::invalid(
            "text",
            "control-character",
            "must not hold NUL characters",
        ));
    }
    let (caller, id) = (caller.to_owned(), game_id.to_owned());
    db::run(&games.pool, move |conn| {
        db::write_transaction(conn, |conn| {
            // The game's lock orders two writes of the same notes.
            let g = load_for_update(conn, &id)?;
            may_keep_notes(&g, &caller)?;
            db::chat::set_notes(conn, &id, &caller, &text, now)?;
            let updated_at = (!text.is_empty()).then_some(now);
            Ok(Notes { text, updated_at })
        })
    })
    .await
}

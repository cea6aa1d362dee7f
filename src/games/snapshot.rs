//! A game's snapshot: what the rules and the game's view need to take it up
//! again without replaying its actions, stored as JSON in `games.snapshot`
//! and written in the same transaction as the game row.
//!
//! - the positions that occurred, with their counts (R31), as the base64 of
//!   [`Repetitions::to_bytes`];
//! - the outcome, which a position string has no field for;
//! - who was eliminated, how, by whom and at which action;
//! - the last move, for the view and the "your turn" event.
//!
//! A game stored before snapshots (NULL) is replayed when loaded, and its
//! snapshot filled by a background pass (`fill_missing`) or its next change.
//! Replaying stays the truth: `model::load_history` replays and fails, naming
//! the game, if the stored snapshot disagrees.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use chrono::{NaiveDateTime, SubsecRound as _};
use serde::{Deserialize, Serialize};

use crate::db::games::ActionRow;
use crate::db::{self, DbConnection};
use crate::rules::{Game, GameRecordEntry, Outcome, Repetitions};

use super::events::Effect;
use super::model::{load_history, ActionKind};
use super::GameError;

/// A seat that left the game, and how.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Eliminated {
    pub seat: String,
    /// `checkmate`, `no_legal_move`, `resigned` or `timed_out`.
    pub reason: String,
    /// The mating seat, for checkmates.
    pub by: Option<String>,
    /// The action that caused it.
    pub seq: i32,
}

/// The last move played.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LatestMove {
    pub notation: String,
    pub seat: Option<String>,
    pub ply: Option<i32>,
    pub at: NaiveDateTime,
}

impl LatestMove {
    fn of(a: &ActionRow) -> LatestMove {
        LatestMove {
            notation: a.notation.clone(),
            seat: a.seat.clone(),
            ply: a.ply,
            // As the action row keeps it on PostgreSQL, so a snapshot made as
            // the move is stored equals one made by replaying it later.
            at: a.created_at.trunc_subsecs(6),
        }
    }
}

/// What a game's view needs of its history: kept up to date action by
/// action, stored in the snapshot.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Standing {
    pub eliminations: Vec<Eliminated>,
    pub last_move: Option<LatestMove>,
}

impl Standing {
    /// Takes in one more action: its stored row and what the rules did.
    pub fn record(&mut self, row: &ActionRow, entry: &GameRecordEntry) {
        for e in &entry.events {
            if let Effect::PlayerEliminated { seat, reason, by } = Effect::of(e) {
                self.eliminations.push(Eliminated {
                    seat,
                    reason,
                    by,
                    seq: row.seq,
                });
            }
        }
        if row.kind == ActionKind::Move {
            self.last_move = Some(LatestMove::of(row));
        }
    }
}

/// A game's snapshot, read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    pub repetitions: Repetitions,
    pub outcome: Option<Outcome>,
    pub standing: Standing,
}

/// The stored form, versioned so a later form can tell it apart.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Stored {
    v: u8,
    repetitions: String,
    outcome: Option<String>,
    eliminations: Vec<Eliminated>,
    last_move: Option<LatestMove>,
}

impl Snapshot {
    /// The snapshot stored for game `game_id`; one that does not parse is an
    /// error naming the game.
    pub fn parse(text: &str, game_id: &str) -> Result<Snapshot, GameError> {
        let bad = |why: String| {
            GameError::Internal(anyhow::anyhow!(
                "stored snapshot of game {game_id} does not parse: {why}"
            ))
        };
        let s: Stored = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        if s.v != 1 {
            return Err(bad(format!("unknown version {}", s.v)));
        }
        let bytes = STANDARD
            .decode(&s.repetitions)
            .map_err(|e| bad(format!("repetitions: {e}")))?;
        let repetitions = Repetitions::from_bytes(&bytes)
            .ok_or_else(|| bad("repetitions: not a table of positions".into()))?;
        let outcome = match &s.outcome {
            Some(o) => Some(Outcome::parse(o).ok_or_else(|| bad(format!("outcome {o:?}")))?),
            None => None,
        };
        Ok(Snapshot {
            repetitions,
            outcome,
            standing: Standing {
                eliminations: s.eliminations,
                last_move: s.last_move,
            },
        })
    }

    /// The text to store for `game` with `standing`.
    pub fn text_of(game: &Game, standing: &Standing) -> String {
        serde_json::to_string(&Stored {
            v: 1,
            repetitions: STANDARD.encode(game.repetitions().to_bytes()),
            outcome: game.outcome().map(|o| o.to_string()),
            eliminations: standing.eliminations.clone(),
            last_move: standing.last_move.clone(),
        })
        .expect("snapshots serialize")
    }
}

/// Fills the snapshot of up to `batch` games stored without one, each
/// replayed in its own transaction; answers how many were filled. Safe in
/// every process at once: a snapshot is only written where none is.
pub fn fill_missing(conn: &mut DbConnection, batch: i64) -> Result<usize, GameError> {
    let ids = db::games::games_without_snapshot(conn, batch)?;
    let mut filled = 0;
    for id in ids {
        let done = db::write_transaction(conn, |conn| {
            let h = load_history(conn, &id)?;
            Ok::<_, GameError>(db::games::fill_snapshot(
                conn,
                &id,
                &h.game.snapshot_text(),
            )?)
        });
        match done {
            Ok(true) => filled += 1,
            Ok(false) => {}
            // A game whose actions do not replay stays as it is, and says so.
            Err(e) => tracing::error!(game = %id, error = %e, "cannot fill the game's snapshot"),
        }
    }
    Ok(filled)
}

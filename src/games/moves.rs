//! Playing: moves and resignations (R35).

use crate::domain::{GameId, UserId};
use chrono::NaiveDateTime;

use crate::db::{self, DbConnection};
use crate::rules::{Action, IllegalKind, Move};

use super::journal::{append, append_alone, Alone};
use super::model::GameState;
use super::model::{load, load_for_update, seat_name, Loaded, Status, Waiting};
use super::{GameError, Games, Settings};

/// The result of a move submission: the game after it, and whether this request
/// stored it (false when it repeats a move already stored).
pub struct Played {
    pub game: Loaded,
    pub created: bool,
}

/// Plays a move for the caller at the ply it names, inside the caller's
/// write transaction.
fn play(
    conn: &mut DbConnection,
    settings: &Settings,
    user_id: &str,
    game_id: &str,
    submission: &MoveSubmission,
    now: NaiveDateTime,
) -> Result<Played, GameError> {
    let (move_text, ply) = (submission.notation.as_str(), submission.ply);
    {
        let mut g = load_for_update(conn, game_id)?;
        let seat = g.joined_seat(user_id)?;
        if g.seat(seat).vacation_until.is_some_and(|u| u > now)
            && g.position().to_move() == Some(seat)
            && g.status() == Status::Active
        {
            // A move ends the mover's vacation, in every game; this one changed too.
            super::vacation::end_for_move(conn, settings, user_id, now)?;
            g = load_for_update(conn, game_id)?;
        }
        let mv = Move::parse(move_text).map_err(|e| {
            GameError::Illegal(crate::rules::Illegal {
                kind: IllegalKind::Malformed,
                message: e.to_string(),
            })
        })?;
        // The same move for the same ply again: answer as the first time, store nothing.
        let current = g.position().ply() as i64;
        if (1..current).contains(&ply) {
            let done = db::games::move_at_ply(conn, game_id, ply as i32)?;
            if done.is_some_and(|d| {
                d.notation == mv.to_string() && d.user_id.as_deref() == Some(user_id)
            }) {
                return Ok(Played {
                    game: g,
                    created: false,
                });
            }
        }
        match g.status() {
            Status::Finished => return Err(GameError::GameOver),
            Status::Active => {}
            other => {
                return Err(GameError::State(format!(
                    "the game is {}; moves are played once it is active",
                    other.as_str()
                )))
            }
        }
        if ply != current {
            return Err(GameError::Stale(format!(
                "ply {ply} is not the next move: the game is at ply {current}; reload it"
            )));
        }
        if g.position().to_move() != Some(seat) {
            let whose = g
                .position()
                .to_move()
                .map_or("nobody's".to_string(), |p| format!("{}'s", seat_name(p)));
            return Err(GameError::Illegal(crate::rules::Illegal {
                kind: IllegalKind::NotYourTurn,
                message: format!("it is {whose} turn, not yours ({})", seat_name(seat)),
            }));
        }
        let mut next = append(conn, settings, &g, Action::Move(mv), Some(user_id), now)?;
        // A draw offered with the move (R36), unless the game ended or the
        // mover already accepted the offer that stands.
        let accepted = next
            .draw_offer()?
            .is_some_and(|o| o.accepted.contains(seat));
        // (Premoves the move led to may have ended the game or the mover.)
        let alive = !next.position().is_over() && next.position().is_alive(seat);
        if submission.offer_draw && alive && !accepted {
            next = super::draws::offer(conn, settings, next, seat, now)?;
        }
        Ok(Played {
            game: next,
            created: true,
        })
    }
}

/// [`play`] without a transaction, where the move is one of the many that
/// write nothing but the game row, the move and its events (see
/// `journal::append_alone`): the game as this process last stored it
/// (`games::cache`, on the database `database`) or else read as it stands,
/// then one statement that stores the move only if the game is still so.
/// Nothing is left to read for the answer (no proposal waits and the game
/// goes on), so once the move is stored nothing can fail. `None` when the
/// move is not such a move, or the game changed in between: then [`play`]
/// does it in a transaction, and answers every other case as it should
/// (a repeated move, a stale ply, an illegal move, a vacation to end).
/// Else the answer, and the game to keep.
fn play_alone(
    conn: &mut DbConnection,
    settings: &Settings,
    database: Option<&str>,
    user_id: &str,
    game_id: &str,
    submission: &MoveSubmission,
    now: NaiveDateTime,
) -> Result<Option<(GameState, Loaded)>, GameError> {
    if let Some(kept) = database.and_then(|d| super::cache::take(d, game_id)) {
        match play_quietly(conn, settings, &kept, user_id, submission, now)? {
            Alone::Stored(next) => return stored(conn, *next).map(Some),
            // What was kept may be behind: the game decides.
            Alone::Changed | Alone::Unfit => {}
        }
    }
    let g = load(conn, game_id)?;
    match play_quietly(conn, settings, &g, user_id, submission, now)? {
        Alone::Stored(next) => stored(conn, *next).map(Some),
        Alone::Changed | Alone::Unfit => Ok(None),
    }
}

/// The caller's move in `g`, by `journal::append_alone`, if nothing but the
/// move happens: the caller's turn at the ply named, with no vacation to
/// end, no draw offered or standing, and no premoves or proposals waiting.
fn play_quietly(
    conn: &mut DbConnection,
    settings: &Settings,
    g: &Loaded,
    user_id: &str,
    submission: &MoveSubmission,
    now: NaiveDateTime,
) -> Result<Alone, GameError> {
    let Ok(seat) = g.joined_seat(user_id) else {
        return Ok(Alone::Unfit);
    };
    let quiet = g.row_stamp.is_some()
        && g.status() == Status::Active
        && g.position().ply() as i64 == submission.ply
        && g.position().to_move() == Some(seat)
        && g.seat(seat).vacation_until.is_none_or(|u| u <= now)
        && !submission.offer_draw
        && g.row.draw_offer.is_none()
        && g.waiting == Waiting::NONE;
    let Some(mv) = quiet
        .then(|| Move::parse(&submission.notation).ok())
        .flatten()
    else {
        return Ok(Alone::Unfit);
    };
    append_alone(conn, settings, g, Action::Move(mv), Some(user_id), now)
}

/// The answer for a game just stored by [`append_alone`], and the game.
fn stored(conn: &mut DbConnection, next: Loaded) -> Result<(GameState, Loaded), GameError> {
    Ok((answer(conn, next.clone())?, next))
}

/// The state to answer with, read in the change's own transaction: once it
/// has committed, nothing is left that could fail and turn a stored move
/// into an error.
fn answer(conn: &mut DbConnection, game: Loaded) -> Result<GameState, GameError> {
    super::model::state_of(conn, game)
}

/// The caller resigns (R35), inside the caller's write transaction.
fn resign(
    conn: &mut DbConnection,
    settings: &Settings,
    user_id: &str,
    game_id: &str,
    now: NaiveDateTime,
) -> Result<Loaded, GameError> {
    let g = load_for_update(conn, game_id)?;
    let seat = g.joined_seat(user_id)?;
    match g.status() {
        Status::Finished => return Err(GameError::GameOver),
        Status::Active => {}
        other => {
            return Err(GameError::State(format!(
                "the game is {}; cancel or decline instead",
                other.as_str()
            )))
        }
    }
    append(conn, settings, &g, Action::Resign(seat), Some(user_id), now)
}

/// A move to play: its R33 notation and the ply the caller believes is next.
#[derive(Debug, Clone)]
pub struct MoveSubmission {
    pub notation: String,
    pub ply: i64,
    /// Offer a draw (R36) with the move.
    pub offer_draw: bool,
}

/// Plays the caller's move. The same move for the same ply again changes
/// nothing and answers the same.
pub async fn play_move(
    games: &Games,
    caller: &UserId,
    game_id: &GameId,
    submission: MoveSubmission,
    now: NaiveDateTime,
) -> Result<GameState, GameError> {
    let (settings, caller, id) = (games.settings, caller.to_owned(), game_id.to_owned());
    db::run(&games.pool, move |conn| {
        let database = db::database_url(conn);
        let alone = db::outside_transaction(conn, |conn| {
            let database = database.as_deref();
            play_alone(conn, &settings, database, &caller, &id, &submission, now)
        })?;
        if let Some((state, next)) = alone {
            // Kept once the write's news went round (which forgets the game).
            if let Some(database) = &database {
                super::cache::keep(database, next);
            }
            return Ok(state);
        }
        db::write_transaction(conn, |conn| {
            let played = play(conn, &settings, &caller, &id, &submission, now)?;
            answer(conn, played.game)
        })
    })
    .await
}

/// The caller resigns (R35); the others play on.
pub async fn resign_game(
    games: &Games,
    caller: &UserId,
    game_id: &GameId,
    now: NaiveDateTime,
) -> Result<GameState, GameError> {
    let (settings, caller, id) = (games.settings, caller.to_owned(), game_id.to_owned());
    db::run(&games.pool, move |conn| {
        db::write_transaction(conn, |conn| {
            let game = resign(conn, &settings, &caller, &id, now)?;
            answer(conn, game)
        })
    })
    .await
}

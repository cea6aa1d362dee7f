//! Deadlines: time-outs (R35) and the reminder before them.

use chrono::NaiveDateTime;

use crate::db::{self, DbConnection};
use crate::rules::Action;

use super::events::{self, emit, GameEvent, Players};
use super::journal::{append, lost_race_is_nothing_to_do, save};
use super::model::{load_for_update, seat_name, Status};
use super::{GameError, Settings};

/// Ends the turn of a player whose time ran out (R35). Returns false when there was
/// nothing to do: the game moved on, or another process did it first.
pub fn time_out(
    conn: &mut DbConnection,
    settings: &Settings,
    game_id: &str,
    now: NaiveDateTime,
) -> Result<bool, GameError> {
    let r = db::write_transaction(conn, |conn| {
        let g = load_for_update(conn, game_id)?;
        let overdue = g.status() == Status::Active && g.row.deadline.is_some_and(|d| d <= now);
        let Some(p) = g.position().to_move().filter(|_| overdue) else {
            return Ok(false);
        };
        append(conn, settings, &g, Action::TimeOut(p), None, now)?;
        Ok(true)
    });
    lost_race_is_nothing_to_do(r)
}

/// Writes the one reminder of a turn whose deadline is near. Returns whether it did.
pub fn remind(
    conn: &mut DbConnection,
    settings: &Settings,
    game_id: &str,
    now: NaiveDateTime,
) -> Result<bool, GameError> {
    let r = db::write_transaction(conn, |conn| {
        let mut g = load_for_update(conn, game_id)?;
        let Some((deadline, window)) = super::timing::reminder(&g, settings)? else {
            return Ok(false);
        };
        if g.status() != Status::Active || g.row.reminded_seq == Some(g.row.seq) || deadline <= now
        {
            return Ok(false);
        }
        if deadline - now > window {
            return Ok(false);
        }
        let Some(p) = g.position().to_move() else {
            return Ok(false);
        };
        g.row.reminded_seq = Some(g.row.seq);
        save(conn, &mut g, now)?;
        emit(
            conn,
            game_id,
            g.seat(p).user_id.as_deref(),
            GameEvent::DeadlineApproaching(events::DeadlineApproaching {
                seat: seat_name(p).to_owned(),
                ply: g.position().ply(),
                deadline: deadline.and_utc(),
                players: Players::of(&g),
            }),
            now,
        )?;
        Ok(true)
    });
    lost_race_is_nothing_to_do(r)
}

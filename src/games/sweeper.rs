//! The background sweep: time-outs (R35), deadline reminders and lapsed invitations.
//!
//! Every server process runs it, on the job queue's runner. Each change is one transaction that re-reads the game
//! and writes only if the game row's version is unchanged, and every action row has a
//! unique (game, seq) key, so when two processes reach the same expired deadline one
//! wins and the other finds nothing to do: each expiry acts exactly once. Deadlines
//! are read from the database, so a sweep after downtime catches up on everything
//! that expired meanwhile.

use chrono::NaiveDateTime;

use crate::db;

use super::GameError;
use super::{deadlines, lobby, Settings};

/// Games handled per query in one sweep.
const BATCH: i64 = 200;

/// What one sweep did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Swept {
    pub timed_out: usize,
    pub reminded: usize,
    pub expired: usize,
    pub vacations_over: usize,
}

/// One pass over everything due now.
pub fn sweep_once(
    conn: &mut db::DbConnection,
    settings: &Settings,
    now: NaiveDateTime,
) -> Result<Swept, GameError> {
    let mut swept = Swept::default();
    for id in db::games::overdue_games(conn, now, BATCH)? {
        swept.timed_out += deadlines::time_out(conn, settings, &id, now)? as usize;
    }
    let horizon = now + settings.day * 14;
    for g in db::games::games_due_before(conn, horizon, BATCH)? {
        swept.reminded += deadlines::remind(conn, settings, &g.id, now)? as usize;
    }
    for id in db::games::lapsed_open_games(conn, now, BATCH)? {
        swept.expired += lobby::expire(conn, &id, now)? as usize;
    }
    swept.vacations_over = super::vacation::close_over(conn, settings, now, BATCH)?;
    Ok(swept)
}

impl std::fmt::Display for Swept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "deadline sweep: {} timed out, {} reminded, {} expired, {} back from vacation",
            self.timed_out, self.reminded, self.expired, self.vacations_over
        )
    }
}

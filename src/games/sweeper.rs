//! The background sweep: time-outs (R35), deadline reminders and lapsed invitations.
//!
//! Every server process runs it. Each change is one transaction that re-reads the game
//! and writes only if the game row's version is unchanged, and every action row has a
//! unique (game, seq) key, so when two processes reach the same expired deadline one
//! wins and the other finds nothing to do: each expiry acts exactly once. Deadlines
//! are read from the database, so a sweep after downtime catches up on everything
//! that expired meanwhile.

use std::time::Duration as StdDuration;

use chrono::NaiveDateTime;

use crate::clock::Clock;

use crate::db::{self, Pool};

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
    Ok(swept)
}

/// Sweeps every `interval` until the process ends. Errors are logged and the next
/// tick tries again.
pub async fn run(pool: Pool, settings: Settings, interval: StdDuration, clock: Clock) {
    let mut tick = tokio::time::interval(interval);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let now = clock.now();
        let result = db::run(&pool, move |conn| sweep_once(conn, &settings, now)).await;
        match result {
            Ok(s) if s != Swept::default() => {
                tracing::info!(
                    timed_out = s.timed_out,
                    reminded = s.reminded,
                    expired = s.expired,
                    "deadline sweep"
                )
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %format!("{e:#}"), "deadline sweep failed"),
        }
    }
}

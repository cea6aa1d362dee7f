//! Correspondence games: the use cases behind `/api/v1/games`, one module per
//! capability, the outbox of game events, and the background sweep that
//! enforces deadlines.
//!
//! Each use case runs in one transaction where it writes, so the change, its
//! action row and its outbox events land together or not at all. Concurrent
//! writers (other requests, other server processes) are caught by the unique
//! (game, ply) and (game, seq) keys and by the game row's version.

pub mod alliances;
pub mod bot_turns;
pub mod bots;
pub mod cache;
pub mod chat;
pub mod clock;
pub mod deadlines;
pub mod draws;
mod error;
pub mod events;
pub mod gifts;
mod journal;
pub mod listing;
pub mod lobby;
pub mod model;
pub mod moves;
pub mod notes;
pub mod offers;
pub mod premoves;
pub mod ratings;
pub mod records;
pub mod snapshot;
pub mod states;
pub mod streams;
pub mod sweeper;
pub mod timing;
pub mod vacation;

pub use error::GameError;

use chrono::Duration;

/// What the game use cases run on: the database and the time rules.
#[derive(Clone)]
pub struct Games {
    pub pool: crate::db::Pool,
    pub settings: Settings,
}

/// Time rules of the service.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// How long a "day" of a time control lasts (a real day, except in tests and demos).
    pub day: Duration,
    /// How long invitations and open seats wait for players.
    pub open_for: Duration,
    /// How vacation is earned.
    pub vacation: VacationRules,
    /// What one account may hold and how often it may create games.
    pub limits: crate::domain::limits::Limits,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            day: Duration::days(1),
            open_for: Duration::days(14),
            vacation: VacationRules::default(),
            limits: crate::domain::limits::Limits::default(),
        }
    }
}

/// How accounts earn vacation: a day for every `earn_every`, holding at
/// most `max_days`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VacationRules {
    pub earn_every: Duration,
    pub max_days: i32,
}

impl Default for VacationRules {
    fn default() -> Self {
        VacationRules {
            earn_every: Duration::days(10),
            max_days: 30,
        }
    }
}

/// Time controls offered (days per move).
pub const DAYS_PER_MOVE: [i32; 7] = [1, 2, 3, 5, 7, 10, 14];

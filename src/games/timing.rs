//! A game's clocks as stored: the time control and each seat's clock live on
//! the game row (`time_control`, `clocks`, JSON) and change only with its
//! version. The one deadline they imply is `games.deadline`, computed here
//! by [`clock::runs_out`] whenever a clock changes; the time-out sweep, the
//! reminder and the list order read that column, so they cannot disagree.
//!
//! A seat's clock holds what was left when it last changed; the seat to move
//! also has `since`, the instant it counts from: the start of the turn, or
//! the end of its player's vacation (in the future while it lasts). Between
//! `since` and now only the time [`clock::counted`] counts is spent
//! (weekends off, in the player's own zone, when the game pauses them).

use chrono::{Duration, NaiveDateTime};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};

use crate::rules::Player;

use super::clock::{self, TimeControl};
use super::model::{seat_name, Loaded};
use super::{GameError, Settings};

/// One seat's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeatClock {
    /// Milliseconds left when it last changed (counted from `since` when it runs).
    pub remaining_ms: i64,
    /// For the seat to move: when its time starts to count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<NaiveDateTime>,
    /// For the seat to move, in a game that pauses on weekends: the zone
    /// its player had when the turn began. A change of zone takes effect
    /// from the player's next turn, so it cannot stretch a weekend already
    /// under way (or counted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zone: Option<Tz>,
}

impl SeatClock {
    pub fn remaining(&self) -> Duration {
        Duration::milliseconds(self.remaining_ms)
    }

    fn set(&mut self, d: Duration) {
        self.remaining_ms = d.num_milliseconds().max(0);
    }
}

/// The three clocks, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Clocks {
    pub first: SeatClock,
    pub middle: SeatClock,
    pub last: SeatClock,
}

impl Clocks {
    fn all(bank: Duration) -> Clocks {
        let c = SeatClock {
            remaining_ms: bank.num_milliseconds(),
            since: None,
            zone: None,
        };
        Clocks {
            first: c,
            middle: c,
            last: c,
        }
    }

    pub fn get(&self, p: Player) -> &SeatClock {
        match p {
            Player::First => &self.first,
            Player::Middle => &self.middle,
            Player::Last => &self.last,
        }
    }

    fn get_mut(&mut self, p: Player) -> &mut SeatClock {
        match p {
            Player::First => &mut self.first,
            Player::Middle => &mut self.middle,
            Player::Last => &mut self.last,
        }
    }
}

/// The time control stored in a game row; text that does not parse is an
/// error naming the game.
pub fn control_of(row: &crate::db::games::GameRow) -> Result<TimeControl, GameError> {
    serde_json::from_str(&row.time_control).map_err(|e| {
        GameError::Internal(anyhow::anyhow!(
            "stored time control of game {} does not parse: {e}",
            row.id
        ))
    })
}

impl Loaded {
    /// The game's time control; stored text that does not parse is an
    /// error naming the game.
    pub fn time_control(&self) -> Result<TimeControl, GameError> {
        control_of(&self.row)
    }

    /// The seats' clocks; `None` without a limit or before the start. A game
    /// stored before clocks were kept reads as every seat holding what the
    /// one to move had at the last change (per move, all the same), counting
    /// toward the stored deadline.
    pub fn clocks(&self) -> Result<Option<Clocks>, GameError> {
        if let Some(text) = &self.row.clocks {
            return serde_json::from_str(text).map(Some).map_err(|e| {
                GameError::Internal(anyhow::anyhow!(
                    "stored clocks of game {} do not parse: {e}",
                    self.row.id
                ))
            });
        }
        let Some(initial) = self.time_control()?.initial(Duration::days(1)) else {
            return Ok(None);
        };
        if self.row.started_at.is_none() {
            return Ok(None);
        }
        let since = self.row.updated_at;
        let bank = self
            .row
            .deadline
            .map_or(initial, |d| (d - since).max(Duration::zero()));
        let mut clocks = Clocks::all(bank);
        if let Some(p) = self.position().to_move() {
            clocks.get_mut(p).since = Some(since);
        }
        Ok(Some(clocks))
    }

    fn set_clocks(&mut self, clocks: Option<&Clocks>) {
        self.row.clocks = clocks.map(|c| serde_json::to_string(c).expect("clocks serialize"));
    }

    /// The zone whose weekends do not count for `p` (whose clock is `c`),
    /// when the game pauses them: the one fixed when the turn began, else the
    /// player's own. A stored zone that is not one is an error naming the seat.
    pub fn weekends_of(&self, p: Player, c: &SeatClock) -> Result<Option<Tz>, GameError> {
        if !self.row.pause_on_weekends {
            return Ok(None);
        }
        if let Some(zone) = c.zone {
            return Ok(Some(zone));
        }
        let zone = self.seat(p).time_zone.as_deref().unwrap_or("UTC");
        zone.parse().map(Some).map_err(|_| {
            GameError::Internal(anyhow::anyhow!(
                "the holder of seat {} of game {} has a stored time zone that is not one: {zone:?}",
                seat_name(p),
                self.row.id
            ))
        })
    }

    /// When `p`'s vacation ends, if one is under way at `now` and this game
    /// lets vacations stop the clock.
    pub fn vacation_of(&self, p: Player, now: NaiveDateTime) -> Option<NaiveDateTime> {
        self.seat(p)
            .vacation_until
            .filter(|until| self.row.vacation && *until > now)
    }

    /// When the clock of the seat to move runs out, as stored in the row.
    fn deadline_of(&self, clocks: &Clocks) -> Result<Option<NaiveDateTime>, GameError> {
        let Some(p) = self.position().to_move() else {
            return Ok(None);
        };
        let c = clocks.get(p);
        let Some(since) = c.since.filter(|_| self.seat(p).bot_level.is_none()) else {
            return Ok(None);
        };
        let tz = self.weekends_of(p, c)?;
        Ok(Some(
            clock::runs_out(since.and_utc(), c.remaining(), tz).naive_utc(),
        ))
    }

    /// What `p`'s clock holds at `now`, after what its running has spent.
    pub fn remaining_at(
        &self,
        clocks: &Clocks,
        p: Player,
        now: NaiveDateTime,
    ) -> Result<Duration, GameError> {
        let c = clocks.get(p);
        let spent = match c.since {
            Some(since) => clock::counted(since.and_utc(), now.and_utc(), self.weekends_of(p, c)?),
            None => Duration::zero(),
        };
        Ok((c.remaining() - spent).max(Duration::zero()))
    }

    /// Stores `clocks` and the deadline they imply.
    fn store(&mut self, clocks: Clocks) -> Result<(), GameError> {
        self.row.deadline = self.deadline_of(&clocks)?;
        self.set_clocks(Some(&clocks));
        Ok(())
    }

    /// Starts the clock of the seat to move at `now` (or at the end of its
    /// player's vacation). Computer players have no deadline.
    fn run_to_move(&self, clocks: &mut Clocks, now: NaiveDateTime) {
        if let Some(p) = self.position().to_move() {
            let from = self.vacation_of(p, now).unwrap_or(now);
            // (A stored zone that is not one is left to `weekends_of`,
            // which names it.)
            let zone = self
                .seat(p)
                .time_zone
                .as_deref()
                .filter(|_| self.row.pause_on_weekends)
                .and_then(|z| z.parse::<Tz>().ok());
            let c = clocks.get_mut(p);
            c.since = Some(from);
            c.zone = zone;
        }
    }
}

/// The game starts: every seat holds the control's initial time and the
/// first player's clock runs.
pub(super) fn start(
    g: &mut Loaded,
    settings: &Settings,
    now: NaiveDateTime,
) -> Result<(), GameError> {
    let Some(bank) = g.time_control()?.initial(settings.day) else {
        g.set_clocks(None);
        g.row.deadline = None;
        return Ok(());
    };
    let mut clocks = Clocks::all(bank);
    g.run_to_move(&mut clocks, now);
    g.store(clocks)
}

/// The turn passed from `was` (who moved when `moved`; or resigned, timed
/// out, or was eliminated) to whoever is to move now in `g`; or the game
/// ended, and every clock stops.
pub(super) fn pass_turn(
    g: &mut Loaded,
    settings: &Settings,
    was: Option<Player>,
    moved: bool,
    now: NaiveDateTime,
) -> Result<(), GameError> {
    let control = g.time_control()?;
    let Some(mut clocks) = g.clocks()? else {
        g.row.deadline = None;
        return Ok(());
    };
    if let Some(p) = was {
        let bank = clocks.get(p).remaining();
        let left = g.remaining_at(&clocks, p, now)?;
        let after = match moved {
            true => control
                .after_move(bank, bank - left, settings.day)
                .unwrap_or(left),
            false => left,
        };
        let c = clocks.get_mut(p);
        c.set(after);
        c.since = None;
        c.zone = None;
    }
    if g.position().is_over() {
        g.set_clocks(Some(&clocks));
        g.row.deadline = None;
        return Ok(());
    }
    g.run_to_move(&mut clocks, now);
    g.store(clocks)
}

/// How long before its deadline the player to move is reminded, and the
/// deadline: a fifth of what the clock held when the turn began, or a day
/// (at most half of it), whichever is longer.
pub(super) fn reminder(
    g: &Loaded,
    settings: &Settings,
) -> Result<Option<(NaiveDateTime, Duration)>, GameError> {
    let (Some(deadline), Some(p)) = (g.row.deadline, g.position().to_move()) else {
        return Ok(None);
    };
    let Some(clocks) = g.clocks()? else {
        return Ok(None);
    };
    let period = clocks.get(p).remaining();
    let window = std::cmp::max(period / 5, std::cmp::min(settings.day, period / 2));
    Ok(Some((deadline, window)))
}

/// Adds `amount` to `to`'s clock, within what the control lets a clock
/// hold (a Fischer bank never exceeds its maximum). Returns what was added.
pub(super) fn add(
    g: &mut Loaded,
    settings: &Settings,
    to: Player,
    amount: Duration,
    now: NaiveDateTime,
) -> Result<Duration, GameError> {
    let Some(mut clocks) = g.clocks()? else {
        return Err(GameError::State("this game has no clock".into()));
    };
    let cap = match g.time_control()? {
        TimeControl::Fischer { max_days, .. } => Some(settings.day * max_days as i32),
        _ => None,
    };
    let left = g.remaining_at(&clocks, to, now)?;
    let after = cap.map_or(left + amount, |cap| (left + amount).min(cap.max(left)));
    let c = clocks.get_mut(to);
    if let Some(since) = c.since {
        // Spent time is settled: the clock now counts from here.
        c.since = Some(since.max(now));
    }
    c.set(after);
    g.store(clocks)?;
    Ok(after - left)
}

/// `p` went on vacation until `until`: if their clock runs in this game, what
/// it spent so far is settled and it counts again from `until`.
pub(super) fn pause(
    g: &mut Loaded,
    p: Player,
    until: NaiveDateTime,
    now: NaiveDateTime,
) -> Result<(), GameError> {
    resettle(g, p, now, |_| until)
}

/// `p` came back early: a clock waiting for the vacation's end counts from `now`.
pub(super) fn resume(g: &mut Loaded, p: Player, now: NaiveDateTime) -> Result<(), GameError> {
    resettle(g, p, now, |since| since.min(now))
}

fn resettle(
    g: &mut Loaded,
    p: Player,
    now: NaiveDateTime,
    since: impl FnOnce(NaiveDateTime) -> NaiveDateTime,
) -> Result<(), GameError> {
    let Some(mut clocks) = g.clocks()? else {
        return Ok(());
    };
    let Some(was) = clocks.get(p).since else {
        return Ok(());
    };
    let left = g.remaining_at(&clocks, p, now)?;
    let c = clocks.get_mut(p);
    c.set(left);
    c.since = Some(since(was.max(now)));
    g.store(clocks)
}

/// A new game's time, checked: its control, whether weekends count, and
/// whether vacations stop its clocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameTime {
    pub control: TimeControl,
    pub pause_on_weekends: bool,
    pub vacation: bool,
}

impl GameTime {
    /// From a request's `days_per_move` (the per-move shorthand) or
    /// `time_control` (at most one of them; neither is no limit). Errors
    /// name the offending fields.
    pub fn new(
        days_per_move: Option<i32>,
        control: Option<TimeControl>,
        pause_on_weekends: bool,
        vacation: bool,
    ) -> Result<GameTime, Vec<crate::domain::FieldError>> {
        use crate::domain::FieldError;
        let control = match (days_per_move, control) {
            (Some(_), Some(_)) => {
                return Err(vec![FieldError::new(
                    "time_control",
                    "conflict",
                    "give either days_per_move or time_control, not both",
                )])
            }
            (Some(d), None) if !super::DAYS_PER_MOVE.contains(&d) => {
                return Err(vec![FieldError::new(
                    "days_per_move",
                    "invalid",
                    "must be 1, 2, 3, 5, 7, 10 or 14 (or null for unlimited)",
                )])
            }
            (Some(d), None) => TimeControl::PerMove { days: d as u32 },
            (None, Some(c)) => c.checked("time_control")?,
            (None, None) => TimeControl::Unlimited,
        };
        Ok(GameTime {
            control,
            pause_on_weekends,
            vacation,
        })
    }

    /// What `days_per_move` shows: the days of a per-move control.
    pub fn days_per_move(&self) -> Option<i32> {
        match self.control {
            TimeControl::PerMove { days } => Some(days as i32),
            _ => None,
        }
    }

    pub fn control_text(&self) -> String {
        serde_json::to_string(&self.control).expect("time controls serialize")
    }
}

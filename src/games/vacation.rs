//! Vacation: an account earns days over time (one for every
//! `VacationRules::earn_every`, holding at most `max_days`) and spends them in
//! whole days. While a vacation lasts, the player's clock stands still in
//! every game that lets vacations stop it: the clock of a turn counts from
//! the vacation's end (`timing::pause`), and a turn that begins during it
//! starts counting then. Ending it early (or moving, in any game) gives the
//! unused whole days back and the clocks count from that moment; one that
//! runs out is closed by the sweep. Opponents hear of both in every game.

use crate::domain::UserId;
use chrono::{Duration, NaiveDateTime, SubsecRound};

use crate::db::models::User;
use crate::db::{self, DbConnection};
use crate::rules::Player;

use super::events::{self, emit, GameEvent, Players};
use super::journal::save;
use super::model::{load_for_update, Loaded};
use super::{GameError, Games, Settings};

/// An account's vacation days and the vacation under way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vacation {
    /// Whole days that may be taken now.
    pub days_held: i32,
    /// When the next whole day is earned; `None` while the most are held.
    pub next_day_at: Option<NaiveDateTime>,
    pub rules: super::VacationRules,
    /// The vacation under way: when it began and ends.
    pub current: Option<(NaiveDateTime, NaiveDateTime)>,
}

/// Why a vacation ended, as `game.player_back` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The player ended it.
    Ended,
    /// A move of theirs ended it.
    Moved,
    /// Its days ran out.
    Over,
}

impl Ended {
    fn code(self) -> &'static str {
        match self {
            Ended::Ended => "ended",
            Ended::Moved => "moved",
            Ended::Over => "over",
        }
    }
}

fn most(settings: &Settings) -> Duration {
    settings.day * settings.vacation.max_days
}

/// The vacation credit `user` holds at `now`: what was stored, plus what
/// time since then earned, never more than the most one holds.
fn credit(user: &User, settings: &Settings, now: NaiveDateTime) -> Duration {
    let since = user.vacation_credit_at.unwrap_or(user.created_at);
    let elapsed = (now - since).max(Duration::zero()).num_milliseconds() as i128;
    let (day, every) = (
        settings.day.num_milliseconds() as i128,
        settings.vacation.earn_every.num_milliseconds().max(1) as i128,
    );
    let earned = Duration::milliseconds((elapsed * day / every).min(i64::MAX as i128) as i64);
    (Duration::milliseconds(user.vacation_credit) + earned).min(most(settings))
}

fn whole_days(d: Duration, settings: &Settings) -> i32 {
    (d.num_milliseconds() / settings.day.num_milliseconds().max(1)) as i32
}

fn state(user: &User, settings: &Settings, now: NaiveDateTime) -> Vacation {
    let held = credit(user, settings, now);
    let days_held = whole_days(held, settings);
    let next_day_at = (held < most(settings)).then(|| {
        let to_next = settings.day * (days_held + 1) - held;
        let ms = to_next.num_milliseconds() as i128
            * settings.vacation.earn_every.num_milliseconds() as i128
            / settings.day.num_milliseconds().max(1) as i128;
        now + Duration::milliseconds(ms as i64)
    });
    let current = match (user.vacation_started_at, user.vacation_until) {
        (Some(from), Some(until)) if until > now => Some((from, until)),
        _ => None,
    };
    Vacation {
        days_held,
        next_day_at,
        rules: settings.vacation,
        current,
    }
}

fn user(conn: &mut DbConnection, id: &str) -> Result<User, GameError> {
    db::users::find_by_id(conn, id)?
        .ok_or_else(|| GameError::Internal(anyhow::anyhow!("user {id} is gone")))
}

/// Runs `f` on every active game of `user_id` where vacations stop the
/// clock and the player is still in, each locked and saved with its event
/// for the other players.
fn each_game(
    conn: &mut DbConnection,
    user_id: &str,
    now: NaiveDateTime,
    mut f: impl FnMut(&mut Loaded, Player) -> Result<GameEvent, GameError>,
) -> Result<(), GameError> {
    for id in db::clocks::vacation_games_of(conn, user_id)? {
        let mut g = load_for_update(conn, &id)?;
        let Ok(seat) = g.joined_seat(user_id) else {
            continue;
        };
        if !g.position().is_alive(seat) {
            continue;
        }
        let event = f(&mut g, seat)?;
        g.row.reminded_seq = None;
        save(conn, &mut g, now)?;
        let others: Vec<String> = g
            .player_ids()
            .into_iter()
            .filter(|u| u != user_id)
            .collect();
        emit(conn, &id, others.iter().map(String::as_str), event, now)?;
    }
    Ok(())
}

fn start(
    conn: &mut DbConnection,
    settings: &Settings,
    user_id: &str,
    days: i32,
    now: NaiveDateTime,
) -> Result<Vacation, GameError> {
    let u = user(conn, user_id)?;
    if let Some((_, until)) = state(&u, settings, now).current {
        return Err(GameError::State(format!(
            "you are on vacation until {}; end it first",
            until.and_utc().to_rfc3339()
        )));
    }
    let held = credit(&u, settings, now);
    if days < 1 || days > whole_days(held, settings) {
        return Err(GameError::invalid(
            "days",
            "not-held",
            format!(
                "you hold {} whole vacation day(s); take 1 to that many",
                whole_days(held, settings)
            ),
        ));
    }
    if u.vacation_until.is_some() {
        // One that ran out and is not closed yet: close it first.
        close(conn, settings, &u, Ended::Over, now)?;
    }
    // As the database keeps it (to the microsecond), so the clocks' JSON agrees.
    let until = (now + settings.day * days).trunc_subsecs(6);
    let left = held - settings.day * days;
    if !db::clocks::start_vacation(conn, user_id, left.num_milliseconds(), now, until)? {
        return Err(GameError::Stale(
            "your vacation changed while this request was handled; reload it".into(),
        ));
    }
    each_game(conn, user_id, now, |g, seat| {
        super::timing::pause(g, seat, until, now)?;
        Ok(GameEvent::PlayerOnVacation(events::OnVacation {
            seat: super::model::seat_name(seat).to_owned(),
            username: g.seat(seat).name().map(str::to_owned),
            until: until.and_utc(),
            players: Players::of(g),
        }))
    })?;
    Ok(state(&user(conn, user_id)?, settings, now))
}

/// Ends `u`'s vacation (returning its unused whole days unless it ran out)
/// and starts the clocks it stopped. Returns whether this call ended it.
fn close(
    conn: &mut DbConnection,
    settings: &Settings,
    u: &User,
    why: Ended,
    now: NaiveDateTime,
) -> Result<bool, GameError> {
    let Some(until) = u.vacation_until else {
        return Ok(false);
    };
    let credit = (why != Ended::Over).then(|| {
        let unused = settings.day * whole_days((until - now).max(Duration::zero()), settings);
        let held = (credit(u, settings, now) + unused).min(most(settings));
        (held.num_milliseconds(), now)
    });
    if !db::clocks::end_vacation(conn, &u.id, until, credit)? {
        return Ok(false);
    }
    each_game(conn, &u.id, now, |g, seat| {
        super::timing::resume(g, seat, now)?;
        let deadline = g
            .row
            .deadline
            .filter(|_| g.position().to_move() == Some(seat));
        Ok(GameEvent::PlayerBack(events::Back {
            seat: super::model::seat_name(seat).to_owned(),
            username: g.seat(seat).name().map(str::to_owned),
            reason: why.code().to_owned(),
            deadline: deadline.map(|d| d.and_utc()),
            players: Players::of(g),
        }))
    })?;
    Ok(true)
}

/// A move by `user_id` ends their vacation, if one is under way. Runs in
/// the move's transaction, before the game is loaded for the move.
pub(super) fn end_for_move(
    conn: &mut DbConnection,
    settings: &Settings,
    user_id: &str,
    now: NaiveDateTime,
) -> Result<bool, GameError> {
    let u = user(conn, user_id)?;
    if state(&u, settings, now).current.is_none() {
        return Ok(false);
    }
    close(conn, settings, &u, Ended::Moved, now)
}

/// Closes vacations whose days ran out by `now`; each once, whichever
/// process gets there first. Returns how many this call closed.
pub(super) fn close_over(
    conn: &mut DbConnection,
    settings: &Settings,
    now: NaiveDateTime,
    limit: i64,
) -> Result<usize, GameError> {
    let mut closed = 0;
    for (id, _) in db::clocks::vacations_over(conn, now, limit)? {
        closed += db::write_transaction(conn, |conn| {
            let u = user(conn, &id)?;
            close(conn, settings, &u, Ended::Over, now)
        })? as usize;
    }
    Ok(closed)
}

/// The caller's vacation days and vacation.
pub async fn vacation(
    games: &Games,
    caller: &UserId,
    now: NaiveDateTime,
) -> Result<Vacation, GameError> {
    let (settings, caller) = (games.settings, caller.to_owned());
    db::run(&games.pool, move |conn| {
        Ok(state(&user(conn, &caller)?, &settings, now))
    })
    .await
}

/// The caller goes on vacation for `days` whole days from now.
pub async fn start_vacation(
    games: &Games,
    caller: &UserId,
    days: i32,
    now: NaiveDateTime,
) -> Result<Vacation, GameError> {
    let (settings, caller) = (games.settings, caller.to_owned());
    db::run(&games.pool, move |conn| {
        db::write_transaction(conn, |conn| start(conn, &settings, &caller, days, now))
    })
    .await
}

/// The caller comes back early: unused whole days return.
pub async fn end_vacation(
    games: &Games,
    caller: &UserId,
    now: NaiveDateTime,
) -> Result<Vacation, GameError> {
    let (settings, caller) = (games.settings, caller.to_owned());
    db::run(&games.pool, move |conn| {
        db::write_transaction(conn, |conn| {
            let u = user(conn, &caller)?;
            if state(&u, &settings, now).current.is_none()
                || !close(conn, &settings, &u, Ended::Ended, now)?
            {
                return Err(GameError::State("you are not on vacation".into()));
            }
            Ok(state(&user(conn, &caller)?, &settings, now))
        })
    })
    .await
}

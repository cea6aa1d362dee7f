//! Giving time: a player of the game adds hours to another player's clock,
//! once per turn per giver, and everyone hears of it. What one turn can hold
//! is capped, whoever gives and whenever: with time per move, the control's
//! own time plus at most [`MOST_PER_TURN`] of gifts in all, counting gifts
//! made before the turn began (since the player's last move); with a Fischer
//! bank, the bank's maximum.

use std::ops::RangeInclusive;

use crate::domain::{GameId, UserId};
use chrono::{Duration, NaiveDateTime};

use crate::db::clocks::TimeGiftRow;
use crate::db::{self, DbConnection};

use super::events::{self, emit, GameEvent, Players};
use super::journal::save;
use super::model::{load_for_update, parse_seat_name, seat_name, state_of, GameState};
use super::{GameError, Games, Settings};

/// The hours one gift may hold.
pub const HOURS: RangeInclusive<u32> = 1..=168;

/// The most that gifts may add to one turn of a game with time per move.
pub const MOST_PER_TURN: Duration = Duration::days(7);

/// A gift as asked for.
#[derive(Debug, Clone, Copy)]
pub struct Gift<'a> {
    /// The seat to give to.
    pub to: &'a str,
    pub hours: u32,
}

fn give(
    conn: &mut DbConnection,
    settings: &Settings,
    caller: &str,
    game_id: &str,
    gift: Gift<'_>,
    now: NaiveDateTime,
) -> Result<GameState, GameError> {
    let to = parse_seat_name(gift.to)
        .ok_or_else(|| GameError::invalid("to", "invalid", "must be first, middle or last"))?;
    if !HOURS.contains(&gift.hours) {
        return Err(GameError::invalid(
            "hours",
            "range",
            format!(
                "must be {} to {} hours, not {}",
                HOURS.start(),
                HOURS.end(),
                gift.hours
            ),
        ));
    }
    db::write_transaction(conn, |conn| {
        let mut g = load_for_update(conn, game_id)?;
        let from = g.living_seat(caller, "time is given")?;
        if to == from {
            return Err(GameError::invalid(
                "to",
                "self",
                "time is given to another player, not to yourself",
            ));
        }
        if !g.position().is_alive(to) {
            return Err(GameError::State(format!(
                "the {} player is out of the game",
                seat_name(to)
            )));
        }
        if g.seat(to).bot_level.is_some() {
            return Err(GameError::State(
                "a computer player has no deadline to give time against".into(),
            ));
        }
        let ply = g.position().ply();
        let mut amount = Duration::hours(gift.hours.into());
        if let super::clock::TimeControl::PerMove { .. } = g.time_control()? {
            let given = db::clocks::given_since_last_move(conn, game_id, seat_name(to))?;
            let room = MOST_PER_TURN - Duration::seconds(given);
            if room <= Duration::zero() {
                return Err(GameError::State(format!(
                    "the {} player's turn already holds {} days of gifts, the most it may",
                    seat_name(to),
                    MOST_PER_TURN.num_days()
                )));
            }
            amount = amount.min(room);
        }
        let added = super::timing::add(&mut g, settings, to, amount, now)?;
        let row = TimeGiftRow {
            game_id: GameId::from(game_id),
            ply: ply as i32,
            from_seat: seat_name(from).to_owned(),
            to_seat: seat_name(to).to_owned(),
            seconds: added.num_seconds(),
            created_at: now,
        };
        match db::clocks::insert_gift(conn, &row) {
            Err(e) if db::is_unique_violation(&e) => {
                return Err(GameError::State(
                    "you already gave time this turn; once per turn".into(),
                ))
            }
            other => other?,
        }
        g.row.reminded_seq = None;
        save(conn, &mut g, now)?;
        let everyone = g.player_ids();
        let deadline = g
            .row
            .deadline
            .filter(|_| g.position().to_move() == Some(to));
        emit(
            conn,
            game_id,
            everyone.iter().map(String::as_str),
            GameEvent::TimeGiven(events::TimeGiven {
                from: seat_name(from).to_owned(),
                from_username: g.seat(from).name().map(str::to_owned),
                to: seat_name(to).to_owned(),
                to_username: g.seat(to).name().map(str::to_owned),
                hours: gift.hours,
                seconds: added.num_seconds(),
                ply,
                deadline: deadline.map(|d| d.and_utc()),
                players: Players::of(&g),
            }),
            now,
        )?;
        state_of(conn, g)
    })
}

/// The caller gives `gift.hours` to another living player's clock.
pub async fn give_time(
    games: &Games,
    caller: &UserId,
    game_id: &GameId,
    to: String,
    hours: u32,
    now: NaiveDateTime,
) -> Result<GameState, GameError> {
    let (settings, caller, id) = (games.settings, caller.to_owned(), game_id.to_owned());
    db::run(&games.pool, move |conn| {
        give(conn, &settings, &caller, &id, Gift { to: &to, hours }, now)
    })
    .await
}

//! How often a player may make an offer that reaches others by mail: a draw
//! offer (R36, to both others) or an alliance proposal (to one of them). In
//! each game, each kind once per move of their own (a proposal: to each
//! player): again only after they have moved since their last one, or a day
//! after it (a player who cannot move for long is not silenced for good).
//! Sooner is refused with 429 and `Retry-After`, as chat is.

use chrono::{Duration, NaiveDateTime};

use crate::db::{self, DbConnection};
use crate::domain::limits::{Rate, Standing};
use crate::rules::Player;

use super::GameError;

/// What was offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offer {
    Draw,
    /// An alliance proposed to this seat.
    Alliance(Player),
}

impl Offer {
    fn as_str(self) -> &'static str {
        match self {
            Offer::Draw => "draw",
            Offer::Alliance(Player::First) => "alliance-to-first",
            Offer::Alliance(Player::Middle) => "alliance-to-middle",
            Offer::Alliance(Player::Last) => "alliance-to-last",
        }
    }
}

/// How long a player waits for their next offer of a kind when they have
/// not moved since their last.
pub fn interval() -> Duration {
    Duration::hours(24)
}

/// Where a player stands just after an offer: none left of that kind until
/// they move, or a day passes.
pub fn spent() -> Standing {
    // (Any instant: only the window from the offer to now counts.)
    let at = NaiveDateTime::default();
    rate().standing(&[at], at)
}

fn rate() -> Rate {
    Rate {
        max: 1,
        window: interval(),
        per: "move of yours (or day)",
        policy: "offers",
    }
}

/// Admits `user_id`'s offer in the game now and records it, or says when
/// they may make it. In the offer's transaction, after every other check.
pub(super) fn admit(
    conn: &mut DbConnection,
    game_id: &str,
    user_id: &str,
    offer: Offer,
    now: NaiveDateTime,
) -> Result<Standing, GameError> {
    let kind = offer.as_str();
    let once = rate();
    if let Some(last) = db::offers::last_made(conn, game_id, user_id, kind)? {
        if !db::offers::moved_since(conn, game_id, user_id, last)? {
            let within: Vec<NaiveDateTime> = [last]
                .into_iter()
                .filter(|t| *t > once.since(now))
                .collect();
            once.admit(&within, now)?;
        }
    }
    db::offers::record(conn, game_id, user_id, kind, now)?;
    // This one is spent until a move of the player's, or a day.
    Ok(once.standing(&[now], now))
}

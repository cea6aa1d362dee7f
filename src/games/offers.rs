//! How often a player may make an offer that reaches others by mail: a draw
//! offer (R36, to both others) or an alliance proposal (to one of them). In
//! each game, each kind once per move of their own (a proposal: to each
//! player): again only after they have moved since their last one, or a day
//! after it (a player who cannot move for long is not silenced for good).
//! Sooner is refused with 429 and `Retry-After`, as chat is.

use chrono::{Duration, NaiveDateTime};

use crate::db::{self, DbConnection};
use crate::domain::limits::Rate;
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

/// Admits `user_id`'s offer in the game now and records it, or says when
/// they may make it. In the offer's transaction, after every other check.
pub(super) fn admit(
    conn: &mut DbConnection,
    game_id: &str,
    user_id: &str,
    offer: Offer,
    now: NaiveDateTime,
) -> Result<(), GameError> {
    let kind = offer.as_str();
    if let Some(last) = db::offers::last_made(conn, game_id, user_id, kind)? {
        if !db::offers::moved_since(conn, game_id, user_id, last)? {
            let once = Rate {
                max: 1,
                window: interval(),
                per: "move of yours (or day)",
            };
            let within: Vec<NaiveDateTime> = [last]
                .into_iter()
                .filter(|t| *t > once.since(now))
                .collect();
            once.admit(&within, now)?;
        }
    }
    db::offers::record(conn, game_id, user_id, kind, now)?;
    Ok(())
}

//! Where an account stands against the per-account rate limits, for the
//! `RateLimit-Policy` and `RateLimit` header fields of the operations they
//! limit. Read after the operation from the same rows that admitted it, so
//! every server process says the same.

use chrono::NaiveDateTime;

use crate::db;
use crate::domain::limits::Standing;
use crate::domain::{GameId, UserId};
use crate::state::AppState;

use super::AccountError;

/// A rate limit counted from stored rows.
#[derive(Debug, Clone)]
pub enum Counted {
    /// Games created or imported.
    Games,
    /// Verification mails.
    VerificationMails,
    /// Webhook pings.
    Pings,
    /// Chat messages in one game.
    Chat(GameId),
}

/// Where `user_id` stands against `which` at `now`.
pub async fn standing(
    state: &AppState,
    user_id: &UserId,
    which: Counted,
    now: NaiveDateTime,
) -> Result<Standing, AccountError> {
    let (limits, user) = (state.limits, user_id.to_owned());
    db::run(&state.pool, move |conn| {
        let (rate, done) = match &which {
            Counted::Games => {
                let r = limits.games_created;
                (r, db::games::created_by_since(conn, &user, r.since(now))?)
            }
            Counted::VerificationMails => {
                let r = limits.verification_mails;
                let kind = crate::notify::mail::VERIFY_EMAIL;
                (r, db::mail::of_kind_since(conn, &user, kind, r.since(now))?)
            }
            Counted::Pings => {
                let r = limits.pings;
                let kind = crate::notify::webhooks::PING;
                (
                    r,
                    db::webhooks::deliveries_of_type_since(conn, &user, kind, r.since(now))?,
                )
            }
            Counted::Chat(game) => {
                let r = limits.chat_messages;
                (r, db::chat::written_since(conn, game, &user, r.since(now))?)
            }
        };
        Ok::<_, AccountError>(rate.standing(&done, now))
    })
    .await
}

//! Mail: verification of addresses, game notices to verified addresses that
//! have not opted out, and a notice when a webhook is disabled. Messages are
//! rendered into `mail_messages` (from outbox events by the mail channel, or
//! in the transaction of the change they report) and sent by that channel of
//! the job queue in every process, over SMTP or into a folder of `.eml` files.

pub mod compose;
pub mod sending;
pub mod transport;

use crate::domain::EventId;
use std::sync::Arc;

use chrono::NaiveDateTime;
use hmac::{Hmac, Mac};
use lettre::message::Mailbox;
use sha2::Sha256;

use crate::auth::links::LinkKeys;
use crate::clock::Clock;
use crate::config::MailSettings;
use crate::db::mail::{self as q, MailRow};
use crate::db::models::User;
use crate::db::DbConnection;
use crate::games::events;

use compose::{Composed, Footer};

/// The kind of the message that confirms an address (not a preference).
pub const VERIFY_EMAIL: &str = "account.verify_email";
/// Mail to a webhook's owner when the server disables it.
pub const WEBHOOK_DISABLED: &str = "webhook.disabled";

/// Everything one can get by mail: each on unless turned off, but those in
/// [`OFF_BY_DEFAULT`], which are off unless turned on.
pub const MAILED: [&str; 13] = [
    events::INVITED,
    events::STARTED,
    events::YOUR_TURN,
    events::ALLIANCE_PROPOSED,
    events::DRAW_OFFERED,
    events::CHAT,
    events::PLAYER_ELIMINATED,
    events::FINISHED,
    events::DEADLINE_APPROACHING,
    events::PLAYER_ON_VACATION,
    events::PLAYER_BACK,
    events::TIME_GIVEN,
    WEBHOOK_DISABLED,
];

/// Kinds of mail one gets only after turning them on.
pub const OFF_BY_DEFAULT: [&str; 1] = [events::CHAT];

/// Whether `kind` is mailed to one whose stored choices are `choices`. A
/// stored choice (a row of `email_opt_outs`) is a choice against the kind's
/// default: off for most kinds, on for those off by default.
pub fn mailed(kind: &str, choices: &[String]) -> bool {
    let chose = choices.iter().any(|c| c == kind);
    let on_by_default = !OFF_BY_DEFAULT.contains(&kind);
    on_by_default != chose
}

/// What writing mail needs: where links point, how they are signed, who sends.
#[derive(Clone)]
pub struct MailContext {
    inner: Arc<Inner>,
}

struct Inner {
    links: LinkKeys,
    public_url: String,
    from: Mailbox,
    settings: MailSettings,
    clock: Clock,
}

impl MailContext {
    pub fn new(
        settings: &MailSettings,
        secret: &[u8],
        issuer: String,
        clock: Clock,
    ) -> anyhow::Result<Self> {
        let from = settings
            .from
            .parse::<Mailbox>()
            .map_err(|e| anyhow::anyhow!("SANNIN_MAIL_FROM: {e}"))?;
        // Links get a key of their own, derived from the service key, so
        // that no token of one kind is ever signed with another kind's key.
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(secret)?;
        mac.update(b"sannin mail links");
        let link_key = mac.finalize().into_bytes();
        Ok(Self {
            inner: Arc::new(Inner {
                links: LinkKeys::new(&link_key, issuer),
                public_url: settings.public_url.clone(),
                from,
                settings: settings.clone(),
                clock,
            }),
        })
    }

    /// The service's time.
    pub fn now(&self) -> NaiveDateTime {
        self.inner.clock.now()
    }

    pub fn links(&self) -> &LinkKeys {
        &self.inner.links
    }

    pub fn public_url(&self) -> &str {
        &self.inner.public_url
    }

    pub fn from(&self) -> &Mailbox {
        &self.inner.from
    }

    pub fn settings(&self) -> &MailSettings {
        &self.inner.settings
    }

    /// The one-click unsubscribe link for `event_type` mail to `user_id`.
    pub fn unsubscribe_url(&self, user_id: &str, event_type: &str) -> String {
        format!(
            "{}/api/v1/unsubscribe?token={}",
            self.public_url(),
            self.links().unsubscribe_token(user_id, event_type)
        )
    }

    pub fn footer(&self, user_id: &str, event_type: &str) -> Footer {
        Footer {
            public_url: self.public_url().to_owned(),
            unsubscribe: Some(self.unsubscribe_url(user_id, event_type)),
            what: compose::describe(event_type).to_owned(),
        }
    }
}

/// A pending message to `user`, due now.
fn row(
    user: &User,
    kind: &str,
    event_id: Option<EventId>,
    composed: Composed,
    unsubscribe_url: Option<String>,
    now: NaiveDateTime,
) -> MailRow {
    MailRow {
        id: uuid::Uuid::now_v7().to_string(),
        user_id: user.id.clone(),
        event_id,
        kind: kind.to_owned(),
        to_address: user.shown_email().to_owned(),
        subject: composed.subject,
        text_body: composed.text,
        html_body: composed.html,
        unsubscribe_url,
        status: q::MailStatus::Pending,
        attempts: 0,
        next_attempt_at: now,
        last_error: None,
        created_at: now,
        sent_at: None,
    }
}

/// Whether `user` gets `kind` mail: a verified address, not opted out.
pub fn wants(conn: &mut DbConnection, user: &User, kind: &str) -> diesel::QueryResult<bool> {
    Ok(user.email_verified && mailed(kind, &q::opt_outs(conn, &user.id)?))
}

/// Queues the link that confirms `user`'s address. For an address another
/// account holds, the same mail (same kind, same address, same account)
/// carries no link but tells the address's owner that someone asked for it:
/// to the asker the two look alike, so neither tells whether the address
/// is registered.
pub fn queue_verification(
    conn: &mut DbConnection,
    ctx: &MailContext,
    user: &User,
    now: NaiveDateTime,
) -> diesel::QueryResult<()> {
    let address = user.shown_email();
    let held = match &user.claimed_email {
        Some(claimed) => crate::db::users::find_by_email(conn, claimed)?.is_some(),
        None => false,
    };
    let composed = if held {
        compose::address_held(address, ctx.public_url())
    } else {
        let link = format!(
            "{}/api/v1/email/verify?token={}",
            ctx.public_url(),
            ctx.links().verification_token(&user.id, address)
        );
        compose::verification(&user.username, address, &link, ctx.public_url())
    };
    q::insert_if_new(conn, &row(user, VERIFY_EMAIL, None, composed, None, now)).map(drop)
}

/// Tells a webhook's owner that the server disabled it, if they want to know.
pub fn queue_webhook_disabled(
    conn: &mut DbConnection,
    ctx: &MailContext,
    user_id: &str,
    webhook_id: &str,
    url: &str,
    reason: &str,
    now: NaiveDateTime,
) -> diesel::QueryResult<()> {
    let Some(user) = crate::db::users::find_by_id(conn, user_id)? else {
        return Ok(());
    };
    if !wants(conn, &user, WEBHOOK_DISABLED)? {
        return Ok(());
    }
    let api_url = format!("{}/api/v1/webhooks/{webhook_id}", ctx.public_url());
    let footer = ctx.footer(&user.id, WEBHOOK_DISABLED);
    let unsubscribe = footer.unsubscribe.clone();
    let composed = compose::webhook_disabled(&user.username, url, reason, &api_url, &footer);
    q::insert_if_new(
        conn,
        &row(&user, WEBHOOK_DISABLED, None, composed, unsubscribe, now),
    )
    .map(drop)
}

/// A user's mail settings and recent messages.
pub struct Preferences {
    pub user: User,
    /// Every mailed event type and whether it is mailed.
    pub mail: Vec<(&'static str, bool)>,
    pub recent: Vec<MailRow>,
}

/// How many recent messages the settings show.
const RECENT: i64 = 20;

pub fn preferences(conn: &mut DbConnection, user: User) -> diesel::QueryResult<Preferences> {
    let choices = q::opt_outs(conn, &user.id)?;
    let mail = MAILED.iter().map(|k| (*k, mailed(k, &choices))).collect();
    let recent = q::recent_of_user(conn, &user.id, RECENT)?;
    Ok(Preferences { user, mail, recent })
}

/// Turns mail of each named type on or off. The caller has checked the names.
pub fn set_preferences(
    conn: &mut DbConnection,
    user_id: &str,
    changes: &[(String, bool)],
    now: NaiveDateTime,
) -> diesel::QueryResult<()> {
    use diesel::Connection as _;
    conn.transaction(|conn| {
        for (kind, on) in changes {
            // Store a choice only where it differs from the default.
            let on_by_default = !OFF_BY_DEFAULT.contains(&kind.as_str());
            if *on == on_by_default {
                q::clear_choice(conn, user_id, kind)?;
            } else {
                q::store_choice(conn, user_id, kind, now)?;
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_choice_turns_a_kind_against_its_default() {
        let none: Vec<String> = Vec::new();
        assert!(mailed(events::YOUR_TURN, &none));
        assert!(!mailed(events::CHAT, &none), "chat mail is off by default");
        let chosen = vec![events::YOUR_TURN.to_owned(), events::CHAT.to_owned()];
        assert!(!mailed(events::YOUR_TURN, &chosen));
        assert!(mailed(events::CHAT, &chosen));
        assert!(mailed(events::FINISHED, &chosen));
    }
}

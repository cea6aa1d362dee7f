//! Mail, a channel of the job queue. Every process runs it: it turns new
//! outbox events into messages for recipients who want them, then claims due
//! messages and sends them, one at a time (an SMTP relay takes kindly to
//! neither bursts nor many connections). As with webhooks, an event leaves
//! the outbox's waiting list in the transaction that queues its message, and
//! the queue (`crate::jobs`) leases, retries until the message is marked
//! `failed` (visible in `GET /api/v1/me/notifications`), and prunes.

use crate::domain::UserId;
use std::collections::HashMap;
use std::time::Duration;

use chrono::NaiveDateTime;

use crate::db::mail::{self as q, MailOutcome, MailRow, MailStatus};
use crate::db::models::User;
use crate::db::{self, outbox, DbConnection, Pool};
use crate::games::events::StoredEvent;
use crate::jobs::{self, Limits, Next, Outcome};

use super::transport::{self, Transport};
use super::{compose, MailContext, MAILED, VERIFY_EMAIL};

const FANOUT_BATCH: i64 = 500;
/// How long finished messages (and the links in them) are kept.
pub const KEEP_DAYS: i64 = 30;

/// A recipient as fan-out sees them: the account and what they opted out of.
struct Recipient {
    user: User,
    opted_out: Vec<String>,
}

/// Turns outbox events not yet considered into messages; returns how many it queued.
pub fn fan_out(conn: &mut DbConnection, ctx: &MailContext) -> diesel::QueryResult<usize> {
    db::write_transaction(conn, |conn| {
        let events = outbox::take(conn, outbox::MAIL, FANOUT_BATCH)?;
        let handled: Vec<String> = events.iter().map(|e| e.id.to_string()).collect();
        outbox::done(conn, outbox::MAIL, &handled)?;
        let mut recipients: HashMap<UserId, Option<Recipient>> = HashMap::new();
        let mut queued = 0;
        for event in events {
            if !MAILED.contains(&event.event_type.as_str()) {
                continue;
            }
            if !recipients.contains_key(&event.user_id) {
                let found = match db::users::find_by_id(conn, &event.user_id)? {
                    Some(user) => Some(Recipient {
                        opted_out: q::opt_outs(conn, &user.id)?,
                        user,
                    }),
                    None => None,
                };
                recipients.insert(event.user_id.clone(), found);
            }
            let Some(r) = &recipients[&event.user_id] else {
                continue;
            };
            if !r.user.email_verified || !super::mailed(&event.event_type, &r.opted_out) {
                continue;
            }
            let stored = match StoredEvent::parse(&event) {
                Ok(stored) => stored,
                Err(e) => {
                    tracing::error!(event = %event.id, error = %format!("{e:#}"), "not mailed");
                    continue;
                }
            };
            let footer = ctx.footer(&r.user.id, &event.event_type);
            let unsubscribe = footer.unsubscribe.clone();
            let Some(composed) =
                compose::game_event(&stored, &r.user.username, ctx.public_url(), &footer)
            else {
                continue;
            };
            let mut row = super::row(
                &r.user,
                &event.event_type,
                Some(event.id.clone()),
                composed,
                unsubscribe,
                ctx.now(),
            );
            // The event's time, so the Date header says when it happened.
            row.created_at = event.created_at;
            queued += q::insert_if_new(conn, &row)? as usize;
        }
        Ok(queued)
    })
}

/// Why `m` should no longer be sent, if so: its address is no longer the
/// account's, is no longer verified, or its kind was unsubscribed since it
/// was queued.
fn unwanted(conn: &mut DbConnection, m: &MailRow) -> diesel::QueryResult<Option<String>> {
    let Some(user) = db::users::find_by_id(conn, &m.user_id)? else {
        return Ok(Some("the account is gone".into()));
    };
    if user.shown_email() != m.to_address {
        return Ok(Some("the account's address changed".into()));
    }
    if m.kind != VERIFY_EMAIL && !super::wants(conn, &user, &m.kind)? {
        return Ok(Some(if user.email_verified {
            "unsubscribed".into()
        } else {
            "the address is not verified".into()
        }));
    }
    Ok(None)
}

/// A claimed message.
#[derive(Debug, Clone)]
pub struct Claimed(MailRow);

impl jobs::Job for Claimed {
    fn id(&self) -> &str {
        &self.0.id
    }

    fn key(&self) -> &str {
        "smtp"
    }

    fn attempts(&self) -> u32 {
        self.0.attempts.max(0) as u32
    }
}

/// The mail channel.
pub struct Mail {
    pub ctx: MailContext,
    pub transport: Transport,
}

impl jobs::Channel for Mail {
    type Job = Claimed;
    type Detail = ();
    const NAME: &'static str = "mail";

    fn limits(&self) -> Limits {
        let settings = self.ctx.settings();
        Limits {
            slots: 1,
            per_key: 1,
            // Longer than a send may take, so a live attempt keeps its claim.
            lease: chrono::Duration::from_std(transport::SEND_TIMEOUT + Duration::from_secs(30))
                .unwrap_or(chrono::Duration::minutes(2)),
            poll_interval: settings.poll_interval,
            retry_scale: settings.retry_scale,
            keep_for: chrono::Duration::days(KEEP_DAYS),
        }
    }

    fn enqueue(&self, conn: &mut DbConnection, _now: NaiveDateTime) -> diesel::QueryResult<usize> {
        fan_out(conn, &self.ctx)
    }

    fn claim(
        &self,
        conn: &mut DbConnection,
        now: NaiveDateTime,
        lease_until: NaiveDateTime,
        limit: usize,
        _full: &[String],
    ) -> diesel::QueryResult<Vec<Claimed>> {
        Ok(q::claim_due(conn, now, lease_until, limit)?
            .into_iter()
            .map(Claimed)
            .collect())
    }

    /// Sends the message unless it is no longer wanted.
    async fn perform(&self, pool: &Pool, job: &Claimed) -> Outcome<()> {
        let row = job.0.clone();
        match db::run(pool, move |conn| {
            unwanted(conn, &row).map_err(anyhow::Error::from)
        })
        .await
        {
            Ok(Some(why)) => return Outcome::Cancelled(why),
            Ok(None) => {}
            Err(e) => {
                return Outcome::Failed {
                    detail: (),
                    error: format!("could not check the recipient: {e:#}"),
                    permanent: false,
                }
            }
        }
        let sent = match transport::message(&job.0, self.ctx.from()) {
            Ok(message) => self.transport.send(message).await,
            Err(f) => Err(f),
        };
        match sent {
            Ok(()) => Outcome::Done(()),
            Err(f) => Outcome::Failed {
                detail: (),
                error: f.message,
                permanent: f.permanent,
            },
        }
    }

    /// Sent, a retry later, failed for good, or cancelled.
    fn record(
        &self,
        conn: &mut DbConnection,
        job: &Claimed,
        outcome: &Outcome<()>,
        next: Next,
        now: NaiveDateTime,
    ) -> diesel::QueryResult<bool> {
        let m = &job.0;
        let error = match outcome {
            Outcome::Done(()) => None,
            Outcome::Failed { error, .. } | Outcome::Cancelled(error) => Some(error.clone()),
        };
        let row = match next {
            Next::Done => MailOutcome {
                status: Some(MailStatus::Sent),
                last_error: Some(None),
                sent_at: Some(now),
                ..Default::default()
            },
            Next::Cancelled => MailOutcome {
                status: Some(MailStatus::Cancelled),
                last_error: Some(error),
                ..Default::default()
            },
            Next::RetryAt(at) => MailOutcome {
                status: Some(MailStatus::Pending),
                next_attempt_at: Some(at),
                last_error: Some(error),
                ..Default::default()
            },
            Next::Failed => {
                tracing::warn!(mail = %m.id, kind = %m.kind, error = ?error, "mail failed for good");
                MailOutcome {
                    status: Some(MailStatus::Failed),
                    last_error: Some(error),
                    ..Default::default()
                }
            }
        };
        q::record_if_held(conn, &m.id, m.next_attempt_at, &row)
    }

    fn give_back(
        &self,
        conn: &mut DbConnection,
        job: &Claimed,
        attempted: bool,
        now: NaiveDateTime,
    ) -> diesel::QueryResult<()> {
        q::give_back(conn, &job.0.id, job.0.next_attempt_at, attempted, now).map(drop)
    }

    fn prune(&self, conn: &mut DbConnection, before: NaiveDateTime) -> diesel::QueryResult<usize> {
        q::prune(conn, before)
    }
}

//! The mail worker. Every process runs it: it turns new outbox events into
//! messages for recipients who want them, then claims due messages and sends
//! them. As with webhooks, an event leaves the outbox's waiting list in the
//! transaction that queues its message, a claim is a lease that runs out if the process
//! dies mid-send, and failures are retried on a schedule until the message is
//! marked `failed` (visible in `GET /api/v1/me/notifications`).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use chrono::NaiveDateTime;
use serde_json::Value;

use crate::db::mail::{self as q, MailOutcome, MailRow};
use crate::db::models::User;
use crate::db::{self, outbox, DbConnection, Pool};

use super::transport::{self, Failure, Transport};
use super::{compose, MailContext, MAILED, VERIFY_EMAIL};

const FANOUT_BATCH: i64 = 500;
/// How long finished messages (and the links in them) are kept.
pub const KEEP_DAYS: i64 = 30;
/// How often each process prunes them.
const PRUNE_EVERY: Duration = Duration::from_secs(3600);
/// Messages claimed at once; they are sent one after the other.
const CLAIM_BATCH: i64 = 4;
/// A claim's lease: longer than sending the whole batch may take, so a live
/// process never has its claim taken over.
const LEASE_SECS: i64 = CLAIM_BATCH * transport::SEND_TIMEOUT.as_secs() as i64 + 60;

/// A recipient as fan-out sees them: the account and what they opted out of.
struct Recipient {
    user: User,
    opted_out: Vec<String>,
}

/// Turns outbox events not yet considered into messages; returns how many it queued.
pub fn fan_out(conn: &mut DbConnection, ctx: &MailContext) -> diesel::QueryResult<usize> {
    db::write_transaction(conn, |conn| {
        let events = outbox::take(conn, outbox::MAIL, FANOUT_BATCH)?;
        let mut recipients: HashMap<String, Option<Recipient>> = HashMap::new();
        let mut queued = 0;
        for event in events {
            outbox::done(conn, outbox::MAIL, &event.id)?;
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
            if !r.user.email_verified || r.opted_out.contains(&event.event_type) {
                continue;
            }
            let payload: Value = match serde_json::from_str(&event.payload) {
                Ok(payload) => payload,
                Err(e) => {
                    tracing::error!(event = %event.id, error = %e, "stored payload of event does not parse; not mailed");
                    continue;
                }
            };
            let footer = ctx.footer(&r.user.id, &event.event_type);
            let unsubscribe = footer.unsubscribe.clone();
            let Some(composed) = compose::game_event(
                &event.event_type,
                &payload,
                &r.user.username,
                ctx.public_url(),
                &footer,
            ) else {
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

/// What became of one claimed message.
enum Outcome {
    Sent,
    Failed(Failure),
    /// Not sent: no longer wanted (why).
    Cancelled(String),
}

/// Why `m` should no longer be sent, if so: its address is no longer the
/// account's, is no longer verified, or its kind was unsubscribed since it
/// was queued.
fn unwanted(conn: &mut DbConnection, m: &MailRow) -> diesel::QueryResult<Option<String>> {
    let Some(user) = db::users::find_by_id(conn, &m.user_id)? else {
        return Ok(Some("the account is gone".into()));
    };
    if user.email != m.to_address {
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

/// Records an attempt (counted when claimed): sent, a retry later, failed for
/// good, or cancelled. Nothing is written if the claim was lost meanwhile.
fn record(
    conn: &mut DbConnection,
    m: &MailRow,
    outcome: &Outcome,
    scale: f64,
    now: NaiveDateTime,
) -> diesel::QueryResult<()> {
    let row = match outcome {
        Outcome::Sent => MailOutcome {
            status: Some(q::SENT.to_owned()),
            last_error: Some(None),
            sent_at: Some(now),
            ..Default::default()
        },
        Outcome::Cancelled(why) => MailOutcome {
            status: Some(q::CANCELLED.to_owned()),
            last_error: Some(Some(why.clone())),
            ..Default::default()
        },
        Outcome::Failed(f) => {
            let retry_at = if f.permanent {
                None
            } else {
                crate::notify::retry_delay(m.attempts as usize, scale).map(|wait| now + wait)
            };
            if retry_at.is_none() {
                tracing::warn!(mail = %m.id, kind = %m.kind, error = %f.message, "mail failed for good");
            }
            MailOutcome {
                status: Some(
                    if retry_at.is_some() {
                        q::PENDING
                    } else {
                        q::FAILED
                    }
                    .to_owned(),
                ),
                next_attempt_at: retry_at,
                last_error: Some(Some(f.message.clone())),
                ..Default::default()
            }
        }
    };
    if !q::record(conn, m, &row)? {
        tracing::warn!(mail = %m.id, "a claim ran out before its outcome was recorded");
    }
    Ok(())
}

/// Sends one claimed message, unless it is no longer wanted or has used up
/// its attempts (claims that died mid-send count too).
async fn attempt(
    pool: &Pool,
    transport: &Transport,
    ctx: &MailContext,
    m: &MailRow,
) -> anyhow::Result<Outcome> {
    if m.attempts as usize > crate::notify::RETRY_SCHEDULE_SECS.len() + 1 {
        return Ok(Outcome::Failed(Failure {
            permanent: true,
            message: format!("gave up after {} attempts", m.attempts - 1),
        }));
    }
    let row = m.clone();
    if let Some(why) = db::run(pool, move |conn| {
        unwanted(conn, &row).map_err(anyhow::Error::from)
    })
    .await?
    {
        return Ok(Outcome::Cancelled(why));
    }
    let sent = match transport::message(m, ctx.from()) {
        Ok(message) => transport.send(message).await,
        Err(f) => Err(f),
    };
    Ok(match sent {
        Ok(()) => Outcome::Sent,
        Err(f) => Outcome::Failed(f),
    })
}

/// One pass: fan out, claim what is due, send it, record the outcomes.
/// Returns how many messages it claimed.
pub async fn send_once(
    pool: &Pool,
    transport: &Transport,
    ctx: &MailContext,
) -> anyhow::Result<usize> {
    let fan_ctx = ctx.clone();
    // A failed fan-out (say, a busy database) must not hold up sending.
    if let Err(e) = db::run(pool, move |conn| {
        fan_out(conn, &fan_ctx).map_err(anyhow::Error::from)
    })
    .await
    {
        tracing::warn!(error = %format!("{e:#}"), "mail fan-out failed; retrying next pass");
    }
    let claimed_at = Instant::now();
    let now = ctx.now();
    let claimed = db::run(pool, move |conn| {
        q::claim_due(
            conn,
            now,
            now + chrono::Duration::seconds(LEASE_SECS),
            CLAIM_BATCH,
        )
        .map_err(anyhow::Error::from)
    })
    .await?;
    let count = claimed.len();
    let scale = ctx.settings().retry_scale;
    // Start no send that might outlast the lease.
    let deadline =
        Duration::from_secs(LEASE_SECS as u64) - transport::SEND_TIMEOUT - Duration::from_secs(30);
    // One at a time: an SMTP relay takes kindly to neither bursts nor many connections.
    let mut claimed = claimed.into_iter();
    for m in claimed.by_ref() {
        if claimed_at.elapsed() > deadline {
            // Too late to start this one: give it and the rest back.
            let rest: Vec<MailRow> = std::iter::once(m).chain(claimed.by_ref()).collect();
            let now = ctx.now();
            db::run(pool, move |conn| {
                rest.iter()
                    .try_for_each(|m| q::release(conn, m, now))
                    .map_err(anyhow::Error::from)
            })
            .await?;
            break;
        }
        let outcome = attempt(pool, transport, ctx, &m).await?;
        let now = ctx.now();
        db::run(pool, move |conn| {
            record(conn, &m, &outcome, scale, now).map_err(anyhow::Error::from)
        })
        .await?;
    }
    Ok(count)
}

/// Sends every poll interval until the process ends. Errors are logged and
/// the next tick tries again.
pub async fn run(pool: Pool, ctx: MailContext, transport: Transport) {
    let mut tick = tokio::time::interval(ctx.settings().poll_interval);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut pruned_at: Option<Instant> = None;
    loop {
        tick.tick().await;
        if pruned_at.is_none_or(|t| t.elapsed() >= PRUNE_EVERY) {
            pruned_at = Some(Instant::now());
            let before = ctx.now() - chrono::Duration::days(KEEP_DAYS);
            match db::run(&pool, move |conn| {
                q::prune(conn, before).map_err(anyhow::Error::from)
            })
            .await
            {
                Ok(0) => {}
                Ok(n) => tracing::info!(
                    deleted = n,
                    "pruned finished mail older than {KEEP_DAYS} days"
                ),
                Err(e) => tracing::warn!(error = %format!("{e:#}"), "pruning mail failed"),
            }
        }
        // A full batch suggests more is due: keep going until a batch comes back short.
        loop {
            match send_once(&pool, &transport, &ctx).await {
                Ok(n) if n as i64 == CLAIM_BATCH => continue,
                Ok(_) => break,
                Err(e) => {
                    tracing::warn!(error = %format!("{e:#}"), "mail pass failed");
                    break;
                }
            }
        }
    }
}

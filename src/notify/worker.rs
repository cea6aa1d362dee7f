//! The delivery worker. Every process runs it: it fans new outbox events out
//! into one delivery row per interested webhook, then claims due deliveries and
//! sends them, signed per Standard Webhooks.
//!
//! Nothing is lost: an event leaves the outbox's waiting list in the same transaction that
//! writes its deliveries, a claim is a lease that runs out if the process dies
//! before recording the outcome, and a failed attempt is retried on a schedule
//! until it is marked `failed`, visible in the delivery log. Delivery is at least
//! once; the `webhook-id` header is the delivery's id, the same on every attempt.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use chrono::{NaiveDateTime, Utc};
use serde_json::{json, Value};

use crate::db::webhooks::WebhookRow;
use crate::db::webhooks::{self as q, AttemptRow, DeliveryOutcome, DeliveryRow, WebhookChanges};
use crate::db::{self, outbox, DbConnection, Pool};

use super::mail::{self, MailContext};
use super::{signature, targets, Settings};

/// A claim's lease: longer than the timeout, so a live attempt is never claimed twice.
const LEASE_SECS: i64 = 60;
const FANOUT_BATCH: i64 = 500;
const CLAIM_BATCH: i64 = 32;

/// The request body: the same bytes on every attempt.
pub fn body(event_type: &str, at: NaiveDateTime, data: Value) -> String {
    json!({
        "type": event_type,
        "timestamp": at.and_utc().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        "data": data,
    })
    .to_string()
}

/// Whether `hook` asked for this event. A hook whose stored event list does
/// not parse is logged, naming it, and gets nothing.
fn wants(hook: &WebhookRow, event_type: &str, game_id: &str) -> bool {
    let events: Vec<String> = match serde_json::from_str(&hook.events) {
        Ok(events) => events,
        Err(e) => {
            tracing::error!(webhook = %hook.id, error = %e, "stored event list of webhook does not parse");
            return false;
        }
    };
    events.iter().any(|e| e == event_type) && hook.game_id.as_deref().is_none_or(|g| g == game_id)
}

/// Turns outbox events not yet fanned out into deliveries; returns how many
/// deliveries it wrote.
pub fn fan_out(conn: &mut DbConnection, now: NaiveDateTime) -> diesel::QueryResult<usize> {
    db::write_transaction(conn, |conn| {
        let events = outbox::take(conn, outbox::WEBHOOK, FANOUT_BATCH)?;
        let mut hooks: HashMap<String, Vec<WebhookRow>> = HashMap::new();
        let mut written = 0;
        for event in events {
            if !hooks.contains_key(&event.user_id) {
                let mine = q::active_of_user(conn, &event.user_id)?;
                hooks.insert(event.user_id.clone(), mine);
            }
            let data: Value = match serde_json::from_str(&event.payload) {
                Ok(data) => data,
                Err(e) => {
                    // Nothing is sent rather than a made-up body; the event
                    // stays in game_events for inspection.
                    tracing::error!(event = %event.id, error = %e, "stored payload of event does not parse; not delivered");
                    outbox::done(conn, outbox::WEBHOOK, &event.id)?;
                    continue;
                }
            };
            for hook in &hooks[&event.user_id] {
                if !wants(hook, &event.event_type, &event.game_id) {
                    continue;
                }
                let row = DeliveryRow::pending(
                    hook.id.clone(),
                    event.id.clone(),
                    event.event_type.clone(),
                    body(&event.event_type, event.created_at, data.clone()),
                    now,
                );
                written += q::insert_delivery_if_new(conn, &row)? as usize;
            }
            outbox::done(conn, outbox::WEBHOOK, &event.id)?;
        }
        Ok(written)
    })
}

/// What one attempt came to.
struct Attempt {
    status_code: Option<u16>,
    error: Option<String>,
    duration: Duration,
}

async fn send(
    client: &reqwest::Client,
    d: &DeliveryRow,
    hook: &WebhookRow,
    targets: &targets::Targets,
) -> Attempt {
    let started = Instant::now();
    // The URL was checked when the webhook was saved, but the policy may have
    // changed since. What its host resolves to now is the client's resolver's
    // to check, on the very addresses it connects to.
    if let Some(why) = targets.refusal(&hook.url) {
        return Attempt {
            status_code: None,
            error: Some(format!("URL refused: {why}")),
            duration: started.elapsed(),
        };
    }
    // The wire's time, not the service's: receivers check it against their
    // own clocks to refuse replays.
    let timestamp = Utc::now().timestamp();
    let signature = match signature::sign(&hook.secret, &d.id, timestamp, &d.payload) {
        Ok(s) => s,
        Err(e) => {
            return Attempt {
                status_code: None,
                error: Some(format!("cannot sign: {e}")),
                duration: started.elapsed(),
            }
        }
    };
    let result = client
        .post(&hook.url)
        .header("content-type", "application/json")
        .header("webhook-id", &d.id)
        .header("webhook-timestamp", timestamp.to_string())
        .header("webhook-signature", signature)
        .body(d.payload.clone())
        .send()
        .await;
    let duration = started.elapsed();
    match result {
        Ok(res) if res.status().is_success() => Attempt {
            status_code: Some(res.status().as_u16()),
            error: None,
            duration,
        },
        Ok(res) => Attempt {
            status_code: Some(res.status().as_u16()),
            error: Some(format!("answered {}", res.status())),
            duration,
        },
        Err(e) => Attempt {
            status_code: None,
            error: Some(if targets::is_refusal(&e) {
                "URL refused: its host resolves only to addresses webhooks may not target"
                    .to_owned()
            } else if e.is_timeout() {
                "timed out".to_owned()
            } else if e.is_connect() {
                "could not connect".to_owned()
            } else {
                "request failed".to_owned()
            }),
            duration,
        },
    }
}

/// Records an attempt and decides what follows: done, a retry, or failure
/// (which disables the webhook, as does `410 Gone`, and tells its owner).
fn record(
    conn: &mut DbConnection,
    d: &DeliveryRow,
    hook: &WebhookRow,
    a: &Attempt,
    scale: f64,
    mail: &MailContext,
    now: NaiveDateTime,
) -> diesel::QueryResult<()> {
    // Counted when claimed.
    let attempts = d.attempts;
    let delivered = a.error.is_none();
    let gone = a.status_code == Some(410);
    let retry_at = if delivered || gone {
        None
    } else {
        super::retry_delay(attempts as usize, scale).map(|wait| now + wait)
    };
    let status = if delivered {
        q::DELIVERED
    } else if retry_at.is_some() {
        q::PENDING
    } else {
        q::FAILED
    };
    let outcome = DeliveryOutcome {
        status: Some(status.to_owned()),
        next_attempt_at: retry_at,
        last_status_code: Some(a.status_code.map(i32::from)),
        last_error: Some(a.error.clone()),
        last_duration_ms: Some(a.duration.as_millis().min(i32::MAX as u128) as i32),
        delivered_at: delivered.then_some(now),
    };
    let attempt = AttemptRow {
        id: uuid::Uuid::now_v7().to_string(),
        delivery_id: d.id.clone(),
        attempted_at: now,
        status_code: a.status_code.map(i32::from),
        duration_ms: outcome.last_duration_ms.unwrap_or(0),
        error: a.error.clone(),
    };
    db::write_transaction(conn, |conn| {
        if !q::record_attempt(conn, d, &attempt, &outcome)? {
            tracing::warn!(delivery = %d.id, "a claim ran out before its outcome was recorded");
            return Ok(());
        }
        if delivered {
            let reset = WebhookChanges {
                failure_count: Some(0),
                ..Default::default()
            };
            return q::update(conn, &hook.id, &reset);
        }
        let changes = if gone {
            disable("gone", now)
        } else if status == q::FAILED {
            WebhookChanges {
                failure_count: Some(hook.failure_count + 1),
                ..disable("failing", now)
            }
        } else {
            return Ok(());
        };
        // Only the attempt that turns an active webhook off tells its owner,
        // however many deliveries fail at once.
        if q::update_if_active(conn, &hook.id, &changes)? {
            let reason = if gone { "gone" } else { "failing" };
            mail::queue_webhook_disabled(
                conn,
                mail,
                &hook.user_id,
                &hook.id,
                &hook.url,
                reason,
                now,
            )?;
        }
        Ok(())
    })
}

fn disable(reason: &str, now: NaiveDateTime) -> WebhookChanges {
    WebhookChanges {
        active: Some(false),
        disabled_reason: Some(Some(reason.to_owned())),
        updated_at: Some(now),
        ..Default::default()
    }
}

/// One pass: fan out, claim what is due, send it, record the outcomes.
pub async fn deliver_once(
    pool: &Pool,
    client: &reqwest::Client,
    settings: &Settings,
    mail: &MailContext,
) -> anyhow::Result<usize> {
    let now = settings.clock.now();
    // A failed fan-out (say, a busy database) must not hold up sending.
    if let Err(e) = db::run(pool, move |conn| {
        fan_out(conn, now).map_err(anyhow::Error::from)
    })
    .await
    {
        tracing::warn!(error = %format!("{e:#}"), "webhook fan-out failed; retrying next pass");
    }
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
    let sends = claimed.into_iter().map(|(d, hook)| async move {
        let attempt = if d.attempts as usize > super::RETRY_SCHEDULE_SECS.len() + 1 {
            // Claims that died mid-send used the attempts up.
            Attempt {
                status_code: None,
                error: Some(format!("gave up after {} attempts", d.attempts - 1)),
                duration: Duration::ZERO,
            }
        } else {
            send(client, &d, &hook, &settings.targets).await
        };
        let scale = settings.retry_scale;
        let mail = mail.clone();
        let now = settings.clock.now();
        db::run(pool, move |conn| {
            record(conn, &d, &hook, &attempt, scale, &mail, now).map_err(anyhow::Error::from)
        })
        .await
    });
    for result in futures_util::future::join_all(sends).await {
        result?;
    }
    Ok(count)
}

/// Delivers every `poll_interval` until the process ends. Errors are logged and
/// the next tick tries again.
pub async fn run(pool: Pool, settings: Settings, client: reqwest::Client, mail: MailContext) {
    let mut tick = tokio::time::interval(settings.poll_interval);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if let Err(e) = deliver_once(&pool, &client, &settings, &mail).await {
            tracing::warn!(error = %format!("{e:#}"), "webhook delivery pass failed");
        }
    }
}

//! Webhook delivery, a channel of the job queue. Every process runs it: it
//! fans new outbox events out into one delivery row per interested webhook,
//! then claims due deliveries and sends them, signed per Standard Webhooks.
//!
//! Nothing is lost: an event leaves the outbox's waiting list in the same
//! transaction that writes its deliveries, and the queue (`crate::jobs`)
//! leases, retries and gives up. Delivery is at least once; the `webhook-id`
//! header is the delivery's id, the same on every attempt. Each attempt is
//! logged before its request leaves. An endpoint that times out or refuses
//! connections is backed off as a whole, and no endpoint has more than two
//! deliveries in flight per process, so a dead receiver holds up only itself.

use crate::domain::UserId;
use std::collections::HashMap;
use std::time::{Duration, Instant};

use chrono::{NaiveDateTime, Utc};
use serde_json::{json, Value};

use crate::db::webhooks::WebhookRow;
use crate::db::webhooks::{
    self as q, AttemptRow, DeliveryOutcome, DeliveryRow, DeliveryStatus, WebhookChanges,
};
use crate::db::{outbox, DbConnection, Pool};
use crate::games::events::StoredEvent;
use crate::jobs::{self, Limits, Next, Outcome};

use super::mail::{self, MailContext};
use super::{signature, targets, Settings};

const FANOUT_BATCH: i64 = 500;
/// Deliveries in flight at once in one process.
const SLOTS: usize = 32;
/// Deliveries to one webhook in flight at once in one process.
const PER_ENDPOINT: usize = 2;
/// How long finished deliveries (and their attempts) are kept.
pub const KEEP_DAYS: i64 = 30;

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
    crate::db::write_transaction(conn, |conn| {
        let events = outbox::take(conn, outbox::WEBHOOK, FANOUT_BATCH)?;
        let handled: Vec<String> = events.iter().map(|e| e.id.to_string()).collect();
        let mut hooks: HashMap<UserId, Vec<WebhookRow>> = HashMap::new();
        let mut written = 0;
        for event in events {
            if !hooks.contains_key(&event.user_id) {
                let mine = q::active_of_user(conn, &event.user_id)?;
                hooks.insert(event.user_id.clone(), mine);
            }
            let data = match StoredEvent::parse(&event) {
                Ok(stored) => stored.event.payload(&stored.game_id),
                Err(e) => {
                    // Nothing is sent rather than a made-up body; the event
                    // stays in game_events for inspection.
                    tracing::error!(event = %event.id, error = %format!("{e:#}"), "not delivered");
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
        }
        outbox::done(conn, outbox::WEBHOOK, &handled)?;
        Ok(written)
    })
}

/// What an attempt logs besides its error.
#[derive(Debug, Default, Clone)]
pub struct Sent {
    status_code: Option<u16>,
    duration: Duration,
    /// It timed out or could not connect: the endpoint, not the delivery,
    /// is the trouble.
    unreachable: bool,
}

/// A claimed delivery with its webhook.
#[derive(Debug, Clone)]
pub struct Claimed {
    delivery: DeliveryRow,
    hook: WebhookRow,
    /// The log row of this claim's attempt.
    attempt_id: String,
}

impl jobs::Job for Claimed {
    fn id(&self) -> &str {
        &self.delivery.id
    }

    fn key(&self) -> &str {
        &self.hook.id
    }

    fn attempts(&self) -> u32 {
        self.delivery.attempts.max(0) as u32
    }
}

/// The webhook channel.
pub struct Webhooks {
    pub settings: Settings,
    pub client: reqwest::Client,
    pub mail: MailContext,
}

impl Webhooks {
    pub fn new(settings: Settings, mail: MailContext) -> anyhow::Result<Self> {
        Ok(Self {
            client: settings.targets.client(settings.timeout)?,
            settings,
            mail,
        })
    }
}

impl jobs::Channel for Webhooks {
    type Job = Claimed;
    type Detail = Sent;
    const NAME: &'static str = "webhooks";

    fn limits(&self) -> Limits {
        Limits {
            slots: SLOTS,
            per_key: PER_ENDPOINT,
            lease: lease(self.settings.timeout),
            poll_interval: self.settings.poll_interval,
            retry_scale: self.settings.retry_scale,
            keep_for: chrono::Duration::days(KEEP_DAYS),
        }
    }

    fn enqueue(&self, conn: &mut DbConnection, now: NaiveDateTime) -> diesel::QueryResult<usize> {
        fan_out(conn, now)
    }

    fn claim(
        &self,
        conn: &mut DbConnection,
        now: NaiveDateTime,
        lease_until: NaiveDateTime,
        limit: usize,
        full: &[String],
    ) -> diesel::QueryResult<Vec<Claimed>> {
        Ok(q::claim_due(conn, now, lease_until, limit, full)?
            .into_iter()
            .map(|(delivery, hook)| Claimed {
                delivery,
                hook,
                attempt_id: uuid::Uuid::now_v7().to_string(),
            })
            .collect())
    }

    fn begin(
        &self,
        conn: &mut DbConnection,
        job: &Claimed,
        now: NaiveDateTime,
    ) -> diesel::QueryResult<()> {
        q::begin_attempt(conn, &attempt_row(job, now, false))
    }

    async fn perform(&self, _pool: &Pool, job: &Claimed) -> Outcome<Sent> {
        send(
            &self.client,
            &job.delivery,
            &job.hook,
            &self.settings.targets,
        )
        .await
    }

    fn record(
        &self,
        conn: &mut DbConnection,
        job: &Claimed,
        outcome: &Outcome<Sent>,
        next: Next,
        now: NaiveDateTime,
    ) -> diesel::QueryResult<bool> {
        record(conn, job, outcome, next, self, now)
    }

    fn give_back(
        &self,
        conn: &mut DbConnection,
        job: &Claimed,
        attempted: bool,
        now: NaiveDateTime,
    ) -> diesel::QueryResult<()> {
        let d = &job.delivery;
        if q::give_back(conn, &d.id, d.next_attempt_at, attempted, now)? && attempted {
            q::interrupt_attempts(conn, &d.id)?;
        }
        Ok(())
    }

    fn prune(&self, conn: &mut DbConnection, before: NaiveDateTime) -> diesel::QueryResult<usize> {
        q::prune(conn, before)
    }
}

/// A claim's lease: the request's timeout and a margin, so a live attempt is
/// never claimed twice and one whose process died is soon due again.
fn lease(timeout: Duration) -> chrono::Duration {
    chrono::Duration::from_std(timeout + targets::LOOKUP_TIMEOUT + Duration::from_secs(5))
        .unwrap_or(chrono::Duration::minutes(1))
}

fn attempt_row(job: &Claimed, now: NaiveDateTime, finished: bool) -> AttemptRow {
    AttemptRow {
        id: job.attempt_id.clone(),
        delivery_id: job.delivery.id.clone(),
        attempted_at: now,
        status_code: None,
        duration_ms: 0,
        error: Some(q::UNFINISHED.to_owned()),
        finished,
    }
}

fn failed(detail: Sent, error: impl Into<String>, permanent: bool) -> Outcome<Sent> {
    Outcome::Failed {
        detail,
        error: error.into(),
        permanent,
    }
}

async fn send(
    client: &reqwest::Client,
    d: &DeliveryRow,
    hook: &WebhookRow,
    targets: &targets::Targets,
) -> Outcome<Sent> {
    let started = Instant::now();
    let took = |status_code: Option<u16>, unreachable: bool| Sent {
        status_code,
        duration: started.elapsed(),
        unreachable,
    };
    // The URL was checked when the webhook was saved, but the policy may have
    // changed since. What its host resolves to now is the client's resolver's
    // to check, on the very addresses it connects to.
    if let Some(why) = targets.refusal(&hook.url) {
        return failed(took(None, false), format!("URL refused: {why}"), false);
    }
    // The wire's time, not the service's: receivers check it against their
    // own clocks to refuse replays.
    let timestamp = Utc::now().timestamp();
    let signature = match signature::sign(&hook.secret, &d.id, timestamp, &d.payload) {
        Ok(s) => s,
        Err(e) => return failed(took(None, false), format!("cannot sign: {e}"), false),
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
    match result {
        Ok(res) if res.status().is_success() => {
            Outcome::Done(took(Some(res.status().as_u16()), false))
        }
        // 410 Gone: the receiver asks never to be called again.
        Ok(res) => failed(
            took(Some(res.status().as_u16()), false),
            format!("answered {}", res.status()),
            res.status() == reqwest::StatusCode::GONE,
        ),
        Err(e) if targets::is_refusal(&e) => failed(
            took(None, false),
            "URL refused: its host resolves only to addresses webhooks may not target",
            false,
        ),
        Err(e) if e.is_timeout() => failed(took(None, true), "timed out", false),
        Err(e) if e.is_connect() => failed(took(None, true), "could not connect", false),
        Err(_) => failed(took(None, false), "request failed", false),
    }
}

/// Records an attempt and what follows: done, a retry, or failure (which
/// disables the webhook, as does `410 Gone`, and tells its owner). An
/// unreachable endpoint is backed off as a whole.
fn record(
    conn: &mut DbConnection,
    job: &Claimed,
    outcome: &Outcome<Sent>,
    next: Next,
    channel: &Webhooks,
    now: NaiveDateTime,
) -> diesel::QueryResult<bool> {
    let (d, hook) = (&job.delivery, &job.hook);
    let (sent, error) = match outcome {
        Outcome::Done(sent) => (sent.clone(), None),
        Outcome::Failed { detail, error, .. } => (detail.clone(), Some(error.clone())),
        Outcome::Cancelled(why) => (Sent::default(), Some(why.clone())),
    };
    let delivered = next == Next::Done;
    let duration_ms = sent.duration.as_millis().min(i32::MAX as u128) as i32;
    let row = DeliveryOutcome {
        status: Some(match next {
            Next::Done => DeliveryStatus::Delivered,
            Next::RetryAt(_) => DeliveryStatus::Pending,
            Next::Failed | Next::Cancelled => DeliveryStatus::Failed,
        }),
        next_attempt_at: match next {
            Next::RetryAt(at) => Some(at),
            _ => None,
        },
        last_status_code: Some(sent.status_code.map(i32::from)),
        last_error: Some(error.clone()),
        last_duration_ms: Some(duration_ms),
        delivered_at: delivered.then_some(now),
    };
    // The log shows what the receiver saw, even if the claim was lost.
    let attempt = AttemptRow {
        status_code: sent.status_code.map(i32::from),
        duration_ms,
        error: error.clone(),
        ..attempt_row(job, now, true)
    };
    q::finish_attempt(conn, &attempt)?;
    if !q::record_if_held(conn, &d.id, d.next_attempt_at, &row)? {
        return Ok(false);
    }
    if delivered {
        let reset = WebhookChanges {
            failure_count: Some(0),
            unreachable_streak: Some(0),
            backoff_until: Some(None),
            ..Default::default()
        };
        q::update(conn, &hook.id, &reset)?;
        return Ok(true);
    }
    if sent.unreachable {
        back_off(conn, &hook.id, channel.settings.retry_scale, now)?;
    }
    let gone = sent.status_code == Some(410);
    let changes = if gone {
        disable("gone", now)
    } else if next == Next::Failed {
        WebhookChanges {
            failure_count: Some(hook.failure_count + 1),
            ..disable("failing", now)
        }
    } else {
        return Ok(true);
    };
    // Only the attempt that turns an active webhook off tells its owner,
    // however many deliveries fail at once.
    if q::update_if_active(conn, &hook.id, &changes)? {
        let reason = if gone { "gone" } else { "failing" };
        mail::queue_webhook_disabled(
            conn,
            &channel.mail,
            &hook.user_id,
            &hook.id,
            &hook.url,
            reason,
            now,
        )?;
    }
    Ok(true)
}

/// Holds every delivery to webhook `id` back for the retry schedule's wait
/// after its run of unreachable attempts.
fn back_off(
    conn: &mut DbConnection,
    id: &str,
    scale: f64,
    now: NaiveDateTime,
) -> diesel::QueryResult<()> {
    let Some(hook) = q::find(conn, id)? else {
        return Ok(());
    };
    let streak = hook.unreachable_streak.saturating_add(1);
    let wait = jobs::retry_delay(streak as usize, scale)
        .or_else(|| jobs::retry_delay(jobs::RETRY_SCHEDULE_SECS.len(), scale))
        .unwrap_or_default();
    let until = hook.backoff_until.map_or(now + wait, |b| b.max(now + wait));
    let changes = WebhookChanges {
        unreachable_streak: Some(streak),
        backoff_until: Some(Some(until)),
        ..Default::default()
    };
    q::update(conn, id, &changes)
}

fn disable(reason: &str, now: NaiveDateTime) -> WebhookChanges {
    WebhookChanges {
        active: Some(false),
        disabled_reason: Some(Some(reason.to_owned())),
        updated_at: Some(now),
        ..Default::default()
    }
}

//! Webhook use cases: registering endpoints, test pings, the delivery log and
//! redelivery.

use crate::domain::{EventId, GameId, UserId, WebhookId};
use chrono::NaiveDateTime;
use serde_json::json;

use crate::db::webhooks::{self as q, AttemptRow, DeliveryRow, WebhookChanges, WebhookRow};
use crate::db::{self, DbUnavailable, Pool};
use crate::domain::FieldError;

use super::{signature, Settings};

pub const PING: &str = "webhook.ping";

/// Most deliveries the log shows.
const LOG_LIMIT: i64 = 100;

#[derive(Debug, thiserror::Error)]
pub enum WebhookError {
    #[error("invalid request")]
    Invalid(Vec<FieldError>),
    #[error("no such webhook")]
    NotFound,
    #[error("no such delivery")]
    DeliveryNotFound,
    #[error("delivery still pending")]
    StillPending,
    #[error(transparent)]
    OverLimit(#[from] crate::domain::limits::OverLimit),
    #[error(transparent)]
    Unavailable(#[from] DbUnavailable),
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

impl From<diesel::result::Error> for WebhookError {
    /// A broken connection, a lock or a timeout is unavailability (503);
    /// anything else is a bug (500).
    fn from(e: diesel::result::Error) -> Self {
        match crate::db::DbUnavailable::classify(e) {
            Ok(unavailable) => WebhookError::Unavailable(unavailable),
            Err(e) => {
                WebhookError::Internal(anyhow::Error::new(e).context("database query failed"))
            }
        }
    }
}

/// A webhook to create, its fields already checked except the URL's address.
pub struct NewWebhook {
    pub url: String,
    pub events: Vec<String>,
    pub game_id: Option<String>,
}

/// Changes to a webhook; `None` leaves a field as it is.
#[derive(Default)]
pub struct WebhookPatch {
    pub url: Option<String>,
    pub events: Option<Vec<String>>,
    pub game_id: Option<Option<String>>,
    pub active: Option<bool>,
}

/// A webhook as its owner sees it; `secret` only on creation.
pub struct Webhook {
    pub row: WebhookRow,
    pub events: Vec<String>,
    pub show_secret: bool,
}

impl Webhook {
    /// The webhook of a stored row; an event list that does not parse is an
    /// error naming the row.
    fn from_row(row: WebhookRow, show_secret: bool) -> Result<Self, WebhookError> {
        let events = serde_json::from_str(&row.events).map_err(|e| {
            anyhow::anyhow!(
                "stored event list of webhook {} does not parse: {e}",
                row.id
            )
        })?;
        Ok(Self {
            row,
            events,
            show_secret,
        })
    }
}

/// A delivery with its attempts.
pub struct Delivery {
    pub row: DeliveryRow,
    pub attempts: Vec<AttemptRow>,
}

async fn checked_url(raw: &str, settings: &Settings) -> Result<String, WebhookError> {
    settings
        .targets
        .check(raw)
        .await
        .map(String::from)
        .map_err(|e| WebhookError::Invalid(vec![e]))
}

fn check_game(conn: &mut db::DbConnection, game_id: &Option<String>) -> Result<(), WebhookError> {
    if let Some(id) = game_id {
        if !q::game_exists(conn, id)? {
            return Err(WebhookError::Invalid(vec![FieldError::new(
                "game_id",
                "unknown-game",
                "there is no game with this id",
            )]));
        }
    }
    Ok(())
}

pub async fn create(
    pool: &Pool,
    settings: &Settings,
    user_id: UserId,
    new: NewWebhook,
    now: NaiveDateTime,
) -> Result<Webhook, WebhookError> {
    let url = checked_url(&new.url, settings).await?;
    let limits = settings.limits;
    db::run(pool, move |conn| {
        limits.webhooks.admit(q::count_of_user(conn, &user_id)?)?;
        check_game(conn, &new.game_id)?;
        let row = WebhookRow {
            id: WebhookId::generate(),
            user_id,
            url,
            events: json!(new.events).to_string(),
            game_id: new.game_id.map(GameId::from),
            secret: signature::new_secret(),
            active: true,
            failure_count: 0,
            disabled_reason: None,
            created_at: now,
            updated_at: now,
            unreachable_streak: 0,
            backoff_until: None,
        };
        q::insert(conn, &row)?;
        Webhook::from_row(row, true)
    })
    .await
}

pub async fn list(pool: &Pool, user_id: UserId) -> Result<Vec<Webhook>, WebhookError> {
    db::run(pool, move |conn| {
        q::list_for_user(conn, &user_id)?
            .into_iter()
            .map(|r| Webhook::from_row(r, false))
            .collect()
    })
    .await
}

fn owned(conn: &mut db::DbConnection, id: &str, user_id: &str) -> Result<WebhookRow, WebhookError> {
    q::find_for_user(conn, id, user_id)?.ok_or(WebhookError::NotFound)
}

pub async fn get(pool: &Pool, user_id: UserId, id: WebhookId) -> Result<Webhook, WebhookError> {
    db::run(pool, move |conn| {
        Webhook::from_row(owned(conn, &id, &user_id)?, false)
    })
    .await
}

pub async fn update(
    pool: &Pool,
    settings: &Settings,
    user_id: UserId,
    id: WebhookId,
    patch: WebhookPatch,
    now: NaiveDateTime,
) -> Result<Webhook, WebhookError> {
    let url = match &patch.url {
        Some(raw) => Some(checked_url(raw, settings).await?),
        None => None,
    };
    db::run(pool, move |conn| {
        db::write_transaction(conn, |conn| {
            owned(conn, &id, &user_id)?;
            if let Some(game_id) = &patch.game_id {
                check_game(conn, game_id)?;
            }
            // Turning a webhook back on forgets why it was turned off; a
            // new address, or turning it on, ends a back-off.
            let reenable = patch.active == Some(true);
            let fresh = reenable || url.is_some();
            let changes = WebhookChanges {
                url,
                events: patch.events.map(|e| json!(e).to_string()),
                game_id: patch.game_id,
                active: patch.active,
                failure_count: reenable.then_some(0),
                disabled_reason: reenable.then_some(None),
                updated_at: Some(now),
                unreachable_streak: fresh.then_some(0),
                backoff_until: fresh.then_some(None),
            };
            q::update(conn, &id, &changes)?;
            Webhook::from_row(owned(conn, &id, &user_id)?, false)
        })
    })
    .await
}

pub async fn delete(pool: &Pool, user_id: UserId, id: WebhookId) -> Result<(), WebhookError> {
    db::run(pool, move |conn| {
        if q::delete_for_user(conn, &id, &user_id)? {
            Ok(())
        } else {
            Err(WebhookError::NotFound)
        }
    })
    .await
}

/// Queues a `webhook.ping` delivery, sent like any event.
pub async fn ping(
    pool: &Pool,
    limits: crate::domain::limits::Limits,
    user_id: UserId,
    id: WebhookId,
    now: NaiveDateTime,
) -> Result<Delivery, WebhookError> {
    db::run(pool, move |conn| {
        let hook = owned(conn, &id, &user_id)?;
        let pings = q::deliveries_of_type_since(conn, &user_id, PING, limits.pings.since(now))?;
        limits.pings.admit(&pings, now)?;
        let data = json!({"webhook_id": hook.id});
        let row = DeliveryRow::pending(
            hook.id,
            EventId::generate(),
            PING.to_owned(),
            super::delivery::body(PING, now, data),
            now,
        );
        q::insert_delivery_if_new(conn, &row)?;
        Ok(Delivery {
            row,
            attempts: Vec::new(),
        })
    })
    .await
}

/// The webhook's latest deliveries, newest first, each with its attempts.
pub async fn deliveries(
    pool: &Pool,
    user_id: UserId,
    id: WebhookId,
) -> Result<Vec<Delivery>, WebhookError> {
    db::run(pool, move |conn| {
        owned(conn, &id, &user_id)?;
        let rows = q::deliveries_of(conn, &id, LOG_LIMIT)?;
        let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
        let mut attempts = q::attempts_of(conn, &ids)?;
        Ok(rows
            .into_iter()
            .map(|row| {
                let (mine, rest): (Vec<_>, Vec<_>) =
                    attempts.drain(..).partition(|a| a.delivery_id == row.id);
                attempts = rest;
                Delivery {
                    row,
                    attempts: mine,
                }
            })
            .collect())
    })
    .await
}

/// Queues a finished delivery again, with the same id and body.
pub async fn redeliver(
    pool: &Pool,
    user_id: UserId,
    id: WebhookId,
    delivery_id: String,
    now: NaiveDateTime,
) -> Result<Delivery, WebhookError> {
    db::run(pool, move |conn| {
        db::write_transaction(conn, |conn| {
            owned(conn, &id, &user_id)?;
            let row =
                q::find_delivery(conn, &id, &delivery_id)?.ok_or(WebhookError::DeliveryNotFound)?;
            if row.status == q::DeliveryStatus::Pending {
                return Err(WebhookError::StillPending);
            }
            q::requeue(conn, &row.id, now)?;
            let row =
                q::find_delivery(conn, &id, &delivery_id)?.ok_or(WebhookError::DeliveryNotFound)?;
            let attempts = q::attempts_of(conn, std::slice::from_ref(&row.id))?;
            Ok(Delivery { row, attempts })
        })
    })
    .await
}

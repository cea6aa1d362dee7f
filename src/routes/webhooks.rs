//! Webhooks: endpoints that receive your game events, signed per Standard Webhooks.

use crate::domain::{GameId, WebhookId};
use actix_web::{web, HttpResponse};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::json::ApiJson;
use super::{AuthProblems, JsonBodyProblems};
use crate::auth::Authenticated;
use crate::domain::FieldError;
use crate::error::{ApiError, Problem};
use crate::games::events;
use crate::notify::webhooks::{self as service, Delivery, NewWebhook, Webhook, WebhookPatch};
use crate::state::AppState;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"url": "https://bot.example/hooks/sannin", "events": ["game.your_turn", "game.finished"]}))]
pub struct CreateWebhookRequest {
    /// Where to POST events.
    #[schema(value_type = crate::routes::schemas::WebhookUrl)]
    pub url: String,
    /// The event types wanted (at least one), e.g. `game.your_turn`.
    #[schema(value_type = Vec<crate::routes::schemas::EventType>, min_items = 1)]
    pub events: Vec<String>,
    /// Only this game's events, when given.
    #[schema(value_type = Option<crate::domain::GameId>)]
    pub game_id: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"active": true}))]
pub struct UpdateWebhookRequest {
    #[schema(value_type = Option<crate::routes::schemas::WebhookUrl>)]
    pub url: Option<String>,
    /// At least one event type.
    #[schema(value_type = Option<Vec<crate::routes::schemas::EventType>>, min_items = 1)]
    pub events: Option<Vec<String>>,
    /// A game id to filter on, or `null` for all games.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<crate::domain::GameId>)]
    pub game_id: Option<Option<String>>,
    /// `true` turns a disabled webhook back on.
    pub active: Option<bool>,
}

fn double_option<'de, D>(d: D) -> Result<Option<Option<String>>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    Option::<String>::deserialize(d).map(Some)
}

/// A webhook. `secret` is shown only in the answer to its creation.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({
    "id": "019a1f0e-7c1a-7b3e-9d2f-3c4b5a697887",
    "url": "https://bot.example/hooks/sannin",
    "events": ["game.your_turn"],
    "game_id": null,
    "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwZ3v1xXWq3mU=",
    "active": true,
    "disabled_reason": null,
    "backoff_until": null,
    "created_at": "2026-11-30T12:00:00Z"
}))]
pub struct WebhookView {
    pub id: String,
    pub url: String,
    pub events: Vec<String>,
    pub game_id: Option<String>,
    /// The signing secret (`whsec_…`); present only on creation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
    pub active: bool,
    /// Why the server turned it off: `gone` (the receiver answered 410) or
    /// `failing` (a delivery failed every retry).
    pub disabled_reason: Option<String>,
    /// Set after attempts that timed out or could not connect: until then no
    /// delivery to this endpoint is attempted. It grows on the retry
    /// schedule while the endpoint stays unreachable, and a success, a new
    /// `url` or turning the webhook on clears it.
    pub backoff_until: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

impl From<Webhook> for WebhookView {
    fn from(w: Webhook) -> Self {
        Self {
            id: w.row.id.into_string(),
            url: w.row.url,
            events: w.events,
            game_id: w.row.game_id.map(GameId::into_string),
            secret: w.show_secret.then_some(w.row.secret),
            active: w.row.active,
            disabled_reason: w.row.disabled_reason,
            backoff_until: w.row.backoff_until.map(super::utc),
            created_at: super::utc(w.row.created_at),
        }
    }
}

/// One attempt to deliver.
#[derive(Serialize, ToSchema)]
pub struct AttemptView {
    pub attempted_at: DateTime<Utc>,
    /// The receiver's HTTP status, when it answered.
    pub status_code: Option<u16>,
    pub duration_ms: i32,
    /// Why the attempt failed, if it did.
    pub error: Option<String>,
}

/// One event sent to a webhook; its `id` is the `webhook-id` header.
#[derive(Serialize, ToSchema)]
pub struct DeliveryView {
    pub id: String,
    pub event_id: String,
    pub event_type: String,
    /// `pending`, `delivered` or `failed`.
    pub status: String,
    /// When the next attempt is due, while pending.
    pub next_attempt_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub delivered_at: Option<DateTime<Utc>>,
    /// Every attempt, oldest first.
    pub attempts: Vec<AttemptView>,
}

impl From<Delivery> for DeliveryView {
    fn from(d: Delivery) -> Self {
        let pending = d.row.status == crate::db::webhooks::DeliveryStatus::Pending;
        Self {
            id: d.row.id,
            event_id: d.row.event_id.into_string(),
            event_type: d.row.event_type,
            status: d.row.status.as_str().to_owned(),
            next_attempt_at: pending.then(|| super::utc(d.row.next_attempt_at)),
            created_at: super::utc(d.row.created_at),
            delivered_at: d.row.delivered_at.map(super::utc),
            attempts: d
                .attempts
                .into_iter()
                .map(|a| AttemptView {
                    attempted_at: super::utc(a.attempted_at),
                    status_code: a.status_code.and_then(|c| u16::try_from(c).ok()),
                    duration_ms: a.duration_ms,
                    error: a.error,
                })
                .collect(),
        }
    }
}

fn parse_events(events: Vec<String>, errors: &mut Vec<FieldError>) -> Vec<String> {
    if events.is_empty() {
        errors.push(FieldError::new(
            "events",
            "required",
            "must name at least one event type",
        ));
    }
    let mut out: Vec<String> = Vec::new();
    for e in events {
        if !events::ALL.contains(&e.as_str()) {
            errors.push(FieldError::new(
                "events",
                "unknown-event",
                format!("`{e}` is not an event type"),
            ));
        } else if !out.contains(&e) {
            out.push(e);
        }
    }
    out
}

impl CreateWebhookRequest {
    fn parse(self) -> Result<NewWebhook, ApiError> {
        let mut errors = Vec::new();
        let events = parse_events(self.events, &mut errors);
        if !errors.is_empty() {
            return Err(ApiError::Validation(errors));
        }
        Ok(NewWebhook {
            url: self.url,
            events,
            game_id: self.game_id,
        })
    }
}

impl UpdateWebhookRequest {
    fn parse(self) -> Result<WebhookPatch, ApiError> {
        let mut errors = Vec::new();
        let events = self.events.map(|e| parse_events(e, &mut errors));
        if !errors.is_empty() {
            return Err(ApiError::Validation(errors));
        }
        Ok(WebhookPatch {
            url: self.url,
            events,
            game_id: self.game_id,
            active: self.active,
        })
    }
}

/// Register a webhook.
#[utoipa::path(
    post,
    path = "/api/v1/webhooks",
    operation_id = "create_webhook",
    tag = "webhooks",
    request_body = CreateWebhookRequest,
    responses(
        (status = 201, description = "Created; `secret` is shown this once", body = WebhookView),
        (status = 403, description = "The token lacks `webhooks:manage` (`insufficient-scope`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid fields: a URL that is not http(s) or resolves to a private address (`url`), unknown event types (`events`), an unknown game (`game_id`)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The account holds as many webhooks as it may (`quota-exceeded`, 20 by default)", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
        JsonBodyProblems,
    )
)]
pub async fn create(
    auth: Authenticated,
    state: web::Data<AppState>,
    body: ApiJson<CreateWebhookRequest>,
) -> Result<HttpResponse, ApiError> {
    let new = body.0.parse()?;
    let now = state.clock.now();
    let hook = service::create(&state.pool, &state.webhooks, auth.user_id, new, now).await?;
    Ok(HttpResponse::Created()
        .insert_header(("Cache-Control", "no-store"))
        .json(WebhookView::from(hook)))
}

/// List your webhooks (without their secrets).
#[utoipa::path(
    get,
    path = "/api/v1/webhooks",
    operation_id = "list_webhooks",
    tag = "webhooks",
    responses(
        (status = 200, description = "Your webhooks, oldest first", body = [WebhookView]),
        (status = 403, description = "The token lacks `webhooks:manage` (`insufficient-scope`)", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
    )
)]
pub async fn list(
    auth: Authenticated,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let hooks = service::list(&state.pool, auth.user_id).await?;
    Ok(HttpResponse::Ok().json(hooks.into_iter().map(WebhookView::from).collect::<Vec<_>>()))
}

/// One of your webhooks.
#[utoipa::path(
    get,
    path = "/api/v1/webhooks/{id}",
    operation_id = "get_webhook",
    tag = "webhooks",
    params(("id" = crate::domain::WebhookId, Path, description = "The webhook's id")),
    responses(
        (status = 200, description = "The webhook", body = WebhookView),
        (status = 403, description = "The token lacks `webhooks:manage` (`insufficient-scope`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "You have no webhook with this id (`not-found`)", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
    )
)]
pub async fn get(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<WebhookId>,
) -> Result<HttpResponse, ApiError> {
    let hook = service::get(&state.pool, auth.user_id, path.into_inner()).await?;
    Ok(HttpResponse::Ok().json(WebhookView::from(hook)))
}

/// Change a webhook's URL, events or game, or turn it on or off.
#[utoipa::path(
    patch,
    path = "/api/v1/webhooks/{id}",
    operation_id = "update_webhook",
    tag = "webhooks",
    params(("id" = crate::domain::WebhookId, Path, description = "The webhook's id")),
    request_body = UpdateWebhookRequest,
    responses(
        (status = 200, description = "The changed webhook", body = WebhookView),
        (status = 403, description = "The token lacks `webhooks:manage` (`insufficient-scope`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "You have no webhook with this id (`not-found`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid fields", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
        JsonBodyProblems,
    )
)]
pub async fn update(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<WebhookId>,
    body: ApiJson<UpdateWebhookRequest>,
) -> Result<HttpResponse, ApiError> {
    let patch = body.0.parse()?;
    let hook = service::update(
        &state.pool,
        &state.webhooks,
        auth.user_id,
        path.into_inner(),
        patch,
        state.clock.now(),
    )
    .await?;
    Ok(HttpResponse::Ok().json(WebhookView::from(hook)))
}

/// Delete a webhook and its delivery log.
#[utoipa::path(
    delete,
    path = "/api/v1/webhooks/{id}",
    operation_id = "delete_webhook",
    tag = "webhooks",
    params(("id" = crate::domain::WebhookId, Path, description = "The webhook's id")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 403, description = "The token lacks `webhooks:manage` (`insufficient-scope`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "You have no webhook with this id (`not-found`)", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
    )
)]
pub async fn delete(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<WebhookId>,
) -> Result<HttpResponse, ApiError> {
    service::delete(&state.pool, auth.user_id, path.into_inner()).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Send a `webhook.ping` event to the webhook.
#[utoipa::path(
    post,
    path = "/api/v1/webhooks/{id}/ping",
    operation_id = "ping_webhook",
    tag = "webhooks",
    params(("id" = crate::domain::WebhookId, Path, description = "The webhook's id")),
    responses(
        (status = 202, description = "Queued; the delivery's log follows its attempts", body = DeliveryView),
        (status = 403, description = "The token lacks `webhooks:manage` (`insufficient-scope`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "You have no webhook with this id (`not-found`)", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "The account pinged as often as it may this hour (`rate-limited`, 10 by default)", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
        AuthProblems,
    )
)]
pub async fn ping(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<WebhookId>,
) -> Result<HttpResponse, ApiError> {
    let now = state.clock.now();
    let answer = service::ping(
        &state.pool,
        state.webhooks.limits,
        auth.user_id.clone(),
        path.into_inner(),
        now,
    )
    .await
    .map(|delivery| HttpResponse::Accepted().json(DeliveryView::from(delivery)))
    .map_err(ApiError::from);
    let counted = crate::accounts::limits::Counted::Pings;
    let standing = crate::accounts::limits::standing(&state, &auth.user_id, counted, now).await?;
    super::limited(answer, &standing)
}

/// The webhook's latest deliveries (at most 100, newest first), each with its attempts.
#[utoipa::path(
    get,
    path = "/api/v1/webhooks/{id}/deliveries",
    operation_id = "list_webhook_deliveries",
    tag = "webhooks",
    params(("id" = crate::domain::WebhookId, Path, description = "The webhook's id")),
    responses(
        (status = 200, description = "Deliveries, newest first", body = [DeliveryView]),
        (status = 403, description = "The token lacks `webhooks:manage` (`insufficient-scope`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "You have no webhook with this id (`not-found`)", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
    )
)]
pub async fn deliveries(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<WebhookId>,
) -> Result<HttpResponse, ApiError> {
    let list = service::deliveries(&state.pool, auth.user_id, path.into_inner()).await?;
    Ok(HttpResponse::Ok().json(list.into_iter().map(DeliveryView::from).collect::<Vec<_>>()))
}

/// Send a delivered or failed delivery again, with the same `webhook-id` and body.
#[utoipa::path(
    post,
    path = "/api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver",
    operation_id = "redeliver_webhook_delivery",
    tag = "webhooks",
    params(
        ("id" = crate::domain::WebhookId, Path, description = "The webhook's id"),
        ("delivery_id" = crate::routes::schemas::DeliveryId, Path, description = "The delivery's id"),
    ),
    responses(
        (status = 202, description = "Queued again", body = DeliveryView),
        (status = 403, description = "The token lacks `webhooks:manage` (`insufficient-scope`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such webhook or delivery (`not-found`)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The delivery is still pending (`delivery-pending`)", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
    )
)]
pub async fn redeliver(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<(WebhookId, String)>,
) -> Result<HttpResponse, ApiError> {
    let (id, delivery_id) = path.into_inner();
    let now = state.clock.now();
    let delivery = service::redeliver(&state.pool, auth.user_id, id, delivery_id, now).await?;
    Ok(HttpResponse::Accepted().json(DeliveryView::from(delivery)))
}

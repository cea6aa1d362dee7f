//! Mail settings, address verification and one-click unsubscribe. The two
//! link targets answer HTML, since people open them from mail in a browser.

use std::collections::BTreeMap;

use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::accounts::Account;
use super::json::ApiJson;
use super::{AuthProblems, JsonBodyProblems};
use crate::accounts::{self};
use crate::auth::Authenticated;
use crate::domain::FieldError;
use crate::error::{ApiError, Problem};
use crate::notify::mail::{compose, Preferences, MAILED};
use crate::render::xml::escape;
use crate::state::AppState;

/// One message sent (or being sent) to you.
#[derive(Serialize, ToSchema)]
pub struct MailView {
    pub id: String,
    /// The event type it reports, or `account.verify_email`.
    pub kind: String,
    pub subject: String,
    pub to: String,
    /// `pending`, `sent` or `failed`.
    pub status: String,
    pub attempts: i32,
    /// Why the last attempt failed, if it did.
    pub last_error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub sent_at: Option<DateTime<Utc>>,
}

/// Your mail settings.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({
    "email": "alice@example.org",
    "email_verified": true,
    "mail": {
        "game.invited": true, "game.started": true, "game.your_turn": true,
        "game.alliance_proposed": true, "game.player_eliminated": true,
        "game.finished": true, "game.deadline_approaching": true, "webhook.disabled": true
    },
    "recent": []
}))]
pub struct NotificationSettings {
    pub email: String,
    /// Game mail goes to verified addresses only.
    pub email_verified: bool,
    /// Each kind of mail and whether you get it.
    pub mail: BTreeMap<String, bool>,
    /// Your last 20 messages, newest first.
    pub recent: Vec<MailView>,
}

impl From<Preferences> for NotificationSettings {
    fn from(p: Preferences) -> Self {
        Self {
            email: p.user.shown_email().to_owned(),
            email_verified: p.user.email_verified,
            mail: p.mail.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
            recent: p
                .recent
                .into_iter()
                .map(|m| MailView {
                    id: m.id,
                    kind: m.kind,
                    subject: m.subject,
                    to: m.to_address,
                    status: m.status.as_str().to_owned(),
                    attempts: m.attempts,
                    last_error: m.last_error,
                    created_at: super::utc(m.created_at),
                    sent_at: m.sent_at.map(super::utc),
                })
                .collect(),
        }
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"mail": {"game.started": false, "game.your_turn": true}}))]
pub struct UpdateNotificationsRequest {
    /// Kinds of mail to turn on (`true`) or off (`false`); others stay as they are.
    #[schema(value_type = crate::routes::schemas::MailChanges)]
    pub mail: BTreeMap<String, bool>,
}

/// Your mail settings and recent mail.
#[utoipa::path(
    get,
    path = "/api/v1/me/notifications",
    operation_id = "get_notification_settings",
    tag = "me",
    responses(
        (status = 200, description = "Your mail settings", body = NotificationSettings),
        (status = 403, description = "The token lacks `account:read` (`insufficient-scope`)", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
    )
)]
pub async fn get(
    auth: Authenticated,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let settings = accounts::notification_settings(&state, auth.user_id).await?;
    Ok(HttpResponse::Ok().json(NotificationSettings::from(settings)))
}

/// Turn kinds of mail on or off.
#[utoipa::path(
    patch,
    path = "/api/v1/me/notifications",
    operation_id = "update_notification_settings",
    tag = "me",
    request_body = UpdateNotificationsRequest,
    responses(
        (status = 200, description = "Your mail settings after the change", body = NotificationSettings),
        (status = 403, description = "The token lacks `account:write` (`insufficient-scope`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A kind of mail that does not exist", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
        JsonBodyProblems,
    )
)]
pub async fn patch(
    auth: Authenticated,
    state: web::Data<AppState>,
    body: ApiJson<UpdateNotificationsRequest>,
) -> Result<HttpResponse, ApiError> {
    let unknown: Vec<FieldError> = body
        .0
        .mail
        .keys()
        .filter(|k| !MAILED.contains(&k.as_str()))
        .map(|k| {
            FieldError::new(
                format!("mail.{k}"),
                "unknown",
                format!("is not a kind of mail; the kinds are {}", MAILED.join(", ")),
            )
        })
        .collect();
    if !unknown.is_empty() {
        return Err(ApiError::Validation(unknown));
    }
    let changes: Vec<(String, bool)> = body.0.mail.into_iter().collect();
    let settings = accounts::set_notification_settings(&state, auth.user_id, changes).await?;
    Ok(HttpResponse::Ok().json(NotificationSettings::from(settings)))
}

/// Send a new verification link to your address.
#[utoipa::path(
    post,
    path = "/api/v1/me/email/verification",
    operation_id = "resend_verification",
    tag = "me",
    responses(
        (status = 202, description = "A new link is on its way"),
        (status = 403, description = "The token lacks `account:write` (`insufficient-scope`)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The address is already verified (`already-verified`)", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "A link went out less than a minute ago, or the account had as many verification mails as it may today (`rate-limited`, with `Retry-After`)", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
    )
)]
pub async fn resend(
    auth: Authenticated,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let answer = accounts::resend_verification(&state, auth.user_id.clone())
        .await
        .map(|()| HttpResponse::Accepted().finish())
        .map_err(ApiError::from);
    let counted = accounts::limits::Counted::VerificationMails;
    let now = state.clock.now();
    let standing = accounts::limits::standing(&state, &auth.user_id, counted, now).await?;
    super::limited(answer, &standing)
}

/// The token of a link from mail.
#[derive(Deserialize, IntoParams, ToSchema)]
pub struct TokenQuery {
    /// The token from the link.
    #[param(min_length = 1)]
    #[schema(min_length = 1)]
    pub token: String,
}

/// A small HTML page.
fn page(status: StatusCode, title: &str, body_html: &str) -> HttpResponse {
    HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .body(format!(
            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width\"><title>{t} · Sannin</title></head>\n\
             <body style=\"font-family: sans-serif; max-width: 36em; margin: 3em auto\">\n\
             <h1>{t}</h1>\n{body_html}\n</body></html>\n",
            t = escape(title)
        ))
}

fn error_page(e: ApiError) -> HttpResponse {
    let status = actix_web::ResponseError::status_code(&e);
    let p = e.problem();
    page(status, &p.title, &format!("<p>{}</p>", escape(&p.detail)))
}

/// Verify your address (the link in the verification mail). Answers an HTML page.
#[utoipa::path(
    get,
    path = "/api/v1/email/verify",
    operation_id = "verify_email_page",
    tag = "accounts",
    params(TokenQuery),
    responses(
        (status = 200, description = "Verified", body = String, content_type = "text/html"),
        (status = 400, description = "The link is not valid", body = String, content_type = "text/html"),
        (status = 409, description = "The account's address changed since, or another account took the address meanwhile", body = String, content_type = "text/html"),
        (status = 410, description = "The link has expired", body = String, content_type = "text/html"),
    )
)]
pub async fn verify_page(
    state: web::Data<AppState>,
    query: web::Query<TokenQuery>,
) -> HttpResponse {
    match accounts::verify_email(&state, query.into_inner().token).await {
        Ok(user) => page(
            StatusCode::OK,
            "Address verified",
            &format!(
                "<p>Thank you, {}: {} is verified. Sannin will now mail you about your games.</p>",
                escape(&user.username),
                escape(&user.email)
            ),
        ),
        Err(e) => error_page(e.into()),
    }
}

/// Verify your address with the token of a verification link (for clients).
#[utoipa::path(
    post,
    path = "/api/v1/email/verify",
    operation_id = "verify_email",
    tag = "accounts",
    request_body = TokenQuery,
    responses(
        (status = 200, description = "Verified: the account", body = Account),
        (status = 400, description = "The token is not valid (`link-invalid`)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The account's address changed since (`email-changed`), or another account took the address meanwhile (`email-taken`)", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "The token has expired (`link-expired`)", body = Problem, content_type = "application/problem+json"),
        JsonBodyProblems,
    )
)]
pub async fn verify(
    state: web::Data<AppState>,
    body: ApiJson<TokenQuery>,
) -> Result<HttpResponse, ApiError> {
    let user = accounts::verify_email(&state, body.0.token).await?;
    Ok(HttpResponse::Ok().json(Account::from(user)))
}

/// What a valid unsubscribe link claims, for a kind of mail that exists.
fn unsubscribe_claim(state: &AppState, token: &str) -> Option<crate::auth::links::Unsubscribe> {
    state
        .mail
        .links()
        .check_unsubscribe(token)
        .ok()
        .filter(|c| MAILED.contains(&c.event_type.as_str()))
}

fn invalid_unsubscribe_link() -> HttpResponse {
    page(
        StatusCode::BAD_REQUEST,
        "Invalid link",
        "<p>This unsubscribe link is not valid: it may be cut short or altered. \
         You can change every mail setting with <code>PATCH /api/v1/me/notifications</code>.</p>",
    )
}

/// The page behind an unsubscribe link: one button that stops this kind of mail.
#[utoipa::path(
    get,
    path = "/api/v1/unsubscribe",
    operation_id = "unsubscribe_page",
    tag = "accounts",
    params(TokenQuery),
    responses(
        (status = 200, description = "A page with the button", body = String, content_type = "text/html"),
        (status = 400, description = "The link is not valid", body = String, content_type = "text/html"),
    )
)]
pub async fn unsubscribe_page(
    state: web::Data<AppState>,
    query: web::Query<TokenQuery>,
) -> HttpResponse {
    let Some(claim) = unsubscribe_claim(&state, &query.token) else {
        return invalid_unsubscribe_link();
    };
    let what = compose::describe(&claim.event_type);
    page(
        StatusCode::OK,
        "Stop this mail?",
        &format!(
            "<p>Stop mail about {} ({})?</p>\n\
             <form method=\"post\" action=\"\">\
             <button type=\"submit\">Unsubscribe</button></form>",
            escape(what),
            escape(&claim.event_type),
        ),
    )
}

/// One-click unsubscribe (RFC 8058): the target of `List-Unsubscribe`, and of
/// the button on the link's page. Needs no login; the body is ignored.
#[utoipa::path(
    post,
    path = "/api/v1/unsubscribe",
    operation_id = "unsubscribe_by_link",
    tag = "accounts",
    params(TokenQuery),
    responses(
        (status = 200, description = "Unsubscribed", body = String, content_type = "text/html"),
        (status = 400, description = "The link is not valid", body = String, content_type = "text/html"),
    )
)]
pub async fn unsubscribe(
    state: web::Data<AppState>,
    query: web::Query<TokenQuery>,
) -> Result<HttpResponse, ApiError> {
    let Some(claim) = unsubscribe_claim(&state, &query.token) else {
        return Ok(invalid_unsubscribe_link());
    };
    let kind = claim.event_type.clone();
    accounts::unsubscribe(&state, claim.user_id.into(), claim.event_type).await?;
    Ok(page(
        StatusCode::OK,
        "Unsubscribed",
        &format!(
            "<p>You will get no more mail about {} ({}). To turn it back on: \
             <code>PATCH /api/v1/me/notifications</code> with <code>{{\"mail\": {{\"{}\": true}}}}</code>.</p>",
            escape(compose::describe(&kind)),
            escape(&kind),
            escape(&kind)
        ),
    ))
}

use crate::domain::TokenId;
use actix_web::{web, HttpResponse};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::json::ApiJson;
use super::{AuthProblems, JsonBodyProblems};
use crate::accounts::{self, NewPersonalToken, PersonalToken};
use crate::auth::Authenticated;
use crate::domain::FieldError;
use crate::domain::{Scope, ScopeSet, TokenName};
use crate::error::{ApiError, Problem};
use crate::state::AppState;

/// Longest allowed lifetime of a personal access token.
const MAX_EXPIRY_DAYS: u32 = 3650;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "my bot", "scopes": ["games:read", "games:play"], "expires_in_days": 90}))]
pub struct CreateTokenRequest {
    #[schema(value_type = crate::domain::TokenName)]
    pub name: String,
    /// At least one scope.
    #[schema(min_items = 1)]
    pub scopes: Vec<Scope>,
    /// Days until the token expires (1–3650); without it, it never expires.
    /// A personal token mints only tokens that expire no later than itself.
    #[schema(example = 90, minimum = 1, maximum = 3650)]
    pub expires_in_days: Option<u32>,
    /// Your password. Needed unless the request comes with an access token
    /// of a log-in less than 10 minutes old (so always with a personal token).
    pub current_password: Option<String>,
}

/// How many tokens were revoked.
#[derive(Serialize, ToSchema)]
pub struct RevokedTokens {
    #[schema(example = 3)]
    pub revoked: usize,
}

/// A personal access token. `token`, the secret, is only ever shown in the
/// response to its creation.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({
    "id": "5f0c1a2b-0b0a-4a5c-9f57-2d9f1f1e8a43",
    "name": "my bot",
    "scopes": ["games:read", "games:play"],
    "token": "sannin_pat_Qm9y7s4t2u1v0w9x8y7z6mJ0cC3hWZ5qv8x1eX2b0o6",
    "created_at": "2026-01-01T12:00:00Z",
    "expires_at": "2026-04-01T12:00:00Z",
    "last_used_at": null
}))]
pub struct TokenView {
    pub id: String,
    pub name: String,
    pub scopes: Vec<Scope>,
    /// The secret, for `Authorization: Bearer …`; present only on creation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    pub created_at: DateTime<Utc>,
    pub expires_at: Option<DateTime<Utc>>,
    pub last_used_at: Option<DateTime<Utc>>,
}

impl From<PersonalToken> for TokenView {
    fn from(t: PersonalToken) -> Self {
        Self {
            id: t.id,
            name: t.name,
            scopes: t.scopes.iter().collect(),
            token: t.secret,
            created_at: super::utc(t.created_at),
            expires_at: t.expires_at.map(super::utc),
            last_used_at: t.last_used_at.map(super::utc),
        }
    }
}

impl CreateTokenRequest {
    fn parse(self) -> Result<NewPersonalToken, ApiError> {
        let mut errors = Vec::new();
        let name = TokenName::parse(&self.name)
            .map_err(|e| errors.push(FieldError::from_invalid("name", e)))
            .ok();
        if self.scopes.is_empty() {
            errors.push(FieldError::new(
                "scopes",
                "required",
                "must name at least one scope",
            ));
        }
        if let Some(days) = self.expires_in_days {
            if !(1..=MAX_EXPIRY_DAYS).contains(&days) {
                errors.push(FieldError::new(
                    "expires_in_days",
                    "range",
                    format!("must be from 1 to {MAX_EXPIRY_DAYS}"),
                ));
            }
        }
        match name {
            Some(name) if errors.is_empty() => Ok(NewPersonalToken {
                name,
                scopes: self.scopes.into_iter().collect::<ScopeSet>(),
                expires_in_days: self.expires_in_days,
                current_password: self.current_password,
            }),
            _ => Err(ApiError::Validation(errors)),
        }
    }
}

/// Create a personal access token.
///
/// The new token holds at most the caller's scopes and, when the caller is a
/// personal token, expires no later than it. Minting needs the password: a
/// log-in less than 10 minutes old, or `current_password` in the request.
#[utoipa::path(
    post,
    path = "/api/v1/me/tokens",
    operation_id = "create_token",
    tag = "tokens",
    request_body = CreateTokenRequest,
    responses(
        (status = 201, description = "Created; `token` is shown this once", body = TokenView),
        (status = 403, description = "The token lacks `account:write` (`insufficient-scope`), asks for a scope the calling token lacks (`forbidden`), or the password is needed (`password-required`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid fields (including unknown scopes, an expiry later than the calling token's, and a wrong `current_password`)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The account holds as many personal tokens as it may (`quota-exceeded`, 50 by default)", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many wrong passwords for this account from networks it has not logged in from (`rate-limited`)", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
        AuthProblems,
        JsonBodyProblems,
    )
)]
pub async fn create(
    req: actix_web::HttpRequest,
    auth: Authenticated,
    state: web::Data<AppState>,
    body: ApiJson<CreateTokenRequest>,
) -> Result<HttpResponse, ApiError> {
    let new = body.0.parse()?;
    let client = super::client_ip(&req, &state);
    let token = accounts::create_token(&state, &auth, new, client).await?;
    Ok(HttpResponse::Created()
        .insert_header(("Cache-Control", "no-store"))
        .json(TokenView::from(token)))
}

/// List your personal access tokens (without their secrets).
#[utoipa::path(
    get,
    path = "/api/v1/me/tokens",
    operation_id = "list_tokens",
    tag = "tokens",
    responses(
        (status = 200, description = "Your tokens, oldest first", body = [TokenView]),
        (status = 403, description = "The token lacks `account:read` (`insufficient-scope`)", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
    )
)]
pub async fn list(
    auth: Authenticated,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let tokens = accounts::list_tokens(&state, auth.user_id).await?;
    Ok(HttpResponse::Ok().json(tokens.into_iter().map(TokenView::from).collect::<Vec<_>>()))
}

/// Revoke (delete) one of your personal access tokens.
#[utoipa::path(
    delete,
    path = "/api/v1/me/tokens/{id}",
    operation_id = "delete_token",
    tag = "tokens",
    params(("id" = crate::domain::TokenId, Path, description = "The token's id")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 403, description = "The token lacks `account:write` (`insufficient-scope`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "You have no token with this id (`not-found`)", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
    )
)]
pub async fn delete(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<TokenId>,
) -> Result<HttpResponse, ApiError> {
    accounts::delete_token(&state, auth.user_id, path.into_inner()).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Revoke every one of your personal access tokens.
#[utoipa::path(
    delete,
    path = "/api/v1/me/tokens",
    operation_id = "delete_all_tokens",
    tag = "tokens",
    responses(
        (status = 200, description = "All revoked, the calling token too if it is one", body = RevokedTokens),
        (status = 403, description = "The token lacks `account:write` (`insufficient-scope`)", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
    )
)]
pub async fn delete_all(
    auth: Authenticated,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let revoked = accounts::delete_all_tokens(&state, auth.user_id).await?;
    Ok(HttpResponse::Ok().json(RevokedTokens { revoked }))
}

use actix_web::{web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::json::ApiJson;
use super::JsonBodyProblems;
use crate::accounts::{self, TokenPair};
use crate::auth::rate_limit::Limited;
use crate::domain::FieldError;
use crate::error::{ApiError, Problem};
use crate::state::AppState;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"username": "alice", "password": "correct horse battery staple"}))]
pub struct TokenRequest {
    /// The username, or the email address once it is verified.
    #[schema(example = "alice", min_length = 1)]
    pub username: String,
    #[schema(example = "correct horse battery staple", min_length = 1)]
    pub password: String,
}

#[derive(Serialize, ToSchema)]
#[schema(example = json!({
    "access_token": "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIuLi4ifQ.c2lnbmF0dXJl",
    "token_type": "Bearer",
    "expires_in": 900,
    "refresh_token": "sannin_rt_mJ0cC3hWZ5qv8x1eX2b0o6Qm9y7s4t2u1v0w9x8y7z6"
}))]
pub struct TokenResponse {
    /// A short-lived JWT for `Authorization: Bearer …`.
    pub access_token: String,
    /// Always `Bearer`.
    #[schema(example = "Bearer")]
    pub token_type: &'static str,
    /// Seconds until the access token expires.
    #[schema(example = 900)]
    pub expires_in: u64,
    /// Single-use token for `POST /api/v1/auth/refresh`.
    pub refresh_token: String,
}

impl From<TokenPair> for TokenResponse {
    fn from(pair: TokenPair) -> Self {
        Self {
            access_token: pair.access_token,
            token_type: "Bearer",
            expires_in: pair.expires_in,
            refresh_token: pair.refresh_token,
        }
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"refresh_token": "sannin_rt_mJ0cC3hWZ5qv8x1eX2b0o6Qm9y7s4t2u1v0w9x8y7z6"}))]
pub struct RefreshRequest {
    #[schema(min_length = 1)]
    pub refresh_token: String,
}

fn required(field: &str, value: &str) -> Result<(), ApiError> {
    if value.is_empty() {
        return Err(ApiError::Validation(vec![FieldError::new(
            field,
            "required",
            "must not be empty",
        )]));
    }
    Ok(())
}

/// Log in: exchange a username (or verified email address) and password for tokens.
#[utoipa::path(
    post,
    path = "/api/v1/auth/token",
    operation_id = "log_in",
    tag = "auth",
    request_body = TokenRequest,
    responses(
        (status = 200, description = "Logged in", body = TokenResponse),
        (status = 401, description = "Unknown user or wrong password (`invalid-credentials`, the same for both)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Missing or ill-typed fields", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many log-in attempts from this address, or too many wrong passwords for this account (or name) from networks it has not logged in from; see `Retry-After`", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
        JsonBodyProblems,
    )
)]
pub async fn token(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: ApiJson<TokenRequest>,
) -> Result<HttpResponse, ApiError> {
    let client = super::client_ip(&req, &state);
    let standing = state.rate_limits.check(Limited::Login, client)?;
    let answer = async {
        let TokenRequest { username, password } = body.0;
        required("username", &username)?;
        required("password", &password)?;
        let pair = accounts::log_in(&state, username, password, client).await?;
        Ok(no_store(TokenResponse::from(pair)))
    };
    super::limited(answer.await, &standing)
}

/// Rotate a refresh token: the presented token is spent and a new pair is
/// returned. Presenting a spent token revokes its whole session.
#[utoipa::path(
    post,
    path = "/api/v1/auth/refresh",
    operation_id = "refresh_token",
    tag = "auth",
    request_body = RefreshRequest,
    responses(
        (status = 200, description = "New token pair", body = TokenResponse),
        (status = 401, description = "Unknown, expired or revoked (`invalid-refresh-token`) or already used (`refresh-token-reused`; the session is now revoked)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Missing or ill-typed fields", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many refreshes from this address; see `Retry-After`", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
        JsonBodyProblems,
    )
)]
pub async fn refresh(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: ApiJson<RefreshRequest>,
) -> Result<HttpResponse, ApiError> {
    let standing = state
        .rate_limits
        .check(Limited::Refresh, super::client_ip(&req, &state))?;
    let answer = async {
        required("refresh_token", &body.0.refresh_token)?;
        let pair = accounts::refresh(&state, body.0.refresh_token).await?;
        Ok(no_store(TokenResponse::from(pair)))
    };
    super::limited(answer.await, &standing)
}

/// Log out: revoke the session the refresh token belongs to, including its
/// access tokens.
#[utoipa::path(
    post,
    path = "/api/v1/auth/logout",
    operation_id = "log_out",
    tag = "auth",
    request_body = RefreshRequest,
    responses(
        (status = 204, description = "Session revoked"),
        (status = 401, description = "Unknown refresh token (`invalid-refresh-token`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Missing or ill-typed fields", body = Problem, content_type = "application/problem+json"),
        JsonBodyProblems,
    )
)]
pub async fn logout(
    state: web::Data<AppState>,
    body: ApiJson<RefreshRequest>,
) -> Result<HttpResponse, ApiError> {
    required("refresh_token", &body.0.refresh_token)?;
    accounts::log_out(&state, body.0.refresh_token).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Token responses must not be cached (RFC 6749 §5.1).
fn no_store(body: TokenResponse) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(body)
}

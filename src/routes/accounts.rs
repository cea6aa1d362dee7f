use actix_web::{web, HttpRequest, HttpResponse};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::json::ApiJson;
use super::JsonBodyProblems;
use crate::accounts::{self, Registration};
use crate::auth::rate_limit::Limited;
use crate::db::models::User;
use crate::domain::FieldError;
use crate::domain::{Email, Password, Username};
use crate::error::{ApiError, Problem};
use crate::state::AppState;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"username": "alice", "email": "alice@example.com", "password": "correct horse battery staple"}))]
pub struct RegisterRequest {
    #[schema(value_type = crate::domain::Username)]
    pub username: String,
    #[schema(value_type = crate::domain::Email)]
    pub email: String,
    #[schema(value_type = crate::domain::Password)]
    pub password: String,
}

/// Your own account.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"id": "0b0a1f1e-8a43-4a5c-9f57-2d9f5f0c1a2b", "username": "alice", "email": "alice@example.com", "email_verified": false, "time_zone": "UTC", "created_at": "2026-01-01T12:00:00Z"}))]
pub struct Account {
    pub id: String,
    pub username: String,
    pub email: String,
    pub email_verified: bool,
    /// Your time zone (IANA name).
    #[schema(example = "UTC")]
    pub time_zone: String,
    pub created_at: DateTime<Utc>,
}

impl From<User> for Account {
    fn from(user: User) -> Self {
        let email = user.shown_email().to_owned();
        Self {
            id: user.id.into_string(),
            username: user.username,
            email,
            email_verified: user.email_verified,
            time_zone: user.time_zone,
            created_at: super::utc(user.created_at),
        }
    }
}

impl RegisterRequest {
    fn parse(self) -> Result<Registration, ApiError> {
        let username = Username::parse(&self.username);
        let email = Email::parse(&self.email);
        let password = Password::parse(self.password, &[&self.username, &self.email]);
        match (username, email, password) {
            (Ok(username), Ok(email), Ok(password)) => Ok(Registration {
                username,
                email,
                password,
            }),
            (username, email, password) => {
                let mut errors = Vec::new();
                if let Err(e) = username {
                    errors.push(FieldError::from_invalid("username", e));
                }
                if let Err(e) = email {
                    errors.push(FieldError::from_invalid("email", e));
                }
                if let Err(e) = password {
                    errors.push(FieldError::from_invalid("password", e));
                }
                Err(ApiError::Validation(errors))
            }
        }
    }
}

/// Register an account.
#[utoipa::path(
    post,
    path = "/api/v1/accounts",
    operation_id = "register_account",
    tag = "accounts",
    request_body = RegisterRequest,
    responses(
        (status = 201, description = "Account created", body = Account),
        (status = 409, description = "Username already taken (`username-taken`). An address another account holds is not refused, so as not to tell who is registered: the new account claims it, and the mail that would verify it tells the address's owner instead", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid fields", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many registrations from this address; see `Retry-After`", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
        JsonBodyProblems,
    )
)]
pub async fn register(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: ApiJson<RegisterRequest>,
) -> Result<HttpResponse, ApiError> {
    let standing = state
        .rate_limits
        .check(Limited::Registration, super::client_ip(&req, &state))?;
    let answer = async {
        let registration = body.0.parse()?;
        let user = accounts::register(&state, registration).await?;
        tracing::info!(user_id = %user.id, "account registered");
        Ok(HttpResponse::Created()
            .insert_header(("Location", format!("/api/v1/users/{}", user.username)))
            .json(Account::from(user)))
    };
    super::limited(answer.await, &standing)
}

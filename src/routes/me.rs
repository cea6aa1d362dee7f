use actix_web::{web, HttpResponse};
use serde::Deserialize;
use utoipa::ToSchema;

use super::accounts::Account;
use super::json::ApiJson;
use super::{AuthProblems, JsonBodyProblems};
use crate::accounts::{self, AccountUpdate, PasswordChange};
use crate::auth::Authenticated;
use crate::domain::FieldError;
use crate::domain::{Email, Password};
use crate::error::{ApiError, Problem};
use crate::state::AppState;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"current_password": "correct horse battery staple", "new_password": "a much longer new passphrase"}))]
pub struct UpdateMeRequest {
    /// A new email address (marks the address unverified).
    #[schema(value_type = Option<crate::domain::Email>)]
    pub email: Option<String>,
    /// Required with `new_password`.
    pub current_password: Option<String>,
    /// As at registration; changing it revokes every other session.
    #[schema(value_type = Option<crate::domain::Password>)]
    pub new_password: Option<String>,
    /// With `new_password`: whether to revoke every personal access token too
    /// (optional, `true` when left out).
    pub revoke_tokens: Option<bool>,
    /// Your time zone, an IANA name such as `Europe/Berlin` (default `UTC`):
    /// games that pause on weekends pause on yours.
    #[schema(example = "Europe/Berlin", min_length = 1, max_length = 64)]
    pub time_zone: Option<String>,
}

/// Changes checked.
struct Parsed {
    email: Option<Email>,
    password: Option<PasswordChange>,
    time_zone: Option<String>,
}

impl UpdateMeRequest {
    /// The new address and the password change, each checked (the password
    /// against the account's own name among others).
    fn parse(self, username: &str) -> Result<Parsed, ApiError> {
        let mut errors = Vec::new();
        let email = match self.email.as_deref().map(Email::parse) {
            Some(Ok(email)) => Some(email),
            Some(Err(e)) => {
                errors.push(FieldError::from_invalid("email", e));
                None
            }
            None => None,
        };
        let password = match (self.current_password, self.new_password) {
            (Some(current), Some(new)) => match Password::parse(new, &[username]) {
                Ok(new) => Some(PasswordChange { current, new }),
                Err(e) => {
                    errors.push(FieldError::from_invalid("new_password", e));
                    None
                }
            },
            (None, Some(_)) => {
                errors.push(FieldError::new(
                    "current_password",
                    "required",
                    "is required to change the password",
                ));
                None
            }
            (Some(_), None) => {
                errors.push(FieldError::new(
                    "new_password",
                    "required",
                    "is required with current_password",
                ));
                None
            }
            (None, None) => None,
        };
        let time_zone = match self.time_zone.as_deref().map(str::parse::<chrono_tz::Tz>) {
            Some(Ok(tz)) => Some(tz.name().to_owned()),
            Some(Err(_)) => {
                errors.push(FieldError::new(
                    "time_zone",
                    "unknown",
                    "is not a time zone: give an IANA name such as Europe/Berlin or UTC",
                ));
                None
            }
            None => None,
        };
        if !errors.is_empty() {
            return Err(ApiError::Validation(errors));
        }
        Ok(Parsed {
            email,
            password,
            time_zone,
        })
    }
}

/// Your account.
#[utoipa::path(
    get,
    path = "/api/v1/me",
    tag = "me",
    responses(
        (status = 200, description = "Your account", body = Account),
        (status = 403, description = "The token lacks `account:read` (`insufficient-scope`)", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
    )
)]
pub async fn get_me(
    auth: Authenticated,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let user = accounts::me(&state, auth.user_id).await?;
    Ok(HttpResponse::Ok().json(Account::from(user)))
}

/// Change your email address, password or time zone.
#[utoipa::path(
    patch,
    path = "/api/v1/me",
    tag = "me",
    request_body = UpdateMeRequest,
    responses(
        (status = 200, description = "The updated account", body = Account),
        (status = 403, description = "The token lacks `account:write` (`insufficient-scope`)", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "A verification link went to the new address less than a minute ago, too many verification mails today (5 by default), or too many wrong passwords for this account from networks it has not logged in from (`rate-limited`, with `Retry-After`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid fields, or wrong `current_password`", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
        JsonBodyProblems,
    )
)]
pub async fn patch_me(
    req: actix_web::HttpRequest,
    auth: Authenticated,
    state: web::Data<AppState>,
    body: ApiJson<UpdateMeRequest>,
) -> Result<HttpResponse, ApiError> {
    let keep_tokens = body.0.revoke_tokens == Some(false);
    let Parsed {
        email,
        password,
        time_zone,
    } = body.0.parse(&auth.username)?;
    let update = AccountUpdate {
        email,
        time_zone,
        password,
        keep_session: auth.session_id().map(str::to_owned),
        keep_tokens,
    };
    let client = super::client_ip(&req, &state);
    let user = accounts::update_me(&state, auth.user_id, update, client).await?;
    Ok(HttpResponse::Ok().json(Account::from(user)))
}

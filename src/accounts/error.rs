use actix_web::http::StatusCode;

use crate::db::DbUnavailable;
use crate::domain::Scope;
use crate::error::ApiError;

/// Why an account operation did not happen.
#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    #[error("username already taken")]
    UsernameTaken,
    #[error("email already registered")]
    EmailTaken,
    #[error("invalid credentials")]
    InvalidCredentials,
    #[error("current password is wrong")]
    WrongCurrentPassword,
    #[error("invalid refresh token")]
    InvalidRefreshToken,
    #[error("refresh token reused")]
    RefreshTokenReused,
    #[error("invalid access token")]
    InvalidAccessToken,
    #[error("a token cannot grant scope {0} it does not hold")]
    ScopeNotHeld(Scope),
    #[error("a token may not outlive the token that mints it")]
    OutlivesCaller {
        caller_expires_at: chrono::NaiveDateTime,
        max_days: i64,
    },
    #[error("minting a token needs the current password")]
    PasswordRequired,
    #[error("no such user")]
    UserNotFound,
    #[error("the authenticated user no longer exists")]
    UserGone,
    #[error("no such token")]
    TokenNotFound,
    #[error("the address is already verified")]
    AlreadyVerified,
    #[error("a verification link went to this address moments ago")]
    TooSoon { retry_after_secs: u64 },
    #[error("the link has expired")]
    LinkExpired,
    #[error("the link is not valid")]
    LinkInvalid,
    #[error("the account's address changed since the link was sent")]
    EmailChanged,
    #[error(transparent)]
    Unavailable(#[from] DbUnavailable),
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

impl From<diesel::result::Error> for AccountError {
    fn from(e: diesel::result::Error) -> Self {
        AccountError::Internal(anyhow::Error::new(e).context("database query failed"))
    }
}

impl From<AccountError> for ApiError {
    fn from(e: AccountError) -> Self {
        match e {
            AccountError::UsernameTaken => ApiError::Conflict {
                code: "username-taken",
                field: "username",
                detail: "This username is already taken.".into(),
            },
            AccountError::EmailTaken => ApiError::Conflict {
                code: "email-taken",
                field: "email",
                detail: "This email address is already registered.".into(),
            },
            AccountError::InvalidCredentials => ApiError::InvalidCredentials,
            AccountError::WrongCurrentPassword => {
                ApiError::Validation(vec![crate::error::FieldError::new(
                    "current_password",
                    "mismatch",
                    "is not the current password",
                )])
            }
            AccountError::InvalidRefreshToken => ApiError::InvalidRefreshToken,
            AccountError::RefreshTokenReused => ApiError::RefreshTokenReused,
            AccountError::InvalidAccessToken => {
                ApiError::Unauthenticated("the token is invalid, expired or revoked")
            }
            AccountError::UserGone => ApiError::Unauthenticated("the account no longer exists"),
            AccountError::ScopeNotHeld(scope) => ApiError::Forbidden(format!(
                "A personal access token cannot grant `{scope}`, which it does not hold itself."
            )),
            AccountError::OutlivesCaller {
                caller_expires_at,
                max_days,
            } => ApiError::Validation(vec![crate::error::FieldError::new(
                "expires_in_days",
                "outlives-token",
                format!(
                    "must not outlive the calling token, which expires at {}: at most {max_days} days",
                    caller_expires_at.and_utc().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
                ),
            )]),
            AccountError::PasswordRequired => ApiError::Refused {
                status: StatusCode::FORBIDDEN,
                code: "password-required",
                title: "Password required",
                detail: format!(
                    "Minting a personal access token needs your password: give `current_password`, or log in again (a session may mint tokens without it for {} minutes after log-in).",
                    crate::accounts::FRESH_PASSWORD_MINUTES
                ),
            },
            AccountError::UserNotFound => ApiError::NotFound("No user has this username.".into()),
            AccountError::TokenNotFound => {
                ApiError::NotFound("You have no personal access token with this id.".into())
            }
            AccountError::AlreadyVerified => ApiError::Refused {
                status: StatusCode::CONFLICT,
                code: "already-verified",
                title: "Already verified",
                detail: "Your email address is already verified.".into(),
            },
            AccountError::TooSoon { retry_after_secs } => ApiError::RateLimited { retry_after_secs },
            AccountError::LinkExpired => ApiError::Refused {
                status: StatusCode::GONE,
                code: "link-expired",
                title: "Link expired",
                detail: "This verification link has expired; ask for a new one with POST /api/v1/me/email/verification.".into(),
            },
            AccountError::LinkInvalid => ApiError::Refused {
                status: StatusCode::BAD_REQUEST,
                code: "link-invalid",
                title: "Invalid link",
                detail: "This link is not valid: it may be cut short or altered.".into(),
            },
            AccountError::EmailChanged => ApiError::Refused {
                status: StatusCode::CONFLICT,
                code: "email-changed",
                title: "Address changed",
                detail: "The account's email address changed since this link was sent; use the link sent to the new address.".into(),
            },
            AccountError::Unavailable(e) => e.into(),
            AccountError::Internal(e) => ApiError::Internal(e),
        }
    }
}

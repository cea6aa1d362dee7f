use crate::db::DbUnavailable;
use crate::domain::Scope;

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
    /// A token this service signed whose lifetime is over: refresh it.
    #[error("access token expired")]
    AccessTokenExpired,
    #[error("a token cannot grant scope {0} it does not hold")]
    ScopeNotHeld(Scope),
    #[error("a token may not outlive the token that mints it")]
    OutlivesCaller {
        caller_expires_at: chrono::NaiveDateTime,
        max_days: i64,
    },
    #[error("too many wrong passwords for this account; retry later")]
    PasswordAttemptsBlocked { retry_after_secs: u64 },
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
    OverLimit(#[from] crate::domain::limits::OverLimit),
    #[error(transparent)]
    Unavailable(#[from] DbUnavailable),
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

impl From<diesel::result::Error> for AccountError {
    /// A broken connection, a lock or a timeout is unavailability (503);
    /// anything else is a bug (500).
    fn from(e: diesel::result::Error) -> Self {
        match crate::db::DbUnavailable::classify(e) {
            Ok(unavailable) => AccountError::Unavailable(unavailable),
            Err(e) => {
                AccountError::Internal(anyhow::Error::new(e).context("database query failed"))
            }
        }
    }
}

//! Why a game operation did not happen.

use crate::db::DbUnavailable;
use crate::domain::FieldError;
use crate::rules::Illegal;

#[derive(Debug, thiserror::Error)]
pub enum GameError {
    #[error("invalid request")]
    Invalid(Vec<FieldError>),
    #[error("no such game")]
    GameNotFound,
    #[error("no such user: {0}")]
    UnknownUser(String),
    #[error("no such alliance proposal")]
    ProposalNotFound,
    #[error("not a player of this game")]
    NotAPlayer,
    #[error("forbidden: {0}")]
    Forbidden(String),
    #[error("the rules refuse: {0}")]
    Illegal(Illegal),
    #[error("stale: {0}")]
    Stale(String),
    #[error("state conflict: {0}")]
    State(String),
    #[error("no position at ply {0}")]
    NoSuchPly(u32),
    #[error("game over")]
    GameOver,
    #[error(transparent)]
    OverLimit(#[from] crate::domain::limits::OverLimit),
    #[error(transparent)]
    Unavailable(#[from] DbUnavailable),
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

impl From<diesel::result::Error> for GameError {
    /// A broken connection, a lock or a timeout is unavailability (503);
    /// anything else is a bug (500).
    fn from(e: diesel::result::Error) -> Self {
        match crate::db::DbUnavailable::classify(e) {
            Ok(unavailable) => GameError::Unavailable(unavailable),
            Err(e) => GameError::Internal(anyhow::Error::new(e).context("database query failed")),
        }
    }
}

impl GameError {
    pub fn invalid(field: &str, code: &str, message: impl Into<String>) -> Self {
        GameError::Invalid(vec![FieldError::new(field, code, message)])
    }
}

//! Why a game operation did not happen, and how the API answers it.

use actix_web::http::StatusCode;

use crate::db::DbUnavailable;
use crate::error::{ApiError, FieldError};
use crate::rules::{Illegal, IllegalKind};

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
    #[error("game over")]
    GameOver,
    #[error(transparent)]
    Unavailable(#[from] DbUnavailable),
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

impl From<diesel::result::Error> for GameError {
    fn from(e: diesel::result::Error) -> Self {
        GameError::Internal(anyhow::Error::new(e).context("database query failed"))
    }
}

impl GameError {
    pub fn invalid(field: &str, code: &str, message: impl Into<String>) -> Self {
        GameError::Invalid(vec![FieldError::new(field, code, message)])
    }
}

/// The engine's refusal codes, as API problem codes.
fn rule_code(kind: IllegalKind) -> &'static str {
    match kind {
        IllegalKind::GameOver => "game-over",
        IllegalKind::NotYourTurn => "not-your-turn",
        IllegalKind::Malformed => "malformed-move",
        IllegalKind::NoPiece => "no-piece",
        IllegalKind::NotYourPiece => "not-your-piece",
        IllegalKind::OwnPiece => "own-piece-on-target",
        IllegalKind::CannotCaptureKing => "cannot-capture-king",
        IllegalKind::Unreachable => "unreachable",
        IllegalKind::PathBlocked => "path-blocked",
        IllegalKind::CastlingNotAllowed => "castling-not-allowed",
        IllegalKind::LeavesKingInCheck => "king-in-check",
        IllegalKind::ChecksAlly => "checks-ally",
        IllegalKind::NotInHand => "not-in-hand",
        IllegalKind::DropOnOccupied => "drop-on-occupied",
        IllegalKind::DropOnFarEdge => "drop-on-far-edge",
        IllegalKind::CannotPromote => "cannot-promote",
        IllegalKind::PromotionNotPossible => "promotion-not-possible",
        IllegalKind::PromotionRequired => "promotion-required",
        IllegalKind::CannotIlluminate => "cannot-illuminate",
        IllegalKind::NotATarget => "not-an-illumination-target",
        IllegalKind::TargetProtected => "target-protected",
        IllegalKind::MustIlluminateAll => "must-illuminate-all",
        IllegalKind::AllianceNotAllowed => "alliance-not-allowed",
        IllegalKind::NotPlaying => "not-playing",
    }
}

impl From<GameError> for ApiError {
    fn from(e: GameError) -> Self {
        let refused =
            |status: StatusCode, code: &'static str, title: &'static str, detail: String| {
                ApiError::Refused {
                    status,
                    code,
                    title,
                    detail,
                }
            };
        match e {
            GameError::Invalid(fields) => ApiError::Validation(fields),
            GameError::GameNotFound => ApiError::NotFound("There is no game with this id.".into()),
            GameError::UnknownUser(name) => ApiError::Validation(vec![FieldError::new(
                "invite",
                "unknown-user",
                format!("there is no user `{name}`"),
            )]),
            GameError::ProposalNotFound => {
                ApiError::NotFound("This game has no alliance proposal with this id.".into())
            }
            GameError::NotAPlayer => refused(
                StatusCode::FORBIDDEN,
                "not-a-player",
                "Not a player",
                "You do not play in this game.".into(),
            ),
            GameError::Forbidden(detail) => {
                refused(StatusCode::FORBIDDEN, "forbidden", "Forbidden", detail)
            }
            GameError::Illegal(illegal) => {
                let (status, title) = match illegal.kind {
                    IllegalKind::NotYourTurn => (StatusCode::FORBIDDEN, "Not your turn"),
                    IllegalKind::GameOver => (StatusCode::CONFLICT, "Game over"),
                    IllegalKind::NotPlaying => (StatusCode::CONFLICT, "Not playing"),
                    IllegalKind::AllianceNotAllowed => {
                        (StatusCode::CONFLICT, "Alliance not allowed")
                    }
                    _ => (StatusCode::UNPROCESSABLE_ENTITY, "Illegal move"),
                };
                refused(status, rule_code(illegal.kind), title, illegal.message)
            }
            GameError::Stale(detail) => {
                refused(StatusCode::CONFLICT, "stale-ply", "Stale ply", detail)
            }
            GameError::State(detail) => refused(
                StatusCode::CONFLICT,
                "game-state",
                "Not possible in this state",
                detail,
            ),
            GameError::GameOver => refused(
                StatusCode::GONE,
                "game-over",
                "Game over",
                "This game has finished; it takes no more moves.".into(),
            ),
            GameError::Unavailable(e) => e.into(),
            GameError::Internal(e) => ApiError::Internal(e),
        }
    }
}

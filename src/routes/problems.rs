//! How domain errors answer over HTTP: each use-case error's mapping to a
//! status and an RFC 9457 problem lives here, at the edge, so the domain
//! carries no status codes.

use crate::domain::limits::OverLimit;
use actix_web::http::StatusCode;

use crate::accounts::AccountError;
use crate::auth::rate_limit::RateLimited;
use crate::auth::ScopeMissing;
use crate::domain::FieldError;
use crate::error::ApiError;
use crate::games::GameError;
use crate::notify::webhooks::WebhookError;
use crate::rules::IllegalKind;

impl From<ScopeMissing> for ApiError {
    fn from(ScopeMissing(scope): ScopeMissing) -> Self {
        ApiError::InsufficientScope(scope)
    }
}

impl From<RateLimited> for ApiError {
    fn from(
        RateLimited {
            retry_after_secs,
            standing,
        }: RateLimited,
    ) -> Self {
        ApiError::RateLimited {
            retry_after_secs,
            standing: Some(standing),
        }
    }
}

impl From<OverLimit> for ApiError {
    /// A full quota is a conflict with what the account holds (409); a rate
    /// asks to come back later (429 with `Retry-After`).
    fn from(e: OverLimit) -> Self {
        match e {
            OverLimit::Quota { .. } => ApiError::Refused {
                status: StatusCode::CONFLICT,
                code: "quota-exceeded",
                title: "Quota exceeded",
                detail: format!("{e}; remove some first."),
            },
            OverLimit::Rate {
                retry_after_secs,
                standing,
                ..
            } => ApiError::RateLimited {
                retry_after_secs,
                standing: Some(standing),
            },
        }
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
                ApiError::Validation(vec![FieldError::new(
                    "current_password",
                    "mismatch",
                    "is not the current password",
                )])
            }
            AccountError::InvalidRefreshToken => ApiError::InvalidRefreshToken,
            AccountError::RefreshTokenReused => ApiError::RefreshTokenReused,
            AccountError::InvalidAccessToken => {
                ApiError::Unauthenticated("the token is invalid or revoked")
            }
            AccountError::AccessTokenExpired => ApiError::TokenExpired,
            AccountError::UserGone => ApiError::Unauthenticated("the account no longer exists"),
            AccountError::ScopeNotHeld(scope) => ApiError::Forbidden(format!(
                "A personal access token cannot grant `{scope}`, which it does not hold itself."
            )),
            AccountError::OutlivesCaller {
                caller_expires_at,
                max_days,
            } => ApiError::Validation(vec![FieldError::new(
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
            AccountError::TooSoon { retry_after_secs } => ApiError::RateLimited {
                retry_after_secs,
                standing: None,
            },
            AccountError::PasswordAttemptsBlocked { retry_after_secs } => ApiError::RateLimited {
                retry_after_secs,
                standing: None,
            },
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
            AccountError::OverLimit(e) => e.into(),
            AccountError::Unavailable(e) => e.into(),
            AccountError::Internal(e) => ApiError::Internal(e),
        }
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
            GameError::NoSuchPly(n) => {
                ApiError::NotFound(format!("This game has no position at ply {n}."))
            }
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
            GameError::OverLimit(e) => e.into(),
            GameError::Unavailable(e) => e.into(),
            GameError::Internal(e) => ApiError::Internal(e),
        }
    }
}

impl From<WebhookError> for ApiError {
    fn from(e: WebhookError) -> Self {
        match e {
            WebhookError::Invalid(fields) => ApiError::Validation(fields),
            WebhookError::NotFound => {
                ApiError::NotFound("You have no webhook with this id.".into())
            }
            WebhookError::DeliveryNotFound => {
                ApiError::NotFound("This webhook has no delivery with this id.".into())
            }
            WebhookError::StillPending => ApiError::Refused {
                status: StatusCode::CONFLICT,
                code: "delivery-pending",
                title: "Delivery pending",
                detail: "This delivery is still being attempted.".into(),
            },
            WebhookError::OverLimit(e) => e.into(),
            WebhookError::Unavailable(e) => ApiError::Unavailable(e.into()),
            WebhookError::Internal(e) => ApiError::Internal(e),
        }
    }
}

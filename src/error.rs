//! The API's error type and its `application/problem+json` (RFC 9457) form.
//!
//! Each kind has a stable `code`, and `type` is `/problems/<code>`, so clients
//! can branch on either. Internal causes are logged with their full chain and
//! never sent to the client.

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::ServiceResponse;
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::StatusCode;
use actix_web::middleware::ErrorHandlerResponse;
use actix_web::{HttpResponse, ResponseError};
use serde::Serialize;
use utoipa::ToSchema;

use crate::domain::{FieldError, Invalid, Scope};

pub const PROBLEM_JSON: &str = "application/problem+json";

/// An RFC 9457 problem document.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({
    "type": "/problems/validation-failed",
    "title": "Validation failed",
    "status": 422,
    "detail": "The request body has invalid fields.",
    "code": "validation-failed",
    "errors": [{"field": "username", "code": "length", "message": "must be 3 to 32 characters long"}]
}))]
pub struct Problem {
    /// A URI reference naming the kind of problem: `/problems/<code>`.
    #[serde(rename = "type")]
    pub type_: String,
    /// A short summary of the kind of problem.
    pub title: String,
    /// The HTTP status code.
    pub status: u16,
    /// What went wrong this time.
    pub detail: String,
    /// A stable machine-readable code for the kind of problem.
    pub code: String,
    /// Offending fields, for validation problems.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub errors: Option<Vec<FieldError>>,
}

/// Everything an API handler can fail with.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("validation failed")]
    Validation(Vec<FieldError>),
    #[error("malformed JSON body: {0}")]
    MalformedJson(String),
    #[error("unsupported content type")]
    UnsupportedMediaType,
    #[error("request body larger than {limit} bytes")]
    PayloadTooLarge { limit: usize },
    /// The body did not arrive in time (`SANNIN_BODY_TIMEOUT_MS`).
    #[error("request body too slow")]
    BodyTimeout,
    /// The client already has its share of requests in flight.
    #[error("too many requests in flight")]
    TooManyInFlight,
    /// The account or the client address holds its share of open streams.
    #[error("too many open streams {0}")]
    TooManyStreams(&'static str),
    #[error("invalid username or password")]
    InvalidCredentials,
    #[error("authentication required: {0}")]
    Unauthenticated(&'static str),
    /// An access token past its lifetime (and the clock-skew allowance).
    #[error("access token expired")]
    TokenExpired,
    #[error("invalid refresh token")]
    InvalidRefreshToken,
    #[error("refresh token reused; session revoked")]
    RefreshTokenReused,
    #[error("missing scope {0}")]
    InsufficientScope(Scope),
    #[error("forbidden: {0}")]
    Forbidden(String),
    #[error("not found: {0}")]
    NotFound(String),
    #[error("no such route")]
    RouteNotFound,
    #[error("method not allowed")]
    MethodNotAllowed,
    #[error("conflict on {field}")]
    Conflict {
        code: &'static str,
        field: &'static str,
        detail: String,
    },
    #[error("rate limited")]
    RateLimited {
        retry_after_secs: u64,
        /// The limit met, for the `RateLimit` header fields, when there is one.
        standing: Option<crate::domain::limits::Standing>,
    },
    #[error("service unavailable")]
    Unavailable(#[source] anyhow::Error),
    #[error("internal error")]
    Internal(#[source] anyhow::Error),
    /// A framework error response with no body of ours, rendered as a problem.
    #[error("HTTP {0}")]
    Http(StatusCode),
    /// A refusal with its own status and stable code (game rules and game state).
    #[error("{code}: {detail}")]
    Refused {
        status: StatusCode,
        code: &'static str,
        title: &'static str,
        detail: String,
    },
}

/// What a 503 asks clients to wait before retrying.
pub const RETRY_UNAVAILABLE_SECS: u64 = 2;

impl From<crate::db::DbUnavailable> for ApiError {
    fn from(e: crate::db::DbUnavailable) -> Self {
        ApiError::Unavailable(e.into())
    }
}

impl ApiError {
    /// A validation problem on one field.
    pub fn invalid_field(field: &str, invalid: Invalid) -> Self {
        ApiError::Validation(vec![FieldError::from_invalid(field, invalid)])
    }

    /// The stable code of this kind of problem.
    pub fn code(&self) -> &'static str {
        match self {
            ApiError::Validation(_) => "validation-failed",
            ApiError::MalformedJson(_) => "malformed-json",
            ApiError::UnsupportedMediaType => "unsupported-media-type",
            ApiError::PayloadTooLarge { .. } => "payload-too-large",
            ApiError::BodyTimeout => "request-timeout",
            ApiError::TooManyInFlight => "too-many-in-flight",
            ApiError::TooManyStreams(_) => "too-many-streams",
            ApiError::InvalidCredentials => "invalid-credentials",
            ApiError::Unauthenticated(_) => "unauthenticated",
            ApiError::TokenExpired => "token-expired",
            ApiError::InvalidRefreshToken => "invalid-refresh-token",
            ApiError::RefreshTokenReused => "refresh-token-reused",
            ApiError::InsufficientScope(_) => "insufficient-scope",
            ApiError::Forbidden(_) => "forbidden",
            ApiError::NotFound(_) => "not-found",
            ApiError::RouteNotFound => "route-not-found",
            ApiError::MethodNotAllowed => "method-not-allowed",
            ApiError::Conflict { code, .. } => code,
            ApiError::RateLimited { .. } => "rate-limited",
            ApiError::Unavailable(_) => "service-unavailable",
            ApiError::Internal(_) => "internal-error",
            ApiError::Http(status) => http_code(*status),
            ApiError::Refused { code, .. } => code,
        }
    }

    fn title(&self) -> &'static str {
        match self {
            ApiError::Validation(_) => "Validation failed",
            ApiError::MalformedJson(_) => "Malformed JSON",
            ApiError::UnsupportedMediaType => "Unsupported media type",
            ApiError::PayloadTooLarge { .. } => "Payload too large",
            ApiError::BodyTimeout => "Request timeout",
            ApiError::TooManyInFlight => "Too many requests",
            ApiError::TooManyStreams(_) => "Too many streams",
            ApiError::InvalidCredentials => "Invalid credentials",
            ApiError::Unauthenticated(_) => "Authentication required",
            ApiError::TokenExpired => "Token expired",
            ApiError::InvalidRefreshToken => "Invalid refresh token",
            ApiError::RefreshTokenReused => "Refresh token reused",
            ApiError::InsufficientScope(_) => "Insufficient scope",
            ApiError::Forbidden(_) => "Forbidden",
            ApiError::NotFound(_) => "Not found",
            ApiError::RouteNotFound => "Route not found",
            ApiError::MethodNotAllowed => "Method not allowed",
            ApiError::Conflict { .. } => "Conflict",
            ApiError::RateLimited { .. } => "Too many requests",
            ApiError::Unavailable(_) => "Service unavailable",
            ApiError::Internal(_) => "Internal server error",
            ApiError::Http(status) => status.canonical_reason().unwrap_or("Error"),
            ApiError::Refused { title, .. } => title,
        }
    }

    fn detail(&self) -> String {
        match self {
            ApiError::Validation(_) => "The request body has invalid fields.".into(),
            ApiError::MalformedJson(reason) => format!("The body is not valid JSON: {reason}."),
            ApiError::UnsupportedMediaType => {
                "The request body must be sent as `Content-Type: application/json`.".into()
            }
            ApiError::PayloadTooLarge { limit } => {
                format!("The request body is larger than {limit} bytes.")
            }
            ApiError::BodyTimeout => {
                "The request body did not arrive in time; the connection is closed.".into()
            }
            ApiError::TooManyInFlight => {
                "This client already has as many requests in flight as it may; wait for them."
                    .into()
            }
            ApiError::TooManyStreams(per) => {
                format!("As many streams are open {per} as may be; close one first.")
            }
            ApiError::InvalidCredentials => "The username or password is wrong.".into(),
            ApiError::Unauthenticated(why) => format!("A valid bearer token is required: {why}."),
            ApiError::TokenExpired => {
                "The access token has expired: get a new one with the refresh token \
                 (POST /api/v1/auth/refresh)."
                    .into()
            }
            ApiError::InvalidRefreshToken => {
                "The refresh token is unknown, expired or revoked.".into()
            }
            ApiError::RefreshTokenReused => {
                "The refresh token was already used; its session has been revoked. Log in again."
                    .into()
            }
            ApiError::InsufficientScope(scope) => {
                format!("This token lacks the `{scope}` scope.")
            }
            ApiError::Forbidden(detail) | ApiError::NotFound(detail) => detail.clone(),
            ApiError::RouteNotFound => "No resource lives at this path.".into(),
            ApiError::MethodNotAllowed => "This resource does not accept that method.".into(),
            ApiError::Conflict { detail, .. } => detail.clone(),
            ApiError::RateLimited {
                retry_after_secs, ..
            } => format!("Too many attempts; retry in {retry_after_secs} s."),
            ApiError::Unavailable(_) => "The service cannot reach its database.".into(),
            ApiError::Internal(_) => "An internal error occurred.".into(),
            ApiError::Http(status) => status
                .canonical_reason()
                .unwrap_or("The request failed.")
                .to_owned(),
            ApiError::Refused { detail, .. } => detail.clone(),
        }
    }

    pub fn problem(&self) -> Problem {
        let code = self.code();
        let errors = match self {
            ApiError::Validation(errors) => Some(errors.clone()),
            ApiError::Conflict {
                field,
                detail,
                code,
            } => Some(vec![FieldError::new(*field, *code, detail.clone())]),
            _ => None,
        };
        Problem {
            type_: format!("/problems/{code}"),
            title: self.title().to_owned(),
            status: self.status_code().as_u16(),
            detail: self.detail(),
            code: code.to_owned(),
            errors,
        }
    }
}

fn http_code(status: StatusCode) -> &'static str {
    match status {
        StatusCode::NOT_FOUND => "route-not-found",
        StatusCode::METHOD_NOT_ALLOWED => "method-not-allowed",
        StatusCode::PAYLOAD_TOO_LARGE => "payload-too-large",
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported-media-type",
        s if s.is_server_error() => "internal-error",
        _ => "bad-request",
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::Validation(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::MalformedJson(_) => StatusCode::BAD_REQUEST,
            ApiError::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::PayloadTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::BodyTimeout => StatusCode::REQUEST_TIMEOUT,
            ApiError::TooManyInFlight | ApiError::TooManyStreams(_) => {
                StatusCode::TOO_MANY_REQUESTS
            }
            ApiError::InvalidCredentials
            | ApiError::Unauthenticated(_)
            | ApiError::TokenExpired
            | ApiError::InvalidRefreshToken
            | ApiError::RefreshTokenReused => StatusCode::UNAUTHORIZED,
            ApiError::InsufficientScope(_) | ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) | ApiError::RouteNotFound => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::Conflict { .. } => StatusCode::CONFLICT,
            ApiError::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
            ApiError::Http(status) => *status,
            ApiError::Refused { status, .. } => *status,
        }
    }

    fn error_response(&self) -> HttpResponse<BoxBody> {
        match self {
            ApiError::Internal(cause) | ApiError::Unavailable(cause) => {
                tracing::error!(error = %format!("{cause:#}"), code = self.code(), "request failed");
            }
            _ => tracing::debug!(code = self.code(), "request refused"),
        }
        let mut response = HttpResponse::build(self.status_code());
        response.content_type(PROBLEM_JSON);
        match self {
            ApiError::RateLimited {
                retry_after_secs,
                standing,
            } => {
                response.insert_header((header::RETRY_AFTER, retry_after_secs.to_string()));
                if let Some(s) = standing {
                    response.insert_header(("RateLimit-Policy", s.policy_field()));
                    response.insert_header(("RateLimit", s.limit_field()));
                }
            }
            ApiError::Unavailable(_) => {
                // Most faults (a lost connection, a lock) pass in moments.
                response.insert_header((header::RETRY_AFTER, RETRY_UNAVAILABLE_SECS.to_string()));
            }
            ApiError::BodyTimeout => {
                // The rest of the body may still trickle in: do not wait for it.
                response.force_close();
            }
            ApiError::TooManyInFlight => {
                response.insert_header((header::RETRY_AFTER, "1"));
            }
            ApiError::TooManyStreams(_) => {
                response.insert_header((header::RETRY_AFTER, "10"));
            }
            ApiError::Unauthenticated(_) => {
                response.insert_header((header::WWW_AUTHENTICATE, "Bearer"));
            }
            ApiError::TokenExpired => {
                // RFC 6750's code for it, so generic OAuth clients refresh too.
                response.insert_header((
                    header::WWW_AUTHENTICATE,
                    "Bearer error=\"invalid_token\", error_description=\"the access token expired\"",
                ));
            }
            ApiError::InsufficientScope(scope) => {
                response.insert_header((
                    header::WWW_AUTHENTICATE,
                    format!("Bearer error=\"insufficient_scope\", scope=\"{scope}\""),
                ));
            }
            _ => {}
        }
        response.body(serde_json::to_string(&self.problem()).unwrap_or_default())
    }
}

/// Middleware hook: any error response that is not already a problem document
/// (a framework 404/405, an extractor's 400…) is replaced by one, so clients
/// never see a bare error body. HTML pages (the answers to links opened from
/// mail) are written that way on purpose and pass.
pub fn render_bare_error<B: MessageBody + 'static>(
    res: ServiceResponse<B>,
) -> actix_web::Result<ErrorHandlerResponse<B>> {
    let deliberate = res.headers().get(header::CONTENT_TYPE).is_some_and(|v| {
        v.as_bytes().starts_with(PROBLEM_JSON.as_bytes()) || v.as_bytes().starts_with(b"text/html")
    });
    if deliberate {
        return Ok(ErrorHandlerResponse::Response(res.map_into_left_body()));
    }
    let status = res.status();
    let error = match status {
        StatusCode::NOT_FOUND => ApiError::RouteNotFound,
        StatusCode::METHOD_NOT_ALLOWED => ApiError::MethodNotAllowed,
        other => ApiError::Http(other),
    };
    let (req, old) = res.into_parts();
    let mut new = error.error_response();
    // Keep headers the framework set (e.g. `Allow`), but not its content type.
    for (name, value) in old.headers() {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            new.headers_mut().insert(name.clone(), value.clone());
        }
    }
    new.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON));
    Ok(ErrorHandlerResponse::Response(
        ServiceResponse::new(req, new).map_into_right_body(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problem_shape() {
        let problem = ApiError::RateLimited {
            retry_after_secs: 3,
            standing: None,
        }
        .problem();
        let json = serde_json::to_value(&problem).unwrap();
        assert_eq!(json["type"], "/problems/rate-limited");
        assert_eq!(json["status"], 429);
        assert_eq!(json["code"], "rate-limited");
        assert!(json.get("errors").is_none());
    }

    #[test]
    fn internal_errors_hide_their_cause() {
        let err = ApiError::Internal(anyhow::anyhow!("secret table xyz exploded"));
        let body = serde_json::to_string(&err.problem()).unwrap();
        assert!(!body.contains("xyz"));
    }
}

//! `/api/v1/games`: correspondence games. One module per capability, like
//! `crate::games`; each handler extracts, calls one use case and maps the
//! result. `view` is what the API shows of a game.

pub mod alliances;
pub mod lobby;
pub mod play;
pub mod reading;
pub mod records;
pub mod view;

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::domain::FieldError;
use crate::error::ApiError;
use crate::games::model::parse_seat;
use crate::rules::Player;

/// Reads the query string, answering 422 naming the problem.
fn query<T: serde::de::DeserializeOwned>(req: &HttpRequest) -> Result<T, ApiError> {
    web::Query::<T>::from_query(req.query_string())
        .map(web::Query::into_inner)
        .map_err(|e| ApiError::Validation(vec![FieldError::new("query", "invalid", e.to_string())]))
}

/// A seat named in a request (`first`, `middle` or `last`), or a 422 naming
/// `field`.
fn seat_param(field: &str, raw: &str) -> Result<Player, ApiError> {
    parse_seat(raw).filter(|_| raw.len() > 1).ok_or_else(|| {
        ApiError::Validation(vec![FieldError::new(
            field,
            "invalid",
            "must be first, middle or last",
        )])
    })
}

/// A view with an `ETag`; `If-None-Match` with the same tag answers 304.
fn with_etag(
    req: &HttpRequest,
    status: actix_web::http::StatusCode,
    body: &impl Serialize,
) -> Result<HttpResponse, ApiError> {
    let bytes = serde_json::to_vec(body).map_err(|e| ApiError::Internal(e.into()))?;
    let digest = Sha256::digest(&bytes);
    let etag = format!("\"{}\"", hex::encode(&digest[..16]));
    let matches = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(',')
                .any(|t| t.trim().trim_start_matches("W/") == etag || t.trim() == "*")
        });
    if matches && status == actix_web::http::StatusCode::OK {
        return Ok(HttpResponse::NotModified()
            .insert_header((header::ETAG, etag))
            .finish());
    }
    Ok(HttpResponse::build(status)
        .insert_header((header::ETAG, etag))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .content_type("application/json")
        .body(bytes))
}

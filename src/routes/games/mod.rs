//! `/api/v1/games`: correspondence games. One module per capability, like
//! `crate::games`; each handler extracts, calls one use case and maps the
//! result. `view` is what the API shows of a game.

pub mod alliances;
pub mod lobby;
pub mod play;
pub mod premoves;
pub mod reading;
pub mod records;
pub mod talk;
pub mod time;
pub mod view;

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use sha2::{Digest, Sha256};

use crate::domain::FieldError;
use crate::error::ApiError;
use crate::games::model::parse_seat_name;
use crate::rules::Player;

/// Reads the query string, answering 422 naming the problem.
pub(crate) fn query<T: serde::de::DeserializeOwned>(req: &HttpRequest) -> Result<T, ApiError> {
    web::Query::<T>::from_query(req.query_string())
        .map(web::Query::into_inner)
        .map_err(|e| ApiError::Validation(vec![FieldError::new("query", "invalid", e.to_string())]))
}

/// A seat named in a request (`first`, `middle` or `last`), or a 422 naming
/// `field`.
fn seat_param(field: &str, raw: &str) -> Result<Player, ApiError> {
    parse_seat_name(raw).ok_or_else(|| {
        ApiError::Validation(vec![FieldError::new(
            field,
            "invalid",
            "must be first, middle or last",
        )])
    })
}

/// Whether `If-None-Match` names `etag` (or `*`).
fn none_match_names(req: &HttpRequest, etag: &str) -> bool {
    req.headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(',')
                .any(|t| t.trim().trim_start_matches("W/") == etag || t.trim() == "*")
        })
}

/// What a game's view is for: the release (its views may differ), the
/// game's version (every change to a game bumps it, and a view shows
/// nothing else that changes), and the viewer (players see their seat and
/// legal moves). Computed from the game row alone, so a conditional read
/// answers 304 without loading actions or replaying anything.
fn game_etag(game_id: &str, version: i32, viewer: Option<&str>) -> String {
    let mut h = Sha256::new();
    for part in [
        env!("CARGO_PKG_VERSION"),
        game_id,
        &version.to_string(),
        viewer.unwrap_or("-"),
    ] {
        h.update(part.as_bytes());
        h.update([0]);
    }
    format!("\"g{}\"", hex::encode(&h.finalize()[..12]))
}

/// A 304 for `etag`.
fn not_modified(etag: String) -> HttpResponse {
    HttpResponse::NotModified()
        .insert_header((header::ETAG, etag))
        .finish()
}

//! The NUL character, refused at the edge. PostgreSQL cannot hold it in text,
//! so a NUL that reached a query failed there (500) where SQLite simply found
//! nothing. No id, name or value of this API can hold one, so it never goes
//! further than this: in the path it names nothing (404, what a lookup finds);
//! in the query string or a JSON body it is refused (422 naming the field).
//! Both databases answer the same because neither is asked.

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{web, ResponseError as _};

use crate::domain::FieldError;
use crate::error::ApiError;

/// `%00` in any case: HTTP carries a NUL in a URL only percent-encoded.
fn has_encoded_nul(raw: &str) -> bool {
    raw.as_bytes()
        .windows(3)
        .any(|w| w[0] == b'%' && w[1] == b'0' && w[2] == b'0')
}

/// The error for a NUL in `field`.
pub fn nul_in(field: &str) -> ApiError {
    ApiError::Validation(vec![FieldError::new(
        field,
        "nul-character",
        "must not contain the NUL character",
    )])
}

/// The first query parameter whose name or value holds a NUL.
fn nul_parameter(query: &str) -> Option<String> {
    let pairs = web::Query::<Vec<(String, String)>>::from_query(query).ok()?;
    pairs
        .0
        .into_iter()
        .find(|(k, v)| k.contains('\0') || v.contains('\0'))
        .map(|(k, _)| k.replace('\0', "\u{fffd}"))
}

pub async fn refuse_nul(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let uri = req.uri();
    let refused = if has_encoded_nul(uri.path()) {
        Some(ApiError::NotFound(
            "No resource has a NUL character in its path.".into(),
        ))
    } else {
        uri.query()
            .filter(|q| has_encoded_nul(q))
            .map(|q| nul_in(&nul_parameter(q).unwrap_or_else(|| "query".into())))
    };
    match refused {
        Some(error) => {
            let res = error.error_response();
            Ok(req.into_response(res).map_into_right_body())
        }
        None => Ok(next.call(req).await?.map_into_left_body()),
    }
}

/// The path of the first string (or key) in `value` that holds a NUL.
pub fn nul_in_json(value: &serde_json::Value, path: &mut String) -> bool {
    use serde_json::Value;
    match value {
        Value::String(s) => s.contains('\0'),
        Value::Array(items) => items.iter().enumerate().any(|(i, v)| {
            let len = path.len();
            path.push_str(&format!("[{i}]"));
            let found = nul_in_json(v, path);
            if !found {
                path.truncate(len);
            }
            found
        }),
        Value::Object(map) => map.iter().any(|(k, v)| {
            let len = path.len();
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(&k.replace('\0', "\u{fffd}"));
            let found = k.contains('\0') || nul_in_json(v, path);
            if !found {
                path.truncate(len);
            }
            found
        }),
        _ => false,
    }
}

/// Whether a JSON text may hold a NUL: the escape `\u0000` (JSON cannot carry
/// the raw character in a string). A cheap scan before a full walk.
pub fn may_hold_nul(body: &[u8]) -> bool {
    body.windows(6)
        .any(|w| w[0] == b'\\' && (w[1] == b'u' || w[1] == b'U') && &w[2..] == b"0000")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_field_that_holds_a_nul() {
        let body = serde_json::json!({"a": "ok", "invite": ["bob", "car\u{0}ol"]});
        let mut path = String::new();
        assert!(nul_in_json(&body, &mut path));
        assert_eq!(path, "invite[1]");
        let mut path = String::new();
        assert!(!nul_in_json(&serde_json::json!({"a": ["x"]}), &mut path));
        assert!(may_hold_nul(br#"{"u": "a\u0000"}"#));
        assert!(!may_hold_nul(br#"{"u": "a\u0041"}"#));
        assert!(has_encoded_nul("/api/v1/games/%00abc"));
        assert!(!has_encoded_nul("/api/v1/games/%2500"));
        assert_eq!(nul_parameter("a=1&player=x%00").as_deref(), Some("player"));
    }
}

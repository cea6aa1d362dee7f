//! Security headers on every answer: no content sniffing, no framing, no
//! referrer (verification and unsubscribe links carry tokens in their URL),
//! and a Content-Security-Policy as strict as each kind of answer allows.
//! A handler that sets one of these headers itself keeps its own.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderName, HeaderValue};
use actix_web::middleware::Next;

/// JSON, problems, records: nothing to load, run or frame.
const API_POLICY: &str =
    "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
/// The HTML pages opened from mail: their own inline style, a form posting
/// back to them.
const PAGE_POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
/// The board picture: its own inline style; scripts never run.
const SVG_POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'";
/// Swagger UI at /docs: its bundled scripts and styles, the document and
/// "try it out" requests to this origin, the icons it inlines as data URIs.
const DOCS_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/// Which policy an answer gets, by where it is and what it is.
fn policy(path: &str, content_type: Option<&str>) -> &'static str {
    if path == "/docs" || path.starts_with("/docs/") {
        return DOCS_POLICY;
    }
    match content_type.map(|c| c.split(';').next().unwrap_or("").trim()) {
        Some("text/html") => PAGE_POLICY,
        Some("image/svg+xml") => SVG_POLICY,
        _ => API_POLICY,
    }
}

pub async fn security_headers(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let path = req.path().to_owned();
    let mut res = next.call(req).await?;
    let content_type = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let csp = policy(&path, content_type.as_deref());
    let headers = res.headers_mut();
    for (name, value) in [
        (header::CONTENT_SECURITY_POLICY, csp),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::REFERRER_POLICY, "no-referrer"),
    ] {
        set_unless_present(headers, name, value);
    }
    Ok(res)
}

fn set_unless_present(
    headers: &mut actix_web::http::header::HeaderMap,
    name: HeaderName,
    value: &'static str,
) {
    if !headers.contains_key(&name) {
        headers.insert(name, HeaderValue::from_static(value));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_answer_gets_its_policy() {
        assert_eq!(policy("/docs/", Some("text/html")), DOCS_POLICY);
        assert_eq!(
            policy("/docs/swagger-ui.css", Some("text/css")),
            DOCS_POLICY
        );
        assert_eq!(
            policy("/api/v1/email/verify", Some("text/html; charset=utf-8")),
            PAGE_POLICY
        );
        assert_eq!(
            policy("/api/v1/games/x/board.svg", Some("image/svg+xml")),
            SVG_POLICY
        );
        assert_eq!(
            policy("/api/v1/games", Some("application/json")),
            API_POLICY
        );
        assert_eq!(policy("/docsx", None), API_POLICY);
    }
}

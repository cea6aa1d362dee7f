//! The web client: the files under `src/web/`, embedded in the binary (it
//! works offline, nothing comes from elsewhere) and served at `/web/…`. The
//! client's pages (`/`, `/games/{id}`, …) all answer its `index.html`, which
//! draws the page in the browser. The client talks to the server only
//! through `/api/v1`, as any other client would.

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};

use crate::error::ApiError;

#[derive(rust_embed::Embed)]
#[folder = "src/web/"]
struct Files;

/// The paths the client draws in the browser (see `src/web/app.js`).
pub const PAGES: &[&str] = &[
    "/",
    "/login",
    "/register",
    "/verify",
    "/settings",
    "/new",
    "/games/{id}",
    "/users/{username}",
];

/// What the client may load and run: its own files, and requests to this
/// server alone; no inline script or style.
const CLIENT_POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/// The embedded file `name`, with an ETag from its content, so a browser
/// asks again each time (`no-cache`) and is answered 304 while it is
/// unchanged.
fn file(req: &HttpRequest, name: &str) -> Result<HttpResponse, ApiError> {
    let found = Files::get(name).ok_or(ApiError::RouteNotFound)?;
    let etag = format!("\"{}\"", hex::encode(&found.metadata.sha256_hash()[..12]));
    let fresh = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag || t.trim() == "*"));
    let mut res = if fresh {
        HttpResponse::NotModified()
    } else {
        HttpResponse::Ok()
    };
    res.insert_header((header::ETAG, etag))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header((header::CONTENT_SECURITY_POLICY, CLIENT_POLICY));
    if fresh {
        return Ok(res.finish());
    }
    Ok(res
        .content_type(found.metadata.mimetype())
        .body(found.data.into_owned()))
}

/// A page of the client.
pub async fn page(req: HttpRequest) -> Result<HttpResponse, ApiError> {
    file(&req, "index.html")
}

/// One of the client's files.
pub async fn asset(req: HttpRequest, path: web::Path<String>) -> Result<HttpResponse, ApiError> {
    file(&req, &path)
}

/// The bytes of script and style the client is made of, for its budget.
pub fn weight() -> usize {
    Files::iter()
        .filter(|n| n.ends_with(".js") || n.ends_with(".css"))
        .filter_map(|n| Files::get(&n).map(|f| f.data.len()))
        .sum()
}

#[cfg(test)]
mod tests {
    /// The budget for the client's script and style, uncompressed: every
    /// page, not only the game's, is within it.
    #[test]
    fn the_client_stays_within_its_weight_budget() {
        let weight = super::weight();
        assert!(weight > 10_000, "the client is embedded ({weight} bytes)");
        assert!(weight < 150_000, "{weight} bytes of script and style");
    }
}

//! Logging: `tracing` with a human or JSON format, and a request id on every
//! line logged while serving a request and on every response.

use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use tracing::Instrument as _;
use tracing_subscriber::EnvFilter;

use crate::config::{LogFormat, Settings};

pub const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// Installs the global subscriber. An invalid filter falls back to `info`.
pub fn init(settings: &Settings) {
    let filter = EnvFilter::try_new(&settings.log.filter).unwrap_or_else(|e| {
        eprintln!("sannin: SANNIN_LOG: {e}; using `info`");
        EnvFilter::new("info")
    });
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()));
    let installed = match settings.log.format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder
            .json()
            .with_current_span(true)
            .with_span_list(false)
            .try_init(),
    };
    // A second call (tests, embedding) keeps the first subscriber.
    let _ = installed;
}

/// An incoming id is kept if it is short and printable, so ids can be traced
/// across services; otherwise a fresh one is made.
fn request_id(req: &ServiceRequest) -> String {
    req.headers()
        .get(&REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.is_empty() && v.len() <= 128 && v.bytes().all(|b| b.is_ascii_graphic()))
        .map_or_else(|| uuid::Uuid::new_v4().to_string(), str::to_owned)
}

/// Middleware: runs the request inside a span carrying its id, logs its
/// outcome, and returns the id in `x-request-id`.
pub async fn trace_request(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let id = request_id(&req);
    let span = tracing::info_span!(
        "request",
        request_id = %id,
        method = %req.method(),
        path = %req.path(),
    );
    let started = Instant::now();
    async move {
        let mut res = next.call(req).await?;
        let status = res.status().as_u16();
        let elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
        if res.status().is_server_error() {
            tracing::warn!(status, elapsed_ms, "request finished");
        } else {
            tracing::info!(status, elapsed_ms, "request finished");
        }
        if let Ok(value) = HeaderValue::from_str(&id) {
            res.headers_mut().insert(REQUEST_ID, value);
        }
        Ok(res)
    }
    .instrument(span)
    .await
}

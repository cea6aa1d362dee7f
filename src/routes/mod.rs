//! HTTP routes: thin handlers that parse into domain types, call one use
//! case, and map the result. The resource list here and the path list in
//! `openapi` must agree; a test checks that every documented operation
//! is routed.

pub mod access;
pub mod accounts;
pub mod auth;
pub mod client;
pub mod extract;
pub mod games;
pub mod headers;
pub mod health;
pub mod json;
pub mod limits;
pub mod me;
pub mod notifications;
pub mod nul;
pub mod openapi;
mod problems;
pub mod ratings;
pub mod schemas;
pub mod streams;
pub mod tokens;
pub mod users;
pub mod vacation;
pub mod webhooks;

use std::net::{IpAddr, Ipv4Addr};

use actix_web::{web, HttpRequest, HttpResponse};
use chrono::{DateTime, NaiveDateTime, Utc};

use crate::error::{ApiError, Problem};

/// The path pattern a resource was registered with, kept as its data so
/// that an extractor can name the route without matching the path again.
#[derive(Debug, Clone, Copy)]
pub struct RoutePattern(pub &'static str);

/// A resource at `path` that knows its own pattern ([`RoutePattern`]).
fn resource(path: &'static str) -> actix_web::Resource {
    web::resource(path).app_data(RoutePattern(path))
}

/// Registers every route of the service.
pub fn configure(cfg: &mut web::ServiceConfig) {
    for page in client::PAGES {
        cfg.service(resource(page).route(web::get().to(client::page)));
    }
    cfg.service(resource("/web/{path:.+}").route(web::get().to(client::asset)));
    cfg.service(resource("/healthz").route(web::get().to(health::healthz)))
        .service(resource("/readyz").route(web::get().to(health::readyz)))
        .service(resource("/api/v1/openapi.json").route(web::get().to(openapi_json)))
        .service(resource("/docs").route(web::get().to(docs_redirect)))
        .service(resource("/api/v1/accounts").route(web::post().to(accounts::register)))
        .service(resource("/api/v1/auth/token").route(web::post().to(auth::token)))
        .service(resource("/api/v1/auth/refresh").route(web::post().to(auth::refresh)))
        .service(resource("/api/v1/auth/logout").route(web::post().to(auth::logout)))
        .service(
            resource("/api/v1/me")
                .route(web::get().to(me::get_me))
                .route(web::patch().to(me::patch_me)),
        )
        .service(
            resource("/api/v1/me/tokens")
                .route(web::get().to(tokens::list))
                .route(web::post().to(tokens::create))
                .route(web::delete().to(tokens::delete_all)),
        )
        .service(resource("/api/v1/me/tokens/{id}").route(web::delete().to(tokens::delete)))
        .service(resource("/api/v1/users/{username}").route(web::get().to(users::profile)))
        .service(
            resource("/api/v1/users/{username}/ratings").route(web::get().to(ratings::history)),
        )
        .service(resource("/api/v1/leaderboard").route(web::get().to(ratings::leaderboard)))
        .service(
            resource("/api/v1/me/vacation")
                .route(web::get().to(vacation::get))
                .route(web::post().to(vacation::start))
                .route(web::delete().to(vacation::end)),
        )
        .service(resource("/api/v1/me/events").route(web::get().to(games::reading::events)))
        .service(resource("/api/v1/me/events/stream").route(web::get().to(streams::my_events)))
        .service(resource("/api/v1/games/{id}/stream").route(web::get().to(streams::game)))
        .service(
            resource("/api/v1/me/notifications")
                .route(web::get().to(notifications::get))
                .route(web::patch().to(notifications::patch)),
        )
        .service(
            resource("/api/v1/me/email/verification").route(web::post().to(notifications::resend)),
        )
        .service(
            resource("/api/v1/email/verify")
                .route(web::get().to(notifications::verify_page))
                .route(web::post().to(notifications::verify)),
        )
        .service(
            resource("/api/v1/unsubscribe")
                .route(web::get().to(notifications::unsubscribe_page))
                .route(web::post().to(notifications::unsubscribe)),
        )
        .service(
            resource("/api/v1/games")
                .route(web::get().to(games::reading::list))
                .route(web::post().to(games::lobby::create)),
        )
        .service(resource("/api/v1/games/import").route(web::post().to(games::records::import)))
        .service(resource("/api/v1/games/{id}").route(web::get().to(games::reading::get)))
        .service(resource("/api/v1/games/{id}/join").route(web::post().to(games::lobby::join)))
        .service(
            resource("/api/v1/games/{id}/decline").route(web::post().to(games::lobby::decline)),
        )
        .service(resource("/api/v1/games/{id}/cancel").route(web::post().to(games::lobby::cancel)))
        .service(resource("/api/v1/games/{id}/resign").route(web::post().to(games::play::resign)))
        .service(
            resource("/api/v1/games/{id}/chat")
                .route(web::get().to(games::talk::read))
                .route(web::post().to(games::talk::post)),
        )
        .service(resource("/api/v1/games/{id}/chat/mute").route(web::put().to(games::talk::mute)))
        .service(
            resource("/api/v1/games/{id}/premoves")
                .route(web::get().to(games::premoves::read))
                .route(web::put().to(games::premoves::set))
                .route(web::delete().to(games::premoves::clear)),
        )
        .service(
            resource("/api/v1/games/{id}/notes")
                .route(web::get().to(games::talk::read_notes))
                .route(web::put().to(games::talk::write_notes)),
        )
        .service(resource("/api/v1/games/{id}/time").route(web::post().to(games::time::give)))
        .service(
            resource("/api/v1/games/{id}/draw/offer")
                .route(web::post().to(games::play::offer_draw)),
        )
        .service(
            resource("/api/v1/games/{id}/draw/accept")
                .route(web::post().to(games::play::accept_draw)),
        )
        .service(
            resource("/api/v1/games/{id}/draw/decline")
                .route(web::post().to(games::play::decline_draw)),
        )
        .service(
            resource("/api/v1/games/{id}/moves")
                .route(web::get().to(games::play::moves))
                .route(web::post().to(games::play::play)),
        )
        .service(resource("/api/v1/games/{id}/record").route(web::get().to(games::records::record)))
        .service(
            resource("/api/v1/games/{id}/board.svg").route(web::get().to(games::reading::board)),
        )
        .service(
            resource("/api/v1/games/{id}/alliance/proposals")
                .route(web::post().to(games::alliances::propose)),
        )
        .service(
            resource("/api/v1/games/{id}/alliance/proposals/{pid}/accept")
                .route(web::post().to(games::alliances::accept)),
        )
        .service(
            resource("/api/v1/games/{id}/alliance/proposals/{pid}/decline")
                .route(web::post().to(games::alliances::decline_alliance)),
        )
        .service(
            resource("/api/v1/games/{id}/alliance/proposals/{pid}/withdraw")
                .route(web::post().to(games::alliances::withdraw_alliance)),
        )
        .service(
            resource("/api/v1/webhooks")
                .route(web::get().to(webhooks::list))
                .route(web::post().to(webhooks::create)),
        )
        .service(
            resource("/api/v1/webhooks/{id}")
                .route(web::get().to(webhooks::get))
                .route(web::patch().to(webhooks::update))
                .route(web::delete().to(webhooks::delete)),
        )
        .service(resource("/api/v1/webhooks/{id}/ping").route(web::post().to(webhooks::ping)))
        .service(
            resource("/api/v1/webhooks/{id}/deliveries").route(web::get().to(webhooks::deliveries)),
        )
        .service(
            resource("/api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver")
                .route(web::post().to(webhooks::redeliver)),
        );
}

/// The OpenAPI document, byte for byte what `sannin openapi` prints.
async fn openapi_json() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(openapi::spec_json())
}

async fn docs_redirect() -> HttpResponse {
    HttpResponse::PermanentRedirect()
        .insert_header(("Location", "/docs/"))
        .finish()
}

/// OpenAPI: the problems every endpoint that reads a JSON body can answer.
/// Only documentation; the variants are never built.
#[derive(utoipa::IntoResponses)]
#[allow(dead_code)]
pub enum JsonBodyProblems {
    /// The body is not valid JSON (`malformed-json`).
    #[response(status = 400, content_type = "application/problem+json")]
    Malformed(Problem),
    /// The body is larger than `SANNIN_MAX_BODY_BYTES` (`payload-too-large`).
    #[response(status = 413, content_type = "application/problem+json")]
    TooLarge(Problem),
    /// The body is not sent as `application/json` (`unsupported-media-type`).
    #[response(status = 415, content_type = "application/problem+json")]
    NotJson(Problem),
}

/// OpenAPI: the answer of every authenticated endpoint without a valid token.
/// Only documentation; the variant is never built.
#[derive(utoipa::IntoResponses)]
#[allow(dead_code)]
pub enum AuthProblems {
    /// Missing, invalid or revoked bearer token (`unauthenticated`: log in
    /// again), or an access token past its lifetime (`token-expired`: get a
    /// new one with the refresh token).
    #[response(status = 401, content_type = "application/problem+json")]
    Unauthenticated(Problem),
}

/// The answer of a rate-limited operation, success or failure, with the
/// `RateLimit-Policy` and `RateLimit` header fields of where the caller
/// stands (draft-ietf-httpapi-ratelimit-headers). A 429 keeps its own.
pub(crate) fn limited(
    answer: Result<HttpResponse, ApiError>,
    standing: &crate::domain::limits::Standing,
) -> Result<HttpResponse, ApiError> {
    use actix_web::http::header::{HeaderName, HeaderValue};
    use actix_web::ResponseError as _;
    let mut res = answer.unwrap_or_else(|e| e.error_response());
    let fields = [
        ("ratelimit-policy", standing.policy_field()),
        ("ratelimit", standing.limit_field()),
    ];
    for (name, value) in fields {
        let name = HeaderName::from_static(name);
        if let (false, Ok(value)) = (
            res.headers().contains_key(&name),
            HeaderValue::from_str(&value),
        ) {
            res.headers_mut().insert(name, value);
        }
    }
    Ok(res)
}

/// Answer for paths no resource claims.
pub async fn not_found() -> Result<HttpResponse, ApiError> {
    Err(ApiError::RouteNotFound)
}

/// The client's address, for per-client rate limits: the TCP peer, or behind
/// a trusted proxy (`SANNIN_TRUSTED_PROXIES`) the address it forwarded for.
pub(crate) fn client_ip(req: &HttpRequest, state: &crate::state::AppState) -> IpAddr {
    let peer = req
        .peer_addr()
        .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |addr| addr.ip());
    let forwarded: Vec<Option<&str>> = req
        .headers()
        .get_all("x-forwarded-for")
        .map(|v| v.to_str().ok())
        .collect();
    state.trusted_proxies.client(peer, &forwarded)
}

/// Stored times are UTC; the API shows them as RFC 3339 with a `Z`.
pub(crate) fn utc(t: NaiveDateTime) -> DateTime<Utc> {
    DateTime::from_naive_utc_and_offset(t, Utc)
}

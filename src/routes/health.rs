use std::time::Duration;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{web, HttpResponse};
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::{ApiError, Problem};
use crate::state::AppState;

/// Notes every 503 answered to a request (but readiness's own), which only
/// an unavailable database causes, for readiness to report.
pub async fn watch_unavailability(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let readiness = req
        .app_data::<web::Data<AppState>>()
        .map(|s| s.readiness.clone());
    let own = req.path() == "/readyz";
    let res = next.call(req).await?;
    if res.status() == actix_web::http::StatusCode::SERVICE_UNAVAILABLE && !own {
        if let Some(r) = readiness {
            r.note();
        }
    }
    Ok(res)
}

#[derive(Serialize, ToSchema)]
pub struct Health {
    #[schema(example = "ok")]
    pub status: &'static str,
}

/// Liveness: the process is up and serving.
#[utoipa::path(
    get,
    path = "/healthz",
    tag = "health",
    responses((status = 200, description = "The process is alive", body = Health))
)]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(Health { status: "ok" })
}

/// Readiness: the database answers.
#[utoipa::path(
    get,
    path = "/readyz",
    tag = "health",
    responses(
        (status = 200, description = "Ready to serve", body = Health),
        (status = 503, description = "The database did not answer within a second, or requests found it unavailable in the last 5 seconds", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn readyz(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    crate::db::check(&state.pool, READY_CHECK_WITHIN).await?;
    if let Some(ago) = state.readiness.unavailable_since(READY_WINDOW) {
        return Err(ApiError::Unavailable(anyhow::anyhow!(
            "requests found the database unavailable {ago:?} ago"
        )));
    }
    Ok(HttpResponse::Ok().json(Health { status: "ok" }))
}

/// How long readiness waits for the database to answer.
const READY_CHECK_WITHIN: Duration = Duration::from_secs(1);
/// How long after requests found the database unavailable (a broken
/// connection, a lock or statement timeout, no free connection) readiness
/// still says 503.
const READY_WINDOW: Duration = Duration::from_secs(5);

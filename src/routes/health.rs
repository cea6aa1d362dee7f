use actix_web::{web, HttpResponse};
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::{ApiError, Problem};
use crate::state::AppState;

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
        (status = 503, description = "The database is unreachable", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn readyz(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    crate::db::check(&state.pool).await?;
    Ok(HttpResponse::Ok().json(Health { status: "ok" }))
}

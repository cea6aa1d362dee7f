//! Per-client limits at the edge: requests in flight per client address.

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{web, ResponseError as _};

use crate::error::ApiError;
use crate::state::AppState;

/// Refuses a request (429 `too-many-in-flight`) while its client address
/// already has `SANNIN_MAX_REQUESTS_PER_CLIENT` in flight, so that one client
/// (say, one sending bodies a byte at a time) cannot hold every connection.
pub async fn per_client(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let Some(state) = req.app_data::<web::Data<AppState>>().cloned() else {
        return Ok(next.call(req).await?.map_into_left_body());
    };
    let client = super::client_ip(req.request(), &state);
    let Some(_guard) = state.in_flight.enter(client) else {
        let res = ApiError::TooManyInFlight.error_response();
        return Ok(req.into_response(res).map_into_right_body());
    };
    Ok(next.call(req).await?.map_into_left_body())
}

//! Extractors of the authenticated caller from `Authorization: Bearer …`.
//!
//! ```text
//! async fn play(auth: Authenticated, …) -> Result<…, ApiError> {
//!     auth.require_scope(Scope::GamesPlay)?;
//!     …
//! }
//! ```

use std::future::Future;
use std::pin::Pin;

use actix_web::http::header;
use actix_web::{web, FromRequest, HttpRequest};

use crate::auth::{Authenticated, MaybeAuthenticated};
use crate::error::ApiError;
use crate::state::AppState;

/// The token of an `Authorization: Bearer …` header.
fn bearer(req: &HttpRequest) -> Result<String, ApiError> {
    let value = req
        .headers()
        .get(header::AUTHORIZATION)
        .ok_or(ApiError::Unauthenticated("no Authorization header"))?
        .to_str()
        .map_err(|_| ApiError::Unauthenticated("the Authorization header is not text"))?;
    let (scheme, token) = value.split_once(' ').ok_or(ApiError::Unauthenticated(
        "the Authorization header is not `Bearer <token>`",
    ))?;
    let token = token.trim();
    if !scheme.eq_ignore_ascii_case("bearer") || token.is_empty() {
        return Err(ApiError::Unauthenticated(
            "the Authorization header is not `Bearer <token>`",
        ));
    }
    Ok(token.to_owned())
}

impl FromRequest for Authenticated {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let token = bearer(req);
        let state = req.app_data::<web::Data<AppState>>().cloned();
        Box::pin(async move {
            let token = token?;
            let state = state.ok_or_else(|| {
                ApiError::Internal(anyhow::anyhow!("application state is not registered"))
            })?;
            Ok(crate::accounts::authenticate(&state, token).await?)
        })
    }
}

impl FromRequest for MaybeAuthenticated {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut actix_web::dev::Payload) -> Self::Future {
        if req.headers().get(header::AUTHORIZATION).is_none() {
            return Box::pin(async { Ok(MaybeAuthenticated(None)) });
        }
        let inner = Authenticated::from_request(req, payload);
        Box::pin(async move { Ok(MaybeAuthenticated(Some(inner.await?))) })
    }
}

//! Extractors of the authenticated caller from `Authorization: Bearer …`.
//!
//! A handler names the caller in its arguments; the scope comes from the
//! route's rule in `routes::access`, checked here:
//!
//! ```text
//! async fn play(auth: Authenticated, …) -> Result<…, ApiError> { … }
//! ```

use std::future::Future;
use std::pin::Pin;

use actix_web::http::header;
use actix_web::{web, FromRequest, HttpRequest};

use super::access::{access_of, Access};
use crate::auth::{Authenticated, MaybeAuthenticated};
use crate::domain::Scope;
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

/// The scope the matched route's access rule asks for; a route without a
/// rule is a bug, answered 500 (and caught by the OpenAPI tests).
fn required_scope(req: &HttpRequest) -> Result<Option<Scope>, ApiError> {
    // Registered with the resource; matching the path again would cost a
    // regular-expression search per route.
    let pattern = match req.app_data::<super::RoutePattern>() {
        Some(p) => p.0.to_owned(),
        None => req.match_pattern().unwrap_or_default(),
    };
    match access_of(req.method().as_str(), &pattern) {
        Some(Access::Required(scope) | Access::Optional(scope)) => Ok(Some(scope)),
        Some(Access::Public) => Ok(None),
        None => Err(ApiError::Internal(anyhow::anyhow!(
            "{} {pattern} has no access rule in routes::access",
            req.method()
        ))),
    }
}

impl FromRequest for Authenticated {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    /// The caller, authenticated and holding the scope the route asks for.
    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let scope = required_scope(req);
        let token = bearer(req);
        let state = req.app_data::<web::Data<AppState>>().cloned();
        Box::pin(async move {
            let scope = scope?;
            let token = token?;
            let state = state.ok_or_else(|| {
                ApiError::Internal(anyhow::anyhow!("application state is not registered"))
            })?;
            let caller = crate::accounts::authenticate(&state, token).await?;
            if let Some(scope) = scope {
                caller.require_scope(scope)?;
            }
            Ok(caller)
        })
    }
}

impl FromRequest for MaybeAuthenticated {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut actix_web::dev::Payload) -> Self::Future {
        if let Err(e) = required_scope(req) {
            return Box::pin(async { Err(e) });
        }
        if req.headers().get(header::AUTHORIZATION).is_none() {
            return Box::pin(async { Ok(MaybeAuthenticated(None)) });
        }
        let inner = Authenticated::from_request(req, payload);
        Box::pin(async move { Ok(MaybeAuthenticated(Some(inner.await?))) })
    }
}

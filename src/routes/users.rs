use actix_web::{web, HttpResponse};
use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use crate::accounts;
use crate::error::{ApiError, Problem};
use crate::state::AppState;

/// What anyone may see of a player.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"username": "alice", "bot": false, "created_at": "2026-01-01T12:00:00Z"}))]
pub struct PublicProfile {
    pub username: String,
    /// Whether this is one of the server's computer players.
    pub bot: bool,
    /// A computer player's engine level, 1–5.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1, maximum = 5)]
    pub level: Option<i32>,
    /// The player's rating; null before the first rated game.
    pub rating: Option<super::ratings::RatingView>,
    pub created_at: DateTime<Utc>,
}

/// A player's public profile.
#[utoipa::path(
    get,
    path = "/api/v1/users/{username}",
    operation_id = "get_user",
    tag = "users",
    params(("username" = crate::domain::Username, Path, description = "Case-insensitive username", example = "alice")),
    responses(
        (status = 200, description = "The profile", body = PublicProfile),
        (status = 404, description = "No such user (`not-found`)", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn profile(
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (user, rating) = accounts::public_profile(&state, path.into_inner()).await?;
    Ok(HttpResponse::Ok().json(PublicProfile {
        rating: rating.as_ref().map(Into::into),
        bot: user.is_bot(),
        level: user.bot_level,
        username: user.username,
        created_at: super::utc(user.created_at),
    }))
}

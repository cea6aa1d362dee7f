//! Conditional premoves: lines of moves that answer predicted replies.

use crate::domain::GameId;
use actix_web::{web, HttpResponse};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::Authenticated;
use crate::error::{ApiError, Problem};
use crate::games::premoves::{self, Premoves};
use crate::routes::json::ApiJson;
use crate::routes::{utc, AuthProblems, JsonBodyProblems};
use crate::state::AppState;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"lines": [["2g10k+", "12l8d"], ["3d4d", "12l8d", "10d8d", "1d2e", "7k7j"]]}))]
pub struct PremovesRequest {
    /// Up to 100 lines, each 1 to 12 moves (R33) in turn order from the position
    /// now, with at least one move of yours: the server plays your moves in a
    /// line as long as the others play theirs. No two lines may answer the same
    /// moves with different moves of yours. An empty list removes your premoves.
    #[schema(schema_with = crate::routes::schemas::premove_lines)]
    pub lines: Vec<Vec<String>>,
}

/// Your premoves: what remains of your lines, from ply `from_ply` on.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"lines": [["10d8d", "1d2e", "7k7j"]], "from_ply": 3, "updated_at": "2026-12-02T10:00:00Z"}))]
pub struct PremovesView {
    /// Each line's moves still to come, the next one first.
    #[schema(schema_with = crate::routes::schemas::remaining_lines)]
    pub lines: Vec<Vec<String>>,
    /// The ply the lines' first moves are for; null without premoves.
    pub from_ply: Option<u32>,
    pub updated_at: Option<DateTime<Utc>>,
}

impl From<Premoves> for PremovesView {
    fn from(p: Premoves) -> Self {
        Self {
            lines: p
                .lines
                .iter()
                .map(|l| l.iter().map(ToString::to_string).collect())
                .collect(),
            from_ply: p.from_ply,
            updated_at: p.updated_at.map(utc),
        }
    }
}

/// Register conditional premoves in place of any you had. Each move is checked
/// by the rules from the position now. After every move the server keeps the
/// lines that match it; when it becomes your turn and a line says what to play,
/// the server plays it at once (marked `premove` in the move list and in
/// `game.move`). An alliance, an elimination or a draw offer removes everyone's.
#[utoipa::path(
    put,
    path = "/api/v1/games/{id}/premoves",
    operation_id = "set_premoves",
    tag = "games",
    params(("id" = crate::domain::GameId, Path, description = "The game's id")),
    request_body = PremovesRequest,
    responses(
        (status = 200, description = "Registered", body = PremovesView),
        (status = 403, description = "Not a player (`not-a-player`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The game is not active (`game-state`), or you are out of it (`not-playing`)", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "The game is over (`game-over`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A line refused: each error's `field` is `lines[i][j]` (or `lines[i]`), its `code` the rules' reason (`king-in-check`…), `length`, `no-move-of-yours` or `conflicting-lines`", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
        JsonBodyProblems,
    )
)]
pub async fn set(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<GameId>,
    body: ApiJson<PremovesRequest>,
) -> Result<HttpResponse, ApiError> {
    let now = state.clock.now();
    let p = premoves::set_premoves(&state.games, &auth.user_id, &path, body.0.lines, now).await?;
    Ok(HttpResponse::Ok().json(PremovesView::from(p)))
}

/// Your premoves in a game (no one else's are shown to you): empty lines when
/// you have none (never registered, used up, dropped or removed).
#[utoipa::path(
    get,
    path = "/api/v1/games/{id}/premoves",
    operation_id = "read_premoves",
    tag = "games",
    params(("id" = crate::domain::GameId, Path, description = "The game's id")),
    responses(
        (status = 200, description = "Your premoves", body = PremovesView),
        (status = 403, description = "Not a player (`not-a-player`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
    )
)]
pub async fn read(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    let p = premoves::read_premoves(&state.games, &auth.user_id, &path).await?;
    Ok(HttpResponse::Ok().json(PremovesView::from(p)))
}

/// Remove your premoves in a game.
#[utoipa::path(
    delete,
    path = "/api/v1/games/{id}/premoves",
    operation_id = "clear_premoves",
    tag = "games",
    params(("id" = crate::domain::GameId, Path, description = "The game's id")),
    responses(
        (status = 204, description = "Removed (or there were none)"),
        (status = 403, description = "Not a player (`not-a-player`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
    )
)]
pub async fn clear(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    premoves::clear_premoves(&state.games, &auth.user_id, &path).await?;
    Ok(HttpResponse::NoContent().finish())
}

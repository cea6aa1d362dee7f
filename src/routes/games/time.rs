//! Giving another player time.

use crate::domain::GameId;
use actix_web::{web, HttpResponse};
use serde::Deserialize;
use utoipa::ToSchema;

use super::view::{game_view, GameView};
use crate::auth::Authenticated;
use crate::error::{ApiError, Problem};
use crate::games::gifts;
use crate::routes::json::ApiJson;
use crate::routes::{AuthProblems, JsonBodyProblems};
use crate::state::AppState;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"to": "middle", "hours": 24}))]
pub struct GiveTimeRequest {
    /// The seat whose clock gains the time (not your own).
    #[schema(value_type = crate::routes::schemas::Seat)]
    pub to: String,
    /// Hours to add, 1–168. A Fischer bank still holds no more than its maximum.
    #[schema(minimum = 1, maximum = 168, example = 24)]
    pub hours: u32,
}

/// Give another living player time: `hours` are added to their clock (to
/// the running one at once, moving the game's deadline). Each player may
/// give once per turn; everyone hears of it (`game.time_given`).
#[utoipa::path(
    post,
    path = "/api/v1/games/{id}/time",
    operation_id = "give_time",
    tag = "games",
    params(("id" = crate::domain::GameId, Path, description = "The game's id")),
    request_body = GiveTimeRequest,
    responses(
        (status = 200, description = "Given; the game with its `clocks`", body = GameView),
        (status = 403, description = "Not a player (`not-a-player`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "You gave time this turn already, the game has no clock, the seat is out or a computer player's, or the game has not started (`game-state`); you are out of the game (`not-playing`)", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "The game is over (`game-over`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`to` is not a seat or is your own; `hours` out of range", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
        JsonBodyProblems,
    )
)]
pub async fn give(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<GameId>,
    body: ApiJson<GiveTimeRequest>,
) -> Result<HttpResponse, ApiError> {
    let GiveTimeRequest { to, hours } = body.0;
    let now = state.clock.now();
    let g = gifts::give_time(&state.games, &auth.user_id, &path, to, hours, now).await?;
    Ok(HttpResponse::Ok().json(game_view(&g, Some(&auth.user_id))))
}

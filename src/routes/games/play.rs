//! Playing: moves, resignations and draw offers.

use crate::domain::GameId;
use actix_web::http::header;
use actix_web::{web, HttpResponse};
use serde::Deserialize;
use utoipa::ToSchema;

use super::view::{action_views, game_view, ActionView, GameView};
use crate::auth::{Authenticated, MaybeAuthenticated};
use crate::error::{ApiError, Problem};
use crate::games::moves::{self, MoveSubmission};
use crate::games::{draws, listing};
use crate::routes::json::ApiJson;
use crate::routes::{AuthProblems, JsonBodyProblems};
use crate::state::AppState;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"move": "7k7j", "ply": 2}))]
pub struct MoveRequest {
    #[schema(value_type = crate::routes::schemas::MoveNotation)]
    pub r#move: String,
    /// The ply you believe is next (the game's `ply`); a different one is stale.
    #[schema(example = 2)]
    pub ply: i64,
    /// Offer a draw (R36) with the move: the others accept or decline it.
    /// Optional, `false` when left out. (The document states no `default`
    /// here: common client generators would then make the field required.)
    #[serde(default)]
    pub offer_draw: bool,
}
/// Play a move. Sending the same move for the same ply again changes nothing and
/// answers the same way.
#[utoipa::path(
    post,
    path = "/api/v1/games/{id}/moves",
    operation_id = "play_move",
    tag = "games",
    params(("id" = crate::domain::GameId, Path, description = "The game's id")),
    request_body = MoveRequest,
    responses(
        (status = 201, description = "Played; the game after it", body = GameView),
        (status = 403, description = "Not a player (`not-a-player`), not your turn (`not-your-turn`), or the token lacks `games:play`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Stale `ply`: someone moved first (`stale-ply`), or the game has not started (`game-state`)", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "The game is over (`game-over`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Illegal or malformed move; `code` is the rules' reason, e.g. `king-in-check`, `path-blocked`, `promotion-required`", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
        JsonBodyProblems,
    )
)]
pub async fn play(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<GameId>,
    body: ApiJson<MoveRequest>,
) -> Result<HttpResponse, ApiError> {
    let MoveRequest {
        r#move,
        ply,
        offer_draw,
    } = body.0;
    let submission = MoveSubmission {
        notation: r#move,
        ply,
        offer_draw,
    };
    let now = state.clock.now();
    let g = moves::play_move(&state.games, &auth.user_id, &path, submission, now).await?;
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, format!("/api/v1/games/{}", g.game.row.id)))
        .json(game_view(&g, Some(&auth.user_id))))
}

/// The moves and other actions of a game, in order, each with who acted, when, and
/// the position after it.
#[utoipa::path(
    get,
    path = "/api/v1/games/{id}/moves",
    operation_id = "list_moves",
    tag = "games",
    params(("id" = crate::domain::GameId, Path, description = "The game's id")),
    responses(
        (status = 200, description = "The actions", body = [ActionView]),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
    )
)]
pub async fn moves(
    _auth: MaybeAuthenticated,
    state: web::Data<AppState>,
    path: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    let h = listing::history(&state.games, &path).await?;
    Ok(HttpResponse::Ok().json(action_views(&h)))
}

/// Offer a draw (R36) to the other living players. The game ends drawn among the
/// living once all have accepted; a player who moves instead of answering declines.
/// Offering again while your offer stands changes nothing.
#[utoipa::path(
    post,
    path = "/api/v1/games/{id}/draw/offer",
    operation_id = "offer_draw",
    tag = "games",
    params(("id" = crate::domain::GameId, Path, description = "The game's id")),
    responses(
        (status = 200, description = "Offered; the game with its `draw_offer`", body = GameView),
        (status = 403, description = "Not a player (`not-a-player`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Another player's offer stands: answer it (`game-state`); the game has not started (`game-state`); you are out of the game (`not-playing`)", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "The game is over (`game-over`)", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
    )
)]
pub async fn offer_draw(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    let g = draws::offer_draw(&state.games, &auth.user_id, &path, state.clock.now()).await?;
    let res = HttpResponse::Ok().json(game_view(&g, Some(&auth.user_id)));
    crate::routes::limited(Ok(res), &crate::games::offers::spent())
}

/// Accept the standing draw offer. When every living player has accepted, the game
/// ends drawn among them (result reason `agreement`). Accepting twice changes nothing.
#[utoipa::path(
    post,
    path = "/api/v1/games/{id}/draw/accept",
    operation_id = "accept_draw",
    tag = "games",
    params(("id" = crate::domain::GameId, Path, description = "The game's id")),
    responses(
        (status = 200, description = "Accepted; the game after it (finished if you were the last to accept)", body = GameView),
        (status = 403, description = "Not a player (`not-a-player`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "No offer stands (`game-state`), or you are out of the game (`not-playing`)", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "The game is over (`game-over`)", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
    )
)]
pub async fn accept_draw(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    let now = state.clock.now();
    let g = draws::answer_draw(&state.games, &auth.user_id, &path, true, now).await?;
    Ok(HttpResponse::Ok().json(game_view(&g, Some(&auth.user_id))))
}

/// Decline the standing draw offer (the offerer withdraws it): it ends for everyone.
#[utoipa::path(
    post,
    path = "/api/v1/games/{id}/draw/decline",
    operation_id = "decline_draw",
    tag = "games",
    params(("id" = crate::domain::GameId, Path, description = "The game's id")),
    responses(
        (status = 200, description = "Declined; the game after it", body = GameView),
        (status = 403, description = "Not a player (`not-a-player`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "No offer stands (`game-state`), or you are out of the game (`not-playing`)", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "The game is over (`game-over`)", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
    )
)]
pub async fn decline_draw(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    let now = state.clock.now();
    let g = draws::answer_draw(&state.games, &auth.user_id, &path, false, now).await?;
    Ok(HttpResponse::Ok().json(game_view(&g, Some(&auth.user_id))))
}

/// Resign (R35): you leave the game; the others play on.
#[utoipa::path(
    post,
    path = "/api/v1/games/{id}/resign",
    operation_id = "resign_game",
    tag = "games",
    params(("id" = crate::domain::GameId, Path, description = "The game's id")),
    responses(
        (status = 200, description = "Resigned; the game after it", body = GameView),
        (status = 403, description = "Not a player (`not-a-player`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Already out of the game (`not-playing`), or not started (`game-state`)", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "The game is over (`game-over`)", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
    )
)]
pub async fn resign(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    let g = moves::resign_game(&state.games, &auth.user_id, &path, state.clock.now()).await?;
    Ok(HttpResponse::Ok().json(game_view(&g, Some(&auth.user_id))))
}

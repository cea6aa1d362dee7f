//! Alliances (R29): proposals and their answers.

use crate::domain::{GameId, ProposalId};
use actix_web::{web, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::seat_param;
use super::view::{game_view, GameView, ProposalView};
use crate::auth::Authenticated;
use crate::error::{ApiError, Problem};
use crate::games::alliances::{self, Answer};
use crate::routes::json::ApiJson;
use crate::routes::{AuthProblems, JsonBodyProblems};
use crate::state::AppState;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"to": "middle"}))]
pub struct ProposalRequest {
    /// The seat you propose to ally with.
    #[schema(value_type = crate::routes::schemas::Seat)]
    pub to: String,
}
/// Propose an alliance (R29) to another player; it forms when they accept.
#[utoipa::path(
    post,
    path = "/api/v1/games/{id}/alliance/proposals",
    operation_id = "propose_alliance",
    tag = "games",
    params(("id" = crate::domain::GameId, Path, description = "The game's id")),
    request_body = ProposalRequest,
    responses(
        (status = 201, description = "Proposed", body = ProposalView),
        (status = 403, description = "Not a player (`not-a-player`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "No alliance is possible now (`alliance-not-allowed`), or you already proposed (`game-state`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid seat", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
        JsonBodyProblems,
    )
)]
pub async fn propose(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<GameId>,
    body: ApiJson<ProposalRequest>,
) -> Result<HttpResponse, ApiError> {
    let to = seat_param("to", &body.0.to)?;
    let now = state.clock.now();
    let p = alliances::propose_alliance(&state.games, &auth.user_id, &path, to, now).await?;
    let res = HttpResponse::Created().json(ProposalView::from(p));
    crate::routes::limited(Ok(res), &crate::games::offers::spent())
}

/// A proposal and the game after the answer.
#[derive(Serialize, ToSchema)]
pub struct ProposalAnswer {
    pub proposal: ProposalView,
    pub game: GameView,
}
async fn answer(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<(GameId, ProposalId)>,
    what: Answer,
) -> Result<HttpResponse, ApiError> {
    let (id, pid) = path.into_inner();
    let now = state.clock.now();
    let (p, g) =
        alliances::answer_proposal(&state.games, &auth.user_id, &id, &pid, what, now).await?;
    Ok(HttpResponse::Ok().json(ProposalAnswer {
        proposal: ProposalView::from(p),
        game: game_view(&g, Some(&auth.user_id)),
    }))
}

/// Accept a proposal addressed to you: the alliance forms at once (R29, R20).
#[utoipa::path(
    post,
    path = "/api/v1/games/{id}/alliance/proposals/{pid}/accept",
    operation_id = "accept_alliance",
    tag = "games",
    params(("id" = crate::domain::GameId, Path, description = "The game's id"), ("pid" = crate::domain::ProposalId, Path, description = "The proposal's id")),
    responses(
        (status = 200, description = "Accepted; the alliance formed", body = ProposalAnswer),
        (status = 403, description = "Not addressed to you", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game or proposal", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "No longer pending, or no alliance is possible now", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
    )
)]
pub async fn accept(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<(GameId, ProposalId)>,
) -> Result<HttpResponse, ApiError> {
    answer(auth, state, path, Answer::Accept).await
}
/// Decline a proposal addressed to you.
#[utoipa::path(
    post,
    path = "/api/v1/games/{id}/alliance/proposals/{pid}/decline",
    operation_id = "decline_alliance",
    tag = "games",
    params(("id" = crate::domain::GameId, Path, description = "The game's id"), ("pid" = crate::domain::ProposalId, Path, description = "The proposal's id")),
    responses(
        (status = 200, description = "Declined", body = ProposalAnswer),
        (status = 403, description = "Not addressed to you", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game or proposal", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "No longer pending", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
    )
)]
pub async fn decline_alliance(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<(GameId, ProposalId)>,
) -> Result<HttpResponse, ApiError> {
    answer(auth, state, path, Answer::Decline).await
}
/// Withdraw your own proposal.
#[utoipa::path(
    post,
    path = "/api/v1/games/{id}/alliance/proposals/{pid}/withdraw",
    operation_id = "withdraw_alliance",
    tag = "games",
    params(("id" = crate::domain::GameId, Path, description = "The game's id"), ("pid" = crate::domain::ProposalId, Path, description = "The proposal's id")),
    responses(
        (status = 200, description = "Withdrawn", body = ProposalAnswer),
        (status = 403, description = "Not your proposal", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game or proposal", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "No longer pending", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
    )
)]
pub async fn withdraw_alliance(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<(GameId, ProposalId)>,
) -> Result<HttpResponse, ApiError> {
    answer(auth, state, path, Answer::Withdraw).await
}

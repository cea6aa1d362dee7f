//! Records: export and import.

use crate::domain::GameId;
use actix_web::http::header;
use actix_web::{web, HttpResponse};
use serde::Deserialize;
use utoipa::ToSchema;

use super::view::{game_view, GameView};
use crate::auth::{Authenticated, MaybeAuthenticated};
use crate::domain::FieldError;
use crate::error::{ApiError, Problem};
use crate::games::records;
use crate::record::Record;
use crate::routes::json::ApiJson;
use crate::routes::{AuthProblems, JsonBodyProblems};
use crate::state::AppState;

/// The game record: tags (players, dates, time control, options, result) and the
/// numbered moves, alliances, resignations and time-outs. Import it with
/// `POST /api/v1/games/import`.
#[utoipa::path(
    get,
    path = "/api/v1/games/{id}/record",
    operation_id = "game_record",
    tag = "games",
    params(("id" = crate::domain::GameId, Path, description = "The game's id")),
    responses(
        (status = 200, description = "The record", body = String, content_type = "text/plain"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn record(
    // Checks a credential, if one is given, against the route's scope.
    _caller: MaybeAuthenticated,
    state: web::Data<AppState>,
    path: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    let record = records::export_record(&state.games, &path).await?;
    Ok(HttpResponse::Ok()
        .content_type("text/plain; charset=utf-8")
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("inline; filename=\"sannin-{}.txt\"", path.as_str()),
        ))
        .body(record.to_text()))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportRequest {
    /// A game record as `GET /api/v1/games/{id}/record` writes it.
    pub record: String,
}
/// Import a game record: every action is replayed through the rules; the result
/// must match the record's. A finished record becomes a finished game; an unfinished
/// one an `analysis` game that takes no moves.
#[utoipa::path(
    post,
    path = "/api/v1/games/import",
    operation_id = "import_game",
    tag = "games",
    request_body = ImportRequest,
    responses(
        (status = 201, description = "Imported", body = GameView),
        (status = 422, description = "The record does not read or replay; the field error names the line, column and reason", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "You created as many games as you may this hour (`rate-limited`, 30 by default, imports included)", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
        AuthProblems,
        JsonBodyProblems,
    )
)]
pub async fn import(
    auth: Authenticated,
    state: web::Data<AppState>,
    body: ApiJson<ImportRequest>,
) -> Result<HttpResponse, ApiError> {
    let now = state.clock.now();
    let answer = async {
        let record = Record::parse(&body.0.record).map_err(|e| {
            ApiError::Validation(vec![FieldError::new("record", e.code(), e.to_string())])
        })?;
        let g = records::import_record(&state.games, &auth.user_id, record, now).await?;
        Ok(HttpResponse::Created()
            .insert_header((header::LOCATION, format!("/api/v1/games/{}", g.game.row.id)))
            .json(game_view(&g, Some(&auth.user_id))))
    };
    let answer = answer.await;
    let counted = crate::accounts::limits::Counted::Games;
    let standing = crate::accounts::limits::standing(&state, &auth.user_id, counted, now).await?;
    crate::routes::limited(answer, &standing)
}

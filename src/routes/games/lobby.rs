//! The lobby: create, join, decline, cancel.

use crate::domain::GameId;
use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use super::view::{game_view, GameView};
use super::{query, seat_param};
use crate::accounts::limits::{self, Counted};
use crate::auth::Authenticated;
use crate::error::{ApiError, Problem};
use crate::games::lobby::{self, GameRequest, NewGame};
use crate::routes::json::ApiJson;
use crate::routes::{AuthProblems, JsonBodyProblems};
use crate::state::AppState;

/// Rule options (RULES.md R19, R24).
#[derive(Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct OptionsRequest {
    #[schema(value_type = Option<crate::routes::schemas::StuckPieceOption>)]
    pub stuck_piece: Option<String>,
    #[schema(value_type = Option<crate::routes::schemas::IlluminationOption>)]
    pub illumination: Option<String>,
}
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"seat": "first", "invite": ["bob"], "open_seats": 1, "days_per_move": 3}))]
pub struct CreateGameRequest {
    #[schema(value_type = Option<crate::routes::schemas::SeatChoice>)]
    pub seat: Option<String>,
    /// Usernames to invite (at most two, each once); they take the remaining
    /// seats in turn order.
    #[serde(default)]
    #[schema(schema_with = crate::routes::schemas::invitees)]
    pub invite: Vec<String>,
    /// Seats anyone may take (default: the seats not given to invitees);
    /// invitations and open seats must add up to two.
    #[schema(minimum = 0, maximum = 2)]
    pub open_seats: Option<usize>,
    /// Null or absent for unlimited time.
    #[schema(value_type = Option<crate::routes::schemas::DaysPerMove>)]
    pub days_per_move: Option<i32>,
    /// The time control (instead of `days_per_move`): the same days for
    /// every move, a Fischer bank per player (1–30 days each part; the
    /// increment and the start at most the maximum), or none. Absent with
    /// `days_per_move` absent: no limit.
    pub time_control: Option<crate::games::clock::TimeControl>,
    /// Saturdays and Sundays, from midnight to midnight in the time zone of
    /// the player to move, do not count against them (default false).
    #[serde(default)]
    pub pause_on_weekends: bool,
    /// Whether players' vacations stop their clocks (default true); false
    /// for games that must finish on time.
    #[serde(default = "yes")]
    pub vacation: bool,
    #[serde(default, deserialize_with = "crate::routes::json::object")]
    pub options: OptionsRequest,
    /// Two seats that start allied (R11): the third moves first, its king promoted.
    #[schema(schema_with = crate::routes::schemas::allies)]
    pub allies: Option<Vec<String>>,
    /// Computer players to seat, by level (1 plays at once, 5 thinks
    /// longest; each level once), after the invitees: `sannin-bot-1` …
    /// `sannin-bot-5`. They accept at once, so a game with two of them
    /// starts on creation. Invitees and bots take at most the two other seats.
    #[serde(default)]
    #[schema(schema_with = crate::routes::schemas::bot_levels)]
    pub bots: Vec<i64>,
    /// Whether the result changes the players' ratings (default false).
    #[serde(default)]
    pub rated: bool,
}
fn yes() -> bool {
    true
}

impl CreateGameRequest {
    fn parse(&self) -> Result<NewGame, ApiError> {
        Ok(NewGame::new(GameRequest {
            seat: self.seat.as_deref(),
            invite: &self.invite,
            open_seats: self.open_seats,
            days_per_move: self.days_per_move,
            time_control: self.time_control,
            pause_on_weekends: self.pause_on_weekends,
            vacation: self.vacation,
            stuck_piece: self.options.stuck_piece.as_deref(),
            illumination: self.options.illumination.as_deref(),
            allies: self.allies.as_deref(),
            bots: &self.bots,
            rated: self.rated,
        })?)
    }
}

/// Create a game.
#[utoipa::path(
    post,
    path = "/api/v1/games",
    operation_id = "create_game",
    tag = "games",
    request_body = CreateGameRequest,
    responses(
        (status = 201, description = "Created; invitees are asked, open seats wait", body = GameView),
        (status = 403, description = "The token lacks `games:play` (`insufficient-scope`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid fields, or an unknown username to invite", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "You hold as many seats in unfinished games as you may (`quota-exceeded`, 200 by default)", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "You created as many games as you may this hour (`rate-limited`, 30 by default, imports included)", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
        AuthProblems,
        JsonBodyProblems,
    )
)]
pub async fn create(
    auth: Authenticated,
    state: web::Data<AppState>,
    body: ApiJson<CreateGameRequest>,
) -> Result<HttpResponse, ApiError> {
    let now = state.clock.now();
    let answer = async {
        let new = body.0.parse()?;
        let g = lobby::create_game(&state.games, &auth.user_id, new, now).await?;
        Ok(HttpResponse::Created()
            .insert_header((header::LOCATION, format!("/api/v1/games/{}", g.game.row.id)))
            .json(game_view(&g, Some(&auth.user_id))))
    };
    let answer = answer.await;
    let standing = limits::standing(&state, &auth.user_id, Counted::Games, now).await?;
    crate::routes::limited(answer, &standing)
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct JoinQuery {
    /// The seat to take; default: the first open seat.
    #[param(value_type = Option<crate::routes::schemas::Seat>)]
    pub seat: Option<String>,
}
/// Take an open seat, or accept your invitation. The game starts when the third
/// seat is filled.
#[utoipa::path(
    post,
    path = "/api/v1/games/{id}/join",
    operation_id = "join_game",
    tag = "games",
    params(("id" = crate::domain::GameId, Path, description = "The game's id"), JoinQuery),
    responses(
        (status = 200, description = "You are seated", body = GameView),
        (status = 403, description = "The token lacks `games:play`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The game is not open or has no open seat (`game-state`), or you hold as many seats in unfinished games as you may (`quota-exceeded`, 200 by default)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid seat", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
    )
)]
pub async fn join(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<GameId>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let q = query::<JoinQuery>(&req)?;
    let seat = q
        .seat
        .as_deref()
        .map(|s| seat_param("seat", s))
        .transpose()?;
    let now = state.clock.now();
    let g = lobby::join_game(&state.games, &auth.user_id, &path, seat, now).await?;
    Ok(HttpResponse::Ok().json(game_view(&g, Some(&auth.user_id))))
}

/// Decline your invitation; the seat opens to anyone.
#[utoipa::path(
    post,
    path = "/api/v1/games/{id}/decline",
    operation_id = "decline_game",
    tag = "games",
    params(("id" = crate::domain::GameId, Path, description = "The game's id")),
    responses(
        (status = 200, description = "Declined", body = GameView),
        (status = 403, description = "You are not invited to this game (`not-a-player`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Already joined, or the game is no longer open (`game-state`)", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
    )
)]
pub async fn decline(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    let now = state.clock.now();
    let g = lobby::decline_invitation(&state.games, &auth.user_id, &path, now).await?;
    Ok(HttpResponse::Ok().json(game_view(&g, Some(&auth.user_id))))
}

/// Cancel a game you created, before it starts.
#[utoipa::path(
    post,
    path = "/api/v1/games/{id}/cancel",
    operation_id = "cancel_game",
    tag = "games",
    params(("id" = crate::domain::GameId, Path, description = "The game's id")),
    responses(
        (status = 200, description = "Cancelled", body = GameView),
        (status = 403, description = "You did not create this game (`forbidden`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The game has started (`game-state`)", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
    )
)]
pub async fn cancel(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    let g = lobby::cancel_game(&state.games, &auth.user_id, &path, state.clock.now()).await?;
    Ok(HttpResponse::Ok().json(game_view(&g, Some(&auth.user_id))))
}

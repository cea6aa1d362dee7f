//! Your vacation: days held, taking them, coming back early.

use actix_web::{web, HttpResponse};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::json::ApiJson;
use super::{utc, AuthProblems, JsonBodyProblems};
use crate::auth::Authenticated;
use crate::error::{ApiError, Problem};
use crate::games::vacation::{self, Vacation};
use crate::state::AppState;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"days": 7}))]
pub struct StartVacationRequest {
    /// Whole days, at least 1 and at most what you hold.
    #[schema(minimum = 1, maximum = 365, example = 7)]
    pub days: i32,
}

/// Your vacation days, and the vacation under way.
#[derive(Serialize, ToSchema)]
pub struct VacationView {
    /// Whole days you may take now.
    #[schema(example = 4)]
    pub days_held: i32,
    /// When you earn the next whole day; null while you hold the most.
    pub next_day_at: Option<DateTime<Utc>>,
    /// You earn one day for every this many days.
    #[schema(example = 10)]
    pub earn_one_day_every_days: f64,
    /// The most days one holds.
    #[schema(example = 30)]
    pub max_days: i32,
    /// The vacation under way, or null.
    pub current: Option<CurrentVacation>,
}

#[derive(Serialize, ToSchema)]
pub struct CurrentVacation {
    pub started_at: DateTime<Utc>,
    /// When it ends (a move of yours, in any game, ends it sooner).
    pub until: DateTime<Utc>,
}

fn view(v: Vacation, day: chrono::Duration) -> VacationView {
    let every = v.rules.earn_every.num_milliseconds() as f64 / day.num_milliseconds() as f64;
    VacationView {
        days_held: v.days_held,
        next_day_at: v.next_day_at.map(utc),
        earn_one_day_every_days: every,
        max_days: v.rules.max_days,
        current: v.current.map(|(from, until)| CurrentVacation {
            started_at: utc(from),
            until: utc(until),
        }),
    }
}

/// Your vacation days and the vacation under way.
#[utoipa::path(
    get,
    path = "/api/v1/me/vacation",
    operation_id = "get_vacation",
    tag = "me",
    responses((status = 200, description = "Your vacation", body = VacationView), AuthProblems)
)]
pub async fn get(
    auth: Authenticated,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let v = vacation::vacation(&state.games, &auth.user_id, state.clock.now()).await?;
    Ok(HttpResponse::Ok().json(view(v, state.games.settings.day)))
}

/// Go on vacation now, for whole days you hold. Your clock stops in every
/// game that lets vacations stop it (`vacation: true`, the default) until it
/// ends; your opponents hear of it (`game.player_on_vacation`). A move of
/// yours ends it early, as `DELETE` does.
#[utoipa::path(
    post,
    path = "/api/v1/me/vacation",
    operation_id = "start_vacation",
    tag = "me",
    request_body = StartVacationRequest,
    responses(
        (status = 201, description = "On vacation", body = VacationView),
        (status = 409, description = "A vacation is under way (`game-state`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`days` is not between 1 and the days you hold", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
        JsonBodyProblems,
    )
)]
pub async fn start(
    auth: Authenticated,
    state: web::Data<AppState>,
    body: ApiJson<StartVacationRequest>,
) -> Result<HttpResponse, ApiError> {
    let now = state.clock.now();
    let v = vacation::start_vacation(&state.games, &auth.user_id, body.0.days, now).await?;
    Ok(HttpResponse::Created().json(view(v, state.games.settings.day)))
}

/// Come back early: the unused whole days return, and your clocks count
/// from now (`game.player_back`).
#[utoipa::path(
    delete,
    path = "/api/v1/me/vacation",
    operation_id = "end_vacation",
    tag = "me",
    responses(
        (status = 200, description = "Back; your days", body = VacationView),
        (status = 409, description = "You are not on vacation (`game-state`)", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
    )
)]
pub async fn end(
    auth: Authenticated,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let v = vacation::end_vacation(&state.games, &auth.user_id, state.clock.now()).await?;
    Ok(HttpResponse::Ok().json(view(v, state.games.settings.day)))
}

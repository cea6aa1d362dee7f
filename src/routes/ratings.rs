//! Ratings: a player's history and the leaderboard (profiles and game
//! states show ratings too).

use actix_web::{web, HttpRequest, HttpResponse};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::accounts::ratings as use_cases;
use crate::db::ratings::{RatingChangeRow, RatingRow};
use crate::domain::FieldError;
use crate::error::{ApiError, Problem};
use crate::games::ratings::{display, PROVISIONAL_GAMES};
use crate::routes::games::query;
use crate::routes::utc;
use crate::state::AppState;

/// A Weng-Lin rating.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({"mu": 27.1, "sigma": 6.9, "display": 6.4, "games": 3, "provisional": true}))]
pub struct RatingView {
    /// The estimated skill (a new player starts at 25).
    pub mu: f64,
    /// The uncertainty of `mu` (a new player starts at 25/3).
    pub sigma: f64,
    /// What is shown and ranked: `mu - 3 sigma`, a skill the player is
    /// very likely to have at least.
    pub display: f64,
    /// Rated games finished.
    pub games: i32,
    /// Fewer than 10 rated games: not yet on the leaderboard (which also
    /// asks for counted games against at least 5 distinct opponents).
    pub provisional: bool,
}

impl From<&RatingRow> for RatingView {
    fn from(r: &RatingRow) -> Self {
        Self {
            mu: r.mu,
            sigma: r.sigma,
            display: r.display,
            games: r.games,
            provisional: r.games < PROVISIONAL_GAMES,
        }
    }
}

/// A rating at one moment (before or after a game).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RatingPoint {
    pub mu: f64,
    pub sigma: f64,
    /// `mu - 3 sigma`.
    pub display: f64,
}

impl RatingPoint {
    fn of(mu: f64, sigma: f64) -> Self {
        Self {
            mu,
            sigma,
            display: display(mu, sigma),
        }
    }
}

/// What one finished rated game did to one player's rating.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RatingChangeView {
    /// 1–3: the winner first; drawn players share first; the others by the
    /// order they left the game, later places higher. Shared places skip
    /// the next (1, 1, 3).
    #[schema(minimum = 1, maximum = 3)]
    pub place: i32,
    pub before: RatingPoint,
    pub after: RatingPoint,
    /// Why the game did not count, when it did not (`after` is then
    /// `before`): `too-short` (a player made fewer than 3 moves),
    /// `early-draw` (all three agreed a draw before ply 30) or `repeated`
    /// (a fourth rated game among the same players within 30 days).
    #[schema(value_type = Option<String>, example = json!(null))]
    pub uncounted: Option<String>,
}

impl From<&RatingChangeRow> for RatingChangeView {
    fn from(c: &RatingChangeRow) -> Self {
        Self {
            place: c.place,
            before: RatingPoint::of(c.mu_before, c.sigma_before),
            after: RatingPoint::of(c.mu_after, c.sigma_after),
            uncounted: c.uncounted.clone(),
        }
    }
}

/// One game of a player's rating history.
#[derive(Debug, Serialize, ToSchema)]
pub struct RatedGameView {
    pub game_id: String,
    /// The player's seat in it.
    pub seat: String,
    #[serde(flatten)]
    pub change: RatingChangeView,
    pub finished_at: DateTime<Utc>,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    /// At most this many, 1–100 (default 50).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<i64>,
    /// Skip this many first (default 0).
    #[param(minimum = 0, maximum = 100000)]
    pub offset: Option<i64>,
}

impl PageQuery {
    fn parse(req: &HttpRequest) -> Result<(i64, i64), ApiError> {
        let q = query::<PageQuery>(req)?;
        let (limit, offset) = (q.limit.unwrap_or(50), q.offset.unwrap_or(0));
        let mut errors = Vec::new();
        if !(1..=100).contains(&limit) {
            errors.push(FieldError::new("limit", "range", "must be from 1 to 100"));
        }
        if !(0..=100_000).contains(&offset) {
            errors.push(FieldError::new(
                "offset",
                "range",
                "must be from 0 to 100000",
            ));
        }
        if errors.is_empty() {
            Ok((limit, offset))
        } else {
            Err(ApiError::Validation(errors))
        }
    }
}

/// A player's rated games, newest first, with what each did to the rating.
#[utoipa::path(
    get,
    path = "/api/v1/users/{username}/ratings",
    operation_id = "get_user_ratings",
    tag = "users",
    params(("username" = crate::domain::Username, Path, description = "Case-insensitive username", example = "alice"), PageQuery),
    responses(
        (status = 200, description = "The history", body = [RatedGameView]),
        (status = 404, description = "No such user (`not-found`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid query", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn history(
    state: web::Data<AppState>,
    path: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let (limit, offset) = PageQuery::parse(&req)?;
    let changes = use_cases::history(&state, path.into_inner(), limit, offset).await?;
    let views: Vec<RatedGameView> = changes
        .iter()
        .map(|c| RatedGameView {
            game_id: c.game_id.to_string(),
            seat: c.seat.clone(),
            change: c.into(),
            finished_at: utc(c.created_at),
        })
        .collect();
    Ok(HttpResponse::Ok().json(views))
}

/// A place on the leaderboard.
#[derive(Debug, Serialize, ToSchema)]
pub struct LeaderView {
    /// 1 for the best.
    pub rank: i64,
    pub username: String,
    /// Whether this is one of the server's computer players.
    pub bot: bool,
    pub rating: RatingView,
}

/// The best-rated players (10 rated games or more), best first by `display`.
#[utoipa::path(
    get,
    path = "/api/v1/leaderboard",
    operation_id = "get_leaderboard",
    tag = "users",
    params(PageQuery),
    responses(
        (status = 200, description = "The leaderboard", body = [LeaderView]),
        (status = 422, description = "Invalid query", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn leaderboard(
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let (limit, offset) = PageQuery::parse(&req)?;
    let ranked = use_cases::leaderboard(&state, limit, offset).await?;
    let views: Vec<LeaderView> = ranked
        .iter()
        .zip(offset + 1..)
        .map(|((rating, username, bot), rank)| LeaderView {
            rank,
            username: username.clone(),
            bot: bot.is_some(),
            rating: rating.into(),
        })
        .collect();
    Ok(HttpResponse::Ok().json(views))
}

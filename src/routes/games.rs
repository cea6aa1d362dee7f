//! `/api/v1/games`: correspondence games.

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use base64::Engine as _;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::{IntoParams, ToSchema};

use super::json::ApiJson;
use super::{utc, AuthProblems, JsonBodyProblems};
use crate::auth::{Authenticated, MaybeAuthenticated};
use crate::db;
use crate::domain::Scope;
use crate::error::{ApiError, FieldError, Problem};
use crate::games::model::{load, parse_seat, seat_name, Status};
use crate::games::service::{self, Answer, ListFilter, NewGame, SeatChoice, DAYS_PER_MOVE};
use crate::games::view::{
    action_views, game_view, ActionView, GameView, PlayerView, ProposalView, ResultView,
};
use crate::games::GameError;
use crate::record::Record;
use crate::render::{board_svg, SvgOptions};
use crate::rules::{Alliance, Illumination, Options, Player, StuckPiece};
use crate::state::AppState;

/// Reads the query string, answering 422 naming the problem.
fn query<T: serde::de::DeserializeOwned>(req: &HttpRequest) -> Result<T, ApiError> {
    web::Query::<T>::from_query(req.query_string())
        .map(web::Query::into_inner)
        .map_err(|e| ApiError::Validation(vec![FieldError::new("query", "invalid", e.to_string())]))
}

fn now() -> chrono::NaiveDateTime {
    Utc::now().naive_utc()
}

/// Rule options (RULES.md R19, R24).
#[derive(Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct OptionsRequest {
    /// `promote` (default) or `stay`.
    #[schema(example = "promote")]
    pub stuck_piece: Option<String>,
    /// `selective` (default) or `all`.
    #[schema(example = "selective")]
    pub illumination: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"seat": "first", "invite": ["bob"], "open_seats": 1, "days_per_move": 3}))]
pub struct CreateGameRequest {
    /// Your seat: `first`, `middle`, `last` or `random` (default).
    #[schema(example = "first")]
    pub seat: Option<String>,
    /// Usernames to invite; they take the remaining seats in turn order.
    #[serde(default)]
    pub invite: Vec<String>,
    /// Seats anyone may take (default: the seats not given to invitees).
    pub open_seats: Option<usize>,
    /// 1, 2, 3, 5, 7, 10 or 14 days per move; null or absent for unlimited time.
    pub days_per_move: Option<i32>,
    #[serde(default)]
    pub options: OptionsRequest,
    /// Two seats that start allied (R11): the third moves first, its king promoted.
    pub allies: Option<Vec<String>>,
}

impl CreateGameRequest {
    fn parse(self) -> Result<NewGame, ApiError> {
        let mut errors = Vec::new();
        let seat = match self.seat.as_deref() {
            None | Some("random") => Some(SeatChoice::Random),
            Some(s) => match parse_seat(s).filter(|_| s.len() > 1) {
                Some(p) => Some(SeatChoice::Seat(p)),
                None => {
                    errors.push(FieldError::new(
                        "seat",
                        "invalid",
                        "must be first, middle, last or random",
                    ));
                    None
                }
            },
        };
        let mut invite = Vec::new();
        for (i, name) in self.invite.iter().enumerate() {
            let n = name.trim().to_lowercase();
            if n.is_empty() {
                errors.push(FieldError::new(
                    format!("invite[{i}]"),
                    "required",
                    "must be a username",
                ));
            } else if invite.contains(&n) {
                errors.push(FieldError::new(
                    format!("invite[{i}]"),
                    "duplicate",
                    "is invited twice",
                ));
            } else {
                invite.push(n);
            }
        }
        if invite.len() > 2 {
            errors.push(FieldError::new(
                "invite",
                "too-many",
                "at most two players can be invited",
            ));
        }
        let open_seats = self
            .open_seats
            .unwrap_or(2usize.saturating_sub(invite.len()));
        if invite.len() <= 2 && invite.len() + open_seats != 2 {
            errors.push(FieldError::new(
                "open_seats",
                "seat-count",
                format!("the two other seats must be invitations or open seats: {} invited + {open_seats} open ≠ 2", invite.len()),
            ));
        }
        if let Some(d) = self.days_per_move {
            if !DAYS_PER_MOVE.contains(&d) {
                errors.push(FieldError::new(
                    "days_per_move",
                    "invalid",
                    "must be 1, 2, 3, 5, 7, 10 or 14 (or null for unlimited)",
                ));
            }
        }
        let stuck_piece = match self.options.stuck_piece.as_deref() {
            None => StuckPiece::default(),
            Some(s) => s.parse().unwrap_or_else(|e: String| {
                errors.push(FieldError::new("options.stuck_piece", "invalid", e));
                StuckPiece::default()
            }),
        };
        let illumination = match self.options.illumination.as_deref() {
            None => Illumination::default(),
            Some(s) => s.parse().unwrap_or_else(|e: String| {
                errors.push(FieldError::new("options.illumination", "invalid", e));
                Illumination::default()
            }),
        };
        let allies = match self.allies.as_deref() {
            None => None,
            Some([a, b]) => match (parse_seat(a), parse_seat(b)) {
                (Some(a), Some(b)) if a != b => Alliance::new(a, b),
                _ => {
                    errors.push(FieldError::new(
                        "allies",
                        "invalid",
                        "must be two different seats",
                    ));
                    None
                }
            },
            Some(_) => {
                errors.push(FieldError::new(
                    "allies",
                    "invalid",
                    "must be two different seats",
                ));
                None
            }
        };
        match seat {
            Some(seat) if errors.is_empty() => Ok(NewGame {
                seat,
                invite,
                open_seats,
                days_per_move: self.days_per_move,
                options: Options {
                    stuck_piece,
                    illumination,
                },
                allies,
            }),
            _ => Err(ApiError::Validation(errors)),
        }
    }
}

/// A view with an `ETag`; `If-None-Match` with the same tag answers 304.
fn with_etag(
    req: &HttpRequest,
    status: actix_web::http::StatusCode,
    body: &impl Serialize,
) -> Result<HttpResponse, ApiError> {
    let bytes = serde_json::to_vec(body).map_err(|e| ApiError::Internal(e.into()))?;
    let digest = Sha256::digest(&bytes);
    let etag = format!("\"{}\"", hex::encode(&digest[..16]));
    let matches = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(',')
                .any(|t| t.trim().trim_start_matches("W/") == etag || t.trim() == "*")
        });
    if matches && status == actix_web::http::StatusCode::OK {
        return Ok(HttpResponse::NotModified()
            .insert_header((header::ETAG, etag))
            .finish());
    }
    Ok(HttpResponse::build(status)
        .insert_header((header::ETAG, etag))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .content_type("application/json")
        .body(bytes))
}

async fn view_of(
    state: &AppState,
    id: String,
    viewer: Option<String>,
) -> Result<GameView, ApiError> {
    Ok(db::run(&state.pool, move |conn| {
        let g = load(conn, &id)?;
        let proposals = service::pending_proposals(conn, &id)?;
        Ok::<_, GameError>(game_view(&g, proposals, viewer.as_deref()))
    })
    .await?)
}

/// Create a game.
#[utoipa::path(
    post,
    path = "/api/v1/games",
    operation_id = "create_game",
    tag = "games",
    request_body = CreateGameRequest,
    security(("bearer_jwt" = []), ("personal_access_token" = ["games:play"])),
    responses(
        (status = 201, description = "Created; invitees are asked, open seats wait", body = GameView),
        (status = 403, description = "The token lacks `games:play` (`insufficient-scope`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid fields, or an unknown username to invite", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
        JsonBodyProblems,
    )
)]
pub async fn create(
    auth: Authenticated,
    state: web::Data<AppState>,
    body: ApiJson<CreateGameRequest>,
) -> Result<HttpResponse, ApiError> {
    auth.require_scope(Scope::GamesPlay)?;
    let new = body.0.parse()?;
    let settings = state.games;
    let uid = auth.user_id.clone();
    let g = db::run(&state.pool, move |conn| {
        service::create(conn, &settings, &uid, new, now())
    })
    .await?;
    let view = game_view(&g, Vec::new(), Some(&auth.user_id));
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, format!("/api/v1/games/{}", g.row.id)))
        .json(view))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// Only games you sit in (default true). With false, lists games by `status`
    /// (default `open`: games with seats to take).
    pub mine: Option<bool>,
    /// `open`, `active`, `finished`, `cancelled`, `expired` or `analysis`.
    pub status: Option<String>,
    /// Only games where it is your move.
    pub my_turn: Option<bool>,
    /// Only games with this player seated.
    pub player: Option<String>,
    /// Page size, 1–100 (default 20).
    pub limit: Option<usize>,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

/// A game in a list.
#[derive(Serialize, ToSchema)]
pub struct GameSummary {
    pub id: String,
    pub status: String,
    pub players: Vec<PlayerView>,
    pub to_move: Option<String>,
    pub ply: i32,
    pub position: String,
    pub deadline: Option<DateTime<Utc>>,
    pub result: Option<ResultView>,
    pub your_seat: Option<String>,
    pub your_turn: bool,
    pub days_per_move: Option<i32>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

#[derive(Serialize, ToSchema)]
pub struct GameList {
    pub games: Vec<GameSummary>,
    /// Pass as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
}

#[derive(Deserialize)]
struct StoredResult {
    winner: Option<String>,
    draw: Option<Vec<String>>,
    reason: String,
}

/// List games, most urgent first: your moves with the least time left, then the rest
/// by deadline, then by last change. Pages follow `next_cursor` (also in `Link`).
#[utoipa::path(
    get,
    path = "/api/v1/games",
    operation_id = "list_games",
    tag = "games",
    params(ListQuery),
    security(("bearer_jwt" = []), ("personal_access_token" = ["games:read"])),
    responses(
        (status = 200, description = "One page of games", body = GameList),
        (status = 403, description = "The token lacks `games:read` (`insufficient-scope`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid query parameters", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
    )
)]
pub async fn list(
    auth: Authenticated,
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    auth.require_scope(Scope::GamesRead)?;
    let q = query::<ListQuery>(&req)?;
    let status = match q.status.as_deref() {
        None => None,
        Some(s) => Some(Status::parse(s).ok_or_else(|| {
            ApiError::Validation(vec![FieldError::new(
                "status",
                "invalid",
                "must be open, active, finished, cancelled, expired or analysis",
            )])
        })?),
    };
    let limit = q.limit.unwrap_or(20);
    if !(1..=100).contains(&limit) {
        return Err(ApiError::Validation(vec![FieldError::new(
            "limit",
            "range",
            "must be from 1 to 100",
        )]));
    }
    let offset = match &q.cursor {
        None => 0,
        Some(c) => decode_cursor(c).ok_or_else(|| {
            ApiError::Validation(vec![FieldError::new(
                "cursor",
                "invalid",
                "is not a cursor this server gave out",
            )])
        })?,
    };
    let filter = ListFilter {
        mine: q.mine.unwrap_or(true),
        status,
        my_turn: q.my_turn.unwrap_or(false),
        player: q.player.as_deref().map(|p| p.trim().to_lowercase()),
    };
    let uid = auth.user_id.clone();
    let (page, more) = db::run(&state.pool, move |conn| {
        service::list(conn, &uid, &filter, offset, limit)
    })
    .await?;
    let games = page
        .into_iter()
        .map(|l| GameSummary {
            players: l
                .seats
                .iter()
                .map(|s| PlayerView {
                    seat: seat_name(s.seat).to_owned(),
                    username: s.name().map(str::to_owned),
                    state: s.state.as_str().to_owned(),
                    elimination: None,
                    in_check: false,
                })
                .collect(),
            id: l.row.id,
            to_move: l.row.to_move.filter(|_| l.row.status == "active"),
            ply: l.row.ply,
            status: l.row.status,
            position: l.row.position,
            deadline: l.row.deadline.map(utc),
            result: l
                .row
                .result
                .and_then(|r| serde_json::from_str::<StoredResult>(&r).ok())
                .map(|r| ResultView {
                    winner: r.winner,
                    draw: r.draw,
                    reason: r.reason,
                }),
            your_seat: l.your_seat.map(|p| seat_name(p).to_owned()),
            your_turn: l.your_turn,
            days_per_move: l.row.days_per_move,
            created_at: utc(l.row.created_at),
            updated_at: utc(l.row.updated_at),
        })
        .collect();
    let next_cursor = more.then(|| encode_cursor(offset + limit));
    let mut resp = HttpResponse::Ok();
    if let Some(c) = &next_cursor {
        let mut pairs: Vec<(String, String)> = url_pairs(req.query_string())
            .into_iter()
            .filter(|(k, _)| k != "cursor")
            .collect();
        pairs.push(("cursor".into(), c.clone()));
        let query: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        resp.insert_header((
            header::LINK,
            format!("</api/v1/games?{}>; rel=\"next\"", query.join("&")),
        ));
    }
    Ok(resp.json(GameList { games, next_cursor }))
}

fn url_pairs(q: &str) -> Vec<(String, String)> {
    q.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('=') {
            Some((k, v)) => (k.to_owned(), v.to_owned()),
            None => (p.to_owned(), String::new()),
        })
        .collect()
}

fn encode_cursor(offset: usize) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("o:{offset}"))
}

/// The offset a cursor stands for; `None` for anything this server would not
/// have given out (including offsets the database could not take).
fn decode_cursor(c: &str) -> Option<usize> {
    let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(c)
        .ok()?;
    let offset: u32 = String::from_utf8(raw)
        .ok()?
        .strip_prefix("o:")?
        .parse()
        .ok()?;
    usize::try_from(offset).ok()
}

/// The whole state of a game. Anyone may read a game; with your token, it also shows
/// your seat and, on your turn, your legal moves. Answers 304 to `If-None-Match` with
/// the current `ETag`.
#[utoipa::path(
    get,
    path = "/api/v1/games/{id}",
    operation_id = "get_game",
    tag = "games",
    params(("id" = String, Path, description = "The game's id")),
    security((), ("bearer_jwt" = []), ("personal_access_token" = ["games:read"])),
    responses(
        (status = 200, description = "The game", body = GameView, headers(("ETag" = String, description = "Changes whenever the answer would"))),
        (status = 304, description = "Unchanged since the `ETag` given in `If-None-Match`"),
        (status = 404, description = "No such game (`not-found`)", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
    )
)]
pub async fn get(
    auth: MaybeAuthenticated,
    state: web::Data<AppState>,
    path: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    if let Some(a) = &auth.0 {
        a.require_scope(Scope::GamesRead)?;
    }
    let view = view_of(&state, path.into_inner(), auth.0.map(|a| a.user_id)).await?;
    with_etag(&req, actix_web::http::StatusCode::OK, &view)
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct JoinQuery {
    /// The seat to take (`first`, `middle` or `last`); default: the first open seat.
    pub seat: Option<String>,
}

/// Take an open seat, or accept your invitation. The game starts when the third
/// seat is filled.
#[utoipa::path(
    post,
    path = "/api/v1/games/{id}/join",
    operation_id = "join_game",
    tag = "games",
    params(("id" = String, Path, description = "The game's id"), JoinQuery),
    security(("bearer_jwt" = []), ("personal_access_token" = ["games:play"])),
    responses(
        (status = 200, description = "You are seated", body = GameView),
        (status = 403, description = "The token lacks `games:play`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The game is not open or has no open seat (`game-state`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid seat", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
    )
)]
pub async fn join(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    auth.require_scope(Scope::GamesPlay)?;
    let q = query::<JoinQuery>(&req)?;
    let seat = match q.seat.as_deref() {
        None => None,
        Some(s) => Some(parse_seat(s).filter(|_| s.len() > 1).ok_or_else(|| {
            ApiError::Validation(vec![FieldError::new(
                "seat",
                "invalid",
                "must be first, middle or last",
            )])
        })?),
    };
    let (id, uid, settings) = (path.into_inner(), auth.user_id.clone(), state.games);
    let g = db::run(&state.pool, move |conn| {
        service::join(conn, &settings, &uid, &id, seat, now())
    })
    .await?;
    let id = g.row.id.clone();
    Ok(HttpResponse::Ok().json(view_of(&state, id, Some(auth.user_id)).await?))
}

/// Decline your invitation; the seat opens to anyone.
#[utoipa::path(
    post,
    path = "/api/v1/games/{id}/decline",
    operation_id = "decline_game",
    tag = "games",
    params(("id" = String, Path, description = "The game's id")),
    security(("bearer_jwt" = []), ("personal_access_token" = ["games:play"])),
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
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    auth.require_scope(Scope::GamesPlay)?;
    let (id, uid) = (path.into_inner(), auth.user_id.clone());
    let g = db::run(&state.pool, move |conn| {
        service::decline(conn, &uid, &id, now())
    })
    .await?;
    Ok(HttpResponse::Ok().json(game_view(&g, Vec::new(), Some(&auth.user_id))))
}

/// Cancel a game you created, before it starts.
#[utoipa::path(
    post,
    path = "/api/v1/games/{id}/cancel",
    operation_id = "cancel_game",
    tag = "games",
    params(("id" = String, Path, description = "The game's id")),
    security(("bearer_jwt" = []), ("personal_access_token" = ["games:play"])),
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
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    auth.require_scope(Scope::GamesPlay)?;
    let (id, uid) = (path.into_inner(), auth.user_id.clone());
    let g = db::run(&state.pool, move |conn| {
        service::cancel(conn, &uid, &id, now())
    })
    .await?;
    Ok(HttpResponse::Ok().json(game_view(&g, Vec::new(), Some(&auth.user_id))))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"move": "7k7j", "ply": 2}))]
pub struct MoveRequest {
    /// The move in R33 notation: `7k7j`, `6b6a+`, `P*7g`, `10d!7d,9e`.
    #[schema(example = "7k7j")]
    pub r#move: String,
    /// The ply you believe is next (the game's `ply`); a different one is stale.
    #[schema(example = 2)]
    pub ply: i64,
}

/// Play a move. Sending the same move for the same ply again changes nothing and
/// answers the same way.
#[utoipa::path(
    post,
    path = "/api/v1/games/{id}/moves",
    operation_id = "play_move",
    tag = "games",
    params(("id" = String, Path, description = "The game's id")),
    request_body = MoveRequest,
    security(("bearer_jwt" = []), ("personal_access_token" = ["games:play"])),
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
    path: web::Path<String>,
    body: ApiJson<MoveRequest>,
) -> Result<HttpResponse, ApiError> {
    auth.require_scope(Scope::GamesPlay)?;
    let (id, uid, settings) = (path.into_inner(), auth.user_id.clone(), state.games);
    let MoveRequest { r#move, ply } = body.0;
    let played = db::run(&state.pool, move |conn| {
        service::play(conn, &settings, &uid, &id, r#move.trim(), ply, now())
    })
    .await?;
    let id = played.game.row.id.clone();
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, format!("/api/v1/games/{id}")))
        .json(view_of(&state, id, Some(auth.user_id)).await?))
}

/// The moves and other actions of a game, in order, each with who acted, when, and
/// the position after it.
#[utoipa::path(
    get,
    path = "/api/v1/games/{id}/moves",
    operation_id = "list_moves",
    tag = "games",
    params(("id" = String, Path, description = "The game's id")),
    security((), ("bearer_jwt" = []), ("personal_access_token" = ["games:read"])),
    responses(
        (status = 200, description = "The actions", body = [ActionView]),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
    )
)]
pub async fn moves(
    auth: MaybeAuthenticated,
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    if let Some(a) = &auth.0 {
        a.require_scope(Scope::GamesRead)?;
    }
    let id = path.into_inner();
    let g = db::run(&state.pool, move |conn| load(conn, &id)).await?;
    Ok(HttpResponse::Ok().json(action_views(&g)))
}

/// Resign (R35): you leave the game; the others play on.
#[utoipa::path(
    post,
    path = "/api/v1/games/{id}/resign",
    operation_id = "resign_game",
    tag = "games",
    params(("id" = String, Path, description = "The game's id")),
    security(("bearer_jwt" = []), ("personal_access_token" = ["games:play"])),
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
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    auth.require_scope(Scope::GamesPlay)?;
    let (id, uid, settings) = (path.into_inner(), auth.user_id.clone(), state.games);
    let g = db::run(&state.pool, move |conn| {
        service::resign(conn, &settings, &uid, &id, now())
    })
    .await?;
    let id = g.row.id.clone();
    Ok(HttpResponse::Ok().json(view_of(&state, id, Some(auth.user_id)).await?))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"to": "middle"}))]
pub struct ProposalRequest {
    /// The seat you propose to ally with.
    #[schema(example = "middle")]
    pub to: String,
}

/// Propose an alliance (R29) to another player; it forms when they accept.
#[utoipa::path(
    post,
    path = "/api/v1/games/{id}/alliance/proposals",
    operation_id = "propose_alliance",
    tag = "games",
    params(("id" = String, Path, description = "The game's id")),
    request_body = ProposalRequest,
    security(("bearer_jwt" = []), ("personal_access_token" = ["games:play"])),
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
    path: web::Path<String>,
    body: ApiJson<ProposalRequest>,
) -> Result<HttpResponse, ApiError> {
    auth.require_scope(Scope::GamesPlay)?;
    let to = parse_seat(&body.0.to)
        .filter(|_| body.0.to.len() > 1)
        .ok_or_else(|| {
            ApiError::Validation(vec![FieldError::new(
                "to",
                "invalid",
                "must be first, middle or last",
            )])
        })?;
    let (id, uid) = (path.into_inner(), auth.user_id.clone());
    let p = db::run(&state.pool, move |conn| {
        service::propose(conn, &uid, &id, to, now())
    })
    .await?;
    Ok(HttpResponse::Created().json(ProposalView::from(p)))
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
    path: web::Path<(String, String)>,
    what: Answer,
) -> Result<HttpResponse, ApiError> {
    auth.require_scope(Scope::GamesPlay)?;
    let ((id, pid), uid, settings) = (path.into_inner(), auth.user_id.clone(), state.games);
    let (p, g) = db::run(&state.pool, move |conn| {
        service::answer(conn, &settings, &uid, &id, &pid, what, now())
    })
    .await?;
    let id = g.row.id.clone();
    Ok(HttpResponse::Ok().json(ProposalAnswer {
        proposal: ProposalView::from(p),
        game: view_of(&state, id, Some(auth.user_id)).await?,
    }))
}

/// Accept a proposal addressed to you: the alliance forms at once (R29, R20).
#[utoipa::path(
    post,
    path = "/api/v1/games/{id}/alliance/proposals/{pid}/accept",
    operation_id = "accept_alliance",
    tag = "games",
    params(("id" = String, Path, description = "The game's id"), ("pid" = String, Path, description = "The proposal's id")),
    security(("bearer_jwt" = []), ("personal_access_token" = ["games:play"])),
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
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    answer(auth, state, path, Answer::Accept).await
}

/// Decline a proposal addressed to you.
#[utoipa::path(
    post,
    path = "/api/v1/games/{id}/alliance/proposals/{pid}/decline",
    operation_id = "decline_alliance",
    tag = "games",
    params(("id" = String, Path, description = "The game's id"), ("pid" = String, Path, description = "The proposal's id")),
    security(("bearer_jwt" = []), ("personal_access_token" = ["games:play"])),
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
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    answer(auth, state, path, Answer::Decline).await
}

/// Withdraw your own proposal.
#[utoipa::path(
    post,
    path = "/api/v1/games/{id}/alliance/proposals/{pid}/withdraw",
    operation_id = "withdraw_alliance",
    tag = "games",
    params(("id" = String, Path, description = "The game's id"), ("pid" = String, Path, description = "The proposal's id")),
    security(("bearer_jwt" = []), ("personal_access_token" = ["games:play"])),
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
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    answer(auth, state, path, Answer::Withdraw).await
}

/// The game record: tags (players, dates, time control, options, result) and the
/// numbered moves, alliances, resignations and time-outs. Import it with
/// `POST /api/v1/games/import`.
#[utoipa::path(
    get,
    path = "/api/v1/games/{id}/record",
    operation_id = "game_record",
    tag = "games",
    params(("id" = String, Path, description = "The game's id")),
    security((), ("bearer_jwt" = []), ("personal_access_token" = ["games:read"])),
    responses(
        (status = 200, description = "The record", body = String, content_type = "text/plain"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn record(
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = path.into_inner();
    let g = db::run(&state.pool, move |conn| load(conn, &id)).await?;
    let text = service::record_of(&g).to_text();
    Ok(HttpResponse::Ok()
        .content_type("text/plain; charset=utf-8")
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("inline; filename=\"sannin-{}.txt\"", g.row.id),
        ))
        .body(text))
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
    security(("bearer_jwt" = []), ("personal_access_token" = ["games:play"])),
    responses(
        (status = 201, description = "Imported", body = GameView),
        (status = 422, description = "The record does not read or replay; the field error names the line, column and reason", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
        JsonBodyProblems,
    )
)]
pub async fn import(
    auth: Authenticated,
    state: web::Data<AppState>,
    body: ApiJson<ImportRequest>,
) -> Result<HttpResponse, ApiError> {
    auth.require_scope(Scope::GamesPlay)?;
    let record = Record::parse(&body.0.record).map_err(|e| {
        ApiError::Validation(vec![FieldError::new("record", e.code(), e.to_string())])
    })?;
    let uid = auth.user_id.clone();
    let g = db::run(&state.pool, move |conn| {
        service::import(conn, &uid, &record, now())
    })
    .await?;
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, format!("/api/v1/games/{}", g.row.id)))
        .json(game_view(&g, Vec::new(), Some(&auth.user_id))))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct BoardQuery {
    /// Show the position at this ply (the position string's ply); default: now.
    pub ply: Option<u32>,
    /// The seat at the bottom: `first`, `middle` (default) or `last`.
    pub view: Option<String>,
}

/// The position as an SVG picture: board, territories, Garden, pieces facing away
/// from their owners, hands, last move. Public, so it can be linked from mail.
#[utoipa::path(
    get,
    path = "/api/v1/games/{id}/board.svg",
    operation_id = "game_board_svg",
    tag = "games",
    params(("id" = String, Path, description = "The game's id"), BoardQuery),
    responses(
        (status = 200, description = "The picture", body = String, content_type = "image/svg+xml"),
        (status = 404, description = "No such game, or no position at that ply", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid query", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn board(
    state: web::Data<AppState>,
    path: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let q = query::<BoardQuery>(&req)?;
    let view = match q.view.as_deref() {
        None => Player::Middle,
        Some(v) => parse_seat(v).filter(|_| v.len() > 1).ok_or_else(|| {
            ApiError::Validation(vec![FieldError::new(
                "view",
                "invalid",
                "must be first, middle or last",
            )])
        })?,
    };
    let id = path.into_inner();
    let g = db::run(&state.pool, move |conn| load(conn, &id)).await?;
    // Positions in order, each with the move that led to it.
    let mut positions = vec![(*g.game.start(), None)];
    for e in g.game.entries() {
        let mv = match e.action {
            crate::rules::Action::Move(m) => Some(m),
            _ => positions.last().and_then(|(_, m)| *m),
        };
        positions.push((e.position, mv));
    }
    let (pos, last_move) = match q.ply {
        None => *positions.last().expect("the start at least"),
        Some(n) => *positions
            .iter()
            .rev()
            .find(|(p, _)| p.ply() == n)
            .ok_or_else(|| ApiError::NotFound(format!("This game has no position at ply {n}.")))?,
    };
    let names = [0, 1, 2].map(|i| g.seats[i].name().map(str::to_owned));
    let svg = board_svg(
        &pos,
        &SvgOptions {
            last_move,
            view,
            title: Some(format!("Sannin shogi — ply {}", pos.ply())),
            names,
        },
    );
    Ok(HttpResponse::Ok()
        .content_type("image/svg+xml")
        .insert_header((header::CACHE_CONTROL, "public, max-age=30"))
        .body(svg))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct EventsQuery {
    /// Only events after this event id (exclusive).
    pub after: Option<String>,
    /// Only events of this game.
    pub game_id: Option<String>,
    /// At most this many, 1–500 (default 100).
    pub limit: Option<i64>,
}

/// An event of one of your games, as written to the outbox.
#[derive(Serialize, ToSchema)]
pub struct EventView {
    /// Time-ordered id: use it as `after` to read on.
    pub id: String,
    /// `game.invited`, `game.started`, `game.your_turn`, `game.move`,
    /// `game.alliance_proposed`, `game.alliance_formed`, `game.player_eliminated`,
    /// `game.finished`, `game.deadline_approaching`, `game.cancelled`, `game.expired`,
    /// `game.declined`.
    #[schema(example = "game.your_turn")]
    pub r#type: String,
    pub game_id: String,
    #[schema(value_type = Object)]
    pub data: serde_json::Value,
    pub created_at: DateTime<Utc>,
}

/// Your game events, oldest first: the same notices mail and webhooks carry.
#[utoipa::path(
    get,
    path = "/api/v1/me/events",
    operation_id = "my_events",
    tag = "games",
    params(EventsQuery),
    security(("bearer_jwt" = []), ("personal_access_token" = ["games:read"])),
    responses(
        (status = 200, description = "Events", body = [EventView]),
        (status = 403, description = "The token lacks `games:read`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid query", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
    )
)]
pub async fn events(
    auth: Authenticated,
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    auth.require_scope(Scope::GamesRead)?;
    let q = query::<EventsQuery>(&req)?;
    let limit = q.limit.unwrap_or(100);
    if !(1..=500).contains(&limit) {
        return Err(ApiError::Validation(vec![FieldError::new(
            "limit",
            "range",
            "must be from 1 to 500",
        )]));
    }
    let uid = auth.user_id.clone();
    let rows = db::run(&state.pool, move |conn| {
        db::games::events_of_user(conn, &uid, q.after.as_deref(), q.game_id.as_deref(), limit)
            .map_err(GameError::from)
    })
    .await?;
    Ok(HttpResponse::Ok().json(
        rows.into_iter()
            .map(|e| EventView {
                id: e.id,
                r#type: e.event_type,
                game_id: e.game_id,
                data: serde_json::from_str(&e.payload).unwrap_or(serde_json::Value::Null),
                created_at: utc(e.created_at),
            })
            .collect::<Vec<_>>(),
    ))
}

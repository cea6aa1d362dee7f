//! Reading games: the list, one game, its picture, and the caller's events.

use crate::domain::GameId;
use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use base64::Engine as _;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::view::{game_view, GameSummary, GameView};
use super::{game_etag, none_match_names, not_modified, query, seat_param};
use crate::auth::{Authenticated, MaybeAuthenticated};
use crate::db::games::ListKey;
use crate::domain::FieldError;
use crate::error::{ApiError, Problem};
use crate::games::listing::{self, EventEntry, ListFilter};
use crate::games::model::Status;
use crate::render::{board_svg, SvgOptions};
use crate::routes::{utc, AuthProblems};
use crate::rules::Player;
use crate::state::AppState;

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// Only games you sit in (default true). With false, lists games by `status`
    /// (default `open`: games with seats to take).
    pub mine: Option<bool>,
    #[param(value_type = Option<crate::routes::schemas::GameStatus>)]
    pub status: Option<String>,
    /// Only games where it is your move.
    pub my_turn: Option<bool>,
    /// Only games with this player seated.
    pub player: Option<String>,
    /// Page size, 1–100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<usize>,
    #[param(value_type = Option<crate::routes::schemas::Cursor>)]
    pub cursor: Option<String>,
}
impl ListQuery {
    /// The filter, the key the cursor stands for, and the page size.
    fn parse(&self) -> Result<(ListFilter, Option<ListKey>, usize), ApiError> {
        let status = match self.status.as_deref() {
            None => None,
            Some(s) => Some(Status::parse(s).ok_or_else(|| {
                ApiError::Validation(vec![FieldError::new(
                    "status",
                    "invalid",
                    "must be open, active, finished, cancelled, expired or analysis",
                )])
            })?),
        };
        let limit = self.limit.unwrap_or(20);
        if !(1..=100).contains(&limit) {
            return Err(ApiError::Validation(vec![FieldError::new(
                "limit",
                "range",
                "must be from 1 to 100",
            )]));
        }
        let after = match &self.cursor {
            None => None,
            Some(c) => Some(decode_cursor(c).ok_or_else(|| {
                ApiError::Validation(vec![FieldError::new(
                    "cursor",
                    "invalid",
                    "is not a cursor this server gave out",
                )])
            })?),
        };
        let filter = ListFilter {
            mine: self.mine.unwrap_or(true),
            status,
            my_turn: self.my_turn.unwrap_or(false),
            player: self.player.as_deref().map(|p| p.trim().to_lowercase()),
        };
        Ok((filter, after, limit))
    }
}

#[derive(Serialize, ToSchema)]
pub struct GameList {
    pub games: Vec<GameSummary>,
    /// Pass as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
}
/// List games, most urgent first: your moves with the least time left, then the rest
/// by deadline, then by last change. Pages follow `next_cursor` (also in `Link`).
#[utoipa::path(
    get,
    path = "/api/v1/games",
    operation_id = "list_games",
    tag = "games",
    params(ListQuery),
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
    let (filter, after, limit) = query::<ListQuery>(&req)?.parse()?;
    let (page, next) =
        listing::list_games(&state.games, &auth.user_id, filter, after, limit).await?;
    let games = page.into_iter().map(GameSummary::from).collect();
    let next_cursor = next.as_ref().map(encode_cursor);
    let mut resp = HttpResponse::Ok();
    if let Some(c) = &next_cursor {
        resp.insert_header((header::LINK, next_link(req.query_string(), c)));
    }
    Ok(resp.json(GameList { games, next_cursor }))
}

/// The `Link` to the next page: this request's query with the next cursor.
fn next_link(query: &str, cursor: &str) -> String {
    let mut pairs: Vec<(String, String)> = url_pairs(query)
        .into_iter()
        .filter(|(k, _)| k != "cursor")
        .collect();
    pairs.push(("cursor".into(), cursor.to_owned()));
    let query: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("</api/v1/games?{}>; rel=\"next\"", query.join("&"))
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
/// A stored time exactly, in nanoseconds since the epoch (what SQLite keeps;
/// PostgreSQL keeps microseconds, which this writes exactly too).
fn nanos(t: chrono::NaiveDateTime) -> i64 {
    t.and_utc().timestamp_nanos_opt().unwrap_or(i64::MAX)
}

/// A cursor: the key of the last game of a page, as opaque text.
fn encode_cursor(k: &ListKey) -> String {
    let deadline = k.deadline.map_or("-".to_owned(), |d| nanos(d).to_string());
    let raw = format!(
        "k1:{}:{deadline}:{}:{}",
        u8::from(k.your_turn),
        nanos(k.updated_at),
        k.id
    );
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(raw)
}

/// The key a cursor stands for; `None` for anything this server would not
/// have given out.
fn decode_cursor(c: &str) -> Option<ListKey> {
    let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(c)
        .ok()?;
    let raw = String::from_utf8(raw).ok()?;
    let mut parts = raw.strip_prefix("k1:")?.splitn(4, ':');
    let your_turn = match parts.next()? {
        "0" => false,
        "1" => true,
        _ => return None,
    };
    let time = |s: &str| {
        s.parse::<i64>()
            .ok()
            .map(|n| chrono::DateTime::from_timestamp_nanos(n).naive_utc())
    };
    let deadline = match parts.next()? {
        "-" => None,
        d => Some(time(d)?),
    };
    let updated_at = time(parts.next()?)?;
    let id = parts.next().filter(|id| !id.is_empty() && id.len() <= 64)?;
    Some(ListKey {
        your_turn,
        deadline,
        updated_at,
        id: id.to_owned(),
    })
}

/// The whole state of a game. Anyone may read a game; with your token, it also shows
/// your seat and, on your turn, your legal moves. Answers 304 to `If-None-Match` with
/// the current `ETag`.
#[utoipa::path(
    get,
    path = "/api/v1/games/{id}",
    operation_id = "get_game",
    tag = "games",
    params(("id" = crate::domain::GameId, Path, description = "The game's id")),
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
    path: web::Path<GameId>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let viewer = auth.0.as_ref().map(|a| a.user_id.as_str());
    if req.headers().contains_key(header::IF_NONE_MATCH) {
        let version = listing::version_of(&state.games, &path).await?;
        let etag = game_etag(&path, version, viewer);
        if none_match_names(&req, &etag) {
            return Ok(not_modified(etag));
        }
    }
    let g = listing::game(&state.games, &path).await?;
    let etag = game_etag(&path, g.game.row.version, viewer);
    Ok(HttpResponse::Ok()
        .insert_header((header::ETAG, etag))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .json(game_view(&g, viewer)))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct BoardQuery {
    /// Show the position at this ply (the position string's ply); default: now.
    pub ply: Option<u32>,
    /// The seat at the bottom (default `middle`).
    #[param(value_type = Option<crate::routes::schemas::Seat>)]
    pub view: Option<String>,
}
/// The position as an SVG picture: board, territories, Garden, pieces facing away
/// from their owners, hands, last move. Public, so it can be linked from mail.
#[utoipa::path(
    get,
    path = "/api/v1/games/{id}/board.svg",
    operation_id = "game_board_svg",
    tag = "games",
    params(("id" = crate::domain::GameId, Path, description = "The game's id"), BoardQuery),
    responses(
        (status = 200, description = "The picture", body = String, content_type = "image/svg+xml"),
        (status = 404, description = "No such game, or no position at that ply", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid query", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn board(
    state: web::Data<AppState>,
    path: web::Path<GameId>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let q = query::<BoardQuery>(&req)?;
    let view = match q.view.as_deref() {
        None => Player::Middle,
        Some(v) => seat_param("view", v)?,
    };
    let at = listing::board_at(&state.games, &path, q.ply).await?;
    let svg = board_svg(
        &at.position,
        &SvgOptions {
            last_move: at.last_move,
            view,
            title: Some(format!("Sannin shogi — ply {}", at.position.ply())),
            names: at.names,
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
    /// Only events after this one of your events (exclusive).
    #[param(value_type = Option<crate::domain::EventId>)]
    pub after: Option<String>,
    /// Only events of this game.
    #[param(value_type = Option<crate::domain::GameId>)]
    pub game_id: Option<String>,
    /// At most this many, 1–500 (default 100).
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
}
/// An event of one of your games, as written to the outbox.
#[derive(Serialize, ToSchema)]
pub struct EventView {
    /// Time-ordered id: use it as `after` to read on.
    pub id: String,
    /// The event's type; `data` holds its fields.
    #[schema(value_type = crate::routes::schemas::EventType, example = "game.your_turn")]
    pub r#type: String,
    pub game_id: String,
    #[schema(value_type = Object)]
    pub data: serde_json::Value,
    pub created_at: DateTime<Utc>,
}
impl From<EventEntry> for EventView {
    fn from(e: EventEntry) -> Self {
        Self {
            id: e.id,
            r#type: e.event.event.event_type().to_owned(),
            data: e.event.event.payload(&e.event.game_id),
            game_id: e.event.game_id,
            created_at: utc(e.created_at),
        }
    }
}

/// Your game events, oldest first: the same notices mail and webhooks carry.
#[utoipa::path(
    get,
    path = "/api/v1/me/events",
    operation_id = "my_events",
    tag = "games",
    params(EventsQuery),
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
    let q = query::<EventsQuery>(&req)?;
    for (field, id) in [("after", &q.after), ("game_id", &q.game_id)] {
        if id.as_deref().is_some_and(|id| !crate::domain::is_uuid(id)) {
            return Err(ApiError::Validation(vec![FieldError::new(
                field,
                "invalid",
                "is not an id (a UUID)",
            )]));
        }
    }
    let limit = q.limit.unwrap_or(100);
    if !(1..=500).contains(&limit) {
        return Err(ApiError::Validation(vec![FieldError::new(
            "limit",
            "range",
            "must be from 1 to 500",
        )]));
    }
    let events = listing::events_of(&state.games, &auth.user_id, q.after, q.game_id, limit).await?;
    Ok(HttpResponse::Ok().json(events.into_iter().map(EventView::from).collect::<Vec<_>>()))
}

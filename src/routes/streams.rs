//! Live streams: the caller's events, and one game's changes, as they happen,
//! in Server-Sent Events (`text/event-stream`) or newline-delimited JSON
//! (`Accept: application/x-ndjson`).
//!
//! Each stream is a task that reads the rows after its cursor whenever it is
//! woken (`db::live`: at once for changes made by this process, by
//! PostgreSQL's `NOTIFY` for other processes', on a timer for SQLite's other
//! processes) and queues what it read for the client, in a buffer of
//! `SANNIN_STREAM_BUFFER` messages. A client that leaves the buffer full for
//! `SANNIN_STREAM_LAG_SECONDS` gets a last message saying so, and the stream
//! ends; so does every stream when the server stops. Either way the client
//! resumes with `Last-Event-ID` and loses nothing.

use std::sync::{Arc, Mutex};

use actix_web::http::header;
use actix_web::web::Bytes;
use actix_web::{web, HttpRequest, HttpResponse};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use tokio::sync::{broadcast, mpsc};
use utoipa::{IntoParams, ToSchema};

use super::games::query;
use super::games::reading::EventView;
use super::games::view::{MoveRef, ResultView};
use super::{utc, AuthProblems};
use crate::auth::{Authenticated, MaybeAuthenticated};
use crate::db::live::{self, Cursor, Topic};
use crate::domain::{FieldError, GameId, UserId};
use crate::error::{ApiError, Problem};
use crate::games::streams::{self, GameChange};
use crate::games::{GameError, Games};
use crate::state::{AppState, StreamSlot};

/// A stream's places: its client address's (held by the response) and its
/// account's (held by the task that reads for it).
type Slots = (StreamSlot, Option<StreamSlot>);

/// Events read per query.
const BATCH: i64 = 100;

const SHUTDOWN: &str = "The server is stopping; reconnect to resume.";

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct EventStreamQuery {
    /// Resume after this one of your events (the `Last-Event-ID` header does
    /// the same, and wins). Without either, the stream starts now.
    #[param(value_type = Option<crate::domain::EventId>)]
    pub after: Option<String>,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct GameStreamQuery {
    /// Resume after this version of the game (the `Last-Event-ID` header does
    /// the same, and wins). Without either, the stream starts with the game now.
    #[param(value_type = Option<crate::routes::schemas::GameVersion>)]
    pub after: Option<String>,
}

/// A game as it stands after a change.
#[derive(Serialize, ToSchema)]
pub struct GameChangeView {
    pub game_id: String,
    /// Counts the game's changes; the message id, to resume after.
    pub version: i32,
    /// `open`, `active`, `finished`, `cancelled`, `expired` or `analysis`.
    #[schema(example = "active")]
    pub status: String,
    pub ply: i32,
    /// The seat to move while the game is active.
    #[schema(example = "middle")]
    pub to_move: Option<String>,
    pub position: String,
    pub last_move: Option<MoveRef>,
    pub result: Option<ResultView>,
    pub updated_at: DateTime<Utc>,
}

/// Why a stream ends: its last message.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum EndReason {
    /// The server is stopping: reconnect (to another process) to resume.
    Shutdown,
    /// The client left the stream's buffer full too long.
    Lagging,
    /// The stream could not read: reconnect to resume.
    Unavailable,
    /// The game no longer exists.
    Gone,
}

/// The last message of a stream.
#[derive(Serialize, ToSchema)]
pub struct StreamEnd {
    /// Always `stream.end`.
    #[schema(example = "stream.end")]
    pub r#type: &'static str,
    pub reason: EndReason,
    pub detail: String,
    /// The id of the last message this stream passed (an event id, a game
    /// version): resume after it with `Last-Event-ID`.
    pub last_event_id: Option<String>,
}

/// A line of the events stream in NDJSON: an event, or the last line.
/// Empty lines between them are keep-alives.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
pub enum EventStreamLine {
    Event(EventView),
    End(StreamEnd),
}

/// A line of a game's stream in NDJSON: a change, or the last line. Empty
/// lines between them are keep-alives.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
pub enum GameStreamLine {
    Change(GameChangeView),
    End(StreamEnd),
}

impl From<GameChange> for GameChangeView {
    fn from(c: GameChange) -> Self {
        Self {
            game_id: c.game_id,
            version: c.version,
            status: c.status.as_str().to_owned(),
            ply: c.ply,
            to_move: c.to_move,
            position: c.position,
            last_move: c.last_move.map(|m| MoveRef {
                r#move: m.notation,
                seat: m.seat,
                ply: m.ply.unwrap_or_default(),
                at: utc(c.last_move_at.unwrap_or(c.updated_at)),
            }),
            result: c.result.map(ResultView::from),
            updated_at: utc(c.updated_at),
        }
    }
}

/// Your game events as they happen: the objects of `GET /api/v1/me/events`,
/// as Server-Sent Events (`id:` the event id, `event:` its type, `data:` the
/// object) or, with `Accept: application/x-ndjson`, one object per line. A
/// keep-alive (an SSE comment, an empty NDJSON line) comes every 20 s. Resume
/// with `Last-Event-ID` (or `after`): nothing is lost or repeated. A stream
/// whose client falls behind, or whose server stops, ends with a last message
/// of type `stream.end` naming why and the id to resume after.
#[utoipa::path(
    get,
    path = "/api/v1/me/events/stream",
    operation_id = "stream_my_events",
    tag = "games",
    params(
        EventStreamQuery,
        ("Last-Event-ID" = Option<crate::domain::EventId>, Header, description = "The id of the last event received: resume after it."),
    ),
    responses(
        (status = 200, description = "The stream", content(
            (crate::routes::schemas::EventStreamMessage = "text/event-stream", example = json!("id: 0192f0c2-7d1e-7c41-9a55-3a7f0e8c9b21\nevent: game.your_turn\ndata: {\"id\":\"0192f0c2-7d1e-7c41-9a55-3a7f0e8c9b21\",\"type\":\"game.your_turn\",\"game_id\":\"…\",\"data\":{…},\"created_at\":\"2026-12-01T12:00:00Z\"}\n\n")),
            (EventStreamLine = "application/x-ndjson"),
        )),
        (status = 403, description = "The token lacks `games:read`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`after` is not one of your events", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "As many streams are open for this account or client address as may be", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
        AuthProblems,
    )
)]
pub async fn my_events(
    auth: Authenticated,
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let after = query::<EventStreamQuery>(&req)?.after;
    let after = resume_point(&req, after, "must be one of your events' ids", |v| {
        crate::domain::is_uuid(v).then(|| v.to_owned())
    })?;
    let slot = admit(&state, Some(&auth.user_id), &req)?;
    let (cursor, last) = streams::events_start(&state.games, &auth.user_id, after).await?;
    let source = Source::Events {
        user: auth.user_id.clone(),
        cursor,
        last,
    };
    Ok(respond(&state, &req, source, slot))
}

/// One game's changes as they happen, for anyone who may read the game:
/// first its state now (unless `Last-Event-ID` is its current version), then
/// one message per change (`event: game.changed`, `id:` the game's version).
/// Changes that follow each other faster than the stream reads arrive as one
/// message with the newest state. Formats, keep-alives and the last message
/// are as for `stream_my_events`.
#[utoipa::path(
    get,
    path = "/api/v1/games/{id}/stream",
    operation_id = "stream_game",
    tag = "games",
    params(
        ("id" = crate::domain::GameId, Path, description = "Game id"),
        GameStreamQuery,
        ("Last-Event-ID" = Option<crate::routes::schemas::GameVersion>, Header, description = "The version of the last message received: resume after it."),
    ),
    responses(
        (status = 200, description = "The stream", content(
            (crate::routes::schemas::GameStreamMessage = "text/event-stream"),
            (GameStreamLine = "application/x-ndjson"),
        )),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`after` is not a version", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "As many streams are open for this account or client address as may be", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
        AuthProblems,
    )
)]
pub async fn game(
    auth: MaybeAuthenticated,
    id: web::Path<GameId>,
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let after = query::<GameStreamQuery>(&req)?.after;
    let version = resume_point(
        &req,
        after,
        "must be a version of the game (a whole number)",
        crate::routes::schemas::GameVersion::parse,
    )?;
    let account = auth.0.as_ref().map(|a| a.user_id.as_str());
    let slot = admit(&state, account, &req)?;
    // A game that does not exist is refused now, before the stream starts.
    streams::game_change(&state.games, &id, Some(i32::MAX)).await?;
    let source = Source::Game {
        game_id: id.into_inner(),
        version,
    };
    Ok(respond(&state, &req, source, slot))
}

/// `Last-Event-ID`, else `?after=`, read by `parse`. Both are checked when
/// given (an empty header is not an id), though the header wins.
fn resume_point<T>(
    req: &HttpRequest,
    after: Option<String>,
    message: &str,
    parse: impl Fn(&str) -> Option<T>,
) -> Result<Option<T>, ApiError> {
    let invalid =
        |field: &str| ApiError::Validation(vec![FieldError::new(field, "invalid", message)]);
    let after = match after {
        None => None,
        Some(a) => Some(parse(&a).ok_or_else(|| invalid("after"))?),
    };
    let Some(header) = req.headers().get("last-event-id") else {
        return Ok(after);
    };
    let header = header
        .to_str()
        .ok()
        .map(str::trim)
        .and_then(&parse)
        .ok_or_else(|| invalid("Last-Event-ID"))?;
    Ok(Some(header))
}

fn admit(state: &AppState, account: Option<&str>, req: &HttpRequest) -> Result<Slots, ApiError> {
    state
        .streams
        .admit(account, super::client_ip(req, state))
        .map_err(ApiError::TooManyStreams)
}

/// What a stream reads.
enum Source {
    Events {
        user: UserId,
        cursor: Cursor,
        /// The id of the last event passed: where a client resumes.
        last: Option<String>,
    },
    Game {
        game_id: GameId,
        version: Option<i32>,
    },
}

/// One message, in either framing.
struct Message {
    id: String,
    /// The game's version, for a game's change.
    version: Option<i32>,
    event: String,
    data: serde_json::Value,
}

impl Source {
    fn topic(&self) -> Topic {
        match self {
            Source::Events { user, .. } => Topic::User(user.to_string()),
            Source::Game { game_id, .. } => Topic::Game(game_id.to_string()),
        }
    }

    /// The last message id passed, to resume after.
    fn last_id(&self) -> Option<String> {
        match self {
            Source::Events { last, .. } => last.clone(),
            Source::Game { version, .. } => version.map(|v| v.to_string()),
        }
    }

    /// `m` has been queued for the client: it is where the client resumes.
    fn passed(&mut self, m: &Message) {
        match self {
            Source::Events { last, .. } => *last = Some(m.id.clone()),
            Source::Game { version, .. } => *version = m.version,
        }
    }

    /// What is new since the last read; `more` when a full batch was read.
    async fn read(&mut self, games: &Games) -> Result<(Vec<Message>, bool), GameError> {
        match self {
            Source::Events { user, cursor, .. } => {
                let entries = streams::events_since(games, user, *cursor, BATCH).await?;
                let more = entries.len() as i64 == BATCH;
                if let Some(last) = entries.last() {
                    *cursor = last.cursor;
                }
                let messages = entries
                    .into_iter()
                    .map(|e| {
                        let view = EventView::from(e);
                        Message {
                            id: view.id.clone(),
                            version: None,
                            event: view.r#type.clone(),
                            data: serde_json::to_value(view).expect("events serialize"),
                        }
                    })
                    .collect();
                Ok((messages, more))
            }
            Source::Game { game_id, version } => {
                let Some(change) = streams::game_change(games, game_id, *version).await? else {
                    return Ok((Vec::new(), false));
                };
                let view = GameChangeView::from(change);
                Ok((
                    vec![Message {
                        id: view.version.to_string(),
                        version: Some(view.version),
                        event: "game.changed".into(),
                        data: serde_json::to_value(view).expect("changes serialize"),
                    }],
                    false,
                ))
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Sse,
    Ndjson,
}

impl Format {
    fn of(req: &HttpRequest) -> Self {
        let accept = req
            .headers()
            .get(header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        if accept.contains("application/x-ndjson") && !accept.contains("text/event-stream") {
            Format::Ndjson
        } else {
            Format::Sse
        }
    }

    fn content_type(self) -> &'static str {
        match self {
            Format::Sse => "text/event-stream",
            Format::Ndjson => "application/x-ndjson",
        }
    }

    fn message(self, m: &Message) -> Bytes {
        match self {
            Format::Sse => Bytes::from(format!(
                "id: {}\nevent: {}\ndata: {}\n\n",
                m.id, m.event, m.data
            )),
            Format::Ndjson => Bytes::from(format!("{}\n", m.data)),
        }
    }

    fn keepalive(self) -> Bytes {
        match self {
            Format::Sse => Bytes::from_static(b": keep-alive\n\n"),
            Format::Ndjson => Bytes::from_static(b"\n"),
        }
    }

    /// The first bytes: how long an `EventSource` waits before it reconnects.
    fn opening(self) -> Option<Bytes> {
        match self {
            Format::Sse => Some(Bytes::from_static(b"retry: 3000\n\n")),
            Format::Ndjson => None,
        }
    }

    /// The last message: why the stream ends, and where to resume.
    fn end(self, end: &StreamEnd) -> Bytes {
        let data = serde_json::to_string(end).expect("ends serialize");
        match self {
            Format::Sse => Bytes::from(format!("event: stream.end\ndata: {data}\n\n")),
            Format::Ndjson => Bytes::from(format!("{data}\n")),
        }
    }
}

/// Starts the stream's task and answers with its output.
fn respond(state: &AppState, req: &HttpRequest, source: Source, slots: Slots) -> HttpResponse {
    let (client_slot, account_slot) = slots;
    let format = Format::of(req);
    let settings = state.streams.settings;
    let (tx, rx) = mpsc::channel::<Bytes>(settings.buffer);
    let last_words: Arc<Mutex<Option<Bytes>>> = Arc::default();
    let task = Task {
        format,
        source,
        games: state.games.clone(),
        tx,
        last_words: last_words.clone(),
        wakes: live::subscribe(),
        closing: state.streams.closing(),
        settings,
        _slot: account_slot,
    };
    actix_web::rt::spawn(task.run());
    let opening = format.opening();
    // What the task queued, then its last words, then the end.
    // The client's slot lives as long as the response does.
    let body = futures_util::stream::unfold(
        (rx, last_words, opening, client_slot),
        |(mut rx, last_words, mut opening, slot)| async move {
            if let Some(first) = opening.take() {
                return Some((
                    Ok::<_, actix_web::Error>(first),
                    (rx, last_words, None, slot),
                ));
            }
            let bytes = match rx.recv().await {
                Some(bytes) => bytes,
                None => last_words.lock().ok().and_then(|mut w| w.take())?,
            };
            Some((Ok(bytes), (rx, last_words, None, slot)))
        },
    );
    HttpResponse::Ok()
        .content_type(format.content_type())
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header(("x-accel-buffering", "no"))
        .streaming(body)
}

struct Task {
    format: Format,
    source: Source,
    games: Games,
    tx: mpsc::Sender<Bytes>,
    last_words: Arc<Mutex<Option<Bytes>>>,
    wakes: broadcast::Receiver<Topic>,
    closing: tokio::sync::watch::Receiver<bool>,
    settings: crate::config::StreamSettings,
    /// Counts the stream against its account while the task reads for it.
    _slot: Option<StreamSlot>,
}

/// Why a stream's task stops.
enum Stop {
    /// The client went away: nothing more to say.
    Gone,
    /// The stream ends with a last message.
    End(EndReason, String),
}

impl Task {
    async fn run(mut self) {
        let stop = self.serve().await;
        if let Stop::End(reason, detail) = stop {
            let last = self.format.end(&StreamEnd {
                r#type: "stream.end",
                reason,
                detail,
                last_event_id: self.source.last_id(),
            });
            if let Ok(mut words) = self.last_words.lock() {
                *words = Some(last);
            }
        }
        // Dropping `tx` lets the body drain what is queued, then the last words.
    }

    async fn serve(&mut self) -> Stop {
        let topic = self.source.topic();
        let start = tokio::time::Instant::now();
        let mut keepalive =
            tokio::time::interval_at(start + self.settings.keepalive, self.settings.keepalive);
        let mut poll = tokio::time::interval_at(start + self.settings.poll, self.settings.poll);
        poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            if *self.closing.borrow() {
                return Stop::End(EndReason::Shutdown, SHUTDOWN.into());
            }
            match self.source.read(&self.games).await {
                Ok((messages, more)) => {
                    for m in &messages {
                        if let Some(stop) = self.send(self.format.message(m)).await {
                            return stop;
                        }
                        self.source.passed(m);
                    }
                    if more {
                        continue;
                    }
                }
                Err(GameError::GameNotFound) => {
                    return Stop::End(EndReason::Gone, "The game no longer exists.".into());
                }
                Err(e) => {
                    tracing::warn!(error = %e, "stream read failed");
                    return Stop::End(
                        EndReason::Unavailable,
                        "The stream could not read; reconnect to resume.".into(),
                    );
                }
            }
            // Wait for a reason to read again.
            loop {
                tokio::select! {
                    _ = self.tx.closed() => return Stop::Gone,
                    // An error means the server is gone: as good as stopping.
                    _ = self.closing.changed() => {
                        return Stop::End(EndReason::Shutdown, SHUTDOWN.into());
                    }
                    wake = self.wakes.recv() => match wake {
                        Ok(t) if t.wakes(&topic) => break,
                        Ok(_) => {}
                        Err(broadcast::error::RecvError::Lagged(_)) => break,
                        Err(broadcast::error::RecvError::Closed) => return Stop::Gone,
                    },
                    _ = poll.tick() => break,
                    _ = keepalive.tick() => {
                        // A full buffer already shows the connection is alive.
                        let _ = self.tx.try_send(self.format.keepalive());
                    }
                }
            }
        }
    }

    /// Queues `bytes`, waiting at most the lag allowance for room.
    async fn send(&self, bytes: Bytes) -> Option<Stop> {
        match tokio::time::timeout(self.settings.lag, self.tx.send(bytes)).await {
            Ok(Ok(())) => None,
            Ok(Err(_)) => Some(Stop::Gone),
            Err(_) => Some(Stop::End(
                EndReason::Lagging,
                format!(
                    "The client read too slowly (its {} buffered messages waited {} s); \
                     reconnect to resume.",
                    self.settings.buffer,
                    self.settings.lag.as_secs()
                ),
            )),
        }
    }
}

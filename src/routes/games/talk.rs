//! Table talk: chat (to the table or private between two players) and each
//! player's private notes.

use crate::domain::GameId;
use actix_web::{web, HttpRequest, HttpResponse};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::{query, seat_param};
use crate::auth::Authenticated;
use crate::error::{ApiError, Problem};
use crate::games::chat::{self, Message, NewMessage, Recipient};
use crate::games::notes;
use crate::routes::json::ApiJson;
use crate::routes::{utc, AuthProblems, JsonBodyProblems};
use crate::state::AppState;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"text": "Shall we two stop Alice's king?", "to": "last"}))]
pub struct ChatRequest {
    /// Up to 500 characters, stored as written (line breaks and tabs allowed,
    /// other control characters not).
    #[schema(min_length = 1, max_length = 500)]
    pub text: String,
    /// `all` (the default) for the whole table, or the one seat the message is
    /// for: the third player never sees a private message.
    #[serde(default = "all")]
    #[schema(value_type = crate::routes::schemas::ChatTo)]
    pub to: String,
}

fn all() -> String {
    "all".into()
}

/// One chat message.
#[derive(Serialize, ToSchema)]
pub struct ChatMessageView {
    /// Its number among the messages you may read: 1, 2, 3… (pass the last one
    /// read as `after`). Each reader has their own numbering, so it says nothing
    /// of private messages between the other two players.
    #[schema(example = 7)]
    pub n: i32,
    /// The writer's seat.
    #[schema(example = "middle")]
    pub from: String,
    pub username: Option<String>,
    /// `all`, or the seat of the one player it is for.
    #[schema(example = "last")]
    pub to: String,
    /// The text as written: escape it wherever you render it.
    pub text: String,
    pub created_at: DateTime<Utc>,
}

impl ChatMessageView {
    fn of(Message { n, row, username }: Message) -> Self {
        Self {
            n,
            from: row.from_seat,
            username,
            to: row.to_seat.unwrap_or_else(all),
            text: row.body,
            created_at: utc(row.created_at),
        }
    }
}

/// The messages you may read.
#[derive(Serialize, ToSchema)]
pub struct ChatPageView {
    /// Oldest first.
    pub messages: Vec<ChatMessageView>,
    /// Whether you muted the table chat of this game (you still read it here).
    pub table_muted: bool,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ChatQuery {
    /// Only messages after this number, in your numbering (default 0: from the
    /// first).
    #[param(minimum = 0)]
    pub after: Option<i32>,
    /// At most this many (1–200, default 100).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<i64>,
}

/// Write to the table, or privately to one other player. Players only; each may
/// write 10 messages a minute in a game (`SANNIN_LIMIT_CHAT_PER_MINUTE`).
#[utoipa::path(
    post,
    path = "/api/v1/games/{id}/chat",
    operation_id = "post_chat",
    tag = "games",
    params(("id" = crate::domain::GameId, Path, description = "The game's id")),
    request_body = ChatRequest,
    responses(
        (status = 201, description = "Written; the recipients hear of it (`game.chat`)", body = ChatMessageView),
        (status = 403, description = "Not a player (`not-a-player`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Empty or too long text, a control character, or a message to yourself or an empty seat", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many messages for now (`rate-limited`, with `Retry-After`)", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
        JsonBodyProblems,
    )
)]
pub async fn post(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<GameId>,
    body: ApiJson<ChatRequest>,
) -> Result<HttpResponse, ApiError> {
    let now = state.clock.now();
    let answer = async {
        let ChatRequest { text, to } = body.0;
        let to = match to.as_str() {
            "all" => Recipient::Table,
            seat => Recipient::Seat(seat_param("to", seat)?),
        };
        let message = NewMessage { text, to };
        let message = chat::post_message(&state.games, &auth.user_id, &path, message, now).await?;
        Ok(HttpResponse::Created().json(ChatMessageView::of(message)))
    };
    let answer = answer.await;
    let counted = crate::accounts::limits::Counted::Chat(path.into_inner());
    let standing = crate::accounts::limits::standing(&state, &auth.user_id, counted, now).await?;
    crate::routes::limited(answer, &standing)
}

/// The chat you may read: messages to the table and your private ones, oldest
/// first. Players only.
#[utoipa::path(
    get,
    path = "/api/v1/games/{id}/chat",
    operation_id = "read_chat",
    tag = "games",
    params(("id" = crate::domain::GameId, Path, description = "The game's id"), ChatQuery),
    responses(
        (status = 200, description = "The messages", body = ChatPageView),
        (status = 403, description = "Not a player (`not-a-player`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A bad `after` or `limit`", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
    )
)]
pub async fn read(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<GameId>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let q = query::<ChatQuery>(&req)?;
    let after = q.after.unwrap_or(0);
    let limit = q.limit.unwrap_or(100);
    if after < 0 || !(1..=chat::MAX_PAGE).contains(&limit) {
        return Err(ApiError::Validation(vec![crate::domain::FieldError::new(
            "query",
            "range",
            "after is 0 or more; limit is 1 to 200",
        )]));
    }
    let page = chat::read_messages(&state.games, &auth.user_id, &path, after, limit).await?;
    Ok(HttpResponse::Ok().json(ChatPageView {
        messages: page.messages.into_iter().map(ChatMessageView::of).collect(),
        table_muted: page.table_muted,
    }))
}

#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"table_muted": true}))]
pub struct MuteRequest {
    /// True to hear nothing of messages to the table (no `game.chat` events, so
    /// no mail, webhook or stream message for them); private messages still come.
    pub table_muted: bool,
}

/// Mute or unmute this game's table chat for yourself.
#[utoipa::path(
    put,
    path = "/api/v1/games/{id}/chat/mute",
    operation_id = "mute_chat",
    tag = "games",
    params(("id" = crate::domain::GameId, Path, description = "The game's id")),
    request_body = MuteRequest,
    responses(
        (status = 200, description = "The setting now", body = MuteRequest),
        (status = 403, description = "Not a player (`not-a-player`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
        JsonBodyProblems,
    )
)]
pub async fn mute(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<GameId>,
    body: ApiJson<MuteRequest>,
) -> Result<HttpResponse, ApiError> {
    let now = state.clock.now();
    let muted = body.0.table_muted;
    let table_muted = chat::mute_table(&state.games, &auth.user_id, &path, muted, now).await?;
    Ok(HttpResponse::Ok().json(MuteRequest { table_muted }))
}

#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"text": "Carol agreed to ally if Alice castles."}))]
pub struct NotesRequest {
    /// Up to 10,000 characters, without NUL (which the database cannot store);
    /// empty removes your notes.
    #[schema(max_length = 10000, pattern = "^[^\\u0000]*$")]
    pub text: String,
}

/// Your private notes on a game.
#[derive(Serialize, ToSchema)]
pub struct NotesView {
    /// Empty if you have none.
    pub text: String,
    /// When you last changed them; null if you have none.
    pub updated_at: Option<DateTime<Utc>>,
}

impl From<notes::Notes> for NotesView {
    fn from(n: notes::Notes) -> Self {
        Self {
            text: n.text,
            updated_at: n.updated_at.map(utc),
        }
    }
}

/// Your private notes on a game: shown to no one else. For its players and its
/// creator.
#[utoipa::path(
    get,
    path = "/api/v1/games/{id}/notes",
    operation_id = "read_notes",
    tag = "games",
    params(("id" = crate::domain::GameId, Path, description = "The game's id")),
    responses(
        (status = 200, description = "Your notes", body = NotesView),
        (status = 403, description = "Not a player or the creator (`not-a-player`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
    )
)]
pub async fn read_notes(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    let n = notes::read_notes(&state.games, &auth.user_id, &path).await?;
    Ok(HttpResponse::Ok().json(NotesView::from(n)))
}

/// Replace your private notes on a game.
#[utoipa::path(
    put,
    path = "/api/v1/games/{id}/notes",
    operation_id = "write_notes",
    tag = "games",
    params(("id" = crate::domain::GameId, Path, description = "The game's id")),
    request_body = NotesRequest,
    responses(
        (status = 200, description = "Your notes now", body = NotesView),
        (status = 403, description = "Not a player or the creator (`not-a-player`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "More than 10,000 characters, or a NUL character", body = Problem, content_type = "application/problem+json"),
        AuthProblems,
        JsonBodyProblems,
    )
)]
pub async fn write_notes(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<GameId>,
    body: ApiJson<NotesRequest>,
) -> Result<HttpResponse, ApiError> {
    let now = state.clock.now();
    let n = notes::write_notes(&state.games, &auth.user_id, &path, body.0.text, now).await?;
    Ok(HttpResponse::Ok().json(NotesView::from(n)))
}

//! Schemas of the words and numbers requests carry, written from the same
//! lists their parsers check (the seats, the statuses, the event types, …),
//! so that the OpenAPI document states exactly what the server accepts.
//! Fields name them with `#[schema(value_type = …)]`; a test checks samples
//! against both the schema and the parser.

use utoipa::openapi::schema::{
    AdditionalProperties, ArrayBuilder, ObjectBuilder, Schema, SchemaFormat, SchemaType, Type,
};
use utoipa::openapi::RefOr;
use utoipa::{PartialSchema, ToSchema};

use crate::domain::schema::{bounded, string, uuid, words};
use crate::games::events;
use crate::games::model::Status;
use crate::games::DAYS_PER_MOVE;
use crate::notify::mail::MAILED;
use crate::notify::targets::URL_MAX_LEN;
use crate::rules::{Illumination, Move, Player, StuckPiece};

macro_rules! schema {
    ($(#[$doc:meta])* $name:ident => $body:expr) => {
        $(#[$doc])*
        pub struct $name;

        impl PartialSchema for $name {
            fn schema() -> RefOr<Schema> {
                $body
            }
        }

        impl ToSchema for $name {}
    };
}

schema!(
    /// A seat.
    Seat => words(
        "A seat: `first`, `middle` or `last`.",
        Player::ALL.map(Player::name),
    )
);

schema!(
    /// The seat asked for at creation.
    SeatChoice => words(
        "Your seat: `first`, `middle`, `last` or `random` (default).",
        Player::ALL.map(Player::name).into_iter().chain(["random"]),
    )
);

schema!(
    /// A game's status.
    GameStatus => words(
        "Life of a game: `open` (seats to take), `active`, `finished`, `cancelled`, \
         `expired` (never filled) or `analysis` (an unfinished imported record).",
        Status::WORDS.iter().copied(),
    )
);

schema!(
    /// Option R19.
    StuckPieceOption => words(
        "R19: `promote` (default) or `stay`.",
        StuckPiece::ALL.map(StuckPiece::as_str),
    )
);

schema!(
    /// Option R24.
    IlluminationOption => words(
        "R24: `selective` (default) or `all`.",
        Illumination::ALL.map(Illumination::as_str),
    )
);

schema!(
    /// Whom a chat message is for.
    ChatTo => words(
        "`all` for the whole table, or the seat of the one player a private message is for.",
        ["all", "first", "middle", "last"],
    )
);

schema!(
    /// An event type.
    EventType => words("A type of game event.", events::ALL)
);

schema!(
    /// Days per move.
    DaysPerMove => ObjectBuilder::new()
        .schema_type(Type::Integer)
        .description(Some("Days per move: 1, 2, 3, 5, 7, 10 or 14."))
        .enum_values(Some(DAYS_PER_MOVE))
        .into()
);

schema!(
    /// A move in R33 notation.
    MoveNotation => bounded(
        "A move in R33 notation: `7k7j`, `6b6a+`, `P*7g`, `10d!7d,9e`: ASCII letters, \
         digits and `+*!,`.",
        1,
        Move::MAX_NOTATION_LEN,
        Some(format!("^[A-Za-z0-9+*!,]{{1,{}}}$", Move::MAX_NOTATION_LEN)),
        "7k7j",
    )
);

/// Versions of a game are counted in at most this many digits.
pub const VERSION_MAX_DIGITS: usize = 9;

schema!(
    /// A game's version, as a stream's message id.
    GameVersion => bounded(
        "A version of the game: a whole number.",
        1,
        VERSION_MAX_DIGITS,
        Some(format!("^[0-9]{{1,{VERSION_MAX_DIGITS}}}$")),
        "12",
    )
);

impl GameVersion {
    /// A version as the schema writes it: digits only.
    pub fn parse(v: &str) -> Option<i32> {
        let digits =
            (1..=VERSION_MAX_DIGITS).contains(&v.len()) && v.bytes().all(|b| b.is_ascii_digit());
        digits.then(|| v.parse().ok()).flatten()
    }
}

schema!(
    /// A webhook's address.
    WebhookUrl => string(
        "An http or https URL whose host resolves to public addresses only \
         (unless the server allows private ones) on an allowed port.",
    )
    .format(Some(SchemaFormat::Custom("uri".into())))
    .min_length(Some(8))
    .max_length(Some(URL_MAX_LEN))
    .pattern(Some("^[Hh][Tt][Tt][Pp][Ss]?://[^\\x00-\\x20]+$"))
    .examples([serde_json::Value::from("https://bot.example/hooks/sannin")])
    .into()
);

schema!(
    /// Mail settings to change.
    MailChanges => {
        let mut object = ObjectBuilder::new()
            .description(Some(
                "Kinds of mail to turn on (`true`) or off (`false`); others stay as they are.",
            ))
            .additional_properties(Some(AdditionalProperties::FreeForm(false)));
        for kind in MAILED {
            object = object.property(kind, ObjectBuilder::new().schema_type(Type::Boolean));
        }
        object.into()
    }
);

/// A page cursor's alphabet (URL-safe base64 without padding).
pub const CURSOR_PATTERN: &str = "^[A-Za-z0-9_-]+$";

schema!(
    /// A page cursor.
    Cursor => string("The `next_cursor` of the previous page.")
        .pattern(Some(CURSOR_PATTERN))
        .min_length(Some(1))
        .max_length(Some(512))
        .into()
);

schema!(
    /// A webhook delivery's id.
    DeliveryId => uuid("A delivery's id (a UUID).")
);

/// `invite` at creation: at most two usernames, each once.
pub fn invitees() -> ArrayBuilder {
    ArrayBuilder::new()
        .items(crate::domain::Username::schema())
        .max_items(Some(2))
        .unique_items(true)
        .description(Some(
            "Usernames to invite (at most two, each once); they take the remaining seats \
             in turn order.",
        ))
}

/// `bots` at creation: computer players' levels, each once, at most two.
pub fn bot_levels() -> ArrayBuilder {
    ArrayBuilder::new()
        .items(
            utoipa::openapi::ObjectBuilder::new()
                .schema_type(Type::Integer)
                .minimum(Some(1))
                .maximum(Some(5)),
        )
        .max_items(Some(2))
        .unique_items(true)
        .description(Some(
            "Computer players to seat, by level (1 plays at once, 5 thinks longest), each \
             once; with the invitees, at most two.",
        ))
}

/// A premove line: 1 to 12 moves.
fn premove_line() -> ArrayBuilder {
    ArrayBuilder::new()
        .items(MoveNotation::schema())
        .min_items(Some(1))
        .max_items(Some(crate::games::premoves::MAX_PLIES))
}

/// `lines` of premoves: at most 100 lines of 1 to 12 moves each.
pub fn premove_lines() -> ArrayBuilder {
    ArrayBuilder::new()
        .items(premove_line())
        .max_items(Some(crate::games::premoves::MAX_LINES))
        .description(Some(
            "Up to 100 lines, each 1 to 12 moves (R33) in turn order from the position now.",
        ))
}

/// What remains of premove lines: at most 100 lines of 1 to 12 moves.
pub fn remaining_lines() -> ArrayBuilder {
    premove_lines().description(Some("Each line's moves still to come, the next one first."))
}

/// `allies` at creation: two different seats, or null.
pub fn allies() -> ArrayBuilder {
    ArrayBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Array, Type::Null]))
        .items(Seat::schema())
        .min_items(Some(2))
        .max_items(Some(2))
        .unique_items(true)
        .description(Some(
            "Two different seats that start allied (R11): the third moves first, its king \
             promoted.",
        ))
}

/// One Server-Sent Event: `event:` its type, `id:` where to resume, `data:`
/// a JSON document, one of `payloads`.
fn sse_event<'a>(
    description: &str,
    types: impl IntoIterator<Item = &'a str>,
    payloads: &[&str],
) -> RefOr<Schema> {
    let refs: Vec<serde_json::Value> = payloads
        .iter()
        .map(|name| serde_json::json!({ "$ref": format!("#/components/schemas/{name}") }))
        .collect();
    let data = ObjectBuilder::new()
        .schema_type(Type::String)
        .content_media_type("application/json")
        .extensions(Some(utoipa::openapi::extensions::Extensions::from_iter([
            ("contentSchema", serde_json::json!({ "oneOf": refs })),
        ])));
    ObjectBuilder::new()
        .description(Some(description))
        .property("event", words("The message's type.", types))
        .property("id", ObjectBuilder::new().schema_type(Type::String))
        .property("data", data)
        .required("event")
        .required("data")
        .into()
}

/// A message of the events stream in SSE.
pub struct EventStreamMessage;

impl PartialSchema for EventStreamMessage {
    fn schema() -> RefOr<Schema> {
        sse_event(
            "An event (`event:` its type, `id:` its id), or the last message (`stream.end`).",
            events::ALL.into_iter().chain(["stream.end"]),
            &["EventView", "StreamEnd"],
        )
    }
}

impl ToSchema for EventStreamMessage {}

/// A message of a game's stream in SSE.
pub struct GameStreamMessage;

impl PartialSchema for GameStreamMessage {
    fn schema() -> RefOr<Schema> {
        sse_event(
            "A change (`game.changed`, `id:` the game's version), or the last message \
             (`stream.end`).",
            ["game.changed", "stream.end"],
            &["GameChangeView", "StreamEnd"],
        )
    }
}

impl ToSchema for GameStreamMessage {}

//! The outbox: event rows written in the same transaction as the change they
//! report, one per recipient. Delivery (mail, webhooks) and the event list
//! read them later, all through one typed [`GameEvent`]: a stored event that
//! does not parse as its type is an error naming it, never a guess.

use crate::domain::{EventId, GameId, UserId};
use chrono::{DateTime, NaiveDateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::db::games::EventRow;
use crate::db::{self, DbConnection};
use crate::rules::{Elimination, Event, Outcome, WinReason};

use super::model::{seat_name, Loaded};

pub const INVITED: &str = "game.invited";
pub const STARTED: &str = "game.started";
pub const YOUR_TURN: &str = "game.your_turn";
pub const MOVE: &str = "game.move";
pub const ALLIANCE_PROPOSED: &str = "game.alliance_proposed";
pub const ALLIANCE_FORMED: &str = "game.alliance_formed";
pub const PLAYER_ELIMINATED: &str = "game.player_eliminated";
pub const FINISHED: &str = "game.finished";
pub const DEADLINE_APPROACHING: &str = "game.deadline_approaching";
pub const CANCELLED: &str = "game.cancelled";
pub const EXPIRED: &str = "game.expired";
pub const DECLINED: &str = "game.declined";
pub const DRAW_OFFERED: &str = "game.draw_offered";
pub const DRAW_DECLINED: &str = "game.draw_declined";
pub const CHAT: &str = "game.chat";
pub const PLAYER_ON_VACATION: &str = "game.player_on_vacation";
pub const PLAYER_BACK: &str = "game.player_back";
pub const TIME_GIVEN: &str = "game.time_given";

/// Every event type, for documentation and validation.
pub const ALL: [&str; 18] = [
    INVITED,
    STARTED,
    YOUR_TURN,
    MOVE,
    ALLIANCE_PROPOSED,
    ALLIANCE_FORMED,
    PLAYER_ELIMINATED,
    FINISHED,
    DEADLINE_APPROACHING,
    CANCELLED,
    EXPIRED,
    DECLINED,
    DRAW_OFFERED,
    DRAW_DECLINED,
    CHAT,
    PLAYER_ON_VACATION,
    PLAYER_BACK,
    TIME_GIVEN,
];

/// The name at each seat (`first`, `middle`, `last`), as every event carries.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Players {
    pub first: Option<String>,
    pub middle: Option<String>,
    pub last: Option<String>,
}

impl Players {
    pub fn of(g: &Loaded) -> Self {
        let name = |i: usize| g.seats[i].name().map(str::to_owned);
        Self {
            first: name(0),
            middle: name(1),
            last: name(2),
        }
    }

    /// Seats and names, in turn order.
    pub fn seats(&self) -> [(&'static str, Option<&str>); 3] {
        [
            ("first", self.first.as_deref()),
            ("middle", self.middle.as_deref()),
            ("last", self.last.as_deref()),
        ]
    }
}

/// How a game ended, as stored on the game row and sent in events.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameResult {
    /// The winning seat, unless drawn.
    pub winner: Option<String>,
    /// The seats sharing a draw.
    pub draw: Option<Vec<String>>,
    pub reason: String,
}

impl GameResult {
    pub fn of(o: &Outcome) -> Self {
        match o {
            Outcome::Win(p, reason) => Self {
                winner: Some(seat_name(*p).to_owned()),
                draw: None,
                reason: win_reason(*reason).to_owned(),
            },
            Outcome::Draw(set, reason) => Self {
                winner: None,
                draw: Some(set.iter().map(|p| seat_name(p).to_owned()).collect()),
                reason: reason.code().to_owned(),
            },
        }
    }
}

/// What the rules did (stored with each action and sent in events).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Effect {
    AllianceFormed {
        seats: Vec<String>,
        automatic: bool,
    },
    PlayerEliminated {
        seat: String,
        reason: String,
        by: Option<String>,
    },
    AllianceDissolved {
        seats: Vec<String>,
    },
    Finished {
        result: GameResult,
    },
}

impl Effect {
    pub fn of(e: &Event) -> Self {
        let seats = |a: &crate::rules::Alliance| {
            a.members()
                .iter()
                .map(|p| seat_name(p).to_owned())
                .collect()
        };
        match e {
            Event::AllianceFormed {
                alliance,
                automatic,
            } => Effect::AllianceFormed {
                seats: seats(alliance),
                automatic: *automatic,
            },
            Event::Eliminated { player, reason, by } => Effect::PlayerEliminated {
                seat: seat_name(*player).to_owned(),
                reason: elimination(*reason).to_owned(),
                by: by.map(|p| seat_name(p).to_owned()),
            },
            Event::AllianceDissolved { alliance } => Effect::AllianceDissolved {
                seats: seats(alliance),
            },
            Event::Finished(o) => Effect::Finished {
                result: GameResult::of(o),
            },
        }
    }
}

/// The stored text of an action's effects.
pub fn effects_text(events: &[Event]) -> String {
    serde_json::to_string(&events.iter().map(Effect::of).collect::<Vec<_>>())
        .expect("effects serialize")
}

/// A seat was offered to a user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Invited {
    pub seat: String,
    pub invited_by: String,
    pub players: Players,
    pub days_per_move: Option<i32>,
    /// The game's time control (absent from events stored before it was sent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<crate::games::clock::TimeControl>,
    pub expires_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Started {
    pub players: Players,
    pub to_move: Option<String>,
    pub deadline: Option<DateTime<Utc>>,
}

/// The last move before a turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastMove {
    #[serde(rename = "move")]
    pub notation: String,
    pub seat: Option<String>,
    pub ply: Option<i32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct YourTurn {
    pub seat: String,
    pub ply: u32,
    pub deadline: Option<DateTime<Utc>>,
    pub last_move: Option<LastMove>,
    pub players: Players,
    pub position: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MovePlayed {
    pub ply: u32,
    #[serde(rename = "move")]
    pub notation: String,
    pub seat: String,
    pub username: Option<String>,
    pub position: String,
    pub to_move: Option<String>,
    pub effects: Vec<Effect>,
    /// Played by the server from the mover's premoves.
    #[serde(default)]
    pub premove: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AllianceProposed {
    pub proposal_id: String,
    pub from: String,
    pub from_username: Option<String>,
    pub to: String,
    pub players: Players,
}

/// An effect of the rules, at the ply after it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Happened {
    #[serde(flatten)]
    pub effect: Effect,
    pub ply: u32,
    pub players: Players,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeadlineApproaching {
    pub seat: String,
    pub ply: u32,
    pub deadline: DateTime<Utc>,
    pub players: Players,
}

/// A game that ended before it began (cancelled, expired).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Closed {
    pub players: Players,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Declined {
    pub seat: String,
    pub username: Option<String>,
}

/// A living player offered a draw (R36); `awaiting` are those yet to answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrawOffered {
    pub seat: String,
    pub username: Option<String>,
    pub ply: u32,
    pub awaiting: Vec<String>,
    pub players: Players,
}

/// A draw offer ended without a draw: `reason` is `declined` or `withdrawn`
/// (by `seat`), `moved` (`seat` moved instead of answering),
/// `alliance_formed` or `player_eliminated`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrawDeclined {
    pub seat: Option<String>,
    pub username: Option<String>,
    pub offered_by: String,
    pub reason: String,
    pub ply: u32,
    pub players: Players,
}

/// A chat message: `n` its number among the messages its recipient may read,
/// `to` `all` or the one seat it
/// is for (a private message goes to that player alone).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatPosted {
    pub n: i32,
    pub from: String,
    pub username: Option<String>,
    pub to: String,
    pub text: String,
    pub players: Players,
}

/// A player's vacation began: their clock stops in this game until `until`
/// (or a move of theirs, anywhere).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OnVacation {
    pub seat: String,
    pub username: Option<String>,
    pub until: DateTime<Utc>,
    pub players: Players,
}

/// A player's vacation ended: `reason` is `ended` (they ended it), `moved`
/// (a move of theirs ended it) or `over` (its days ran out).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Back {
    pub seat: String,
    pub username: Option<String>,
    pub reason: String,
    /// The game's deadline now, if it is this player's move.
    pub deadline: Option<DateTime<Utc>>,
    pub players: Players,
}

/// A player gave another time: `seconds` were added to `to`'s clock
/// (`hours` asked, less where a Fischer bank's maximum stopped it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeGiven {
    pub from: String,
    pub from_username: Option<String>,
    pub to: String,
    pub to_username: Option<String>,
    pub hours: u32,
    pub seconds: i64,
    pub ply: u32,
    /// The game's deadline now, if `to` is to move.
    pub deadline: Option<DateTime<Utc>>,
    pub players: Players,
}

/// A game event: its type is stored beside its payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GameEvent {
    Invited(Invited),
    Started(Started),
    YourTurn(YourTurn),
    Move(MovePlayed),
    AllianceProposed(AllianceProposed),
    AllianceFormed(Happened),
    PlayerEliminated(Happened),
    Finished(Happened),
    DeadlineApproaching(DeadlineApproaching),
    Cancelled(Closed),
    Expired(Closed),
    Declined(Declined),
    DrawOffered(DrawOffered),
    DrawDeclined(DrawDeclined),
    Chat(ChatPosted),
    PlayerOnVacation(OnVacation),
    PlayerBack(Back),
    TimeGiven(TimeGiven),
}

/// A game event as stored: the game it is about, and what happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEvent {
    pub game_id: String,
    pub event: GameEvent,
}

impl GameEvent {
    pub fn event_type(&self) -> &'static str {
        match self {
            GameEvent::Invited(_) => INVITED,
            GameEvent::Started(_) => STARTED,
            GameEvent::YourTurn(_) => YOUR_TURN,
            GameEvent::Move(_) => MOVE,
            GameEvent::AllianceProposed(_) => ALLIANCE_PROPOSED,
            GameEvent::AllianceFormed(_) => ALLIANCE_FORMED,
            GameEvent::PlayerEliminated(_) => PLAYER_ELIMINATED,
            GameEvent::Finished(_) => FINISHED,
            GameEvent::DeadlineApproaching(_) => DEADLINE_APPROACHING,
            GameEvent::Cancelled(_) => CANCELLED,
            GameEvent::Expired(_) => EXPIRED,
            GameEvent::Declined(_) => DECLINED,
            GameEvent::DrawOffered(_) => DRAW_OFFERED,
            GameEvent::DrawDeclined(_) => DRAW_DECLINED,
            GameEvent::Chat(_) => CHAT,
            GameEvent::PlayerOnVacation(_) => PLAYER_ON_VACATION,
            GameEvent::PlayerBack(_) => PLAYER_BACK,
            GameEvent::TimeGiven(_) => TIME_GIVEN,
        }
    }

    /// The event an effect of the rules is reported as, if any.
    pub fn of_effect(effect: Effect, ply: u32, players: Players) -> Option<GameEvent> {
        let variant = match effect {
            Effect::AllianceFormed { .. } => GameEvent::AllianceFormed,
            Effect::PlayerEliminated { .. } => GameEvent::PlayerEliminated,
            Effect::Finished { .. } => GameEvent::Finished,
            Effect::AllianceDissolved { .. } => return None,
        };
        Some(variant(Happened {
            effect,
            ply,
            players,
        }))
    }

    /// The payload as stored and sent: the event's fields and `game_id`.
    pub fn payload(&self, game_id: &str) -> Value {
        let mut v = match self {
            GameEvent::Invited(e) => serde_json::to_value(e),
            GameEvent::Started(e) => serde_json::to_value(e),
            GameEvent::YourTurn(e) => serde_json::to_value(e),
            GameEvent::Move(e) => serde_json::to_value(e),
            GameEvent::AllianceProposed(e) => serde_json::to_value(e),
            GameEvent::AllianceFormed(e)
            | GameEvent::PlayerEliminated(e)
            | GameEvent::Finished(e) => serde_json::to_value(e),
            GameEvent::DeadlineApproaching(e) => serde_json::to_value(e),
            GameEvent::Cancelled(e) | GameEvent::Expired(e) => serde_json::to_value(e),
            GameEvent::Declined(e) => serde_json::to_value(e),
            GameEvent::DrawOffered(e) => serde_json::to_value(e),
            GameEvent::DrawDeclined(e) => serde_json::to_value(e),
            GameEvent::Chat(e) => serde_json::to_value(e),
            GameEvent::PlayerOnVacation(e) => serde_json::to_value(e),
            GameEvent::PlayerBack(e) => serde_json::to_value(e),
            GameEvent::TimeGiven(e) => serde_json::to_value(e),
        }
        .expect("events serialize");
        if let Value::Object(map) = &mut v {
            map.insert("game_id".into(), Value::String(game_id.to_owned()));
        }
        v
    }
}

impl StoredEvent {
    /// Reads a stored event; an unknown type, or a payload that does not
    /// parse as its type, is an error naming the event.
    pub fn parse(row: &EventRow) -> anyhow::Result<StoredEvent> {
        fn read<T: serde::de::DeserializeOwned>(row: &EventRow) -> anyhow::Result<T> {
            serde_json::from_str(&row.payload).map_err(|e| {
                anyhow::anyhow!(
                    "stored payload of event {} ({}) does not parse: {e}",
                    row.id,
                    row.event_type
                )
            })
        }
        let event = match row.event_type.as_str() {
            INVITED => GameEvent::Invited(read(row)?),
            STARTED => GameEvent::Started(read(row)?),
            YOUR_TURN => GameEvent::YourTurn(read(row)?),
            MOVE => GameEvent::Move(read(row)?),
            ALLIANCE_PROPOSED => GameEvent::AllianceProposed(read(row)?),
            ALLIANCE_FORMED | PLAYER_ELIMINATED | FINISHED => {
                let happened: Happened = read(row)?;
                let expected = match &happened.effect {
                    Effect::AllianceFormed { .. } => ALLIANCE_FORMED,
                    Effect::PlayerEliminated { .. } => PLAYER_ELIMINATED,
                    Effect::Finished { .. } => FINISHED,
                    Effect::AllianceDissolved { .. } => "",
                };
                anyhow::ensure!(
                    expected == row.event_type,
                    "stored event {} of type {} carries another kind of effect",
                    row.id,
                    row.event_type
                );
                GameEvent::of_effect(happened.effect, happened.ply, happened.players)
                    .expect("checked above")
            }
            DEADLINE_APPROACHING => GameEvent::DeadlineApproaching(read(row)?),
            CANCELLED => GameEvent::Cancelled(read(row)?),
            EXPIRED => GameEvent::Expired(read(row)?),
            DECLINED => GameEvent::Declined(read(row)?),
            DRAW_OFFERED => GameEvent::DrawOffered(read(row)?),
            DRAW_DECLINED => GameEvent::DrawDeclined(read(row)?),
            CHAT => GameEvent::Chat(read(row)?),
            PLAYER_ON_VACATION => GameEvent::PlayerOnVacation(read(row)?),
            PLAYER_BACK => GameEvent::PlayerBack(read(row)?),
            TIME_GIVEN => GameEvent::TimeGiven(read(row)?),
            other => anyhow::bail!("stored event {} has an unknown type {other:?}", row.id),
        };
        Ok(StoredEvent {
            game_id: row.game_id.to_string(),
            event,
        })
    }
}

/// Writes one event row per recipient, each queued for every delivery channel.
/// Ids are time-ordered (UUIDv7), so a recipient's events sort by id in the
/// order they happened.
pub fn emit<'a>(
    conn: &mut DbConnection,
    game_id: &str,
    recipients: impl IntoIterator<Item = &'a str>,
    event: GameEvent,
    now: NaiveDateTime,
) -> diesel::QueryResult<()> {
    emit_all(
        conn,
        game_id,
        vec![(recipients.into_iter().collect(), event)],
        now,
    )
}

/// [`emit`] for several events of one game at once, in their order: one
/// lock of the recipients and one write for them all.
pub fn emit_all(
    conn: &mut DbConnection,
    game_id: &str,
    events: Vec<(Vec<&str>, GameEvent)>,
    now: NaiveDateTime,
) -> diesel::QueryResult<()> {
    let rows = rows_of(game_id, events, now);
    db::outbox::record(conn, &rows, &crate::notify::mail::MAILED)
}

/// The rows of `events` of game `game_id`, one per recipient (each once per
/// event), in order; announces each recipient's topic to the streams.
pub fn rows_of(
    game_id: &str,
    events: Vec<(Vec<&str>, GameEvent)>,
    now: NaiveDateTime,
) -> Vec<EventRow> {
    let mut everyone: Vec<&str> = Vec::new();
    let mut rows: Vec<EventRow> = Vec::new();
    for (recipients, event) in events {
        let body = event.payload(game_id).to_string();
        let mut seen: Vec<&str> = Vec::new();
        for user_id in recipients {
            if !seen.contains(&user_id) {
                seen.push(user_id);
            }
        }
        for user_id in seen {
            if !everyone.contains(&user_id) {
                everyone.push(user_id);
            }
            rows.push(EventRow {
                id: EventId::generate(),
                game_id: GameId::from(game_id),
                event_type: event.event_type().to_owned(),
                user_id: UserId::from(user_id),
                payload: body.clone(),
                created_at: now,
            });
        }
    }
    for user_id in everyone {
        db::live::announce(db::live::Topic::User(user_id.to_owned()));
    }
    rows
}

pub fn win_reason(r: WinReason) -> &'static str {
    r.code()
}

pub fn elimination(e: Elimination) -> &'static str {
    e.code()
}

/// A stored event row of game `g1` for user `u1`, for tests.
#[cfg(test)]
pub(crate) fn test_row(event_type: &str, payload: Value) -> EventRow {
    EventRow {
        id: "e1".into(),
        game_id: "g1".into(),
        event_type: event_type.into(),
        user_id: "u1".into(),
        payload: payload.to_string(),
        created_at: chrono::DateTime::from_timestamp(0, 0).unwrap().naive_utc(),
    }
}

#[cfg(test)]
mod tests {
    use super::test_row as row;
    use super::*;

    #[test]
    fn events_read_back_as_written() {
        let players = Players {
            first: Some("alice".into()),
            middle: None,
            last: Some("carol".into()),
        };
        let events = [
            GameEvent::Declined(Declined {
                seat: "middle".into(),
                username: Some("bob".into()),
            }),
            GameEvent::of_effect(
                Effect::Finished {
                    result: GameResult {
                        winner: Some("first".into()),
                        draw: None,
                        reason: "king-captured".into(),
                    },
                },
                12,
                players.clone(),
            )
            .unwrap(),
            GameEvent::Cancelled(Closed { players }),
        ];
        for e in events {
            let stored = row(e.event_type(), e.payload("g1"));
            let back = StoredEvent::parse(&stored).unwrap();
            assert_eq!(back.event, e);
            assert_eq!(back.game_id, "g1");
        }
    }

    #[test]
    fn a_payload_that_does_not_parse_is_an_error_naming_the_event() {
        let e = StoredEvent::parse(&row(DECLINED, serde_json::json!({"seat": 3}))).unwrap_err();
        assert!(e.to_string().contains("event e1"), "{e}");
        let e = StoredEvent::parse(&row("game.bogus", serde_json::json!({}))).unwrap_err();
        assert!(e.to_string().contains("unknown type"), "{e}");
        let wrong = GameEvent::of_effect(
            Effect::AllianceDissolved { seats: vec![] },
            1,
            Players::default(),
        );
        assert!(wrong.is_none());
    }
}

//! The outbox: event rows written in the same transaction as the change they report,
//! one per recipient. Delivery (mail, webhooks) reads them later.

use chrono::NaiveDateTime;
use serde_json::{json, Value};

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

/// Every event type, for documentation and validation.
pub const ALL: [&str; 12] = [
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
];

/// Writes one event row per recipient, each queued for every delivery channel.
/// Ids are time-ordered (UUIDv7), so a recipient's events sort by id in the
/// order they happened.
pub fn emit<'a>(
    conn: &mut DbConnection,
    game_id: &str,
    event_type: &str,
    recipients: impl IntoIterator<Item = &'a str>,
    mut payload: Value,
    now: NaiveDateTime,
) -> diesel::QueryResult<()> {
    if let Value::Object(map) = &mut payload {
        map.insert("game_id".into(), json!(game_id));
    }
    let body = payload.to_string();
    let mut seen: Vec<&str> = Vec::new();
    for user_id in recipients {
        if seen.contains(&user_id) {
            continue;
        }
        seen.push(user_id);
        let id = uuid::Uuid::now_v7().to_string();
        db::games::insert_event(
            conn,
            &EventRow {
                id: id.clone(),
                game_id: game_id.to_owned(),
                event_type: event_type.to_owned(),
                user_id: user_id.to_owned(),
                payload: body.clone(),
                created_at: now,
            },
        )?;
        db::outbox::enqueue(conn, &id)?;
    }
    Ok(())
}

/// The players (name per seat) for payloads.
pub fn players_json(g: &Loaded) -> Value {
    let mut map = serde_json::Map::new();
    for s in &g.seats {
        map.insert(seat_name(s.seat).into(), json!(s.name()));
    }
    Value::Object(map)
}

pub fn outcome_json(o: &Outcome) -> Value {
    match o {
        Outcome::Win(p, reason) => json!({
            "winner": seat_name(*p),
            "draw": Value::Null,
            "reason": win_reason(*reason),
        }),
        Outcome::Draw(set) => json!({
            "winner": Value::Null,
            "draw": set.iter().map(seat_name).collect::<Vec<_>>(),
            "reason": "repetition",
        }),
    }
}

pub fn win_reason(r: WinReason) -> &'static str {
    r.code()
}

/// What the rules did, as JSON (stored with each action and sent in events).
pub fn effect_json(e: &Event) -> Value {
    match e {
        Event::AllianceFormed {
            alliance,
            automatic,
        } => json!({
            "type": "alliance_formed",
            "seats": alliance.members().iter().map(seat_name).collect::<Vec<_>>(),
            "automatic": automatic,
        }),
        Event::Eliminated { player, reason, by } => json!({
            "type": "player_eliminated",
            "seat": seat_name(*player),
            "reason": elimination(*reason),
            "by": by.map(seat_name),
        }),
        Event::AllianceDissolved { alliance } => json!({
            "type": "alliance_dissolved",
            "seats": alliance.members().iter().map(seat_name).collect::<Vec<_>>(),
        }),
        Event::Finished(o) => json!({"type": "finished", "result": outcome_json(o)}),
    }
}

pub fn elimination(e: Elimination) -> &'static str {
    e.code()
}

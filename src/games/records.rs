//! Records: a game as the plain-text record of `crate::record`, and importing
//! one by replaying it through the rules.

use crate::domain::{GameId, UserId};
use chrono::NaiveDateTime;

use crate::db::games::{ActionRow, GameRow, SeatRow};
use crate::db::{self, DbConnection};
use crate::record::{Record, RecordMeta};
use crate::rules::{Action, Player};

use super::events::{effects_text, GameResult};
use super::journal::new_id;
use super::model::GameState;
use super::model::{
    action_kind, action_notation, load_history, seat_name, Loaded, SeatState, Status,
};
use super::{GameError, Games, DAYS_PER_MOVE};

/// Replays a game record and stores it as a finished game (or, if the record stops
/// before the end, as an analysis game that takes no moves).
fn import(
    conn: &mut DbConnection,
    limits: &crate::domain::limits::Limits,
    importer_id: &str,
    record: &Record,
    now: NaiveDateTime,
) -> Result<Loaded, GameError> {
    let game = record
        .replay()
        .map_err(|e| GameError::invalid("record", e.code(), e.to_string()))?;
    let meta = record.meta();
    let start = *game.start();
    db::write_transaction(conn, |conn| {
        let rate = limits.games_created;
        let created = db::games::created_by_since(conn, importer_id, rate.since(now))?;
        rate.admit(&created, now)?;
        let id = GameId::from(new_id());
        let pos = *game.position();
        let days = meta
            .time_control
            .as_deref()
            .and_then(|t| t.split_whitespace().next()?.parse::<i32>().ok())
            .filter(|d| DAYS_PER_MOVE.contains(d));
        let row = GameRow {
            id: id.clone(),
            created_by: Some(UserId::from(importer_id)),
            status: if pos.is_over() {
                Status::Finished
            } else {
                Status::Analysis
            },
            days_per_move: days,
            stuck_piece: start.options().stuck_piece.as_str().into(),
            illumination: start.options().illumination.as_str().into(),
            allies: start
                .alliance()
                .filter(|_| start.ply() == 1)
                .map(|a| a.to_string()),
            start_position: start.to_string(),
            position: pos.to_string(),
            ply: pos.ply() as i32,
            seq: game.entries().len() as i32,
            version: 0,
            to_move: None,
            result: pos
                .outcome()
                .map(|o| serde_json::to_string(&GameResult::of(&o)).expect("results serialize")),
            deadline: None,
            reminded_seq: None,
            expires_at: None,
            imported: true,
            rated: false,
            draw_offer: None,
            time_control: serde_json::to_string(&match days {
                Some(d) => super::clock::TimeControl::PerMove { days: d as u32 },
                None => super::clock::TimeControl::Unlimited,
            })
            .expect("time controls serialize"),
            pause_on_weekends: false,
            vacation: true,
            clocks: None,
            created_at: now,
            started_at: None,
            finished_at: pos.is_over().then_some(now),
            updated_at: now,
        };
        db::games::insert_game(conn, &row)?;
        for p in Player::ALL {
            db::games::insert_seat(
                conn,
                &SeatRow {
                    game_id: id.clone(),
                    seat: seat_name(p).into(),
                    user_id: None,
                    display_name: meta.players[p.index()].clone(),
                    state: SeatState::Joined,
                    joined_at: None,
                },
            )?;
        }
        let mut prev = start;
        for (i, e) in game.entries().iter().enumerate() {
            db::games::insert_action(
                conn,
                &ActionRow {
                    game_id: id.clone(),
                    seq: i as i32 + 1,
                    ply: matches!(e.action, Action::Move(_)).then_some(prev.ply() as i32),
                    kind: action_kind(&e.action),
                    notation: action_notation(&e.action),
                    seat: e.player.map(|p| seat_name(p).to_owned()),
                    user_id: None,
                    position_after: e.position.to_string(),
                    effects: effects_text(&e.events),
                    created_at: now,
                    premove: false,
                },
            )?;
            prev = e.position;
        }
        // Replayed once more from what was stored, and its snapshot kept.
        let h = load_history(conn, &id)?;
        db::games::fill_snapshot(conn, &id, &h.game.snapshot_text())?;
        Ok(h.game)
    })
}

/// The game's record in the plain-text format of `crate::record`.
pub fn record_of(g: &Loaded) -> Result<Record, GameError> {
    let fmt = |t: Option<NaiveDateTime>| {
        t.map(|t| {
            t.and_utc()
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        })
    };
    let meta = RecordMeta {
        event: None,
        site: None,
        started: fmt(g.row.started_at),
        finished: fmt(g.row.finished_at),
        players: [0, 1, 2].map(|i| g.seats[i].name().map(str::to_owned)),
        time_control: Some(g.time_control()?.describe()),
        extra: vec![("GameId".into(), g.row.id.to_string())],
    };
    Ok(Record::from_game(&g.game, &meta))
}

/// Imports a record: every action is replayed through the rules and the
/// result must match the record's.
pub async fn import_record(
    games: &Games,
    caller: &UserId,
    record: Record,
    now: NaiveDateTime,
) -> Result<GameState, GameError> {
    let (caller, limits) = (caller.to_owned(), games.settings.limits);
    db::run(&games.pool, move |conn| {
        GameState::without_proposals(import(conn, &limits, &caller, &record, now)?)
    })
    .await
}

/// A game's record.
pub async fn export_record(games: &Games, game_id: &GameId) -> Result<Record, GameError> {
    let id = game_id.to_owned();
    let h = db::run(&games.pool, move |conn| load_history(conn, &id)).await?;
    record_of(&h.game)
}

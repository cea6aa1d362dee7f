//! Game use cases. Each runs on one connection, inside one transaction where it
//! writes, so the change, its action row and its outbox events land together or not
//! at all. Concurrent writers (other requests, other server processes) are caught by
//! the unique (game, ply) and (game, seq) keys and by the game row's version.

use chrono::{Duration, NaiveDateTime};
use serde_json::json;

use crate::db::games::{ActionRow, GameRow, ProposalRow, SeatRow};
use crate::db::{self, DbConnection};
use crate::record::{Record, RecordMeta};
use crate::rules::{Action, Alliance, Event, IllegalKind, Move, Options, Player, Position};

use super::events::{self, effect_json, emit, outcome_json, players_json};
use super::model::{
    action_kind, action_notation, load, load_for_update, seat_name, Loaded, SeatInfo, SeatState,
    Status,
};
use super::GameError;

/// Time rules of the service.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// How long a "day" of a time control lasts (a real day, except in tests and demos).
    pub day: Duration,
    /// How long invitations and open seats wait for players.
    pub open_for: Duration,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            day: Duration::days(1),
            open_for: Duration::days(14),
        }
    }
}

/// Time controls offered (days per move).
pub const DAYS_PER_MOVE: [i32; 7] = [1, 2, 3, 5, 7, 10, 14];

/// The creator's seat choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeatChoice {
    Seat(Player),
    Random,
}

/// A game to create, already checked for shape.
#[derive(Debug, Clone)]
pub struct NewGame {
    pub seat: SeatChoice,
    /// Usernames (normalised), in the order their seats are handed out.
    pub invite: Vec<String>,
    pub open_seats: usize,
    pub days_per_move: Option<i32>,
    pub options: Options,
    pub allies: Option<Alliance>,
}

fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

fn to_move_name(pos: &Position) -> Option<String> {
    pos.to_move().map(|p| seat_name(p).to_owned())
}

/// Creates a game with the creator seated; invitees are asked, open seats wait.
pub fn create(
    conn: &mut DbConnection,
    settings: &Settings,
    creator_id: &str,
    new: NewGame,
    now: NaiveDateTime,
) -> Result<Loaded, GameError> {
    db::write_transaction(conn, |conn| {
        let creator = db::users::find_by_id(conn, creator_id)?
            .ok_or_else(|| GameError::Forbidden("your account no longer exists".into()))?;
        let mut invitees = Vec::new();
        for name in &new.invite {
            let user = db::users::find_by_username(conn, name)?
                .ok_or_else(|| GameError::UnknownUser(name.clone()))?;
            if user.id == creator.id {
                return Err(GameError::invalid(
                    "invite",
                    "self",
                    "you cannot invite yourself",
                ));
            }
            invitees.push(user);
        }
        let creator_seat = match new.seat {
            SeatChoice::Seat(p) => p,
            SeatChoice::Random => Player::from_index(rand::random_range(0..3)),
        };
        let start = match new.allies {
            Some(a) => Position::start_allied(a, new.options),
            None => Position::start().with_options(new.options),
        };
        let id = new_id();
        let row = GameRow {
            id: id.clone(),
            created_by: Some(creator.id.clone()),
            status: Status::Open.as_str().into(),
            days_per_move: new.days_per_move,
            stuck_piece: new.options.stuck_piece.as_str().into(),
            illumination: new.options.illumination.as_str().into(),
            allies: new.allies.map(|a| a.to_string()),
            start_position: start.to_string(),
            position: start.to_string(),
            ply: start.ply() as i32,
            seq: 0,
            version: 0,
            to_move: to_move_name(&start),
            result: None,
            deadline: None,
            reminded_seq: None,
            expires_at: Some(now + settings.open_for),
            imported: false,
            created_at: now,
            started_at: None,
            finished_at: None,
            updated_at: now,
        };
        db::games::insert_game(conn, &row)?;
        let mut others = Player::ALL.into_iter().filter(|p| *p != creator_seat);
        let mut seats = vec![SeatRow {
            game_id: id.clone(),
            seat: seat_name(creator_seat).into(),
            user_id: Some(creator.id.clone()),
            display_name: None,
            state: SeatState::Joined.as_str().into(),
            joined_at: Some(now),
        }];
        for user in &invitees {
            let p = others.next().expect("at most two invitees");
            seats.push(SeatRow {
                game_id: id.clone(),
                seat: seat_name(p).into(),
                user_id: Some(user.id.clone()),
                display_name: None,
                state: SeatState::Invited.as_str().into(),
                joined_at: None,
            });
        }
        for p in others {
            seats.push(SeatRow {
                game_id: id.clone(),
                seat: seat_name(p).into(),
                user_id: None,
                display_name: None,
                state: SeatState::Open.as_str().into(),
                joined_at: None,
            });
        }
        for s in &seats {
            db::games::insert_seat(conn, s)?;
        }
        let loaded = load(conn, &id)?;
        for s in loaded
            .seats
            .iter()
            .filter(|s| s.state == SeatState::Invited)
        {
            emit(
                conn,
                &id,
                events::INVITED,
                s.user_id.as_deref(),
                json!({
                    "seat": seat_name(s.seat),
                    "invited_by": creator.username,
                    "players": players_json(&loaded),
                    "days_per_move": new.days_per_move,
                    "expires_at": row.expires_at.map(|t| t.and_utc()),
                }),
                now,
            )?;
        }
        Ok(loaded)
    })
}

/// Saves the game row with a version bump, or reports that someone else changed it.
fn save_row(
    conn: &mut DbConnection,
    row: &mut GameRow,
    now: NaiveDateTime,
) -> Result<(), GameError> {
    let expected = row.version;
    row.version += 1;
    row.updated_at = now;
    if db::games::update_game_if_version(conn, row, expected)? {
        Ok(())
    } else {
        Err(GameError::Stale(
            "the game changed while this request was handled; reload it and try again".into(),
        ))
    }
}

/// Takes an open seat (a given one, or the first) or accepts an invitation. When the
/// third seat is filled the game starts.
pub fn join(
    conn: &mut DbConnection,
    settings: &Settings,
    user_id: &str,
    game_id: &str,
    wanted: Option<Player>,
    now: NaiveDateTime,
) -> Result<Loaded, GameError> {
    db::write_transaction(conn, |conn| {
        let mut g = load_for_update(conn, game_id)?;
        if let Some(mine) = g.seat_of(user_id) {
            if mine.state == SeatState::Joined {
                // Joining twice changes nothing.
                return Ok(g);
            }
        }
        if g.status() != Status::Open {
            return Err(GameError::State(format!(
                "the game is {}; seats are taken only while it is open",
                g.status().as_str()
            )));
        }
        let seat = match g.seat_of(user_id) {
            Some(s) => {
                if wanted.is_some_and(|w| w != s.seat) {
                    return Err(GameError::invalid(
                        "seat",
                        "invited-elsewhere",
                        format!("you are invited to the {} seat", seat_name(s.seat)),
                    ));
                }
                s.seat
            }
            None => {
                let open: Vec<Player> = g
                    .seats
                    .iter()
                    .filter(|s| s.state == SeatState::Open)
                    .map(|s| s.seat)
                    .collect();
                match wanted {
                    Some(w) if open.contains(&w) => w,
                    Some(w) => {
                        return Err(GameError::State(format!(
                            "the {} seat is not open",
                            seat_name(w)
                        )))
                    }
                    None => *open
                        .first()
                        .ok_or_else(|| GameError::State("this game has no open seat".into()))?,
                }
            }
        };
        let info = SeatInfo {
            seat,
            user_id: Some(user_id.to_owned()),
            username: None,
            display_name: None,
            state: SeatState::Joined,
            joined_at: Some(now),
        };
        db::games::update_seat(conn, &info.to_row(game_id))?;
        let all_joined = g
            .seats
            .iter()
            .all(|s| s.seat == seat || s.state == SeatState::Joined);
        if all_joined {
            g.row.status = Status::Active.as_str().into();
            g.row.started_at = Some(now);
            g.row.expires_at = None;
            g.row.deadline = g.row.days_per_move.map(|d| now + settings.day * d);
        }
        save_row(conn, &mut g.row, now)?;
        let g = load_for_update(conn, game_id)?;
        if all_joined {
            let ids = g.player_ids();
            emit(
                conn,
                game_id,
                events::STARTED,
                ids.iter().map(String::as_str),
                json!({
                    "players": players_json(&g),
                    "to_move": to_move_name(g.position()),
                    "deadline": g.row.deadline.map(|t| t.and_utc()),
                }),
                now,
            )?;
            your_turn(conn, &g, now)?;
        }
        Ok(g)
    })
}

fn your_turn(conn: &mut DbConnection, g: &Loaded, now: NaiveDateTime) -> Result<(), GameError> {
    let Some(p) = g.position().to_move() else {
        return Ok(());
    };
    let last = g.actions.iter().rev().find(|a| a.kind == "move");
    emit(
        conn,
        &g.row.id,
        events::YOUR_TURN,
        g.seat(p).user_id.as_deref(),
        json!({
            "seat": seat_name(p),
            "ply": g.position().ply(),
            "deadline": g.row.deadline.map(|t| t.and_utc()),
            "last_move": last.map(|a| json!({"move": a.notation, "seat": a.seat, "ply": a.ply})),
            "players": players_json(g),
            "position": g.position().to_string(),
        }),
        now,
    )?;
    Ok(())
}

/// An invitee declines: its seat opens to anyone, and the creator hears of it.
pub fn decline(
    conn: &mut DbConnection,
    user_id: &str,
    game_id: &str,
    now: NaiveDateTime,
) -> Result<Loaded, GameError> {
    db::write_transaction(conn, |conn| {
        let mut g = load_for_update(conn, game_id)?;
        let seat = match g.seat_of(user_id) {
            Some(s) if s.state == SeatState::Invited => s.seat,
            Some(_) => return Err(GameError::State("you have already joined; resign instead once it starts, or ask the creator to cancel".into())),
            None => return Err(GameError::NotAPlayer),
        };
        if g.status() != Status::Open {
            return Err(GameError::State(format!(
                "the game is {}",
                g.status().as_str()
            )));
        }
        let open = SeatInfo {
            seat,
            user_id: None,
            username: None,
            display_name: None,
            state: SeatState::Open,
            joined_at: None,
        };
        db::games::update_seat(conn, &open.to_row(game_id))?;
        let name = g.seat(seat).username.clone();
        save_row(conn, &mut g.row, now)?;
        if let Some(creator) = g.row.created_by.clone() {
            emit(
                conn,
                game_id,
                events::DECLINED,
                [creator.as_str()],
                json!({"seat": seat_name(seat), "username": name}),
                now,
            )?;
        }
        load(conn, game_id)
    })
}

/// The creator calls the game off before it starts.
pub fn cancel(
    conn: &mut DbConnection,
    user_id: &str,
    game_id: &str,
    now: NaiveDateTime,
) -> Result<Loaded, GameError> {
    db::write_transaction(conn, |conn| {
        let mut g = load_for_update(conn, game_id)?;
        if g.row.created_by.as_deref() != Some(user_id) {
            return Err(GameError::Forbidden(
                "only the game's creator can cancel it".into(),
            ));
        }
        if g.status() != Status::Open {
            return Err(GameError::State(format!(
                "the game is {}; only a game that has not started can be cancelled",
                g.status().as_str()
            )));
        }
        g.row.status = Status::Cancelled.as_str().into();
        g.row.finished_at = Some(now);
        g.row.expires_at = None;
        save_row(conn, &mut g.row, now)?;
        let others: Vec<String> = g
            .seats
            .iter()
            .filter_map(|s| s.user_id.clone())
            .filter(|u| u != user_id)
            .collect();
        emit(
            conn,
            game_id,
            events::CANCELLED,
            others.iter().map(String::as_str),
            json!({"players": players_json(&g)}),
            now,
        )?;
        load(conn, game_id)
    })
}

/// Appends an action: the rules judge it, its row is inserted (the unique keys refuse a
/// second one for the same ply or sequence number), the game row is updated if its
/// version is unchanged, proposals whose premises fell lapse, and the events go to the
/// outbox. Runs inside the caller's transaction.
fn append(
    conn: &mut DbConnection,
    settings: &Settings,
    g: &Loaded,
    action: Action,
    actor: Option<&str>,
    now: NaiveDateTime,
) -> Result<Loaded, GameError> {
    let before = *g.position();
    let mut game = g.game.clone();
    let entry = game.act(action).map_err(GameError::Illegal)?.clone();
    let after = entry.position;
    let mut row = g.row.clone();
    row.seq += 1;
    let action_row = ActionRow {
        game_id: row.id.clone(),
        seq: row.seq,
        ply: matches!(action, Action::Move(_)).then_some(before.ply() as i32),
        kind: action_kind(&action).into(),
        notation: action_notation(&action),
        seat: entry.player.map(|p| seat_name(p).to_owned()),
        user_id: actor.map(str::to_owned),
        position_after: after.to_string(),
        effects: serde_json::Value::Array(entry.events.iter().map(effect_json).collect())
            .to_string(),
        created_at: now,
    };
    match db::games::insert_action(conn, &action_row) {
        Ok(()) => {}
        Err(e) if db::is_unique_violation(&e) => {
            return Err(GameError::Stale(
                "another action was recorded first; reload the game".into(),
            ))
        }
        Err(e) => return Err(e.into()),
    }
    row.position = after.to_string();
    row.ply = after.ply() as i32;
    row.to_move = to_move_name(&after);
    let turn_changed = before.to_move() != after.to_move() || matches!(action, Action::Move(_));
    if let Some(o) = after.outcome() {
        row.status = Status::Finished.as_str().into();
        row.result = Some(outcome_json(&o).to_string());
        row.finished_at = Some(now);
        row.deadline = None;
    } else if turn_changed {
        row.deadline = row.days_per_move.map(|d| now + settings.day * d);
        row.reminded_seq = None;
    }
    save_row(conn, &mut row, now)?;
    let changed_premises = after.alliance() != before.alliance()
        || after.living() != before.living()
        || after.is_over();
    if changed_premises {
        db::games::lapse_proposals(conn, &row.id, now)?;
    }
    let mut actions = g.actions.clone();
    actions.push(action_row);
    let next = Loaded {
        row,
        seats: g.seats.clone(),
        actions,
        game,
        creator_name: g.creator_name.clone(),
    };
    let everyone = next.player_ids();
    let all = || everyone.iter().map(String::as_str);
    if let Action::Move(m) = action {
        let mover = entry.player.expect("moves have a player");
        emit(
            conn,
            &next.row.id,
            events::MOVE,
            all().filter(|u| Some(*u) != actor),
            json!({
                "ply": before.ply(),
                "move": m.to_string(),
                "seat": seat_name(mover),
                "username": next.seat(mover).name(),
                "position": after.to_string(),
                "to_move": to_move_name(&after),
                "effects": entry.events.iter().map(effect_json).collect::<Vec<_>>(),
            }),
            now,
        )?;
    }
    for e in &entry.events {
        let kind = match e {
            Event::AllianceFormed { .. } => events::ALLIANCE_FORMED,
            Event::Eliminated { .. } => events::PLAYER_ELIMINATED,
            Event::Finished(_) => events::FINISHED,
            Event::AllianceDissolved { .. } => continue,
        };
        let mut payload = effect_json(e);
        payload["ply"] = json!(after.ply());
        payload["players"] = players_json(&next);
        emit(conn, &next.row.id, kind, all(), payload, now)?;
    }
    if !after.is_over() && turn_changed {
        your_turn(conn, &next, now)?;
    }
    Ok(next)
}

/// The result of a move submission: the game after it, and whether this request
/// stored it (false when it repeats a move already stored).
pub struct Played {
    pub game: Loaded,
    pub created: bool,
}

/// Plays a move for the caller at the ply it names.
pub fn play(
    conn: &mut DbConnection,
    settings: &Settings,
    user_id: &str,
    game_id: &str,
    move_text: &str,
    ply: i64,
    now: NaiveDateTime,
) -> Result<Played, GameError> {
    db::write_transaction(conn, |conn| {
        let g = load_for_update(conn, game_id)?;
        let seat = g.joined_seat(user_id)?;
        let mv = Move::parse(move_text).map_err(|e| {
            GameError::Illegal(crate::rules::Illegal {
                kind: IllegalKind::Malformed,
                message: e.to_string(),
            })
        })?;
        // The same move for the same ply again: answer as the first time, store nothing.
        if let Some(done) = g.actions.iter().find(|a| a.ply.map(i64::from) == Some(ply)) {
            if done.notation == mv.to_string() && done.user_id.as_deref() == Some(user_id) {
                return Ok(Played {
                    game: g,
                    created: false,
                });
            }
        }
        match g.status() {
            Status::Finished => return Err(GameError::GameOver),
            Status::Active => {}
            other => {
                return Err(GameError::State(format!(
                    "the game is {}; moves are played once it is active",
                    other.as_str()
                )))
            }
        }
        let current = g.position().ply() as i64;
        if ply != current {
            return Err(GameError::Stale(format!(
                "ply {ply} is not the next move: the game is at ply {current}; reload it"
            )));
        }
        if g.position().to_move() != Some(seat) {
            let whose = g
                .position()
                .to_move()
                .map_or("nobody's".to_string(), |p| format!("{}'s", seat_name(p)));
            return Err(GameError::Illegal(crate::rules::Illegal {
                kind: IllegalKind::NotYourTurn,
                message: format!("it is {whose} turn, not yours ({})", seat_name(seat)),
            }));
        }
        let next = append(conn, settings, &g, Action::Move(mv), Some(user_id), now)?;
        Ok(Played {
            game: next,
            created: true,
        })
    })
}

/// The caller resigns (R35).
pub fn resign(
    conn: &mut DbConnection,
    settings: &Settings,
    user_id: &str,
    game_id: &str,
    now: NaiveDateTime,
) -> Result<Loaded, GameError> {
    db::write_transaction(conn, |conn| {
        let g = load_for_update(conn, game_id)?;
        let seat = g.joined_seat(user_id)?;
        match g.status() {
            Status::Finished => return Err(GameError::GameOver),
            Status::Active => {}
            other => {
                return Err(GameError::State(format!(
                    "the game is {}; cancel or decline instead",
                    other.as_str()
                )))
            }
        }
        append(conn, settings, &g, Action::Resign(seat), Some(user_id), now)
    })
}

/// A proposal as shown to clients.
pub fn pending_proposals(
    conn: &mut DbConnection,
    game_id: &str,
) -> Result<Vec<ProposalRow>, GameError> {
    Ok(db::games::proposals(conn, game_id)?
        .into_iter()
        .filter(|p| p.status == "pending")
        .collect())
}

fn alliance_allowed(g: &Loaded) -> Result<(), GameError> {
    let pos = g.position();
    if g.status() != Status::Active || pos.is_over() {
        return Err(GameError::State(
            "alliances are made only in a game in progress".into(),
        ));
    }
    if pos.alliance().is_some() || pos.living().len() < 3 {
        return Err(GameError::Illegal(crate::rules::Illegal {
            kind: IllegalKind::AllianceNotAllowed,
            message: "an alliance needs all three players in the game and no alliance yet (R29)"
                .into(),
        }));
    }
    Ok(())
}

/// The caller proposes an alliance to the player in seat `to` (R29).
pub fn propose(
    conn: &mut DbConnection,
    user_id: &str,
    game_id: &str,
    to: Player,
    now: NaiveDateTime,
) -> Result<ProposalRow, GameError> {
    db::write_transaction(conn, |conn| {
        let mut g = load_for_update(conn, game_id)?;
        let from = g.joined_seat(user_id)?;
        if from == to {
            return Err(GameError::invalid(
                "to",
                "self",
                "you cannot ally with yourself",
            ));
        }
        alliance_allowed(&g)?;
        let pending = pending_proposals(conn, game_id)?;
        if pending
            .iter()
            .any(|p| p.from_seat == seat_name(from) && p.to_seat == seat_name(to))
        {
            return Err(GameError::State(format!(
                "you already have a pending proposal to {}",
                seat_name(to)
            )));
        }
        let p = ProposalRow {
            id: new_id(),
            game_id: game_id.to_owned(),
            from_seat: seat_name(from).into(),
            to_seat: seat_name(to).into(),
            status: "pending".into(),
            created_at: now,
            resolved_at: None,
        };
        db::games::insert_proposal(conn, &p)?;
        save_row(conn, &mut g.row, now)?;
        emit(
            conn,
            game_id,
            events::ALLIANCE_PROPOSED,
            g.seat(to).user_id.as_deref(),
            json!({
                "proposal_id": p.id,
                "from": seat_name(from),
                "from_username": g.seat(from).name(),
                "to": seat_name(to),
                "players": players_json(&g),
            }),
            now,
        )?;
        Ok(p)
    })
}

/// What the caller does with a proposal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Accept,
    Decline,
    Withdraw,
}

/// Accepts, declines or withdraws a proposal. Accepting forms the alliance at once,
/// between moves (R29), if its premises still hold.
pub fn answer(
    conn: &mut DbConnection,
    settings: &Settings,
    user_id: &str,
    game_id: &str,
    proposal_id: &str,
    answer: Answer,
    now: NaiveDateTime,
) -> Result<(ProposalRow, Loaded), GameError> {
    db::write_transaction(conn, |conn| {
        let mut g = load_for_update(conn, game_id)?;
        let p = db::games::proposals(conn, game_id)?
            .into_iter()
            .find(|p| p.id == proposal_id)
            .ok_or(GameError::ProposalNotFound)?;
        let seat = seat_name(g.joined_seat(user_id)?);
        let (must_be, status) = match answer {
            Answer::Accept => (&p.to_seat, "accepted"),
            Answer::Decline => (&p.to_seat, "declined"),
            Answer::Withdraw => (&p.from_seat, "withdrawn"),
        };
        if seat != must_be {
            return Err(GameError::Forbidden(match answer {
                Answer::Withdraw => "only the proposer can withdraw a proposal".into(),
                _ => "only the player it is addressed to can answer a proposal".into(),
            }));
        }
        if p.status != "pending" {
            return Err(GameError::State(format!(
                "the proposal is already {}",
                p.status
            )));
        }
        if answer == Answer::Accept {
            alliance_allowed(&g)?;
            let a = Alliance::new(
                super::model::parse_seat(&p.from_seat).expect("stored seat"),
                super::model::parse_seat(&p.to_seat).expect("stored seat"),
            )
            .expect("two seats");
            db::games::resolve_proposal(conn, &p.id, status, now)?;
            g = append(conn, settings, &g, Action::Alliance(a), Some(user_id), now)?;
        } else {
            db::games::resolve_proposal(conn, &p.id, status, now)?;
            save_row(conn, &mut g.row, now)?;
        }
        let p = db::games::proposals(conn, game_id)?
            .into_iter()
            .find(|x| x.id == p.id)
            .expect("still there");
        Ok((p, g))
    })
}

/// A sweep step that lost a race to another process has nothing left to do.
fn lost_race_is_nothing_to_do(r: Result<bool, GameError>) -> Result<bool, GameError> {
    match r {
        Err(GameError::Stale(_)) => Ok(false),
        other => other,
    }
}

/// Ends the turn of a player whose time ran out (R35). Returns false when there was
/// nothing to do: the game moved on, or another process did it first.
pub fn time_out(
    conn: &mut DbConnection,
    settings: &Settings,
    game_id: &str,
    now: NaiveDateTime,
) -> Result<bool, GameError> {
    let r = db::write_transaction(conn, |conn| {
        let g = load_for_update(conn, game_id)?;
        let overdue = g.status() == Status::Active && g.row.deadline.is_some_and(|d| d <= now);
        let Some(p) = g.position().to_move().filter(|_| overdue) else {
            return Ok(false);
        };
        append(conn, settings, &g, Action::TimeOut(p), None, now)?;
        Ok(true)
    });
    lost_race_is_nothing_to_do(r)
}

/// How long before the deadline the player to move is reminded: a fifth of the time
/// control, or a day (at most half the time control), whichever is longer.
pub fn reminder_window(settings: &Settings, days: i32) -> Duration {
    let period = settings.day * days;
    std::cmp::max(period / 5, std::cmp::min(settings.day, period / 2))
}

/// Writes the one reminder of a turn whose deadline is near. Returns whether it did.
pub fn remind(
    conn: &mut DbConnection,
    settings: &Settings,
    game_id: &str,
    now: NaiveDateTime,
) -> Result<bool, GameError> {
    let r = db::write_transaction(conn, |conn| {
        let mut g = load_for_update(conn, game_id)?;
        let (Some(deadline), Some(days)) = (g.row.deadline, g.row.days_per_move) else {
            return Ok(false);
        };
        if g.status() != Status::Active || g.row.reminded_seq == Some(g.row.seq) || deadline <= now
        {
            return Ok(false);
        }
        if deadline - now > reminder_window(settings, days) {
            return Ok(false);
        }
        let Some(p) = g.position().to_move() else {
            return Ok(false);
        };
        g.row.reminded_seq = Some(g.row.seq);
        save_row(conn, &mut g.row, now)?;
        emit(
            conn,
            game_id,
            events::DEADLINE_APPROACHING,
            g.seat(p).user_id.as_deref(),
            json!({
                "seat": seat_name(p),
                "ply": g.position().ply(),
                "deadline": deadline.and_utc(),
                "players": players_json(&g),
            }),
            now,
        )?;
        Ok(true)
    });
    lost_race_is_nothing_to_do(r)
}

/// Closes an open game whose invitations and open seats lapsed.
pub fn expire(
    conn: &mut DbConnection,
    game_id: &str,
    now: NaiveDateTime,
) -> Result<bool, GameError> {
    let r = db::write_transaction(conn, |conn| {
        let mut g = load_for_update(conn, game_id)?;
        if g.status() != Status::Open || g.row.expires_at.is_none_or(|e| e > now) {
            return Ok(false);
        }
        g.row.status = Status::Expired.as_str().into();
        g.row.finished_at = Some(now);
        save_row(conn, &mut g.row, now)?;
        let seated: Vec<String> = g.seats.iter().filter_map(|s| s.user_id.clone()).collect();
        emit(
            conn,
            game_id,
            events::EXPIRED,
            seated.iter().map(String::as_str),
            json!({"players": players_json(&g)}),
            now,
        )?;
        Ok(true)
    });
    lost_race_is_nothing_to_do(r)
}

/// Replays a game record and stores it as a finished game (or, if the record stops
/// before the end, as an analysis game that takes no moves).
pub fn import(
    conn: &mut DbConnection,
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
        let id = new_id();
        let pos = *game.position();
        let days = meta
            .time_control
            .as_deref()
            .and_then(|t| t.split_whitespace().next()?.parse::<i32>().ok())
            .filter(|d| DAYS_PER_MOVE.contains(d));
        let row = GameRow {
            id: id.clone(),
            created_by: Some(importer_id.to_owned()),
            status: if pos.is_over() {
                "finished".into()
            } else {
                "analysis".into()
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
            result: pos.outcome().map(|o| outcome_json(&o).to_string()),
            deadline: None,
            reminded_seq: None,
            expires_at: None,
            imported: true,
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
                    state: SeatState::Joined.as_str().into(),
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
                    kind: action_kind(&e.action).into(),
                    notation: action_notation(&e.action),
                    seat: e.player.map(|p| seat_name(p).to_owned()),
                    user_id: None,
                    position_after: e.position.to_string(),
                    effects: serde_json::Value::Array(e.events.iter().map(effect_json).collect())
                        .to_string(),
                    created_at: now,
                },
            )?;
            prev = e.position;
        }
        load(conn, &id)
    })
}

/// The game's record in the plain-text format of `crate::record`.
pub fn record_of(g: &Loaded) -> Record {
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
        time_control: Some(match g.row.days_per_move {
            Some(1) => "1 day per move".into(),
            Some(d) => format!("{d} days per move"),
            None => "none".into(),
        }),
        extra: vec![("GameId".into(), g.row.id.clone())],
    };
    Record::from_game(&g.game, &meta)
}

/// A game in a list: what is needed to choose what to open next, without a replay.
#[derive(Debug, Clone)]
pub struct Listed {
    pub row: GameRow,
    pub seats: Vec<SeatInfo>,
    pub your_seat: Option<Player>,
    pub your_turn: bool,
}

/// Which games to list.
#[derive(Debug, Clone, Default)]
pub struct ListFilter {
    /// Only games where the caller holds a seat.
    pub mine: bool,
    pub status: Option<Status>,
    /// Only games where it is the caller's move.
    pub my_turn: bool,
    /// Only games with this user seated.
    pub player: Option<String>,
}

/// Games for `user_id`, most urgent first: its own moves with the least time left,
/// then other games by deadline, then the most recently changed. Returns one page
/// and whether more follow.
pub fn list(
    conn: &mut DbConnection,
    user_id: &str,
    filter: &ListFilter,
    offset: usize,
    limit: usize,
) -> Result<(Vec<Listed>, bool), GameError> {
    let player_id = match &filter.player {
        Some(name) => match db::users::find_by_username(conn, &name.to_ascii_lowercase())? {
            Some(u) => Some(u.id),
            None => return Ok((Vec::new(), false)),
        },
        None => None,
    };
    // The lobby (open games, not only the caller's) shows games with a seat to take,
    // not games whose seats are all held for invitees.
    let lobby =
        !(filter.mine || filter.my_turn) && filter.status.unwrap_or(Status::Open) == Status::Open;
    // Your own games are listed whatever their status unless one is asked for;
    // everyone's games are listed by status, open by default.
    let status = match filter.status {
        Some(s) => Some(s),
        None if filter.mine || filter.my_turn => None,
        None => Some(Status::Open),
    };
    let query = db::games::GameListQuery {
        user_id: user_id.to_owned(),
        mine: filter.mine || filter.my_turn,
        status: status.map(|s| s.as_str().to_owned()),
        my_turn: filter.my_turn,
        player_id,
        with_open_seat: lobby,
    };
    // One row past the page tells whether more follow.
    let rows = db::games::list_games(conn, &query, offset as i64, limit as i64 + 1)?;
    let more = rows.len() > limit;
    let ids: Vec<String> = rows.iter().take(limit).map(|r| r.id.clone()).collect();
    let seat_rows = db::games::seats_of_games(conn, &ids)?;
    let page = rows
        .into_iter()
        .take(limit)
        .map(|row| {
            let mine: Vec<_> = seat_rows
                .iter()
                .filter(|(s, _)| s.game_id == row.id)
                .cloned()
                .collect();
            let seats = super::model::seat_infos(&mine);
            let your_seat = seats
                .iter()
                .find(|s| s.user_id.as_deref() == Some(user_id) && s.state == SeatState::Joined)
                .map(|s| s.seat);
            let your_turn = row.status == "active"
                && your_seat.is_some_and(|p| row.to_move.as_deref() == Some(seat_name(p)));
            Listed {
                row,
                seats,
                your_seat,
                your_turn,
            }
        })
        .collect();
    Ok((page, more))
}

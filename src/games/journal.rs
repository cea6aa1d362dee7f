//! The journal of a game: every action (move, resignation, alliance, time-out)
//! is appended here, judged by the rules, stored with its events, and the
//! game row is saved only if no one else changed it meanwhile. Shared by the
//! use cases; not called from outside `games`.

use crate::domain::UserId;
use chrono::NaiveDateTime;

use crate::db::games::ActionRow;
use crate::db::{self, DbConnection};
use crate::rules::{Action, Position};

use super::events::{self, emit_all, Effect, GameEvent, GameResult, Players};
use super::model::{action_kind, action_notation, seat_name, Loaded, Status};
use super::{GameError, Settings};

pub(super) fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

pub(super) fn to_move_name(pos: &Position) -> Option<String> {
    pos.to_move().map(|p| seat_name(p).to_owned())
}

/// Saves the game row and its snapshot with a version bump, or reports that
/// someone else changed it.
pub(super) fn save(
    conn: &mut DbConnection,
    g: &mut Loaded,
    now: NaiveDateTime,
) -> Result<(), GameError> {
    save_with(conn, g, None, now)
}

/// [`save`], recording `action` with it (in the same statement where the
/// backend allows): its unique keys refuse a second action for the same ply
/// or sequence number.
fn save_with(
    conn: &mut DbConnection,
    g: &mut Loaded,
    action: Option<&ActionRow>,
    now: NaiveDateTime,
) -> Result<(), GameError> {
    let snapshot = g.snapshot_text();
    let to_move_user = g
        .position()
        .to_move()
        .filter(|_| g.status() == Status::Active)
        .and_then(|p| g.seat(p).user_id.clone());
    let row = &mut g.row;
    let expected = row.version;
    row.version += 1;
    row.updated_at = now;
    let saved = db::games::update_game_if_version(
        conn,
        row,
        &snapshot,
        to_move_user.as_deref(),
        expected,
        action,
    );
    match saved {
        Ok(true) => Ok(()),
        Ok(false) => Err(GameError::Stale(
            "the game changed while this request was handled; reload it and try again".into(),
        )),
        Err(e) if action.is_some() && db::is_unique_violation(&e) => Err(GameError::Stale(
            "another action was recorded first; reload the game".into(),
        )),
        Err(e) => Err(e.into()),
    }
}

/// Tells the player to move that it is their turn (and queues a bot's).
pub(super) fn your_turn(
    conn: &mut DbConnection,
    g: &Loaded,
    now: NaiveDateTime,
) -> Result<(), GameError> {
    if let Some(told) = your_turn_event(conn, g, now)? {
        emit_all(conn, &g.row.id, vec![told], now)?;
    }
    Ok(())
}

/// The `your_turn` event for the player to move, with its recipient, to be
/// emitted with others; queues a bot's turn.
fn your_turn_event<'g>(
    conn: &mut DbConnection,
    g: &'g Loaded,
    now: NaiveDateTime,
) -> Result<Option<(Vec<&'g str>, GameEvent)>, GameError> {
    let Some(p) = g.position().to_move() else {
        return Ok(None);
    };
    super::bots::queue_turn(conn, g, now)?;
    let last = g.standing.last_move.as_ref();
    let event = GameEvent::YourTurn(events::YourTurn {
        seat: seat_name(p).to_owned(),
        ply: g.position().ply(),
        deadline: g.row.deadline.map(|t| t.and_utc()),
        last_move: last.map(|m| events::LastMove {
            notation: m.notation.clone(),
            seat: m.seat.clone(),
            ply: m.ply,
        }),
        players: Players::of(g),
        position: g.position().to_string(),
    });
    Ok(Some((
        g.seat(p).user_id.as_deref().into_iter().collect(),
        event,
    )))
}

/// Appends an action: the rules judge it, its row is inserted (the unique keys refuse a
/// second one for the same ply or sequence number), the game row is updated if its
/// version is unchanged, proposals whose premises fell lapse, and the events go to the
/// outbox. Runs inside the caller's transaction.
pub(super) fn append(
    conn: &mut DbConnection,
    settings: &Settings,
    g: &Loaded,
    action: Action,
    actor: Option<&str>,
    now: NaiveDateTime,
) -> Result<Loaded, GameError> {
    append_as(conn, settings, g, action, actor, now, false)
}

/// [`append`], for a move the server plays from its player's premoves when
/// `premove`. After a move, the premove it leads to (if any) is appended
/// too, and so on: the answer is the game after the last of them.
fn append_as(
    conn: &mut DbConnection,
    settings: &Settings,
    g: &Loaded,
    action: Action,
    actor: Option<&str>,
    now: NaiveDateTime,
    premove: bool,
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
        kind: action_kind(&action),
        notation: action_notation(&action),
        seat: entry.player.map(|p| seat_name(p).to_owned()),
        user_id: actor.map(UserId::from),
        position_after: after.to_string(),
        effects: events::effects_text(&entry.events),
        created_at: now,
        premove,
    };
    row.position = after.to_string();
    row.ply = after.ply() as i32;
    row.to_move = to_move_name(&after);
    let turn_changed = before.to_move() != after.to_move() || matches!(action, Action::Move(_));
    let standing_offer = g.draw_offer()?;
    let (offer_after, offer_ended) = super::draws::after_action(
        standing_offer.clone(),
        &action,
        entry.player,
        &before,
        &after,
    );
    row.draw_offer = offer_after.as_ref().map(super::draws::DrawOffer::to_text);
    if let Some(o) = after.outcome() {
        row.status = Status::Finished;
        row.result = Some(serde_json::to_string(&GameResult::of(&o)).expect("results serialize"));
        row.finished_at = Some(now);
    }
    let mut standing = g.standing.clone();
    standing.record(&action_row, &entry);
    let mut next = Loaded {
        row,
        seats: g.seats.clone(),
        game,
        standing,
        creator_name: g.creator_name.clone(),
        waiting: g.waiting,
    };
    if turn_changed || after.is_over() {
        // The clock of who was to move stops (with a Fischer increment after
        // a move); the next player's starts.
        let moved = matches!(action, Action::Move(_));
        super::timing::pass_turn(&mut next, settings, before.to_move(), moved, now)?;
        next.row.reminded_seq = None;
    }
    save_with(conn, &mut next, Some(&action_row), now)?;
    let changed_premises = after.alliance() != before.alliance()
        || after.living() != before.living()
        || after.is_over();
    if changed_premises {
        db::games::lapse_proposals(conn, &next.row.id, now)?;
        // Premoves were checked against the alliance and the players there were.
        db::premoves::clear_game(conn, &next.row.id)?;
    }
    let premove_next = match action {
        Action::Move(m) if !changed_premises && g.waiting.premoves => {
            super::premoves::advance(conn, &next, before.ply(), m, now)?
        }
        _ => None,
    };
    if let (Some(offer), Some(ended)) = (&standing_offer, offer_ended) {
        // The one who moved knows; everyone hears of a withdrawal.
        let skip = actor.filter(|_| ended.0 == super::draws::Ended::Moved);
        super::draws::report_end(conn, &next, offer, ended, skip, now)?;
    }
    let everyone = next.player_ids();
    let all = || everyone.iter().map(String::as_str).collect::<Vec<_>>();
    // The action's events (and, unless a premove plays next, the next
    // player's turn) are written together.
    let mut told: Vec<(Vec<&str>, GameEvent)> = Vec::new();
    if let Action::Move(m) = action {
        let mover = entry.player.expect("moves have a player");
        // A premove's player hears of it like the others.
        let recipients = all()
            .into_iter()
            .filter(|u| premove || Some(*u) != actor)
            .collect();
        told.push((
            recipients,
            GameEvent::Move(events::MovePlayed {
                ply: before.ply(),
                notation: m.to_string(),
                seat: seat_name(mover).to_owned(),
                username: next.seat(mover).name().map(str::to_owned),
                position: after.to_string(),
                to_move: to_move_name(&after),
                effects: entry.events.iter().map(Effect::of).collect(),
                premove,
            }),
        ));
    }
    for e in &entry.events {
        let reported = GameEvent::of_effect(Effect::of(e), after.ply(), Players::of(&next));
        if let Some(event) = reported {
            told.push((all(), event));
        }
    }
    let turn = !after.is_over() && turn_changed;
    if let Some((user, mv)) = premove_next {
        emit_all(conn, &next.row.id, told, now)?;
        // Its turn is played at once: no `your_turn` for it. Lines are checked
        // and matched move by move, so the rules cannot refuse it; if they
        // ever did, the premoves go and the player is told it is their turn,
        // and the move that led here stands.
        use diesel::Connection as _;
        let played = conn.transaction(|conn| {
            append_as(
                conn,
                settings,
                &next,
                Action::Move(mv),
                Some(&user),
                now,
                true,
            )
        });
        match played {
            Err(GameError::Illegal(e)) => {
                tracing::error!(game = %next.row.id, premove = %mv, error = %e, "a premove was refused; dropped");
                db::premoves::remove(conn, &next.row.id, &user)?;
            }
            other => return other,
        }
        if turn {
            your_turn(conn, &next, now)?;
        }
    } else {
        if turn {
            told.extend(your_turn_event(conn, &next, now)?);
        }
        emit_all(conn, &next.row.id, told, now)?;
    }
    if after.is_over() {
        super::ratings::settle(conn, &next, now)?;
    }
    Ok(next)
}

/// A sweep step that lost a race to another process has nothing left to do.
pub(super) fn lost_race_is_nothing_to_do(r: Result<bool, GameError>) -> Result<bool, GameError> {
    match r {
        Err(GameError::Stale(_)) => Ok(false),
        other => other,
    }
}

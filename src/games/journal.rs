//! The journal of a game: every action (move, resignation, alliance, time-out)
//! is appended here, judged by the rules, stored with its events, and the
//! game row is saved only if no one else changed it meanwhile. Shared by the
//! use cases; not called from outside `games`.

use crate::domain::UserId;
use chrono::NaiveDateTime;

use crate::db::games::ActionRow;
use crate::db::{self, DbConnection};
use crate::rules::{Action, GameRecordEntry, Player, Position};

use super::draws::{DrawOffer, Ended};
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

/// The game row as it is to be saved: its snapshot, the account to move
/// and the version it was read at (the row's own is bumped).
fn to_save(g: &mut Loaded, now: NaiveDateTime) -> (String, Option<String>, i32) {
    let snapshot = g.snapshot_text();
    let to_move_user = g
        .position()
        .to_move()
        .filter(|_| g.status() == Status::Active)
        .and_then(|p| g.seat(p).user_id.as_ref().map(|u| u.to_string()));
    let row = &mut g.row;
    let expected = row.version;
    row.version += 1;
    row.updated_at = now;
    (snapshot, to_move_user, expected)
}

/// A save's outcome: the game changed meanwhile, or (with an action) the
/// action's unique keys refused it, is stale.
fn saved<T>(result: diesel::QueryResult<Option<T>>, with_action: bool) -> Result<T, GameError> {
    match result {
        Ok(Some(stored)) => Ok(stored),
        Ok(None) => Err(GameError::Stale(
            "the game changed while this request was handled; reload it and try again".into(),
        )),
        Err(e) if with_action && db::is_unique_violation(&e) => Err(GameError::Stale(
            "another action was recorded first; reload the game".into(),
        )),
        Err(e) => Err(e.into()),
    }
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
    let (snapshot, to_move_user, expected) = to_save(g, now);
    let result = db::games::update_game_if_version(
        conn,
        &g.row,
        &snapshot,
        to_move_user.as_deref(),
        expected,
        action,
    );
    saved(result.map(|s| s.then_some(())), action.is_some())
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

/// What [`append_alone`] did.
pub(super) enum Alone {
    /// Stored: the game after the action, with its new stamp.
    Stored(Box<Loaded>),
    /// Not such an action, or the rules refuse it: nothing was written.
    Unfit,
    /// The game was written since it was read as given: nothing was
    /// written.
    Changed,
}

/// [`append`] for a game read outside any transaction (or kept from this
/// process's last write of it, `games::cache`), when the action writes
/// nothing but the game row, itself and its events (see [`Judged::plain`];
/// nor is a computer player to move next): all of it in one statement
/// (PostgreSQL), which commits by itself, and only if the game is still as
/// `g` has it (its stamp). When it is not such an action, the rules refuse
/// it, or the game changed since, nothing is written: then append it in a
/// transaction, which reads the game again and answers as it should.
pub(super) fn append_alone(
    conn: &mut DbConnection,
    settings: &Settings,
    g: &Loaded,
    action: Action,
    actor: Option<&str>,
    now: NaiveDateTime,
) -> Result<Alone, GameError> {
    let Some(stamp) = g.row_stamp.clone() else {
        return Ok(Alone::Unfit);
    };
    let Ok(judged) = judge(settings, g, action, actor, now, false) else {
        return Ok(Alone::Unfit);
    };
    let bot_next = judged
        .after()
        .to_move()
        .is_some_and(|p| judged.next.seat(p).bot_level.is_some());
    if !judged.plain(g) || bot_next {
        return Ok(Alone::Unfit);
    }
    match write_plain(conn, judged, actor, Some(&stamp), now) {
        Ok(next) => Ok(Alone::Stored(Box::new(next))),
        Err(GameError::Stale(_)) => Ok(Alone::Changed),
        Err(e) => Err(e),
    }
}

/// An action the rules accepted, with the game after it, nothing stored yet.
struct Judged {
    action: Action,
    entry: GameRecordEntry,
    before: Position,
    /// The game after the action, its row's version not yet bumped.
    next: Loaded,
    action_row: ActionRow,
    /// The draw offer (R36) that stood before the action, and how the
    /// action ended it.
    standing_offer: Option<DrawOffer>,
    offer_ended: Option<(Ended, Option<Player>)>,
    turn_changed: bool,
    /// A move the server plays from its player's premoves.
    premove: bool,
}

impl Judged {
    fn after(&self) -> &Position {
        &self.entry.position
    }

    /// Whether the action changed what proposals and premoves assume: the
    /// alliance, who is alive, or whether the game goes on.
    fn changed_premises(&self) -> bool {
        self.after().alliance() != self.before.alliance()
            || self.after().living() != self.before.living()
            || self.after().is_over()
    }

    /// Whether the action writes nothing but the game row, its own row and
    /// its events: no premise of proposals or premoves changed (so the game
    /// goes on), no premove of the game `g` (as read) may follow, and no
    /// draw offer stood.
    fn plain(&self, g: &Loaded) -> bool {
        !self.changed_premises()
            && self.standing_offer.is_none()
            && !(matches!(self.action, Action::Move(_)) && g.waiting.premoves)
    }

    /// The action's events, to everyone in `everyone` who hears of them:
    /// the move (not to its mover, unless the server played it) and what
    /// the rules did as a consequence.
    fn told<'a>(
        &self,
        everyone: &'a [String],
        actor: Option<&str>,
    ) -> Vec<(Vec<&'a str>, GameEvent)> {
        let all = || everyone.iter().map(String::as_str).collect::<Vec<_>>();
        let (after, next) = (self.after(), &self.next);
        let mut told: Vec<(Vec<&str>, GameEvent)> = Vec::new();
        if let Action::Move(m) = self.action {
            let mover = self.entry.player.expect("moves have a player");
            // A premove's player hears of it like the others.
            let recipients = all()
                .into_iter()
                .filter(|u| self.premove || Some(*u) != actor)
                .collect();
            told.push((
                recipients,
                GameEvent::Move(events::MovePlayed {
                    ply: self.before.ply(),
                    notation: m.to_string(),
                    seat: seat_name(mover).to_owned(),
                    username: next.seat(mover).name().map(str::to_owned),
                    position: after.to_string(),
                    to_move: to_move_name(after),
                    effects: self.entry.events.iter().map(Effect::of).collect(),
                    premove: self.premove,
                }),
            ));
        }
        for e in &self.entry.events {
            let reported = GameEvent::of_effect(Effect::of(e), after.ply(), Players::of(next));
            if let Some(event) = reported {
                told.push((all(), event));
            }
        }
        told
    }
}

/// The rules judge `action` in `g`; the game after it, nothing stored.
fn judge(
    settings: &Settings,
    g: &Loaded,
    action: Action,
    actor: Option<&str>,
    now: NaiveDateTime,
    premove: bool,
) -> Result<Judged, GameError> {
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
    row.draw_offer = offer_after.as_ref().map(DrawOffer::to_text);
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
        row_stamp: None,
    };
    if turn_changed || after.is_over() {
        // The clock of who was to move stops (with a Fischer increment after
        // a move); the next player's starts.
        let moved = matches!(action, Action::Move(_));
        super::timing::pass_turn(&mut next, settings, before.to_move(), moved, now)?;
        next.row.reminded_seq = None;
    }
    Ok(Judged {
        action,
        entry,
        before,
        next,
        action_row,
        standing_offer,
        offer_ended,
        turn_changed,
        premove,
    })
}

/// Writes a [`Judged::plain`] action: the game row, the action and its
/// events (with the next player's turn) together, in one statement on
/// PostgreSQL; with `stamp`, only if the row is still as read (see
/// `db::journal`).
fn write_plain(
    conn: &mut DbConnection,
    judged: Judged,
    actor: Option<&str>,
    stamp: Option<&str>,
    now: NaiveDateTime,
) -> Result<Loaded, GameError> {
    let everyone = judged.next.player_ids();
    let mut told = judged.told(&everyone, actor);
    if judged.turn_changed {
        told.extend(your_turn_event(conn, &judged.next, now)?);
    }
    let rows = events::rows_of(&judged.next.row.id, told, now);
    let Judged {
        mut next,
        action_row,
        ..
    } = judged;
    let (snapshot, to_move_user, expected) = to_save(&mut next, now);
    let write = db::journal::ActionWrite {
        game: &next.row,
        snapshot: &snapshot,
        to_move_user: to_move_user.as_deref(),
        expected_version: expected,
        stamp,
        action: &action_row,
        events: &rows,
        mailed: &crate::notify::mail::MAILED,
    };
    let written = saved(db::journal::write_action(conn, &write), true)?;
    if stamp.is_some() {
        // Stored by a statement that committed by itself: the stamp it
        // returned is the game's until something else writes it.
        next.row_stamp = written.stamp;
    }
    Ok(next)
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
    let judged = judge(settings, g, action, actor, now, premove)?;
    if judged.plain(g) {
        return write_plain(conn, judged, actor, None, now);
    }
    let changed_premises = judged.changed_premises();
    let everyone = judged.next.player_ids();
    let mut told = judged.told(&everyone, actor);
    let Judged {
        mut next,
        action_row,
        before,
        entry,
        standing_offer,
        offer_ended,
        turn_changed,
        ..
    } = judged;
    let after = entry.position;
    save_with(conn, &mut next, Some(&action_row), now)?;
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
        // The one who moved knows (unless the server played their premove);
        // everyone hears of a withdrawal.
        let skip = actor.filter(|_| ended.0 == super::draws::Ended::Moved && !premove);
        super::draws::report_end(conn, &next, offer, ended, skip, now)?;
    }
    // The action's events (and, unless a premove plays next, the next
    // player's turn) are written together.
    let turn = !after.is_over() && turn_changed;
    if let Some((user, mv)) = premove_next {
        emit_all(conn, &next.row.id, told, now)?;
        // Its turn is played at once: no `your_turn` for it. Lines are checked
        // and matched move by move, so the rules cannot refuse it; if they
        // ever did, the premoves go and the player is told it is their turn,
        // and the move that led here stands.
        use diesel::Connection as _;
        let played = conn.transaction(|conn| {
            // A premove is a move: it ends its player's vacation, in every
            // game (this one's clocks change too, so it is read again).
            let on_vacation = next
                .seat_of(&user)
                .is_some_and(|s| s.vacation_until.is_some_and(|u| u > now));
            let reread;
            let from = if on_vacation && super::vacation::end_for_move(conn, settings, &user, now)?
            {
                reread = super::model::load_for_update(conn, &next.row.id)?;
                &reread
            } else {
                &next
            };
            append_as(
                conn,
                settings,
                from,
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
    } else if no_human_left(&next) {
        // Nobody is left to play for: the computer players agree a draw
        // among themselves at once (R36) instead of searching on, which
        // would only delay other people's games.
        return append_as(conn, settings, &next, Action::DrawAgreed, None, now, false);
    }
    Ok(next)
}

/// Whether every player still in the game is a computer player.
fn no_human_left(g: &Loaded) -> bool {
    g.status() == Status::Active
        && g.position()
            .living()
            .iter()
            .all(|p| g.seat(p).bot_level.is_some())
}

/// A sweep step that lost a race to another process has nothing left to do.
pub(super) fn lost_race_is_nothing_to_do(r: Result<bool, GameError>) -> Result<bool, GameError> {
    match r {
        Err(GameError::Stale(_)) => Ok(false),
        other => other,
    }
}

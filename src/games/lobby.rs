//! The lobby: creating games, taking seats, declining invitations, cancelling,
//! and games whose seats were never filled lapsing.

use crate::domain::{GameId, UserId};
use chrono::NaiveDateTime;

use crate::db::games::{GameRow, SeatRow};
use crate::db::{self, DbConnection};
use crate::domain::{FieldError, Username};
use crate::rules::{Alliance, Illumination, Options, Player, Position, StuckPiece};

use super::clock::TimeControl;
use super::events::{self, emit, GameEvent, Players};
use super::journal::{lost_race_is_nothing_to_do, new_id, save, to_move_name, your_turn};
use super::model::{
    load, load_for_update, parse_seat_name, seat_name, Loaded, SeatInfo, SeatState, Status,
};
use super::model::{load_seats, load_state, GameState};
use super::timing::GameTime;
use super::{GameError, Games, Settings};

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
    pub time: GameTime,
    pub options: Options,
    pub allies: Option<Alliance>,
    /// Whether the result changes the players' ratings.
    pub rated: bool,
}

/// A game as asked for, before it is checked.
#[derive(Debug, Clone, Copy, Default)]
pub struct GameRequest<'a> {
    /// `first`, `middle`, `last` or `random` (default).
    pub seat: Option<&'a str>,
    pub invite: &'a [String],
    pub open_seats: Option<usize>,
    pub days_per_move: Option<i32>,
    pub time_control: Option<TimeControl>,
    pub pause_on_weekends: bool,
    /// Whether players' vacations stop their clocks (the default).
    pub vacation: bool,
    pub stuck_piece: Option<&'a str>,
    pub illumination: Option<&'a str>,
    pub allies: Option<&'a [String]>,
    /// Levels (1–5) of computer players to seat, after the invitees.
    pub bots: &'a [i64],
    pub rated: bool,
}

impl NewGame {
    /// Checks a request: seats, invitees (named once each, at most two),
    /// seat counts, the time control, rule options (R19, R24) and starting
    /// allies (R11). Every offending field is reported.
    pub fn new(req: GameRequest<'_>) -> Result<NewGame, GameError> {
        let mut errors = Vec::new();
        let seat = match req.seat {
            None | Some("random") => Some(SeatChoice::Random),
            Some(s) => match parse_seat_name(s) {
                Some(p) => Some(SeatChoice::Seat(p)),
                None => {
                    errors.push(FieldError::new(
                        "seat",
                        "invalid",
                        "must be first, middle, last or random",
                    ));
                    None
                }
            },
        };
        let mut invite = Vec::new();
        for (i, name) in req.invite.iter().enumerate() {
            let n = match Username::parse(name) {
                Ok(n) => n.as_str().to_owned(),
                Err(e) => {
                    errors.push(FieldError::new(format!("invite[{i}]"), e.code, e.message));
                    continue;
                }
            };
            if invite.contains(&n) {
                errors.push(FieldError::new(
                    format!("invite[{i}]"),
                    "duplicate",
                    "is invited twice",
                ));
            } else {
                invite.push(n);
            }
        }
        for (i, level) in req.bots.iter().enumerate() {
            let Some(level) = u8::try_from(*level).ok().filter(|l| (1..=5).contains(l)) else {
                errors.push(FieldError::new(
                    format!("bots[{i}]"),
                    "invalid",
                    "must be a level from 1 to 5",
                ));
                continue;
            };
            let name = super::bots::username(level);
            if invite.contains(&name) {
                errors.push(FieldError::new(
                    format!("bots[{i}]"),
                    "duplicate",
                    "this computer player is already seated",
                ));
            } else {
                invite.push(name);
            }
        }
        if invite.len() > 2 {
            errors.push(FieldError::new(
                if req.bots.is_empty() {
                    "invite"
                } else {
                    "bots"
                },
                "too-many",
                "invitees and computer players take at most the two other seats",
            ));
        }
        let open_seats = req
            .open_seats
            .unwrap_or(2usize.saturating_sub(invite.len()));
        if invite.len() <= 2 && invite.len() + open_seats != 2 {
            errors.push(FieldError::new(
                "open_seats",
                "seat-count",
                format!("the two other seats must be invitations or open seats: {} invited + {open_seats} open ≠ 2", invite.len()),
            ));
        }
        let time = GameTime::new(
            req.days_per_move,
            req.time_control,
            req.pause_on_weekends,
            req.vacation,
        )
        .map_err(|e| errors.extend(e))
        .ok();
        let stuck_piece = match req.stuck_piece {
            None => StuckPiece::default(),
            Some(s) => s.parse().unwrap_or_else(|e: String| {
                errors.push(FieldError::new("options.stuck_piece", "invalid", e));
                StuckPiece::default()
            }),
        };
        let illumination = match req.illumination {
            None => Illumination::default(),
            Some(s) => s.parse().unwrap_or_else(|e: String| {
                errors.push(FieldError::new("options.illumination", "invalid", e));
                Illumination::default()
            }),
        };
        let allies = match req.allies {
            None => None,
            Some([a, b]) => match (parse_seat_name(a), parse_seat_name(b)) {
                (Some(a), Some(b)) if a != b => Alliance::new(a, b),
                _ => {
                    errors.push(FieldError::new(
                        "allies",
                        "invalid",
                        "must be two different seats",
                    ));
                    None
                }
            },
            Some(_) => {
                errors.push(FieldError::new(
                    "allies",
                    "invalid",
                    "must be two different seats",
                ));
                None
            }
        };
        match (seat, time) {
            (Some(seat), Some(time)) if errors.is_empty() => Ok(NewGame {
                seat,
                invite,
                open_seats,
                time,
                options: Options {
                    stuck_piece,
                    illumination,
                },
                allies,
                rated: req.rated,
            }),
            _ => Err(GameError::Invalid(errors)),
        }
    }
}

/// Creates a game with the creator seated; invitees are asked, open seats wait.
fn create(
    conn: &mut DbConnection,
    settings: &Settings,
    creator_id: &str,
    new: NewGame,
    now: NaiveDateTime,
) -> Result<Loaded, GameError> {
    db::write_transaction(conn, |conn| {
        let creator = db::users::find_by_id(conn, creator_id)?
            .ok_or_else(|| GameError::Forbidden("your account no longer exists".into()))?;
        let limits = &settings.limits;
        let since = limits.games_created.since(now);
        let created = db::games::created_by_since(conn, &creator.id, since)?;
        limits.games_created.admit(&created, now)?;
        let seats = db::games::unfinished_seats_of(conn, &creator.id)?;
        limits.unfinished_games.admit(seats)?;
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
        // Computer players' turns cost the server's time: a bounded number
        // of such games per account.
        if invitees.iter().any(|u| u.bot_level.is_some()) {
            let held = db::games::unfinished_bot_games_of(conn, &creator.id)?;
            limits.bot_games.admit(held)?;
        }
        let creator_seat = match new.seat {
            SeatChoice::Seat(p) => p,
            SeatChoice::Random => Player::from_index(rand::random_range(0..3)),
        };
        let start = match new.allies {
            Some(a) => Position::start_allied(a, new.options),
            None => Position::start().with_options(new.options),
        };
        let id = GameId::from(new_id());
        let row = GameRow {
            id: id.clone(),
            created_by: Some(creator.id.clone()),
            status: Status::Open,
            days_per_move: new.time.days_per_move(),
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
            rated: new.rated,
            draw_offer: None,
            time_control: new.time.control_text(),
            pause_on_weekends: new.time.pause_on_weekends,
            vacation: new.time.vacation,
            clocks: None,
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
            state: SeatState::Joined,
            joined_at: Some(now),
        }];
        for user in &invitees {
            let p = others.next().expect("at most two invitees");
            // A computer player accepts at once.
            let bot = user.is_bot();
            seats.push(SeatRow {
                game_id: id.clone(),
                seat: seat_name(p).into(),
                user_id: Some(user.id.clone()),
                display_name: None,
                state: if bot {
                    SeatState::Joined
                } else {
                    SeatState::Invited
                },
                joined_at: bot.then_some(now),
            });
        }
        for p in others {
            seats.push(SeatRow {
                game_id: id.clone(),
                seat: seat_name(p).into(),
                user_id: None,
                display_name: None,
                state: SeatState::Open,
                joined_at: None,
            });
        }
        for s in &seats {
            db::games::insert_seat(conn, s)?;
        }
        let loaded = load_for_update(conn, &id)?;
        if loaded.seats.iter().all(|s| s.state == SeatState::Joined) {
            return start_game(conn, settings, loaded, now);
        }
        for s in loaded
            .seats
            .iter()
            .filter(|s| s.state == SeatState::Invited)
        {
            emit(
                conn,
                &id,
                s.user_id.as_deref(),
                GameEvent::Invited(events::Invited {
                    seat: seat_name(s.seat).to_owned(),
                    invited_by: creator.username.clone(),
                    players: Players::of(&loaded),
                    days_per_move: new.time.days_per_move(),
                    time_control: Some(new.time.control),
                    expires_at: row.expires_at.map(|t| t.and_utc()),
                }),
                now,
            )?;
        }
        Ok(loaded)
    })
}

/// Takes an open seat (a given one, or the first) or accepts an invitation. When the
/// third seat is filled the game starts.
fn join(
    conn: &mut DbConnection,
    settings: &Settings,
    user_id: &str,
    game_id: &str,
    wanted: Option<Player>,
    now: NaiveDateTime,
) -> Result<Loaded, GameError> {
    db::write_transaction(conn, |conn| {
        let mut g = load_for_update(conn, game_id)?;
        let joined = g
            .seat_of(user_id)
            .is_some_and(|s| s.state == SeatState::Joined);
        if !joined {
            let seats = db::games::unfinished_seats_of(conn, user_id)?;
            settings.limits.unfinished_games.admit(seats)?;
            if g.seats.iter().any(|s| s.bot_level.is_some()) {
                let held = db::games::unfinished_bot_games_of(conn, user_id)?;
                settings.limits.bot_games.admit(held)?;
            }
        }
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
            bot_level: None,
            time_zone: None,
            vacation_until: None,
        };
        db::games::update_seat(conn, &info.to_row(game_id))?;
        let all_joined = g
            .seats
            .iter()
            .all(|s| s.seat == seat || s.state == SeatState::Joined);
        if !all_joined {
            save(conn, &mut g, now)?;
            return load_for_update(conn, game_id);
        }
        start_game(conn, settings, g, now)
    })
}

/// Starts a game whose three seats are taken: it becomes active, everyone
/// hears of it, and the first player's turn begins.
fn start_game(
    conn: &mut DbConnection,
    settings: &Settings,
    mut g: Loaded,
    now: NaiveDateTime,
) -> Result<Loaded, GameError> {
    let game_id = g.row.id.clone();
    g.seats = load_seats(conn, &game_id)?;
    g.set_status(Status::Active);
    g.row.started_at = Some(now);
    g.row.expires_at = None;
    super::timing::start(&mut g, settings, now)?;
    save(conn, &mut g, now)?;
    let ids = g.player_ids();
    emit(
        conn,
        &game_id,
        ids.iter().map(String::as_str),
        GameEvent::Started(events::Started {
            players: Players::of(&g),
            to_move: to_move_name(g.position()),
            deadline: g.row.deadline.map(|t| t.and_utc()),
        }),
        now,
    )?;
    your_turn(conn, &g, now)?;
    Ok(g)
}

/// An invitee declines: its seat opens to anyone, and the creator hears of it.
fn decline(
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
            bot_level: None,
            time_zone: None,
            vacation_until: None,
        };
        db::games::update_seat(conn, &open.to_row(game_id))?;
        let name = g.seat(seat).username.clone();
        save(conn, &mut g, now)?;
        if let Some(creator) = g.row.created_by.clone() {
            emit(
                conn,
                game_id,
                [creator.as_str()],
                GameEvent::Declined(events::Declined {
                    seat: seat_name(seat).to_owned(),
                    username: name,
                }),
                now,
            )?;
        }
        load(conn, game_id)
    })
}

/// The creator calls the game off before it starts.
fn cancel(
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
        g.set_status(Status::Cancelled);
        g.row.finished_at = Some(now);
        g.row.expires_at = None;
        save(conn, &mut g, now)?;
        let others: Vec<String> = g
            .seats
            .iter()
            .filter_map(|s| s.user_id.clone())
            .filter(|u| u != user_id)
            .collect();
        emit(
            conn,
            game_id,
            others.iter().map(String::as_str),
            GameEvent::Cancelled(events::Closed {
                players: Players::of(&g),
            }),
            now,
        )?;
        load(conn, game_id)
    })
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
        g.set_status(Status::Expired);
        g.row.finished_at = Some(now);
        save(conn, &mut g, now)?;
        let seated: Vec<String> = g.seats.iter().filter_map(|s| s.user_id.clone()).collect();
        emit(
            conn,
            game_id,
            seated.iter().map(String::as_str),
            GameEvent::Expired(events::Closed {
                players: Players::of(&g),
            }),
            now,
        )?;
        Ok(true)
    });
    lost_race_is_nothing_to_do(r)
}

/// Creates a game with the caller seated; invitees are asked, open seats wait.
pub async fn create_game(
    games: &Games,
    caller: &UserId,
    new: NewGame,
    now: NaiveDateTime,
) -> Result<GameState, GameError> {
    let (settings, caller) = (games.settings, caller.to_owned());
    db::run(&games.pool, move |conn| {
        let game = create(conn, &settings, &caller, new, now)?;
        GameState::without_proposals(game)
    })
    .await
}

/// Takes an open seat (`seat`, or the first) or accepts the caller's
/// invitation; the third seat filled starts the game.
pub async fn join_game(
    games: &Games,
    caller: &UserId,
    game_id: &GameId,
    seat: Option<Player>,
    now: NaiveDateTime,
) -> Result<GameState, GameError> {
    let (settings, caller, id) = (games.settings, caller.to_owned(), game_id.to_owned());
    db::run(&games.pool, move |conn| {
        join(conn, &settings, &caller, &id, seat, now)?;
        load_state(conn, &id)
    })
    .await
}

/// The caller declines an invitation: the seat opens to anyone.
pub async fn decline_invitation(
    games: &Games,
    caller: &UserId,
    game_id: &GameId,
    now: NaiveDateTime,
) -> Result<GameState, GameError> {
    let (caller, id) = (caller.to_owned(), game_id.to_owned());
    db::run(&games.pool, move |conn| {
        GameState::without_proposals(decline(conn, &caller, &id, now)?)
    })
    .await
}

/// The creator cancels a game that has not started.
pub async fn cancel_game(
    games: &Games,
    caller: &UserId,
    game_id: &GameId,
    now: NaiveDateTime,
) -> Result<GameState, GameError> {
    let (caller, id) = (caller.to_owned(), game_id.to_owned());
    db::run(&games.pool, move |conn| {
        GameState::without_proposals(cancel(conn, &caller, &id, now)?)
    })
    .await
}

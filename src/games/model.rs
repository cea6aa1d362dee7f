//! A game as loaded from storage: its row, seats, actions, and the replayed rules state.

use crate::domain::{GameId, UserId};
use anyhow::Context as _;
use chrono::NaiveDateTime;

use crate::db::games::{ActionRow, GameRow, ProposalRow, SeatRow, SeatWithHolder, StoredGame};
use crate::db::ratings::RatingChangeRow;
use crate::db::{self, DbConnection};
use crate::rules::{
    Action, Alliance, Game, Illumination, Move, Options, Player, Position, StuckPiece,
};

use super::snapshot::{Snapshot, Standing};
use super::GameError;

pub use super::states::{ActionKind, ProposalStatus, SeatState, Status};

/// `first`, `middle`, `last`.
pub fn seat_name(p: Player) -> &'static str {
    p.name()
}

/// A seat as requests name it: its whole name only.
pub fn parse_seat_name(s: &str) -> Option<Player> {
    Player::ALL.into_iter().find(|p| p.name() == s)
}

pub fn parse_seat(s: &str) -> Option<Player> {
    match s {
        "first" | "f" => Some(Player::First),
        "middle" | "m" => Some(Player::Middle),
        "last" | "l" => Some(Player::Last),
        _ => None,
    }
}

#[derive(Debug, Clone)]
pub struct SeatInfo {
    pub seat: Player,
    pub user_id: Option<String>,
    pub username: Option<String>,
    pub display_name: Option<String>,
    pub state: SeatState,
    pub joined_at: Option<NaiveDateTime>,
    /// The engine level of a computer player in the seat.
    pub bot_level: Option<u8>,
    /// The holder's time zone (an IANA name), for weekends off.
    pub time_zone: Option<String>,
    /// When the holder's vacation ends, if one is under way.
    pub vacation_until: Option<NaiveDateTime>,
}

impl SeatInfo {
    /// The name to show: the account's username, else a recorded name.
    pub fn name(&self) -> Option<&str> {
        self.username.as_deref().or(self.display_name.as_deref())
    }

    /// A name recorded for a seat without an account (an imported game's
    /// players): a label, never to be presented as an account.
    pub fn label(&self) -> Option<&str> {
        self.display_name
            .as_deref()
            .filter(|_| self.username.is_none())
    }

    pub fn to_row(&self, game_id: &str) -> SeatRow {
        SeatRow {
            game_id: GameId::from(game_id),
            seat: seat_name(self.seat).to_owned(),
            user_id: self.user_id.as_deref().map(UserId::from),
            display_name: self.display_name.clone(),
            state: self.state,
            joined_at: self.joined_at,
        }
    }
}

/// A game with everything needed to judge the next action.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub row: GameRow,
    /// Always three, in turn order.
    pub seats: Vec<SeatInfo>,
    /// The game as the rules see it, repetition history (R31) included:
    /// taken up from the stored snapshot, so its `entries` hold only what
    /// happened since loading (see `load_history` for all of them).
    pub game: Game,
    /// Eliminations and the last move.
    pub standing: Standing,
    /// The creator's username.
    pub creator_name: Option<String>,
    /// What else was stored for the game when it was loaded.
    pub waiting: Waiting,
    /// The row's stamp as loaded (`db::games::StoredGame::stamp`; none
    /// on SQLite, or once changed here).
    pub row_stamp: Option<String>,
}

/// Whether premoves and alliance proposals may wait for a loaded game:
/// false means none did when it was loaded, sparing the queries for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Waiting {
    pub premoves: bool,
    pub proposals: bool,
}

impl Waiting {
    /// Nothing waits.
    pub const NONE: Waiting = Waiting {
        premoves: false,
        proposals: false,
    };

    /// Not known: look.
    pub const MAYBE: Waiting = Waiting {
        premoves: true,
        proposals: true,
    };
}

/// A game with every action, replayed from the start: `game.game.entries()`
/// and `actions` correspond one to one.
pub struct History {
    pub game: Loaded,
    pub actions: Vec<ActionRow>,
}

impl Loaded {
    pub fn status(&self) -> Status {
        self.row.status
    }

    /// Moves the game to `status`.
    pub fn set_status(&mut self, status: Status) {
        self.row.status = status;
    }

    pub fn seat(&self, p: Player) -> &SeatInfo {
        &self.seats[p.index()]
    }

    /// The seat `user_id` holds, if any (joined or invited).
    pub fn seat_of(&self, user_id: &str) -> Option<&SeatInfo> {
        self.seats
            .iter()
            .find(|s| s.user_id.as_deref() == Some(user_id))
    }

    /// The seat `user_id` plays in, or `NotAPlayer`.
    pub fn joined_seat(&self, user_id: &str) -> Result<Player, GameError> {
        self.seat_of(user_id)
            .filter(|s| s.state == SeatState::Joined)
            .map(|s| s.seat)
            .ok_or(GameError::NotAPlayer)
    }

    /// The seat `user_id` plays in, if they are still in this active game:
    /// `NotAPlayer`, `GameOver`, `State` (not started: `doing` is what
    /// waits for the start, e.g. "draws are offered") or `NotPlaying`.
    pub fn living_seat(&self, user_id: &str, doing: &str) -> Result<Player, GameError> {
        let seat = self.joined_seat(user_id)?;
        match self.status() {
            Status::Finished => return Err(GameError::GameOver),
            Status::Active => {}
            other => {
                return Err(GameError::State(format!(
                    "the game is {}; {doing} once it is active",
                    other.as_str()
                )))
            }
        }
        if !self.position().is_alive(seat) {
            return Err(GameError::Illegal(crate::rules::Illegal::new(
                crate::rules::IllegalKind::NotPlaying,
                "you are out of this game",
            )));
        }
        Ok(seat)
    }

    /// User ids of everyone who has joined.
    pub fn player_ids(&self) -> Vec<String> {
        self.seats
            .iter()
            .filter(|s| s.state == SeatState::Joined)
            .filter_map(|s| s.user_id.clone())
            .collect()
    }

    pub fn position(&self) -> &Position {
        self.game.position()
    }

    pub fn options(&self) -> Options {
        options_of(&self.row)
    }

    /// What to store as the game's snapshot.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            repetitions: self.game.repetitions().clone(),
            outcome: self.game.outcome(),
            standing: self.standing.clone(),
        }
    }

    /// The snapshot as stored.
    pub fn snapshot_text(&self) -> String {
        Snapshot::text_of(&self.game, &self.standing)
    }
}

pub fn options_of(row: &GameRow) -> Options {
    Options {
        stuck_piece: row.stuck_piece.parse().unwrap_or(StuckPiece::Promote),
        illumination: row.illumination.parse().unwrap_or(Illumination::Selective),
    }
}

/// The text stored for an action: a move in R33 notation, `ally:fm`, `resign:m`,
/// `timeout:l`, `draw:agreed` (the same tokens as game records).
pub fn action_notation(a: &Action) -> String {
    match a {
        Action::Move(m) => m.to_string(),
        Action::Alliance(al) => format!("ally:{al}"),
        Action::Resign(p) => format!("resign:{}", p.letter()),
        Action::TimeOut(p) => format!("timeout:{}", p.letter()),
        Action::DrawAgreed => "draw:agreed".to_owned(),
    }
}

pub fn action_kind(a: &Action) -> ActionKind {
    match a {
        Action::Move(_) => ActionKind::Move,
        Action::Alliance(_) => ActionKind::Alliance,
        Action::Resign(_) => ActionKind::Resign,
        Action::TimeOut(_) => ActionKind::TimeOut,
        Action::DrawAgreed => ActionKind::DrawAgreed,
    }
}

pub fn parse_action(s: &str) -> Option<Action> {
    let player = |t: &str| {
        let mut c = t.chars();
        let p = c.next().and_then(Player::from_letter)?;
        c.next().is_none().then_some(p)
    };
    if let Some(a) = s.strip_prefix("ally:") {
        return Alliance::parse(a).map(Action::Alliance);
    }
    if let Some(p) = s.strip_prefix("resign:") {
        return player(p).map(Action::Resign);
    }
    if s == "draw:agreed" {
        return Some(Action::DrawAgreed);
    }
    if let Some(p) = s.strip_prefix("timeout:") {
        return player(p).map(Action::TimeOut);
    }
    Move::parse(s).ok().map(Action::Move)
}

/// Loads a game: its row, seats and stored snapshot, without replaying
/// anything (a game stored before snapshots is replayed).
pub fn load(conn: &mut DbConnection, id: &str) -> Result<Loaded, GameError> {
    let found = find(conn, id, false)?;
    take_up(conn, found)
}

/// Loads a game for a change: takes its write lock first (see `db::games::lock_game`).
pub fn load_for_update(conn: &mut DbConnection, id: &str) -> Result<Loaded, GameError> {
    let found = find(conn, id, true)?;
    take_up(conn, found)
}

fn take_up(conn: &mut DbConnection, found: StoredGame) -> Result<Loaded, GameError> {
    let StoredGame {
        row,
        snapshot,
        creator: creator_name,
        premoves,
        proposals,
        seats,
        stamp,
    } = found;
    let id = row.id.to_string();
    let id = id.as_str();
    let Some(text) = snapshot else {
        return Ok(replay(conn, row, creator_name)?.game);
    };
    let snapshot = Snapshot::parse(&text, id)?;
    let start = start_of(&row)?;
    let current = Position::parse(&row.position)
        .with_context(|| format!("stored position of game {id}"))?
        .with_options(options_of(&row));
    let game = Game::resume(start, current, snapshot.outcome, snapshot.repetitions);
    let seats = match seats {
        Some(rows) => seat_infos(id, &rows)?,
        None => load_seats(conn, id)?,
    };
    Ok(Loaded {
        row,
        seats,
        game,
        standing: snapshot.standing,
        creator_name,
        waiting: Waiting {
            premoves,
            proposals,
        },
        row_stamp: stamp,
    })
}

/// Loads a game with all its actions, replayed from the start. A stored
/// snapshot or position that disagrees with the replay is an error naming
/// the game: the actions are the truth.
pub fn load_history(conn: &mut DbConnection, id: &str) -> Result<History, GameError> {
    // The row and the actions from one snapshot: a move stored between the
    // two reads would look like a disagreement.
    let (found, history) = db::consistent_read(conn, |conn| {
        let found = find(conn, id, false)?;
        let history = replay(conn, found.row.clone(), found.creator.clone())?;
        Ok::<_, GameError>((found, history))
    })?;
    let snapshot = found.snapshot;
    let g = &history.game;
    let replayed = g.game.position().to_string();
    if g.row.position != replayed {
        return Err(anyhow::anyhow!(
            "stored position of game {id} disagrees with a replay of its actions: {} against {replayed}",
            g.row.position
        )
        .into());
    }
    if let Some(text) = snapshot {
        if Snapshot::parse(&text, id)? != g.snapshot() {
            return Err(anyhow::anyhow!(
                "stored snapshot of game {id} disagrees with a replay of its actions"
            )
            .into());
        }
    }
    Ok(history)
}

fn find(conn: &mut DbConnection, id: &str, lock: bool) -> Result<StoredGame, GameError> {
    db::games::find_game(conn, id, lock)
        .map_err(|e| of_row(e, format!("game {id}")))?
        .ok_or(GameError::GameNotFound)
}

fn start_of(row: &GameRow) -> Result<Position, GameError> {
    Ok(Position::parse(&row.start_position)
        .with_context(|| format!("stored start position of game {}", row.id))?
        .with_options(options_of(row)))
}

/// Replays the game's actions from its start position.
fn replay(
    conn: &mut DbConnection,
    row: GameRow,
    creator_name: Option<String>,
) -> Result<History, GameError> {
    let id = row.id.to_string();
    let actions = db::games::actions(conn, &id)?;
    let mut game = Game::new(start_of(&row)?);
    let mut standing = Standing::default();
    for a in &actions {
        let action = parse_action(&a.notation).ok_or_else(|| {
            anyhow::anyhow!(
                "stored action {} of game {id} does not parse: {}",
                a.seq,
                a.notation
            )
        })?;
        let entry = game.act(action).map_err(|e| {
            anyhow::anyhow!(
                "stored action {} of game {id} is refused on replay: {e}",
                a.seq
            )
        })?;
        standing.record(a, entry);
    }
    let seats = load_seats(conn, &id)?;
    Ok(History {
        game: Loaded {
            row,
            seats,
            game,
            standing,
            creator_name,
            waiting: Waiting::MAYBE,
            row_stamp: None,
        },
        actions,
    })
}

/// A stored value that does not parse, as an error naming its row `what`;
/// other errors as they are.
pub fn of_row(e: diesel::result::Error, what: String) -> GameError {
    match e {
        diesel::result::Error::DeserializationError(why) => GameError::Internal(anyhow::anyhow!(
            "stored row of {what} does not parse: {why}"
        )),
        e => e.into(),
    }
}

/// The three seats of a game, in turn order.
pub fn load_seats(conn: &mut DbConnection, id: &str) -> Result<Vec<SeatInfo>, GameError> {
    let rows =
        db::games::seats(conn, id).map_err(|e| of_row(e, format!("the seats of game {id}")))?;
    seat_infos(id, &rows)
}

/// The three seats of game `game_id`, in turn order, from its seat rows (of
/// this game only). A seat row missing, or one that does not parse, is an
/// error naming it.
pub fn seat_infos(game_id: &str, rows: &[SeatWithHolder]) -> Result<Vec<SeatInfo>, GameError> {
    let mut seats: Vec<SeatInfo> = Vec::with_capacity(3);
    for p in Player::ALL {
        let (s, username, bot_level, time_zone, vacation_until) = rows
            .iter()
            .find(|(s, ..)| parse_seat(&s.seat) == Some(p))
            .ok_or_else(|| anyhow::anyhow!("game {game_id} has no stored seat {}", seat_name(p)))?;
        let state = s.state;
        seats.push(SeatInfo {
            seat: p,
            user_id: s.user_id.as_ref().map(|u| u.to_string()),
            username: username.clone(),
            display_name: s.display_name.clone(),
            state,
            joined_at: s.joined_at,
            time_zone: time_zone.clone(),
            vacation_until: *vacation_until,
            bot_level: bot_level
                .map(|l| {
                    u8::try_from(l)
                        .ok()
                        .filter(|l| (1..=5).contains(l))
                        .ok_or_else(|| {
                            anyhow::anyhow!(
                                "the holder of seat {} of game {game_id} has bot level {l}",
                                seat_name(p)
                            )
                        })
                })
                .transpose()?,
        });
    }
    Ok(seats)
}

/// A game as answered after a change or on reading: the game and its pending
/// alliance proposals.
pub struct GameState {
    pub game: Loaded,
    pub proposals: Vec<ProposalRow>,
    /// What a finished rated game did to its players' ratings.
    pub ratings: Vec<RatingChangeRow>,
    /// The standing draw offer (R36).
    pub draw_offer: Option<super::draws::DrawOffer>,
    pub time_control: super::clock::TimeControl,
    /// Each seat's clock, without a limit none.
    pub clocks: Option<super::timing::Clocks>,
}

impl GameState {
    /// A game that cannot have proposals (not started, or over).
    pub fn without_proposals(game: Loaded) -> Result<Self, GameError> {
        Ok(Self {
            time_control: game.time_control()?,
            clocks: game.clocks()?,
            game,
            proposals: Vec::new(),
            ratings: Vec::new(),
            draw_offer: None,
        })
    }
}

/// The game's alliance proposals still awaiting an answer.
pub fn pending_proposals(
    conn: &mut DbConnection,
    game_id: &str,
) -> Result<Vec<ProposalRow>, GameError> {
    Ok(db::games::proposals(conn, game_id)?
        .into_iter()
        .filter(|p| p.status == ProposalStatus::Pending)
        .collect())
}

/// The game and its pending proposals.
pub fn load_state(conn: &mut DbConnection, id: &str) -> Result<GameState, GameError> {
    let game = load(conn, id)?;
    state_of(conn, game)
}

/// The state of a loaded game: with its pending proposals and, once a
/// rated game finished, its rating changes.
pub fn state_of(conn: &mut DbConnection, game: Loaded) -> Result<GameState, GameError> {
    let id = game.row.id.to_string();
    let proposals = if game.waiting.proposals {
        pending_proposals(conn, &id)?
    } else {
        Vec::new()
    };
    let ratings = if game.row.rated && game.status() == Status::Finished {
        db::ratings::changes_of_game(conn, &id)
            .map_err(|e| of_row(e, format!("the rating changes of game {id}")))?
    } else {
        Vec::new()
    };
    let draw_offer = game.draw_offer()?;
    Ok(GameState {
        time_control: game.time_control()?,
        clocks: game.clocks()?,
        game,
        proposals,
        ratings,
        draw_offer,
    })
}

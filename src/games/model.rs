//! A game as loaded from storage: its row, seats, actions, and the replayed rules state.

use anyhow::Context as _;
use chrono::NaiveDateTime;

use crate::db::games::{ActionRow, GameRow, ProposalRow, SeatRow};
use crate::db::{self, DbConnection};
use crate::rules::{
    Action, Alliance, Game, Illumination, Move, Options, Player, Position, StuckPiece,
};

use super::GameError;

/// Life of a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Waiting for players to take seats or accept invitations.
    Open,
    Active,
    Finished,
    /// Called off by its creator before it started.
    Cancelled,
    /// Not filled within the time invitations and open seats last.
    Expired,
    /// Imported from a record that stops before the end: for study, takes no moves.
    Analysis,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Open => "open",
            Status::Active => "active",
            Status::Finished => "finished",
            Status::Cancelled => "cancelled",
            Status::Expired => "expired",
            Status::Analysis => "analysis",
        }
    }

    pub fn parse(s: &str) -> Option<Status> {
        Some(match s {
            "open" => Status::Open,
            "active" => Status::Active,
            "finished" => Status::Finished,
            "cancelled" => Status::Cancelled,
            "expired" => Status::Expired,
            "analysis" => Status::Analysis,
            _ => return None,
        })
    }
}

/// A seat before the game starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeatState {
    /// Anyone may take it.
    Open,
    /// Reserved for an invited user who has not answered.
    Invited,
    /// Taken.
    Joined,
}

impl SeatState {
    pub fn as_str(self) -> &'static str {
        match self {
            SeatState::Open => "open",
            SeatState::Invited => "invited",
            SeatState::Joined => "joined",
        }
    }

    pub fn parse(s: &str) -> Option<SeatState> {
        Some(match s {
            "open" => SeatState::Open,
            "invited" => SeatState::Invited,
            "joined" => SeatState::Joined,
            _ => return None,
        })
    }
}

/// `first`, `middle`, `last`.
pub fn seat_name(p: Player) -> &'static str {
    p.name()
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
            game_id: game_id.to_owned(),
            seat: seat_name(self.seat).to_owned(),
            user_id: self.user_id.clone(),
            display_name: self.display_name.clone(),
            state: self.state.as_str().to_owned(),
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
    pub actions: Vec<ActionRow>,
    /// The start position with every action replayed: the repetition history (R31)
    /// comes with it.
    pub game: Game,
    /// The creator's username.
    pub creator_name: Option<String>,
    /// `row.status`, parsed when the row was loaded; changed with `set_status`.
    pub(super) status: Status,
}

impl Loaded {
    pub fn status(&self) -> Status {
        self.status
    }

    /// Moves the game to `status` (the row and the parsed value alike).
    pub fn set_status(&mut self, status: Status) {
        self.status = status;
        self.row.status = status.as_str().to_owned();
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
}

pub fn options_of(row: &GameRow) -> Options {
    Options {
        stuck_piece: row.stuck_piece.parse().unwrap_or(StuckPiece::Promote),
        illumination: row.illumination.parse().unwrap_or(Illumination::Selective),
    }
}

/// The text stored for an action: a move in R33 notation, `ally:fm`, `resign:m`,
/// `timeout:l` (the same tokens as game records).
pub fn action_notation(a: &Action) -> String {
    match a {
        Action::Move(m) => m.to_string(),
        Action::Alliance(al) => format!("ally:{al}"),
        Action::Resign(p) => format!("resign:{}", p.letter()),
        Action::TimeOut(p) => format!("timeout:{}", p.letter()),
    }
}

pub fn action_kind(a: &Action) -> &'static str {
    match a {
        Action::Move(_) => "move",
        Action::Alliance(_) => "alliance",
        Action::Resign(_) => "resign",
        Action::TimeOut(_) => "timeout",
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
    if let Some(p) = s.strip_prefix("timeout:") {
        return player(p).map(Action::TimeOut);
    }
    Move::parse(s).ok().map(Action::Move)
}

/// Loads a game and replays its actions.
pub fn load(conn: &mut DbConnection, id: &str) -> Result<Loaded, GameError> {
    let row = db::games::find_game(conn, id)?.ok_or(GameError::GameNotFound)?;
    let status = Status::parse(&row.status).ok_or_else(|| {
        anyhow::anyhow!(
            "stored status of game {id} is not a status: {:?}",
            row.status
        )
    })?;
    let seats = load_seats(conn, id)?;
    let actions = db::games::actions(conn, id)?;
    let start = Position::parse(&row.start_position)
        .with_context(|| format!("stored start position of game {id}"))?
        .with_options(options_of(&row));
    let mut game = Game::new(start);
    for a in &actions {
        let action = parse_action(&a.notation).ok_or_else(|| {
            anyhow::anyhow!(
                "stored action {} of game {id} does not parse: {}",
                a.seq,
                a.notation
            )
        })?;
        game.act(action).map_err(|e| {
            anyhow::anyhow!(
                "stored action {} of game {id} is refused on replay: {e}",
                a.seq
            )
        })?;
    }
    let creator_name = match &row.created_by {
        Some(uid) => db::users::find_by_id(conn, uid)?.map(|u| u.username),
        None => None,
    };
    Ok(Loaded {
        row,
        seats,
        actions,
        game,
        creator_name,
        status,
    })
}

/// Loads a game for a change: takes its write lock first (see `db::games::lock_game`).
pub fn load_for_update(conn: &mut DbConnection, id: &str) -> Result<Loaded, GameError> {
    db::games::lock_game(conn, id)?;
    load(conn, id)
}

/// The three seats of a game, in turn order.
pub fn load_seats(conn: &mut DbConnection, id: &str) -> Result<Vec<SeatInfo>, GameError> {
    seat_infos(id, &db::games::seats(conn, id)?)
}

/// The three seats of game `game_id`, in turn order, from its seat rows (of
/// this game only). A seat row missing, or one that does not parse, is an
/// error naming it.
pub fn seat_infos(
    game_id: &str,
    rows: &[(SeatRow, Option<String>)],
) -> Result<Vec<SeatInfo>, GameError> {
    let mut seats: Vec<SeatInfo> = Vec::with_capacity(3);
    for p in Player::ALL {
        let (s, username) = rows
            .iter()
            .find(|(s, _)| parse_seat(&s.seat) == Some(p))
            .ok_or_else(|| anyhow::anyhow!("game {game_id} has no stored seat {}", seat_name(p)))?;
        let state = SeatState::parse(&s.state).ok_or_else(|| {
            anyhow::anyhow!(
                "stored state of seat {} of game {game_id} is not a seat state: {:?}",
                s.seat,
                s.state
            )
        })?;
        seats.push(SeatInfo {
            seat: p,
            user_id: s.user_id.clone(),
            username: username.clone(),
            display_name: s.display_name.clone(),
            state,
            joined_at: s.joined_at,
        });
    }
    Ok(seats)
}

/// A game as answered after a change or on reading: the game and its pending
/// alliance proposals.
pub struct GameState {
    pub game: Loaded,
    pub proposals: Vec<ProposalRow>,
}

impl GameState {
    /// A game that cannot have proposals (not started, or over).
    pub fn without_proposals(game: Loaded) -> Self {
        Self {
            game,
            proposals: Vec::new(),
        }
    }
}

/// The game's alliance proposals still awaiting an answer.
pub fn pending_proposals(
    conn: &mut DbConnection,
    game_id: &str,
) -> Result<Vec<ProposalRow>, GameError> {
    Ok(db::games::proposals(conn, game_id)?
        .into_iter()
        .filter(|p| p.status == "pending")
        .collect())
}

/// The game and its pending proposals.
pub fn load_state(conn: &mut DbConnection, id: &str) -> Result<GameState, GameError> {
    let game = load(conn, id)?;
    let proposals = pending_proposals(conn, id)?;
    Ok(GameState { game, proposals })
}

//! Listing games: filters and the "most urgent first" order, without replays.

use crate::db::games::{GameRow, ListKey};
use crate::db::{self, DbConnection};
use crate::domain::{GameId, UserId};
use crate::rules::{Action, Move, Player, Position};

use super::events::{GameResult, StoredEvent};
use super::model::{load, seat_name, SeatInfo, SeatState, Status};
use super::model::{load_history, load_state, GameState, History, Loaded};
use super::{GameError, Games};

/// A game in a list: what is needed to choose what to open next, without a replay.
#[derive(Debug, Clone)]
pub struct Listed {
    pub row: GameRow,
    pub seats: Vec<SeatInfo>,
    pub your_seat: Option<Player>,
    pub your_turn: bool,
    /// How it ended, from the row.
    pub result: Option<GameResult>,
    pub time_control: super::clock::TimeControl,
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
/// and, when more follow, the key of its last game.
fn list(
    conn: &mut DbConnection,
    user_id: &str,
    filter: &ListFilter,
    after: Option<&ListKey>,
    limit: usize,
) -> Result<(Vec<Listed>, Option<ListKey>), GameError> {
    let player_id = match &filter.player {
        Some(name) => match db::users::find_by_username(conn, &name.to_ascii_lowercase())? {
            Some(u) => Some(u.id),
            None => return Ok((Vec::new(), None)),
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
        player_id: player_id.map(UserId::into_string),
        with_open_seat: lobby,
    };
    // One row past the page tells whether more follow.
    let rows = db::games::list_games(conn, &query, after, limit as i64 + 1)?;
    let more = rows.len() > limit;
    let ids: Vec<String> = rows.iter().take(limit).map(|r| r.id.to_string()).collect();
    let seat_rows = db::games::seats_of_games(conn, &ids)?;
    let page = rows
        .into_iter()
        .take(limit)
        .map(|row| {
            let mine: Vec<_> = seat_rows
                .iter()
                .filter(|(s, ..)| s.game_id == row.id)
                .cloned()
                .collect();
            let seats = super::model::seat_infos(&row.id, &mine)?;
            let your_seat = seats
                .iter()
                .find(|s| s.user_id.as_deref() == Some(user_id) && s.state == SeatState::Joined)
                .map(|s| s.seat);
            let your_turn = row.status == Status::Active
                && your_seat.is_some_and(|p| row.to_move.as_deref() == Some(seat_name(p)));
            let result = stored_result(&row)?;
            Ok(Listed {
                time_control: super::timing::control_of(&row)?,
                row,
                seats,
                your_seat,
                your_turn,
                result,
            })
        })
        .collect::<Result<Vec<Listed>, GameError>>()?;
    let next = page.last().filter(|_| more).map(|l| ListKey {
        your_turn: l.your_turn,
        deadline: l.row.deadline,
        updated_at: l.row.updated_at,
        id: l.row.id.to_string(),
    });
    Ok((page, next))
}

/// One page of games for the caller (see `list`), starting after `after`;
/// the key to start the next page after, if there is one.
pub async fn list_games(
    games: &Games,
    caller: &UserId,
    filter: ListFilter,
    after: Option<ListKey>,
    limit: usize,
) -> Result<(Vec<Listed>, Option<ListKey>), GameError> {
    let caller = caller.to_owned();
    db::run(&games.pool, move |conn| {
        list(conn, &caller, &filter, after.as_ref(), limit)
    })
    .await
}

/// The game's version, from its row alone: every change to a game bumps it.
pub async fn version_of(games: &Games, game_id: &GameId) -> Result<i32, GameError> {
    let id = game_id.to_owned();
    db::run(&games.pool, move |conn| {
        db::games::version_of(conn, &id)?.ok_or(GameError::GameNotFound)
    })
    .await
}

/// A game and its pending proposals.
pub async fn game(games: &Games, game_id: &GameId) -> Result<GameState, GameError> {
    let id = game_id.to_owned();
    db::run(&games.pool, move |conn| load_state(conn, &id)).await
}

/// A position of a game, for a picture of it.
pub struct BoardAt {
    pub position: Position,
    /// The last move played up to it.
    pub last_move: Option<Move>,
    /// Who sits where (None for an open seat).
    pub names: [Option<String>; 3],
}

/// The game's position at `ply` (default: now).
pub async fn board_at(
    games: &Games,
    game_id: &GameId,
    ply: Option<u32>,
) -> Result<BoardAt, GameError> {
    let id = game_id.to_owned();
    let Some(n) = ply else {
        // Now: the stored position and last move, nothing replayed.
        let g = db::run(&games.pool, move |conn| load(conn, &id)).await?;
        let last_move = match &g.standing.last_move {
            Some(m) => Some(Move::parse(&m.notation).map_err(|e| {
                anyhow::anyhow!("stored last move of game {} does not parse: {e}", g.row.id)
            })?),
            None => None,
        };
        return Ok(BoardAt {
            position: *g.position(),
            last_move,
            names: names(&g),
        });
    };
    let h = db::run(&games.pool, move |conn| load_history(conn, &id)).await?;
    let g = h.game;
    // Positions in order, each with the move that led to it.
    let mut positions = vec![(*g.game.start(), None)];
    for e in g.game.entries() {
        let mv = match e.action {
            Action::Move(m) => Some(m),
            _ => positions.last().and_then(|(_, m)| *m),
        };
        positions.push((e.position, mv));
    }
    let (position, last_move) = *positions
        .iter()
        .rev()
        .find(|(p, _)| p.ply() == n)
        .ok_or(GameError::NoSuchPly(n))?;
    Ok(BoardAt {
        position,
        last_move,
        names: names(&g),
    })
}

fn names(g: &Loaded) -> [Option<String>; 3] {
    [0, 1, 2].map(|i| g.seats[i].name().map(str::to_owned))
}

/// The game with every action, replayed (and checked against its snapshot).
pub async fn history(games: &Games, game_id: &GameId) -> Result<History, GameError> {
    let id = game_id.to_owned();
    db::run(&games.pool, move |conn| load_history(conn, &id)).await
}

/// One of a user's events.
#[derive(Debug, Clone)]
pub struct EventEntry {
    /// Time-ordered.
    pub id: String,
    pub event: StoredEvent,
    pub created_at: chrono::NaiveDateTime,
    /// Where a stream stands after this event.
    pub cursor: db::live::Cursor,
}

/// How the game ended, from its row; a stored result that does not parse is
/// an error naming the game.
pub fn stored_result(row: &GameRow) -> Result<Option<GameResult>, GameError> {
    match &row.result {
        Some(text) => Ok(Some(serde_json::from_str(text).map_err(|e| {
            anyhow::anyhow!("stored result of game {} does not parse: {e}", row.id)
        })?)),
        None => Ok(None),
    }
}

/// The caller's events, oldest first (in the order their changes were
/// committed), after the event `after` (which must be one of theirs). A
/// stored event that does not parse as its type is an error naming it.
pub async fn events_of(
    games: &Games,
    caller: &UserId,
    after: Option<String>,
    game_id: Option<String>,
    limit: i64,
) -> Result<Vec<EventEntry>, GameError> {
    let caller = caller.to_owned();
    db::run(&games.pool, move |conn| {
        let cursor = match after {
            Some(after) => event_cursor(conn, &caller, &after)?,
            None => 0,
        };
        entries_after(conn, &caller, cursor, game_id.as_deref(), limit)
    })
    .await
}

/// The caller's events after the stream position `cursor`, in stream order
/// (of one game, if given), each parsed; a stored event that does not parse
/// is an error naming it.
pub fn entries_after(
    conn: &mut db::DbConnection,
    caller: &str,
    cursor: db::live::Cursor,
    game_id: Option<&str>,
    limit: i64,
) -> Result<Vec<EventEntry>, GameError> {
    db::live::events_after(conn, caller, cursor, game_id, limit)?
        .into_iter()
        .map(|(cursor, row)| entry(cursor, row))
        .collect()
}

/// The stream position just after the caller's event `event_id`; an id that
/// is not one of the caller's events is refused (field `after`).
pub fn event_cursor(
    conn: &mut db::DbConnection,
    caller: &str,
    event_id: &str,
) -> Result<db::live::Cursor, GameError> {
    db::live::cursor_of(conn, caller, event_id)?.ok_or_else(|| {
        GameError::invalid(
            "after",
            "unknown-event",
            "is not the id of one of your events",
        )
    })
}

/// A stored event as listed; one that does not parse is an error naming it.
fn entry(cursor: db::live::Cursor, row: db::games::EventRow) -> Result<EventEntry, GameError> {
    Ok(EventEntry {
        event: StoredEvent::parse(&row)?,
        id: row.id.into_string(),
        created_at: row.created_at,
        cursor,
    })
}

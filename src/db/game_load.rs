//! Loading a game's row to play or view it: with its snapshot, its
//! creator's name, whether premoves or proposals wait and, on PostgreSQL,
//! its seats, in one statement.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::games::{lock_game, GameRow, SeatRow, SeatWithHolder};
use super::schema::{alliance_proposals, games, premoves, users};
use super::DbConnection;
use crate::domain::UserId;
use crate::games::states::{ProposalStatus, SeatState};

/// A game's row as loaded to play or view it.
pub struct StoredGame {
    pub row: GameRow,
    /// See `games::snapshot`.
    pub snapshot: Option<String>,
    /// The creator's username.
    pub creator: Option<String>,
    /// Whether any premoves are stored for the game.
    pub premoves: bool,
    /// Whether any of its alliance proposals awaits an answer.
    pub proposals: bool,
    /// Its seats with their holders, where the backend read them with the
    /// row (PostgreSQL); else they are read apart (`seats`).
    pub seats: Option<Vec<SeatWithHolder>>,
    /// The stamp of what was read (PostgreSQL; [`stamp_of_g`]): the `xmin`
    /// of the game's row, of its seats' rows and their holders' accounts,
    /// and of its creator's account, each the transaction that wrote the
    /// row last. Every write of a row changes its `xmin`, even one that
    /// changes no column, so a write guarded by the stamp (`db::journal`)
    /// finds out whether anything it was read with was written since.
    pub stamp: Option<String>,
}

/// The stamp of game `g` (see [`StoredGame::stamp`]) as an SQL expression:
/// the `xmin` of its row, then of each seat's row and its holder's account
/// (in seat order), then of its creator's account. The read and the guarded
/// write use this same text.
macro_rules! stamp_of_g {
    () => {
        "(g.xmin::text || '/' || COALESCE(( \
             SELECT string_agg(s.xmin::text || ':' || COALESCE(( \
                                   SELECT u.xmin::text FROM users u WHERE u.id = s.user_id), '-'), \
                               ',' ORDER BY s.seat) \
             FROM game_seats s WHERE s.game_id = g.id), '') || '/' || COALESCE(( \
             SELECT c.xmin::text FROM users c WHERE c.id = g.created_by), '-'))"
    };
}
pub(super) use stamp_of_g;

/// The game's row, its stored snapshot, its creator's name and whether
/// premoves or proposals wait, in one statement (on PostgreSQL with its
/// seats). With `lock`, the game's write lock is taken first and held to
/// the end of the transaction (see `lock_game`): on PostgreSQL by the same
/// statement (`FOR NO KEY UPDATE`, the lock an update of the row takes).
pub fn find_game(conn: &mut DbConnection, id: &str, lock: bool) -> QueryResult<Option<StoredGame>> {
    if let DbConnection::Postgres(c) = conn {
        return find_game_with_seats(c, id, lock);
    }
    if lock {
        lock_game(conn, id)?;
    }
    type Found = (GameRow, Option<String>, Option<String>, bool, bool);
    let found: Option<Found> = games::table
        .find(id)
        .select((
            GameRow::as_select(),
            games::snapshot,
            users::table
                .filter(users::id.nullable().eq(games::created_by))
                .select(users::username)
                .single_value(),
            diesel::dsl::exists(premoves::table.filter(premoves::game_id.eq(games::id))),
            diesel::dsl::exists(
                alliance_proposals::table
                    .filter(alliance_proposals::game_id.eq(games::id))
                    .filter(alliance_proposals::status.eq(ProposalStatus::Pending)),
            ),
        ))
        .first(conn)
        .optional()?;
    Ok(
        found.map(|(row, snapshot, creator, premoves, proposals)| StoredGame {
            row,
            snapshot,
            creator,
            premoves,
            proposals,
            seats: None,
            stamp: None,
        }),
    )
}

/// [`find_game`] on PostgreSQL: the row and its seats (as a JSON array of
/// arrays, one per seat) in one prepared statement.
fn find_game_with_seats(
    c: &mut diesel::PgConnection,
    id: &str,
    lock: bool,
) -> QueryResult<Option<StoredGame>> {
    use diesel::sql_types::{Bool, Nullable, Text};
    macro_rules! select {
        ($lock:literal) => {
            concat!(
                "SELECT g.*, ",
                stamp_of_g!(),
                " AS stamp, \
                    (SELECT username FROM users WHERE id = g.created_by) AS creator_name, \
                    EXISTS (SELECT 1 FROM premoves p WHERE p.game_id = g.id) AS premoves_wait, \
                    EXISTS (SELECT 1 FROM alliance_proposals a \
                            WHERE a.game_id = g.id AND a.status = $2) AS proposals_wait, \
                    (SELECT json_agg(json_build_array(s.seat, s.user_id, s.display_name, \
                                s.state, s.joined_at, u.username, u.bot_level, u.time_zone, \
                                u.vacation_until))::text \
                     FROM game_seats s LEFT JOIN users u ON u.id = s.user_id \
                     WHERE s.game_id = g.id) AS seats_json \
                 FROM games g WHERE g.id = $1",
                $lock
            )
        };
    }
    #[derive(QueryableByName)]
    struct Found {
        #[diesel(embed)]
        game: GameRow,
        #[diesel(sql_type = Nullable<Text>)]
        snapshot: Option<String>,
        #[diesel(sql_type = Nullable<Text>)]
        creator_name: Option<String>,
        #[diesel(sql_type = Bool)]
        premoves_wait: bool,
        #[diesel(sql_type = Bool)]
        proposals_wait: bool,
        #[diesel(sql_type = Nullable<Text>)]
        seats_json: Option<String>,
        #[diesel(sql_type = Text)]
        stamp: String,
    }
    type SeatJson = (
        String,
        Option<String>,
        Option<String>,
        String,
        Option<NaiveDateTime>,
        Option<String>,
        Option<i32>,
        Option<String>,
        Option<NaiveDateTime>,
    );
    let text = if lock {
        select!(" FOR NO KEY UPDATE OF g")
    } else {
        select!("")
    };
    let found: Option<Found> = super::prepared::Sql::new(text)
        .bind::<Text, _>(id)
        .bind::<Text, _>(ProposalStatus::Pending)
        .get_result(c)
        .optional()?;
    let Some(f) = found else {
        return Ok(None);
    };
    let unreadable = |what: String| {
        diesel::result::Error::DeserializationError(
            format!("the seats of game {id} do not read: {what}").into(),
        )
    };
    let listed: Vec<SeatJson> = match &f.seats_json {
        Some(text) => serde_json::from_str(text).map_err(|e| unreadable(e.to_string()))?,
        None => Vec::new(),
    };
    let mut seats = Vec::with_capacity(listed.len());
    for (seat, user, display_name, state, joined_at, username, bot, zone, until) in listed {
        let state = SeatState::parse(&state)
            .ok_or_else(|| unreadable(format!("seat {seat} has the state {state:?}")))?;
        let row = SeatRow {
            game_id: f.game.id.clone(),
            seat,
            user_id: user.map(UserId::from),
            display_name,
            state,
            joined_at,
        };
        seats.push((row, username, bot, zone, until));
    }
    Ok(Some(StoredGame {
        row: f.game,
        snapshot: f.snapshot,
        creator: f.creator_name,
        premoves: f.premoves_wait,
        proposals: f.proposals_wait,
        seats: Some(seats),
        stamp: Some(f.stamp),
    }))
}

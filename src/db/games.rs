//! Queries on games, their seats, actions, alliance proposals and the event outbox.

use crate::domain::{EventId, GameId, ProposalId, UserId};
use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::schema::{alliance_proposals, game_actions, game_events, game_seats, games, users};
use super::DbConnection;
use crate::games::states::{ActionKind, ProposalStatus, SeatState, Status};

/// A game's row without its snapshot (which only loading a game for play or
/// view reads: see `find_game`).
#[derive(
    Debug, Clone, Queryable, QueryableByName, Selectable, Insertable, Identifiable, AsChangeset,
)]
#[diesel(table_name = games)]
#[diesel(treat_none_as_null = true)]
pub struct GameRow {
    pub id: GameId,
    pub created_by: Option<UserId>,
    pub status: Status,
    pub days_per_move: Option<i32>,
    pub stuck_piece: String,
    pub illumination: String,
    pub allies: Option<String>,
    pub start_position: String,
    pub position: String,
    pub ply: i32,
    pub seq: i32,
    pub version: i32,
    pub to_move: Option<String>,
    pub result: Option<String>,
    pub deadline: Option<NaiveDateTime>,
    pub reminded_seq: Option<i32>,
    pub expires_at: Option<NaiveDateTime>,
    pub imported: bool,
    /// Whether the result changes the players' ratings.
    pub rated: bool,
    /// The standing draw offer, as JSON (see `games::draws`).
    pub draw_offer: Option<String>,
    /// The time control, as JSON (see `games::clock::TimeControl`).
    pub time_control: String,
    /// Saturdays and Sundays in the player's own zone do not count.
    pub pause_on_weekends: bool,
    /// Whether vacations stop the players' clocks.
    pub vacation: bool,
    /// Each seat's clock, as JSON (see `games::timing`).
    pub clocks: Option<String>,
    pub created_at: NaiveDateTime,
    pub started_at: Option<NaiveDateTime>,
    pub finished_at: Option<NaiveDateTime>,
    pub updated_at: NaiveDateTime,
}

#[derive(Debug, Clone, Queryable, Insertable, AsChangeset)]
#[diesel(table_name = game_seats)]
#[diesel(treat_none_as_null = true)]
pub struct SeatRow {
    pub game_id: GameId,
    pub seat: String,
    pub user_id: Option<UserId>,
    pub display_name: Option<String>,
    pub state: SeatState,
    pub joined_at: Option<NaiveDateTime>,
}

#[derive(Debug, Clone, Queryable, Insertable)]
#[diesel(table_name = game_actions)]
pub struct ActionRow {
    pub game_id: GameId,
    pub seq: i32,
    pub ply: Option<i32>,
    pub kind: ActionKind,
    pub notation: String,
    pub seat: Option<String>,
    pub user_id: Option<UserId>,
    pub position_after: String,
    pub effects: String,
    pub created_at: NaiveDateTime,
    /// Played by the server from the player's premoves.
    pub premove: bool,
}

#[derive(Debug, Clone, Queryable, Insertable)]
#[diesel(table_name = alliance_proposals)]
pub struct ProposalRow {
    pub id: ProposalId,
    pub game_id: GameId,
    pub from_seat: String,
    pub to_seat: String,
    pub status: ProposalStatus,
    pub created_at: NaiveDateTime,
    pub resolved_at: Option<NaiveDateTime>,
}

/// An event as written; its `stream_order` is set by the database (see
/// `db::live`).
#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = game_events)]
pub struct EventRow {
    pub id: EventId,
    pub game_id: GameId,
    pub event_type: String,
    pub user_id: UserId,
    pub payload: String,
    pub created_at: NaiveDateTime,
}

pub fn insert_game(conn: &mut DbConnection, game: &GameRow) -> QueryResult<()> {
    diesel::insert_into(games::table)
        .values(game)
        .execute(conn)
        .map(drop)
}

/// The game's version, if there is such a game.
pub fn version_of(conn: &mut DbConnection, id: &str) -> QueryResult<Option<i32>> {
    games::table
        .find(id)
        .select(games::version)
        .first(conn)
        .optional()
}

pub use super::game_load::{find_game, StoredGame};

/// Stores a game's snapshot where none is stored yet (a game from before
/// snapshots, replayed once); false if one is there already.
pub fn fill_snapshot(conn: &mut DbConnection, id: &str, snapshot: &str) -> QueryResult<bool> {
    let n = diesel::update(
        games::table
            .filter(games::id.eq(id))
            .filter(games::snapshot.is_null()),
    )
    .set(games::snapshot.eq(snapshot))
    .execute(conn)?;
    Ok(n == 1)
}

/// Up to `limit` ids of games without a stored snapshot.
pub fn games_without_snapshot(conn: &mut DbConnection, limit: i64) -> QueryResult<Vec<String>> {
    games::table
        .filter(games::snapshot.is_null())
        .select(games::id)
        .limit(limit)
        .load(conn)
}

/// Takes the game's write lock for the rest of the transaction: a row lock on
/// PostgreSQL; on SQLite the database write lock, taken before anything is read, so
/// two writers queue instead of deadlocking on a lock upgrade.
pub fn lock_game(conn: &mut DbConnection, id: &str) -> QueryResult<()> {
    diesel::update(games::table.find(id))
        .set(games::version.eq(games::version))
        .execute(conn)
        .map(drop)
}

/// Writes game `id`'s row without changing it, on PostgreSQL, which changes
/// its stamp (`StoredGame::stamp`). A change of what a move must do that
/// keeps the game's version (storing premoves) calls it, so that a move
/// read before the change cannot be stored without seeing it
/// (`db::journal`). Nothing on SQLite, where a move is read and written in
/// one transaction.
pub fn touch(conn: &mut DbConnection, id: &str) -> QueryResult<()> {
    match conn {
        DbConnection::Postgres(_) => lock_game(conn, id),
        DbConnection::Sqlite(_) => Ok(()),
    }
}

/// Writes `game` if nobody changed it since it was read at `expected_version`;
/// returns false when someone did (another request or server process won).
/// Saves the game row with its snapshot and the account to move (see
/// `games.to_move_user`), and first inserts `action` if one is given: on
/// PostgreSQL in the same statement, one round trip. Its unique keys refuse
/// an action recorded first by someone else (an error). Both statements
/// are prepared once per connection (`db::prepared`).
pub fn update_game_if_version(
    conn: &mut DbConnection,
    game: &GameRow,
    snapshot: &str,
    to_move_user: Option<&str>,
    expected_version: i32,
    action: Option<&ActionRow>,
) -> QueryResult<bool> {
    use super::prepared::Sql;
    use diesel::sql_types::{Bool, Integer, Nullable, Text, Timestamp};
    const UPDATE: &str = "UPDATE games SET $1, snapshot = $2, to_move_user = $3 \
                          WHERE id = $4 AND version = $5";
    const INSERT: &str = "INSERT INTO game_actions (game_id, seq, ply, kind, notation, seat, \
                          user_id, position_after, effects, created_at, premove) \
                          VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)";
    const WITH_ACTION: &str = "WITH action AS ( \
             INSERT INTO game_actions (game_id, seq, ply, kind, notation, seat, user_id, \
                                       position_after, effects, created_at, premove) \
             VALUES ($6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)) \
         UPDATE games SET $1, snapshot = $2, to_move_user = $3 WHERE id = $4 AND version = $5";
    macro_rules! update {
        ($text:expr) => {
            Sql::new($text)
                .fragment(game.as_changeset())
                .bind::<Text, _>(snapshot)
                .bind::<Nullable<Text>, _>(to_move_user)
                .bind::<Text, _>(game.id.as_str())
                .bind::<Integer, _>(expected_version)
        };
    }
    // The action's values, as the next eleven parameters of `$sql`.
    macro_rules! action {
        ($sql:expr, $a:expr) => {
            $sql.bind::<Text, _>($a.game_id.as_str())
                .bind::<Integer, _>($a.seq)
                .bind::<Nullable<Integer>, _>($a.ply)
                .bind::<Text, _>($a.kind)
                .bind::<Text, _>($a.notation.as_str())
                .bind::<Nullable<Text>, _>($a.seat.as_deref())
                .bind::<Nullable<Text>, _>($a.user_id.as_ref().map(|u| u.as_str()))
                .bind::<Text, _>($a.position_after.as_str())
                .bind::<Text, _>($a.effects.as_str())
                .bind::<Timestamp, _>($a.created_at)
                .bind::<Bool, _>($a.premove)
        };
    }
    let n = match (conn, action) {
        (DbConnection::Postgres(c), Some(a)) => action!(update!(WITH_ACTION), a).execute(c)?,
        (DbConnection::Postgres(c), None) => update!(UPDATE).execute(c)?,
        (DbConnection::Sqlite(c), action) => {
            if let Some(a) = action {
                action!(Sql::new(INSERT), a).execute(c)?;
            }
            update!(UPDATE).execute(c)?
        }
    };
    if n == 1 {
        super::live::announce(super::live::Topic::Game(game.id.to_string()));
    }
    Ok(n == 1)
}

pub fn insert_seat(conn: &mut DbConnection, seat: &SeatRow) -> QueryResult<()> {
    diesel::insert_into(game_seats::table)
        .values(seat)
        .execute(conn)
        .map(drop)
}

pub fn update_seat(conn: &mut DbConnection, seat: &SeatRow) -> QueryResult<()> {
    diesel::update(
        game_seats::table
            .filter(game_seats::game_id.eq(&seat.game_id))
            .filter(game_seats::seat.eq(&seat.seat)),
    )
    .set(seat)
    .execute(conn)
    .map(drop)
}

/// A seat with its holder's username and, for a computer player, its level.
/// A seat, and its holder's username, bot level, time zone and vacation end.
pub type SeatWithHolder = (
    SeatRow,
    Option<String>,
    Option<i32>,
    Option<String>,
    Option<NaiveDateTime>,
);

/// Seats of a game with the usernames of their holders.
pub fn seats(conn: &mut DbConnection, game_id: &str) -> QueryResult<Vec<SeatWithHolder>> {
    game_seats::table
        .left_join(users::table.on(game_seats::user_id.eq(users::id.nullable())))
        .filter(game_seats::game_id.eq(game_id))
        .select((
            game_seats::all_columns,
            users::username.nullable(),
            users::bot_level.nullable(),
            users::time_zone.nullable(),
            users::vacation_until.nullable(),
        ))
        .load(conn)
}

pub fn actions(conn: &mut DbConnection, game_id: &str) -> QueryResult<Vec<ActionRow>> {
    game_actions::table
        .filter(game_actions::game_id.eq(game_id))
        .order(game_actions::seq.asc())
        .load(conn)
}

/// The game's last move, if it has one.
pub fn last_move(conn: &mut DbConnection, game_id: &str) -> QueryResult<Option<ActionRow>> {
    game_actions::table
        .filter(game_actions::game_id.eq(game_id))
        .filter(game_actions::kind.eq(ActionKind::Move))
        .order(game_actions::seq.desc())
        .first(conn)
        .optional()
}

/// The move stored for `ply`, if there is one.
pub fn move_at_ply(
    conn: &mut DbConnection,
    game_id: &str,
    ply: i32,
) -> QueryResult<Option<ActionRow>> {
    game_actions::table
        .filter(game_actions::game_id.eq(game_id))
        .filter(game_actions::ply.eq(ply))
        .first(conn)
        .optional()
}

pub fn insert_action(conn: &mut DbConnection, action: &ActionRow) -> QueryResult<()> {
    diesel::insert_into(game_actions::table)
        .values(action)
        .execute(conn)
        .map(drop)
}

/// The ids of games where `user_id` holds a seat (joined, invited or declined).
pub fn game_ids_of_user(conn: &mut DbConnection, user_id: &str) -> QueryResult<Vec<String>> {
    game_seats::table
        .filter(game_seats::user_id.eq(user_id))
        .select(game_seats::game_id)
        .load(conn)
}

/// Which games a list shows, in database terms.
pub struct GameListQuery {
    /// The caller: "your turn" is theirs.
    pub user_id: String,
    /// Only games where the caller holds a seat.
    pub mine: bool,
    pub status: Option<String>,
    /// Only games where it is the caller's move.
    pub my_turn: bool,
    /// Only games where this user holds a seat.
    pub player_id: Option<String>,
    /// Only games with a seat anyone may take.
    pub with_open_seat: bool,
}

/// One page of games, most urgent first: the caller's own moves, then by
/// deadline (none last), then the most recently changed. All filtering,
/// ordering and paging happen in the database.
pub fn list_games(
    conn: &mut DbConnection,
    q: &GameListQuery,
    after: Option<&ListKey>,
    limit: i64,
) -> QueryResult<Vec<GameRow>> {
    use diesel::dsl::exists;
    // The games of a player, as a set the database finds through the seats'
    // user index (a correlated EXISTS would be tried against every game).
    let holds_seat = |uid: String| {
        games::id.eq_any(
            game_seats::table
                .filter(game_seats::user_id.eq(uid))
                .select(game_seats::game_id),
        )
    };
    // Set for active games only, from the seat to move; never NULL here,
    // so its negation below means what it says.
    let your_turn = || {
        games::to_move_user
            .is_not_null()
            .and(games::to_move_user.eq(q.user_id.clone()).assume_not_null())
    };
    let mut query = games::table.into_boxed();
    if q.mine {
        query = query.filter(holds_seat(q.user_id.clone()));
    }
    if let Some(status) = &q.status {
        query = query.filter(games::status.eq(status.clone()));
    }
    if q.my_turn {
        query = query.filter(your_turn());
    }
    if let Some(player) = &q.player_id {
        query = query.filter(holds_seat(player.clone()));
    }
    if q.with_open_seat {
        query = query.filter(exists(
            game_seats::table
                .filter(game_seats::game_id.eq(games::id))
                .filter(game_seats::state.eq("open")),
        ));
    }
    if let Some(k) = after {
        // Strictly after `k` in the order below, spelled out per component so
        // each branch is a plain comparison the database can use.
        let (updated_at, id) = (k.updated_at, k.id.clone());
        let tail = move || {
            games::updated_at.lt(updated_at).or(games::updated_at
                .eq(updated_at)
                .and(games::id.gt(id.clone())))
        };
        let same_turn_after: Box<
            dyn BoxableExpression<games::table, _, SqlType = diesel::sql_types::Bool>,
        > = match k.deadline {
            Some(d) => Box::new(
                games::deadline.is_null().or(games::deadline
                    .assume_not_null()
                    .gt(d)
                    .or(games::deadline.assume_not_null().eq(d).and(tail()))),
            ),
            None => Box::new(games::deadline.is_null().and(tail())),
        };
        query = if k.your_turn {
            query.filter(diesel::dsl::not(your_turn()).or(same_turn_after))
        } else {
            query.filter(diesel::dsl::not(your_turn()).and(same_turn_after))
        };
    }
    // Most urgent first: the caller's turn, then the nearest deadline. With
    // `my_turn` every game listed is the caller's turn, and the database
    // is spared computing it again for each one to sort by.
    let query = if q.my_turn {
        query.order(games::deadline.is_null().asc())
    } else {
        query
            .order(your_turn().desc())
            .then_order_by(games::deadline.is_null().asc())
    };
    // The page's ids first, from the sort keys alone: covering indexes on
    // the seats and the games answer that without reading a table, however
    // many games the player has (sorting their whole rows read each one).
    // Then the page's rows, put in that order.
    let page: Vec<GameId> = query
        .then_order_by(games::deadline.asc())
        .then_order_by(games::updated_at.desc())
        .then_order_by(games::id.asc())
        .select(games::id)
        .limit(limit)
        .load(conn)?;
    let mut rows: Vec<GameRow> = games::table
        .filter(games::id.eq_any(&page))
        .select(GameRow::as_select())
        .load(conn)?;
    rows.sort_by_key(|r| page.iter().position(|id| *id == r.id));
    Ok(rows)
}

/// Where a page of the game list ends: the sort key of its last game, which
/// the next page starts strictly after. Games that change meanwhile are
/// neither skipped nor repeated: each is listed where its key now puts it,
/// and a game whose key did not change keeps its place relative to the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListKey {
    pub your_turn: bool,
    pub deadline: Option<NaiveDateTime>,
    pub updated_at: NaiveDateTime,
    pub id: String,
}

/// The seats of these games, with the seated users' names.
pub fn seats_of_games(
    conn: &mut DbConnection,
    game_ids: &[String],
) -> QueryResult<Vec<SeatWithHolder>> {
    game_seats::table
        .left_join(users::table.on(game_seats::user_id.eq(users::id.nullable())))
        .filter(game_seats::game_id.eq_any(game_ids))
        .select((
            game_seats::all_columns,
            users::username.nullable(),
            users::bot_level.nullable(),
            users::time_zone.nullable(),
            users::vacation_until.nullable(),
        ))
        .load(conn)
}

/// Active games whose player to move is out of time at `now`.
pub fn overdue_games(
    conn: &mut DbConnection,
    now: NaiveDateTime,
    limit: i64,
) -> QueryResult<Vec<String>> {
    games::table
        .filter(games::status.eq("active"))
        .filter(games::deadline.le(now))
        .select(games::id)
        .limit(limit)
        .load(conn)
}

/// Active games with a deadline before `horizon` (candidates for a reminder).
pub fn games_due_before(
    conn: &mut DbConnection,
    horizon: NaiveDateTime,
    limit: i64,
) -> QueryResult<Vec<GameRow>> {
    games::table
        .filter(games::status.eq("active"))
        .filter(games::deadline.le(horizon))
        .select(GameRow::as_select())
        .limit(limit)
        .load(conn)
}

/// Open games whose invitations and open seats have lapsed at `now`.
pub fn lapsed_open_games(
    conn: &mut DbConnection,
    now: NaiveDateTime,
    limit: i64,
) -> QueryResult<Vec<String>> {
    games::table
        .filter(games::status.eq("open"))
        .filter(games::expires_at.le(now))
        .select(games::id)
        .limit(limit)
        .load(conn)
}

pub fn insert_proposal(conn: &mut DbConnection, p: &ProposalRow) -> QueryResult<()> {
    diesel::insert_into(alliance_proposals::table)
        .values(p)
        .execute(conn)
        .map(drop)
}

pub fn proposals(conn: &mut DbConnection, game_id: &str) -> QueryResult<Vec<ProposalRow>> {
    alliance_proposals::table
        .filter(alliance_proposals::game_id.eq(game_id))
        .order(alliance_proposals::created_at.asc())
        .load(conn)
}

/// Moves a pending proposal to `status`; false if it was no longer pending.
pub fn resolve_proposal(
    conn: &mut DbConnection,
    id: &str,
    status: &str,
    now: NaiveDateTime,
) -> QueryResult<bool> {
    let n = diesel::update(
        alliance_proposals::table
            .filter(alliance_proposals::id.eq(id))
            .filter(alliance_proposals::status.eq(ProposalStatus::Pending)),
    )
    .set((
        alliance_proposals::status.eq(status),
        alliance_proposals::resolved_at.eq(Some(now)),
    ))
    .execute(conn)?;
    Ok(n == 1)
}

/// Lapses every pending proposal of a game.
pub fn lapse_proposals(
    conn: &mut DbConnection,
    game_id: &str,
    now: NaiveDateTime,
) -> QueryResult<usize> {
    diesel::update(
        alliance_proposals::table
            .filter(alliance_proposals::game_id.eq(game_id))
            .filter(alliance_proposals::status.eq(ProposalStatus::Pending)),
    )
    .set((
        alliance_proposals::status.eq(ProposalStatus::Lapsed),
        alliance_proposals::resolved_at.eq(Some(now)),
    ))
    .execute(conn)
}

/// Inserts events in one statement.
pub fn insert_events(conn: &mut DbConnection, events: &[EventRow]) -> QueryResult<()> {
    if events.is_empty() {
        return Ok(());
    }
    // Batch inserts are written per backend (a connection of either kind
    // cannot build one).
    let insert = diesel::insert_into(game_events::table).values(events);
    match conn {
        DbConnection::Postgres(c) => insert.execute(c),
        DbConnection::Sqlite(c) => insert.execute(c),
    }
    .map(drop)
}

/// When the games `user_id` created (or imported) since `since` were created.
pub fn created_by_since(
    conn: &mut DbConnection,
    user_id: &str,
    since: NaiveDateTime,
) -> QueryResult<Vec<NaiveDateTime>> {
    games::table
        .filter(games::created_by.eq(user_id))
        .filter(games::created_at.gt(since))
        .select(games::created_at)
        .load(conn)
}

/// How many seats `user_id` has taken in games not yet over.
/// The games not yet over that `user_id` has joined and a computer player sits in.
pub fn unfinished_bot_games_of(conn: &mut DbConnection, user_id: &str) -> QueryResult<usize> {
    use diesel::dsl::exists;
    let bots = diesel::alias!(game_seats as bot_seats);
    game_seats::table
        .inner_join(games::table)
        .filter(game_seats::user_id.eq(user_id))
        .filter(game_seats::state.eq(SeatState::Joined))
        .filter(games::status.eq_any([Status::Open, Status::Active]))
        .filter(exists(
            bots.inner_join(
                users::table.on(users::id.nullable().eq(bots.field(game_seats::user_id))),
            )
            .filter(bots.field(game_seats::game_id).eq(games::id))
            .filter(users::bot_level.is_not_null()),
        ))
        .count()
        .get_result::<i64>(conn)
        .map(|n| n as usize)
}

pub fn unfinished_seats_of(conn: &mut DbConnection, user_id: &str) -> QueryResult<usize> {
    game_seats::table
        .inner_join(games::table)
        .filter(game_seats::user_id.eq(user_id))
        .filter(game_seats::state.eq(SeatState::Joined))
        .filter(games::status.eq_any([Status::Open, Status::Active]))
        .count()
        .get_result::<i64>(conn)
        .map(|n| n as usize)
}

//! An action's write: the game row, the action's row and its events, in one
//! statement on PostgreSQL.

use diesel::prelude::*;

use super::game_load::stamp_of_g;
use super::games::{ActionRow, EventRow, GameRow};
use super::live::{announce, EventLocks, Topic};
use super::outbox::{bind_events, events_ctes, recipients};
use super::prepared::Sql;
use super::DbConnection;

/// What an action changes.
pub struct ActionWrite<'a> {
    /// The game row as it is to be saved.
    pub game: &'a GameRow,
    pub snapshot: &'a str,
    /// The account to move (see `games.to_move_user`).
    pub to_move_user: Option<&'a str>,
    /// The version the game was read at: nothing is written if it changed.
    pub expected_version: i32,
    /// The stamp of the game as read (`StoredGame::stamp`), for a write
    /// outside the transaction that read it: nothing is written if its row,
    /// its seats or their holders' accounts were written since, even by a
    /// change that kept the game's version (storing premoves: see
    /// `db::games::touch`; a player's new time zone), nor if premoves or a
    /// pending alliance proposal wait for the game.
    pub stamp: Option<&'a str>,
    pub action: &'a ActionRow,
    pub events: &'a [EventRow],
    /// The event types that are mailed (see `db::outbox::record`).
    pub mailed: &'a [&'a str],
}

/// What [`write_action`] stored.
pub struct Written {
    /// The game's stamp after the write, as the next read would find it
    /// (PostgreSQL: see `StoredGame::stamp`).
    pub stamp: Option<String>,
}

/// Writes `w` if the game is as it was read; `None` when it is not, and
/// then nothing is written. On PostgreSQL in one prepared statement, one
/// round trip, which outside a transaction commits all of it or none: the
/// game row's update first (its lock before the recipients' event locks, in
/// the order every writer takes them), then, only if it found the game as
/// read, the action (whose unique keys refuse a second action for its ply
/// or sequence number, an error) and the events with their outbox rows as
/// `db::outbox::record` writes them. On SQLite (always inside a write
/// transaction, and without the stamp) the statements of
/// `db::games::update_game_if_version` and `db::outbox::record`.
pub fn write_action(conn: &mut DbConnection, w: &ActionWrite) -> QueryResult<Option<Written>> {
    let c = match conn {
        DbConnection::Postgres(c) => c,
        DbConnection::Sqlite(_) => {
            let saved = super::games::update_game_if_version(
                conn,
                w.game,
                w.snapshot,
                w.to_move_user,
                w.expected_version,
                Some(w.action),
            )?;
            if saved {
                super::outbox::record(conn, w.events, w.mailed)?;
            }
            return Ok(saved.then_some(Written { stamp: None }));
        }
    };
    use diesel::sql_types::{Array, BigInt, Bool, Integer, Nullable, Text, Timestamp};
    #[derive(QueryableByName)]
    struct Stored {
        #[diesel(sql_type = BigInt)]
        saved: i64,
        #[diesel(sql_type = Nullable<Text>)]
        stamp: Option<String>,
        #[diesel(sql_type = Array<Text>)]
        persons: Vec<String>,
        #[diesel(sql_type = Array<BigInt>)]
        keys: Vec<i64>,
    }
    const TEXT: &str = concat!(
        "WITH saved AS ( \
             UPDATE games g SET $14, snapshot = $15, to_move_user = $16 \
             WHERE g.id = $17 AND g.version = $18 AND ($19::text IS NULL OR (",
        stamp_of_g!(),
        " = $19 \
                 AND NOT EXISTS (SELECT 1 FROM premoves p WHERE p.game_id = g.id) \
                 AND NOT EXISTS (SELECT 1 FROM alliance_proposals a \
                                 WHERE a.game_id = g.id AND a.status = $31))) \
             RETURNING g.id, ",
        stamp_of_g!(),
        " AS stamp \
         ), action AS ( \
             INSERT INTO game_actions (game_id, seq, ply, kind, notation, seat, user_id, \
                                       position_after, effects, created_at, premove) \
             SELECT $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30 FROM saved \
         ), ",
        events_ctes!("EXISTS (SELECT 1 FROM saved)"),
        " SELECT (SELECT count(*) FROM saved) AS saved, \
                 (SELECT stamp FROM saved) AS stamp, \
                 COALESCE(array_agg(person ORDER BY key), '{}') AS persons, \
                 COALESCE(array_agg(key ORDER BY key), '{}') AS keys \
          FROM locked"
    );
    let (game, a) = (w.game, w.action);
    let locks = EventLocks::wanted(recipients(w.events));
    let written: Stored = bind_events(Sql::new(TEXT), &locks, game.id.as_str(), w.events, w.mailed)
        .fragment(game.as_changeset())
        .bind::<Text, _>(w.snapshot)
        .bind::<Nullable<Text>, _>(w.to_move_user)
        .bind::<Text, _>(game.id.as_str())
        .bind::<Integer, _>(w.expected_version)
        .bind::<Nullable<Text>, _>(w.stamp)
        .bind::<Text, _>(a.game_id.as_str())
        .bind::<Integer, _>(a.seq)
        .bind::<Nullable<Integer>, _>(a.ply)
        .bind::<Text, _>(a.kind)
        .bind::<Text, _>(a.notation.as_str())
        .bind::<Nullable<Text>, _>(a.seat.as_deref())
        .bind::<Nullable<Text>, _>(a.user_id.as_ref().map(|u| u.as_str()))
        .bind::<Text, _>(a.position_after.as_str())
        .bind::<Text, _>(a.effects.as_str())
        .bind::<Timestamp, _>(a.created_at)
        .bind::<Bool, _>(a.premove)
        .bind::<Text, _>(crate::games::states::ProposalStatus::Pending)
        .get_result(c)?;
    if written.saved != 1 {
        return Ok(None);
    }
    announce(Topic::Game(game.id.to_string()));
    locks.taken(
        game.id.as_str(),
        written.persons.into_iter().zip(written.keys).collect(),
    );
    Ok(Some(Written {
        stamp: written.stamp,
    }))
}

//! The outbox's waiting list: which events each delivery channel has yet to
//! handle. A row is written with its event (in the same transaction) and
//! deleted when the channel has fanned the event out, so a worker reads only
//! what is new, however long the event history grows.

use diesel::prelude::*;

use diesel::pg::Pg;

use super::games::EventRow;
use super::prepared::Sql;
use super::schema::{game_events, outbox_pending as op};
use super::DbConnection;

pub const WEBHOOK: &str = "webhook";
pub const MAIL: &str = "mail";

/// The common table expressions that write `events` on PostgreSQL, as
/// [`record`] describes, if `$guard` (SQL) holds; their parameters are
/// `$1` to `$13`, bound by [`bind_events`]. `locked` is what they locked.
///
/// The locks come first: the events' one-time filter reads them all before
/// the first event row (and its `stream_order`) is made. A volatile
/// function in the target list runs row by row, in the sorted order.
/// `unnest` yields the rows in the order given, so their stream order
/// (drawn from a sequence as each is inserted) follows it.
macro_rules! events_ctes {
    ($guard:literal) => {
        concat!(
            "people AS ( \
                 SELECT person, hashtextextended('sannin-events:' || person, 0) AS key FROM ( \
                     SELECT user_id AS person FROM game_seats \
                     WHERE $1 AND game_id = $2 AND user_id IS NOT NULL \
                     UNION SELECT unnest($3::text[]) \
                 ) p WHERE person <> ALL($4::text[]) AND ",
            $guard,
            " ), locked AS MATERIALIZED ( \
                 SELECT person, key, pg_advisory_xact_lock(key)::text AS l \
                 FROM (SELECT person, key FROM people ORDER BY key) o \
             ), e AS ( \
                 INSERT INTO game_events (id, game_id, event_type, user_id, payload, created_at) \
                 SELECT * FROM unnest($5::text[], $6::text[], $7::text[], $8::text[], \
                                      $9::text[], $10::timestamp[]) \
                 WHERE (SELECT count(*) FROM locked) >= 0 AND ",
            $guard,
            " RETURNING id, user_id, event_type \
             ), hooked AS ( \
                 INSERT INTO outbox_pending (channel, event_id) \
                 SELECT $11, e.id FROM e WHERE EXISTS ( \
                     SELECT 1 FROM webhooks h WHERE h.user_id = e.user_id AND h.active) \
             ), mail AS ( \
                 INSERT INTO outbox_pending (channel, event_id) \
                 SELECT $12, e.id FROM e WHERE e.event_type = ANY($13::text[]) AND EXISTS ( \
                     SELECT 1 FROM users u WHERE u.id = e.user_id AND u.email_verified) \
             )"
        )
    };
}
pub(super) use events_ctes;

/// Writes the event rows and queues each for the channels that can deliver
/// it: for webhooks when its recipient has an active endpoint, for mail
/// when its kind is one of `mailed` and its recipient's address is
/// verified. (An endpoint made, or an address verified, later hears of what
/// happens from then on.) On PostgreSQL in one prepared statement, one
/// round trip, which first takes the recipients' event locks (see
/// `db::live`); on SQLite in three.
pub fn record(conn: &mut DbConnection, events: &[EventRow], mailed: &[&str]) -> QueryResult<()> {
    let Some(first) = events.first() else {
        return Ok(());
    };
    let c = match conn {
        DbConnection::Postgres(c) => c,
        DbConnection::Sqlite(_) => {
            super::games::insert_events(conn, events)?;
            let ids: Vec<&str> = events.iter().map(|r| r.id.as_str()).collect();
            return enqueue(conn, &ids, mailed);
        }
    };
    #[derive(QueryableByName)]
    struct Locked {
        #[diesel(sql_type = diesel::sql_types::Text)]
        person: String,
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        key: i64,
    }
    let locks = super::live::EventLocks::wanted(recipients(events));
    const TEXT: &str = concat!(
        "WITH ",
        events_ctes!("TRUE"),
        " SELECT person, key FROM locked ORDER BY key"
    );
    let locked: Vec<Locked> = bind_events(
        Sql::new(TEXT),
        &locks,
        first.game_id.as_str(),
        events,
        mailed,
    )
    .load(c)?;
    locks.taken(
        first.game_id.as_str(),
        locked.into_iter().map(|l| (l.person, l.key)).collect(),
    );
    Ok(())
}

/// Each recipient of `events` once, in order of first appearance.
pub(super) fn recipients(events: &[EventRow]) -> Vec<&str> {
    let mut recipients: Vec<&str> = Vec::new();
    for r in events {
        if !recipients.contains(&r.user_id.as_str()) {
            recipients.push(r.user_id.as_str());
        }
    }
    recipients
}

/// Binds the parameters of [`events_ctes`] (`$1` to `$13`): what to lock,
/// the players of game `game_id` (when `locks` says so), the event rows
/// (one array per column) and the channels.
pub(super) fn bind_events<'a>(
    sql: Sql<'a, Pg>,
    locks: &super::live::EventLocks,
    game_id: &'a str,
    events: &'a [EventRow],
    mailed: &[&str],
) -> Sql<'a, Pg> {
    use diesel::sql_types::{Array, Bool, Text, Timestamp};
    let column = |f: fn(&EventRow) -> String| events.iter().map(f).collect::<Vec<_>>();
    sql.bind::<Bool, _>(locks.players)
        .bind::<Text, _>(game_id)
        .bind::<Array<Text>, _>(locks.wanted.clone())
        .bind::<Array<Text>, _>(locks.held.clone())
        .bind::<Array<Text>, _>(column(|r| r.id.to_string()))
        .bind::<Array<Text>, _>(column(|r| r.game_id.to_string()))
        .bind::<Array<Text>, _>(column(|r| r.event_type.clone()))
        .bind::<Array<Text>, _>(column(|r| r.user_id.to_string()))
        .bind::<Array<Text>, _>(column(|r| r.payload.clone()))
        .bind::<Array<Timestamp>, _>(events.iter().map(|r| r.created_at).collect::<Vec<_>>())
        .bind::<Text, _>(WEBHOOK)
        .bind::<Text, _>(MAIL)
        .bind::<Array<Text>, _>(mailed.iter().map(|m| m.to_string()).collect::<Vec<_>>())
}

/// Queues the stored events `event_ids` as [`record`] does.
fn enqueue(conn: &mut DbConnection, event_ids: &[&str], mailed: &[&str]) -> QueryResult<()> {
    use super::schema::{users, webhooks};
    use diesel::dsl::exists;
    use diesel::sql_types::Text;
    let hooked = game_events::table
        .filter(game_events::id.eq_any(event_ids))
        .filter(exists(
            webhooks::table
                .filter(webhooks::user_id.eq(game_events::user_id))
                .filter(webhooks::active),
        ))
        .select((WEBHOOK.into_sql::<Text>(), game_events::id));
    let mail = game_events::table
        .filter(game_events::id.eq_any(event_ids))
        .filter(game_events::event_type.eq_any(mailed))
        .filter(exists(
            users::table
                .filter(users::id.eq(game_events::user_id))
                .filter(users::email_verified),
        ))
        .select((MAIL.into_sql::<Text>(), game_events::id));
    let columns = (op::channel, op::event_id);
    diesel::insert_into(op::table)
        .values(hooked)
        .into_columns(columns)
        .execute(conn)?;
    diesel::insert_into(op::table)
        .values(mail)
        .into_columns(columns)
        .execute(conn)
        .map(drop)
}

/// Up to `limit` events waiting for `channel`, oldest first. On PostgreSQL the
/// waiting rows are locked for the caller's transaction and rows another
/// process holds are skipped, so two processes do not fan out the same event.
pub fn take(conn: &mut DbConnection, channel: &str, limit: i64) -> QueryResult<Vec<EventRow>> {
    let waiting = op::table
        .filter(op::channel.eq(channel))
        .order(op::event_id.asc())
        .limit(limit)
        .select(op::event_id);
    let ids: Vec<String> = match conn {
        DbConnection::Postgres(c) => waiting.for_update().skip_locked().load(c)?,
        DbConnection::Sqlite(c) => waiting.load(c)?,
    };
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    game_events::table
        .filter(game_events::id.eq_any(&ids))
        .order(game_events::id.asc())
        .select(EventRow::as_select())
        .load(conn)
}

/// `channel` has handled the events `event_ids`, in one statement.
pub fn done(conn: &mut DbConnection, channel: &str, event_ids: &[String]) -> QueryResult<()> {
    if event_ids.is_empty() {
        return Ok(());
    }
    diesel::delete(
        op::table
            .filter(op::channel.eq(channel))
            .filter(op::event_id.eq_any(event_ids)),
    )
    .execute(conn)
    .map(drop)
}

//! The outbox's waiting list: which events each delivery channel has yet to
//! handle. A row is written with its event (in the same transaction) and
//! deleted when the channel has fanned the event out, so a worker reads only
//! what is new, however long the event history grows.

use diesel::prelude::*;

use super::games::EventRow;
use super::schema::{game_events, outbox_pending as op};
use super::DbConnection;

pub const WEBHOOK: &str = "webhook";
pub const MAIL: &str = "mail";
/// Every channel, each of which gets every event.
pub const CHANNELS: [&str; 2] = [WEBHOOK, MAIL];

/// Queues the events `event_ids` for every channel, in one statement.
pub fn enqueue(conn: &mut DbConnection, event_ids: &[&str]) -> QueryResult<()> {
    let rows: Vec<_> = event_ids
        .iter()
        .flat_map(|id| CHANNELS.map(|channel| (op::channel.eq(channel), op::event_id.eq(*id))))
        .collect();
    if rows.is_empty() {
        return Ok(());
    }
    // Batch inserts are written per backend (a connection of either kind
    // cannot build one).
    let insert = diesel::insert_into(op::table).values(rows);
    match conn {
        DbConnection::Postgres(c) => insert.execute(c),
        DbConnection::Sqlite(c) => insert.execute(c),
    }
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

/// `channel` has handled `event_id`.
pub fn done(conn: &mut DbConnection, channel: &str, event_id: &str) -> QueryResult<()> {
    diesel::delete(
        op::table
            .filter(op::channel.eq(channel))
            .filter(op::event_id.eq(event_id)),
    )
    .execute(conn)
    .map(drop)
}

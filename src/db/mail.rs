//! Queries on `mail_messages` and `email_opt_outs`. As with
//! webhook deliveries, the claim of due messages is the one backend-specific
//! query: PostgreSQL skips rows another process holds.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::schema::{email_opt_outs as oo, mail_messages as mm};
use super::DbConnection;

pub const PENDING: &str = "pending";
pub const SENT: &str = "sent";
pub const FAILED: &str = "failed";
/// No longer wanted by the time it was due: the address changed, or its
/// owner unsubscribed.
pub const CANCELLED: &str = "cancelled";

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = mm)]
pub struct MailRow {
    pub id: String,
    pub user_id: String,
    pub event_id: Option<String>,
    pub kind: String,
    pub to_address: String,
    pub subject: String,
    pub text_body: String,
    pub html_body: String,
    pub unsubscribe_url: Option<String>,
    pub status: String,
    pub attempts: i32,
    pub next_attempt_at: NaiveDateTime,
    pub last_error: Option<String>,
    pub created_at: NaiveDateTime,
    pub sent_at: Option<NaiveDateTime>,
}

/// The outcome of one attempt.
#[derive(Debug, Default, AsChangeset)]
#[diesel(table_name = mm)]
pub struct MailOutcome {
    pub status: Option<String>,
    pub next_attempt_at: Option<NaiveDateTime>,
    pub last_error: Option<Option<String>>,
    pub sent_at: Option<NaiveDateTime>,
}

/// Queues a message unless one for the same event exists; true when queued.
/// Two processes turning the same event into mail meet here.
pub fn insert_if_new(conn: &mut DbConnection, row: &MailRow) -> QueryResult<bool> {
    let inserted = match conn {
        DbConnection::Postgres(c) => diesel::insert_into(mm::table)
            .values(row)
            .on_conflict_do_nothing()
            .execute(c)?,
        DbConnection::Sqlite(c) => diesel::insert_into(mm::table)
            .values(row)
            .on_conflict_do_nothing()
            .execute(c)?,
    };
    Ok(inserted == 1)
}

/// Claims up to `limit` due messages by moving their due time to
/// `lease_until`, so a process that dies mid-send leaves them due again later.
/// The claim counts as an attempt, so even a message whose sending kills the
/// process runs out of attempts.
pub fn claim_due(
    conn: &mut DbConnection,
    now: NaiveDateTime,
    lease_until: NaiveDateTime,
    limit: i64,
) -> QueryResult<Vec<MailRow>> {
    super::write_transaction(conn, |conn| {
        let due = mm::table
            .filter(mm::status.eq(PENDING))
            .filter(mm::next_attempt_at.le(now))
            .order(mm::next_attempt_at.asc())
            .limit(limit)
            .select(mm::id);
        let ids: Vec<String> = match conn {
            DbConnection::Postgres(c) => due.for_update().skip_locked().load(c)?,
            DbConnection::Sqlite(c) => due.load(c)?,
        };
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        diesel::update(mm::table.filter(mm::id.eq_any(&ids)))
            .set((
                mm::next_attempt_at.eq(lease_until),
                mm::attempts.eq(mm::attempts + 1),
            ))
            .execute(conn)?;
        mm::table
            .filter(mm::id.eq_any(&ids))
            .order(mm::id.asc())
            .load(conn)
    })
}

/// Records an attempt's outcome, if the claim `m` is still this caller's (the
/// row is pending with the lease it was claimed with); true when recorded.
pub fn record(conn: &mut DbConnection, m: &MailRow, outcome: &MailOutcome) -> QueryResult<bool> {
    let updated = diesel::update(
        mm::table
            .find(&m.id)
            .filter(mm::status.eq(PENDING))
            .filter(mm::next_attempt_at.eq(m.next_attempt_at)),
    )
    .set(outcome)
    .execute(conn)?;
    Ok(updated == 1)
}

/// Gives a claimed message back unattempted: due now, its claim's attempt
/// not counted (if the claim `m` is still the caller's).
pub fn release(conn: &mut DbConnection, m: &MailRow, now: NaiveDateTime) -> QueryResult<()> {
    diesel::update(
        mm::table
            .find(&m.id)
            .filter(mm::status.eq(PENDING))
            .filter(mm::next_attempt_at.eq(m.next_attempt_at)),
    )
    .set((
        mm::attempts.eq(mm::attempts - 1),
        mm::next_attempt_at.eq(now),
    ))
    .execute(conn)
    .map(drop)
}

/// When the user was last sent mail of `kind` to `address` after `since`.
pub fn last_sent_of_kind(
    conn: &mut DbConnection,
    user_id: &str,
    kind: &str,
    address: &str,
    since: NaiveDateTime,
) -> QueryResult<Option<NaiveDateTime>> {
    mm::table
        .filter(mm::user_id.eq(user_id))
        .filter(mm::kind.eq(kind))
        .filter(mm::to_address.eq(address))
        .filter(mm::created_at.gt(since))
        .select(mm::created_at)
        .order(mm::created_at.desc())
        .first(conn)
        .optional()
}

/// The user's most recent messages, newest first.
pub fn recent_of_user(
    conn: &mut DbConnection,
    user_id: &str,
    limit: i64,
) -> QueryResult<Vec<MailRow>> {
    mm::table
        .filter(mm::user_id.eq(user_id))
        .order((mm::created_at.desc(), mm::id.desc()))
        .limit(limit)
        .load(conn)
}

/// The event types the user opted out of.
pub fn opt_outs(conn: &mut DbConnection, user_id: &str) -> QueryResult<Vec<String>> {
    oo::table
        .filter(oo::user_id.eq(user_id))
        .select(oo::event_type)
        .load(conn)
}

pub fn opt_out(
    conn: &mut DbConnection,
    user_id: &str,
    event_type: &str,
    now: NaiveDateTime,
) -> QueryResult<()> {
    let row = (
        oo::user_id.eq(user_id),
        oo::event_type.eq(event_type),
        oo::created_at.eq(now),
    );
    match conn {
        DbConnection::Postgres(c) => diesel::insert_into(oo::table)
            .values(row)
            .on_conflict_do_nothing()
            .execute(c)?,
        DbConnection::Sqlite(c) => diesel::insert_into(oo::table)
            .values(row)
            .on_conflict_do_nothing()
            .execute(c)?,
    };
    Ok(())
}

pub fn opt_in(conn: &mut DbConnection, user_id: &str, event_type: &str) -> QueryResult<()> {
    diesel::delete(
        oo::table
            .filter(oo::user_id.eq(user_id))
            .filter(oo::event_type.eq(event_type)),
    )
    .execute(conn)
    .map(drop)
}

/// Deletes messages that are done (sent, failed or cancelled) and whose last
/// attempt was before `before`; returns how many.
pub fn prune(conn: &mut DbConnection, before: NaiveDateTime) -> QueryResult<usize> {
    diesel::delete(
        mm::table
            .filter(mm::status.eq_any([SENT, FAILED, CANCELLED]))
            .filter(mm::next_attempt_at.lt(before)),
    )
    .execute(conn)
}

//! Queries on `mail_messages` and `email_opt_outs`. The messages are a job
//! table of the queue: `job_table!` writes their claim, record, give-back
//! and prune.

use crate::domain::{EventId, UserId};
use chrono::NaiveDateTime;
use diesel::deserialize::FromSqlRow;
use diesel::expression::AsExpression;
use diesel::prelude::*;

use super::schema::{email_opt_outs as oo, mail_messages as mm};
use super::DbConnection;

/// Where a message stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, AsExpression, FromSqlRow)]
#[diesel(sql_type = diesel::sql_types::Text)]
pub enum MailStatus {
    /// Due, claimed, or waiting for a retry.
    Pending,
    Sent,
    /// Every attempt failed, or the relay refused it for good.
    Failed,
    /// No longer wanted by the time it was due: the address changed, or its
    /// owner unsubscribed.
    Cancelled,
}

crate::stored_words!(MailStatus {
    Pending = "pending",
    Sent = "sent",
    Failed = "failed",
    Cancelled = "cancelled",
});
crate::stored_as_text!(MailStatus, "mail_messages.status");

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = mm)]
pub struct MailRow {
    pub id: String,
    pub user_id: UserId,
    pub event_id: Option<EventId>,
    pub kind: String,
    pub to_address: String,
    pub subject: String,
    pub text_body: String,
    pub html_body: String,
    pub unsubscribe_url: Option<String>,
    pub status: MailStatus,
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
    pub status: Option<MailStatus>,
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

crate::job_table! {
    table: mm,
    pending: MailStatus::Pending,
    finished: [MailStatus::Sent, MailStatus::Failed, MailStatus::Cancelled],
    outcome: MailOutcome,
}

/// Claims up to `limit` due messages, leased until `lease_until` (see
/// `jobs::store`).
pub fn claim_due(
    conn: &mut DbConnection,
    now: NaiveDateTime,
    lease_until: NaiveDateTime,
    limit: usize,
) -> QueryResult<Vec<MailRow>> {
    super::write_transaction(conn, |conn| {
        let ids = claim_ids(conn, now, lease_until, limit, &[])?;
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut rows: Vec<MailRow> = mm::table.filter(mm::id.eq_any(&ids)).load(conn)?;
        // In the order they were due (they now share one lease).
        rows.sort_by_key(|m| ids.iter().position(|id| *id == m.id));
        Ok(rows)
    })
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

/// The event types the user chose against their default (see `notify::mail::mailed`).
pub fn opt_outs(conn: &mut DbConnection, user_id: &str) -> QueryResult<Vec<String>> {
    oo::table
        .filter(oo::user_id.eq(user_id))
        .select(oo::event_type)
        .load(conn)
}

pub fn store_choice(
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

pub fn clear_choice(conn: &mut DbConnection, user_id: &str, event_type: &str) -> QueryResult<()> {
    diesel::delete(
        oo::table
            .filter(oo::user_id.eq(user_id))
            .filter(oo::event_type.eq(event_type)),
    )
    .execute(conn)
    .map(drop)
}

/// When the messages of `kind` to `user_id` since `since` were queued.
pub fn of_kind_since(
    conn: &mut DbConnection,
    user_id: &str,
    kind: &str,
    since: NaiveDateTime,
) -> QueryResult<Vec<NaiveDateTime>> {
    mm::table
        .filter(mm::user_id.eq(user_id))
        .filter(mm::kind.eq(kind))
        .filter(mm::created_at.gt(since))
        .select(mm::created_at)
        .load(conn)
}

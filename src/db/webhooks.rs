//! Queries on `webhooks`, `webhook_deliveries` and `webhook_attempts`. The
//! deliveries are a job table of the queue: `job_table!` writes their claim,
//! record, give-back and prune.

use crate::domain::{EventId, GameId, UserId, WebhookId};
use chrono::NaiveDateTime;
use diesel::deserialize::FromSqlRow;
use diesel::expression::AsExpression;
use diesel::prelude::*;

use super::schema::{webhook_attempts as wa, webhook_deliveries as wd, webhooks as wh};
use super::DbConnection;

/// Where a delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, AsExpression, FromSqlRow)]
#[diesel(sql_type = diesel::sql_types::Text)]
pub enum DeliveryStatus {
    /// Due, claimed, or waiting for a retry.
    Pending,
    Delivered,
    /// Every attempt failed, or the receiver answered 410.
    Failed,
}

crate::stored_words!(DeliveryStatus {
    Pending = "pending",
    Delivered = "delivered",
    Failed = "failed",
});
crate::stored_as_text!(DeliveryStatus, "webhook_deliveries.status");

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = wh)]
pub struct WebhookRow {
    pub id: WebhookId,
    pub user_id: UserId,
    pub url: String,
    pub events: String,
    pub game_id: Option<GameId>,
    pub secret: String,
    pub active: bool,
    pub failure_count: i32,
    pub disabled_reason: Option<String>,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
    /// Attempts in a row that timed out or could not connect.
    pub unreachable_streak: i32,
    /// While in the future, no delivery to the endpoint is attempted.
    pub backoff_until: Option<NaiveDateTime>,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = wd)]
pub struct DeliveryRow {
    pub id: String,
    pub webhook_id: WebhookId,
    pub event_id: EventId,
    pub event_type: String,
    pub payload: String,
    pub status: DeliveryStatus,
    pub attempts: i32,
    pub next_attempt_at: NaiveDateTime,
    pub last_status_code: Option<i32>,
    pub last_error: Option<String>,
    pub last_duration_ms: Option<i32>,
    pub created_at: NaiveDateTime,
    pub delivered_at: Option<NaiveDateTime>,
}

impl DeliveryRow {
    /// A new delivery, due at once, with a fresh time-ordered id.
    pub fn pending(
        webhook_id: WebhookId,
        event_id: EventId,
        event_type: String,
        payload: String,
        now: NaiveDateTime,
    ) -> Self {
        DeliveryRow {
            id: uuid::Uuid::now_v7().to_string(),
            webhook_id,
            event_id,
            event_type,
            payload,
            status: DeliveryStatus::Pending,
            attempts: 0,
            next_attempt_at: now,
            last_status_code: None,
            last_error: None,
            last_duration_ms: None,
            created_at: now,
            delivered_at: None,
        }
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = wa)]
pub struct AttemptRow {
    pub id: String,
    pub delivery_id: String,
    pub attempted_at: NaiveDateTime,
    pub status_code: Option<i32>,
    pub duration_ms: i32,
    pub error: Option<String>,
    /// False from the attempt's start until its outcome is known.
    pub finished: bool,
}

/// Changes of a webhook; `None` leaves a field as it is.
#[derive(Debug, Default, AsChangeset)]
#[diesel(table_name = wh)]
pub struct WebhookChanges {
    pub url: Option<String>,
    pub events: Option<String>,
    pub game_id: Option<Option<String>>,
    pub active: Option<bool>,
    pub failure_count: Option<i32>,
    pub disabled_reason: Option<Option<String>>,
    pub updated_at: Option<NaiveDateTime>,
    pub unreachable_streak: Option<i32>,
    pub backoff_until: Option<Option<NaiveDateTime>>,
}

pub fn insert(conn: &mut DbConnection, row: &WebhookRow) -> QueryResult<()> {
    diesel::insert_into(wh::table)
        .values(row)
        .execute(conn)
        .map(drop)
}

pub fn list_for_user(conn: &mut DbConnection, user_id: &str) -> QueryResult<Vec<WebhookRow>> {
    wh::table
        .filter(wh::user_id.eq(user_id))
        .order((wh::created_at.asc(), wh::id.asc()))
        .load(conn)
}

pub fn find(conn: &mut DbConnection, id: &str) -> QueryResult<Option<WebhookRow>> {
    wh::table.find(id).first(conn).optional()
}

pub fn find_for_user(
    conn: &mut DbConnection,
    id: &str,
    user_id: &str,
) -> QueryResult<Option<WebhookRow>> {
    wh::table
        .find(id)
        .filter(wh::user_id.eq(user_id))
        .first(conn)
        .optional()
}

pub fn update(conn: &mut DbConnection, id: &str, changes: &WebhookChanges) -> QueryResult<()> {
    diesel::update(wh::table.find(id))
        .set(changes)
        .execute(conn)
        .map(drop)
}

/// Applies `changes` if the webhook is still active; true when it was.
pub fn update_if_active(
    conn: &mut DbConnection,
    id: &str,
    changes: &WebhookChanges,
) -> QueryResult<bool> {
    let updated = diesel::update(wh::table.find(id).filter(wh::active.eq(true)))
        .set(changes)
        .execute(conn)?;
    Ok(updated == 1)
}

/// Deletes one of the user's webhooks (its deliveries go with it).
pub fn delete_for_user(conn: &mut DbConnection, id: &str, user_id: &str) -> QueryResult<bool> {
    let deleted =
        diesel::delete(wh::table.find(id).filter(wh::user_id.eq(user_id))).execute(conn)?;
    Ok(deleted == 1)
}

/// Inserts a delivery unless the webhook already has one for the event; true
/// when inserted. Two processes fanning out the same event meet here.
pub fn insert_delivery_if_new(conn: &mut DbConnection, row: &DeliveryRow) -> QueryResult<bool> {
    let inserted = match conn {
        DbConnection::Postgres(c) => diesel::insert_into(wd::table)
            .values(row)
            .on_conflict_do_nothing()
            .execute(c)?,
        DbConnection::Sqlite(c) => diesel::insert_into(wd::table)
            .values(row)
            .on_conflict_do_nothing()
            .execute(c)?,
    };
    Ok(inserted == 1)
}

/// The user's active webhooks (event and game filters are applied by the caller).
pub fn active_of_user(conn: &mut DbConnection, user_id: &str) -> QueryResult<Vec<WebhookRow>> {
    wh::table
        .filter(wh::user_id.eq(user_id))
        .filter(wh::active.eq(true))
        .load(conn)
}

crate::job_table! {
    table: wd,
    pending: DeliveryStatus::Pending,
    finished: [DeliveryStatus::Delivered, DeliveryStatus::Failed],
    outcome: DeliveryOutcome,
    key: webhook_id,
    // Only deliveries of active endpoints that are not backed off.
    due(now): wd::webhook_id.eq_any(
        wh::table
            .filter(wh::active.eq(true))
            .filter(wh::backoff_until.is_null().or(wh::backoff_until.le(now)))
            .select(wh::id),
    ),
}

/// Claims up to `limit` due deliveries of active endpoints that are not
/// backed off, none of a webhook in `full`, leased until `lease_until` (see
/// `jobs::store`); each with its webhook.
pub fn claim_due(
    conn: &mut DbConnection,
    now: NaiveDateTime,
    lease_until: NaiveDateTime,
    limit: usize,
    full: &[String],
) -> QueryResult<Vec<(DeliveryRow, WebhookRow)>> {
    super::write_transaction(conn, |conn| {
        let ids = claim_ids(conn, now, lease_until, limit, full)?;
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut rows: Vec<(DeliveryRow, WebhookRow)> = wd::table
            .inner_join(wh::table)
            .filter(wd::id.eq_any(&ids))
            .select((DeliveryRow::as_select(), WebhookRow::as_select()))
            .load(conn)?;
        // In the order they were due (they now share one lease).
        rows.sort_by_key(|(d, _)| ids.iter().position(|id| *id == d.id));
        Ok(rows)
    })
}

/// The outcome of one attempt.
#[derive(Debug, Default, AsChangeset)]
#[diesel(table_name = wd)]
pub struct DeliveryOutcome {
    pub status: Option<DeliveryStatus>,
    pub next_attempt_at: Option<NaiveDateTime>,
    pub last_status_code: Option<Option<i32>>,
    pub last_error: Option<Option<String>>,
    pub last_duration_ms: Option<i32>,
    pub delivered_at: Option<NaiveDateTime>,
}

/// What an attempt that has not finished shows.
pub const UNFINISHED: &str = "no outcome yet: the attempt is in progress";
/// What an attempt whose sender stopped before its outcome shows.
pub const INTERRUPTED: &str =
    "interrupted: the sending process stopped before the outcome was known";

/// Logs the start of an attempt; earlier attempts of the delivery that never
/// finished are marked interrupted.
pub fn begin_attempt(conn: &mut DbConnection, attempt: &AttemptRow) -> QueryResult<()> {
    interrupt_attempts(conn, &attempt.delivery_id)?;
    diesel::insert_into(wa::table)
        .values(attempt)
        .execute(conn)
        .map(drop)
}

/// Marks the delivery's unfinished attempts interrupted.
pub fn interrupt_attempts(conn: &mut DbConnection, delivery_id: &str) -> QueryResult<()> {
    diesel::update(
        wa::table
            .filter(wa::delivery_id.eq(delivery_id))
            .filter(wa::finished.eq(false)),
    )
    .set((wa::finished.eq(true), wa::error.eq(INTERRUPTED)))
    .execute(conn)
    .map(drop)
}

/// Finishes the attempt begun as `attempt.id` with `attempt`'s outcome, or
/// logs `attempt` if it never began (one given up without being made).
pub fn finish_attempt(conn: &mut DbConnection, attempt: &AttemptRow) -> QueryResult<()> {
    let updated = diesel::update(wa::table.find(&attempt.id))
        .set((
            wa::finished.eq(true),
            wa::status_code.eq(attempt.status_code),
            wa::duration_ms.eq(attempt.duration_ms),
            wa::error.eq(&attempt.error),
        ))
        .execute(conn)?;
    if updated == 0 {
        diesel::insert_into(wa::table)
            .values(attempt)
            .execute(conn)?;
    }
    Ok(())
}

/// A webhook's deliveries, newest first, at most `limit`.
pub fn deliveries_of(
    conn: &mut DbConnection,
    webhook_id: &str,
    limit: i64,
) -> QueryResult<Vec<DeliveryRow>> {
    wd::table
        .filter(wd::webhook_id.eq(webhook_id))
        .order(wd::id.desc())
        .limit(limit)
        .load(conn)
}

/// The attempts of these deliveries, oldest first.
pub fn attempts_of(
    conn: &mut DbConnection,
    delivery_ids: &[String],
) -> QueryResult<Vec<AttemptRow>> {
    wa::table
        .filter(wa::delivery_id.eq_any(delivery_ids))
        .order((wa::attempted_at.asc(), wa::id.asc()))
        .load(conn)
}

pub fn find_delivery(
    conn: &mut DbConnection,
    webhook_id: &str,
    id: &str,
) -> QueryResult<Option<DeliveryRow>> {
    wd::table
        .find(id)
        .filter(wd::webhook_id.eq(webhook_id))
        .first(conn)
        .optional()
}

/// Queues a delivery again, as a new run of attempts, due now.
pub fn requeue(conn: &mut DbConnection, id: &str, now: NaiveDateTime) -> QueryResult<()> {
    diesel::update(wd::table.find(id))
        .set((
            wd::status.eq(DeliveryStatus::Pending),
            wd::attempts.eq(0),
            wd::next_attempt_at.eq(now),
        ))
        .execute(conn)
        .map(drop)
}

pub fn game_exists(conn: &mut DbConnection, game_id: &str) -> QueryResult<bool> {
    use super::schema::games;
    diesel::select(diesel::dsl::exists(games::table.find(game_id))).get_result(conn)
}

/// How many webhooks `user_id` has registered.
pub fn count_of_user(conn: &mut DbConnection, user_id: &str) -> QueryResult<usize> {
    wh::table
        .filter(wh::user_id.eq(user_id))
        .count()
        .get_result::<i64>(conn)
        .map(|n| n as usize)
}

/// When the deliveries of `event_type` to `user_id`'s webhooks since
/// `since` were made.
pub fn deliveries_of_type_since(
    conn: &mut DbConnection,
    user_id: &str,
    event_type: &str,
    since: NaiveDateTime,
) -> QueryResult<Vec<NaiveDateTime>> {
    wd::table
        .inner_join(wh::table)
        .filter(wh::user_id.eq(user_id))
        .filter(wd::event_type.eq(event_type))
        .filter(wd::created_at.gt(since))
        .select(wd::created_at)
        .load(conn)
}

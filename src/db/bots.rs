//! Queries on `bot_jobs`: the computer players' turns and answers, a job
//! table of the queue (`job_table!` writes their claim, record, give-back
//! and prune).

use crate::domain::{GameId, UserId};
use chrono::NaiveDateTime;
use diesel::deserialize::FromSqlRow;
use diesel::expression::AsExpression;
use diesel::prelude::*;

use super::schema::bot_jobs as bj;
use super::DbConnection;

/// Where a bot's job stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, AsExpression, FromSqlRow)]
#[diesel(sql_type = diesel::sql_types::Text)]
pub enum BotJobStatus {
    /// Due, claimed (thinking), or waiting for a retry.
    Pending,
    Done,
    /// Every attempt failed.
    Failed,
    /// The game moved on before the bot did (or the proposal was answered).
    Cancelled,
}

crate::stored_words!(BotJobStatus {
    Pending = "pending",
    Done = "done",
    Failed = "failed",
    Cancelled = "cancelled",
});
crate::stored_as_text!(BotJobStatus, "bot_jobs.status");

/// What a bot is asked to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, AsExpression, FromSqlRow)]
#[diesel(sql_type = diesel::sql_types::Text)]
pub enum BotJobKind {
    /// Move at the job's ply.
    Move,
    /// Answer the job's alliance proposal.
    Proposal,
}

crate::stored_words!(BotJobKind {
    Move = "move",
    Proposal = "proposal",
});
crate::stored_as_text!(BotJobKind, "bot_jobs.kind");

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = bj)]
pub struct BotJobRow {
    pub id: String,
    pub game_id: GameId,
    pub user_id: UserId,
    pub kind: BotJobKind,
    pub ply: i32,
    pub proposal_id: Option<String>,
    pub status: BotJobStatus,
    pub attempts: i32,
    pub next_attempt_at: NaiveDateTime,
    /// What the bot did: the move it played, or its answer.
    pub result: Option<String>,
    pub last_error: Option<String>,
    pub created_at: NaiveDateTime,
}

impl BotJobRow {
    /// The job for `user_id`'s move at `ply` of `game_id`; its id names the
    /// turn, so queuing it twice queues it once.
    pub fn for_move(game_id: &str, user_id: &str, ply: i32, now: NaiveDateTime) -> Self {
        Self::new(
            format!("move:{game_id}:{ply}"),
            game_id,
            user_id,
            BotJobKind::Move,
            ply,
            None,
            now,
        )
    }

    /// The job for `user_id`'s answer to proposal `proposal_id`.
    pub fn for_proposal(
        game_id: &str,
        user_id: &str,
        ply: i32,
        proposal_id: &str,
        now: NaiveDateTime,
    ) -> Self {
        Self::new(
            format!("proposal:{proposal_id}"),
            game_id,
            user_id,
            BotJobKind::Proposal,
            ply,
            Some(proposal_id.to_owned()),
            now,
        )
    }

    fn new(
        id: String,
        game_id: &str,
        user_id: &str,
        kind: BotJobKind,
        ply: i32,
        proposal_id: Option<String>,
        now: NaiveDateTime,
    ) -> Self {
        Self {
            id,
            game_id: GameId::from(game_id),
            user_id: UserId::from(user_id),
            kind,
            ply,
            proposal_id,
            status: BotJobStatus::Pending,
            attempts: 0,
            next_attempt_at: now,
            result: None,
            last_error: None,
            created_at: now,
        }
    }
}

/// The outcome of one attempt.
#[derive(Debug, Default, AsChangeset)]
#[diesel(table_name = bj)]
pub struct BotJobOutcome {
    pub status: Option<BotJobStatus>,
    pub next_attempt_at: Option<NaiveDateTime>,
    pub result: Option<Option<String>>,
    pub last_error: Option<Option<String>>,
}

/// Queues a job unless one with its id exists; true when queued.
pub fn insert_if_new(conn: &mut DbConnection, row: &BotJobRow) -> QueryResult<bool> {
    let inserted = match conn {
        DbConnection::Postgres(c) => diesel::insert_into(bj::table)
            .values(row)
            .on_conflict_do_nothing()
            .execute(c)?,
        DbConnection::Sqlite(c) => diesel::insert_into(bj::table)
            .values(row)
            .on_conflict_do_nothing()
            .execute(c)?,
    };
    Ok(inserted == 1)
}

crate::job_table! {
    table: bj,
    pending: BotJobStatus::Pending,
    finished: [BotJobStatus::Done, BotJobStatus::Failed, BotJobStatus::Cancelled],
    outcome: BotJobOutcome,
}

/// Claims up to `limit` due jobs, leased until `lease_until` (see
/// `jobs::store`).
pub fn claim_due(
    conn: &mut DbConnection,
    now: NaiveDateTime,
    lease_until: NaiveDateTime,
    limit: usize,
) -> QueryResult<Vec<BotJobRow>> {
    super::write_transaction(conn, |conn| {
        let ids = claim_ids(conn, now, lease_until, limit, &[])?;
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut rows: Vec<BotJobRow> = bj::table
            .filter(bj::id.eq_any(&ids))
            .select(BotJobRow::as_select())
            .load(conn)?;
        rows.sort_by_key(|m| ids.iter().position(|id| *id == m.id));
        Ok(rows)
    })
}

/// The jobs of a game, oldest first (for tests and the operator).
pub fn of_game(conn: &mut DbConnection, game_id: &str) -> QueryResult<Vec<BotJobRow>> {
    bj::table
        .filter(bj::game_id.eq(game_id))
        .order((bj::created_at.asc(), bj::id.asc()))
        .select(BotJobRow::as_select())
        .load(conn)
}

//! The queue's storage, written once for every channel's table.
//!
//! [`job_table!`](crate::job_table) generates, in the module that invokes it,
//! the queries on a table with the queue columns `id`, `status`, `attempts`
//! and `next_attempt_at`:
//!
//! - `claim_ids`: due, pending jobs, oldest first, none whose key is full;
//!   each claim moves `next_attempt_at` to the end of its lease (so it is due
//!   again if the process dies) and counts an attempt (so even a job whose
//!   attempt kills the process runs out of attempts). On PostgreSQL rows
//!   another process is claiming are skipped. Call it in a write transaction.
//! - `record_if_held`: writes an outcome only while the claim is still the
//!   caller's: the row is pending with the lease it was claimed with.
//! - `give_back`: due now, its claim's attempt uncounted unless the attempt
//!   began.
//! - `prune`: deletes finished jobs last touched before a time.

/// See the [module](crate::jobs::store).
#[macro_export]
macro_rules! job_table {
    (
        table: $t:ident,
        pending: $pending:expr,
        finished: $finished:expr,
        outcome: $outcome:ty
        $(, key: $key:ident)?
        $(, due($now:ident): $due:expr)?
        $(,)?
    ) => {
        /// Claims up to `limit` due jobs whose key is not in `full`, leased
        /// until `lease_until`; their ids, in the order they were due. Call
        /// it in a write transaction.
        pub fn claim_ids(
            conn: &mut $crate::db::DbConnection,
            now: chrono::NaiveDateTime,
            lease_until: chrono::NaiveDateTime,
            limit: usize,
            full: &[String],
        ) -> diesel::QueryResult<Vec<String>> {
            use diesel::prelude::*;
            $(let $now = now;)?
            let _ = full;
            let due = $t::table
                .filter($t::status.eq($pending))
                .filter($t::next_attempt_at.le(now))
                $(.filter($t::$key.ne_all(full)))?
                $(.filter($due))?
                .order(($t::next_attempt_at.asc(), $t::id.asc()))
                .limit(limit as i64)
                .select($t::id);
            let ids: Vec<String> = match conn {
                $crate::db::DbConnection::Postgres(c) => due.for_update().skip_locked().load(c)?,
                $crate::db::DbConnection::Sqlite(c) => due.load(c)?,
            };
            if !ids.is_empty() {
                diesel::update($t::table.filter($t::id.eq_any(&ids)))
                    .set((
                        $t::next_attempt_at.eq(lease_until),
                        $t::attempts.eq($t::attempts + 1),
                    ))
                    .execute(conn)?;
            }
            Ok(ids)
        }

        /// Writes `outcome` on job `id` if it is still pending with the lease
        /// `lease_until` it was claimed with; true when written.
        pub fn record_if_held(
            conn: &mut $crate::db::DbConnection,
            id: &str,
            lease_until: chrono::NaiveDateTime,
            outcome: &$outcome,
        ) -> diesel::QueryResult<bool> {
            use diesel::prelude::*;
            let updated = diesel::update(
                $t::table
                    .find(id)
                    .filter($t::status.eq($pending))
                    .filter($t::next_attempt_at.eq(lease_until)),
            )
            .set(outcome)
            .execute(conn)?;
            Ok(updated == 1)
        }

        /// Gives job `id`, claimed with `lease_until`, back: due at `now`,
        /// and its claim's attempt not counted unless `attempted`. True when
        /// the claim was still held.
        pub fn give_back(
            conn: &mut $crate::db::DbConnection,
            id: &str,
            lease_until: chrono::NaiveDateTime,
            attempted: bool,
            now: chrono::NaiveDateTime,
        ) -> diesel::QueryResult<bool> {
            use diesel::prelude::*;
            let uncounted = if attempted { 0 } else { 1 };
            let updated = diesel::update(
                $t::table
                    .find(id)
                    .filter($t::status.eq($pending))
                    .filter($t::next_attempt_at.eq(lease_until)),
            )
            .set((
                $t::attempts.eq($t::attempts - uncounted),
                $t::next_attempt_at.eq(now),
            ))
            .execute(conn)?;
            Ok(updated == 1)
        }

        /// Deletes finished jobs whose last attempt was before `before`;
        /// returns how many.
        pub fn prune(
            conn: &mut $crate::db::DbConnection,
            before: chrono::NaiveDateTime,
        ) -> diesel::QueryResult<usize> {
            use diesel::prelude::*;
            diesel::delete(
                $t::table
                    .filter($t::status.eq_any($finished))
                    .filter($t::next_attempt_at.lt(before)),
            )
            .execute(conn)
        }
    };
}

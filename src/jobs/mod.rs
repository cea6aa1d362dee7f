//! One job queue for the work that follows a request: webhook deliveries and
//! mail are its channels, and the deadline sweep runs on the same runner.
//!
//! A channel keeps its jobs in a table of its own (the delivery log and the
//! notification list read them), with the same four columns of queue state:
//! `id`, `status`, `attempts` and `next_attempt_at`. This module owns what
//! they mean, written once for every channel ([`store`]): a claim moves a due
//! job's `next_attempt_at` to the end of a lease and counts the attempt
//! (`FOR UPDATE SKIP LOCKED` on PostgreSQL, so each claim goes to one
//! process); an outcome is recorded only while the claim is still held; a
//! process that dies mid-attempt leaves the job due again when its lease runs
//! out; a job that has used up the retry schedule is given up; finished jobs
//! are pruned after a retention period.
//!
//! The [`Runner`] polls each channel, keeps up to `slots` jobs in flight with
//! at most `per_key` sharing a key (one webhook endpoint), and starts the
//! next job as soon as one finishes: no batch waits for its slowest member.
//! On shutdown it stops claiming, lets attempts in flight finish within a
//! grace period and gives the rest back.

use std::future::Future;

use chrono::NaiveDateTime;

use crate::db::{DbConnection, Pool};

mod runner;
pub mod store;

pub use runner::{Handle, Runner};

/// Waits after the first, second, … failed attempt, in seconds (before
/// scaling): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h.
pub const RETRY_SCHEDULE_SECS: [u64; 9] =
    [5, 300, 1_800, 7_200, 18_000, 36_000, 50_400, 72_000, 86_400];

/// Attempts a job gets: the first and one per step of the schedule.
pub const MAX_ATTEMPTS: u32 = RETRY_SCHEDULE_SECS.len() as u32 + 1;

/// The wait before retry `n` (1-based), scaled and with ±20% jitter; `None`
/// once the schedule is used up.
pub fn retry_delay(n: usize, scale: f64) -> Option<chrono::Duration> {
    use rand::Rng as _;
    let secs = *RETRY_SCHEDULE_SECS.get(n.checked_sub(1)?)? as f64;
    let jitter = rand::rng().random_range(0.8..1.2);
    Some(chrono::Duration::milliseconds(
        (secs * 1000.0 * scale * jitter) as i64,
    ))
}

/// How a channel's jobs are run.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Jobs of the channel in flight at once in one process.
    pub slots: usize,
    /// Of those, at most this many with one key.
    pub per_key: usize,
    /// How long a claim holds: longer than an attempt may take, so a live
    /// attempt is never claimed twice, and no longer, so a job whose process
    /// died is soon due again.
    pub lease: chrono::Duration,
    /// How often the runner looks for new and due jobs.
    pub poll_interval: std::time::Duration,
    /// Factor on [`RETRY_SCHEDULE_SECS`].
    pub retry_scale: f64,
    /// Finished jobs are deleted this long after their last attempt.
    pub keep_for: chrono::Duration,
}

/// A claimed job.
pub trait Job: Clone + Send + Sync + 'static {
    fn id(&self) -> &str;
    /// Jobs with one key share `per_key` slots.
    fn key(&self) -> &str;
    /// Attempts in this run, the claimed one included.
    fn attempts(&self) -> u32;
}

/// What one attempt came to. `D` is what the channel logs of it.
#[derive(Debug, Clone)]
pub enum Outcome<D> {
    Done(D),
    Failed {
        detail: D,
        error: String,
        /// No retry can succeed (a `410 Gone`, a refused address).
        permanent: bool,
    },
    /// No longer wanted (why): not attempted, and never will be.
    Cancelled(String),
}

/// What follows an outcome, decided by the queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    Done,
    RetryAt(NaiveDateTime),
    Failed,
    Cancelled,
}

impl Next {
    /// Done and cancelled stay so; a failure is retried on the schedule
    /// until it runs out, unless it is permanent.
    pub fn after<D>(outcome: &Outcome<D>, attempts: u32, scale: f64, now: NaiveDateTime) -> Next {
        match outcome {
            Outcome::Done(_) => Next::Done,
            Outcome::Cancelled(_) => Next::Cancelled,
            Outcome::Failed {
                permanent: true, ..
            } => Next::Failed,
            Outcome::Failed { .. } => retry_delay(attempts as usize, scale)
                .map_or(Next::Failed, |wait| Next::RetryAt(now + wait)),
        }
    }
}

/// A kind of job: where its jobs come from and are kept, and how one is
/// attempted. Storage functions run inside a transaction of the runner's.
pub trait Channel: Send + Sync + 'static {
    type Job: Job;
    /// What an attempt logs besides its error; the default is a give-up's.
    type Detail: Default + Send + 'static;

    /// For logs.
    const NAME: &'static str;

    fn limits(&self) -> Limits;

    /// Turns new input (the outbox's waiting events) into jobs; how many.
    fn enqueue(&self, conn: &mut DbConnection, now: NaiveDateTime) -> diesel::QueryResult<usize>;

    /// Claims up to `limit` due jobs, none with a key in `full`, leased
    /// until `lease_until` (see [`store`]).
    fn claim(
        &self,
        conn: &mut DbConnection,
        now: NaiveDateTime,
        lease_until: NaiveDateTime,
        limit: usize,
        full: &[String],
    ) -> diesel::QueryResult<Vec<Self::Job>>;

    /// Notes that an attempt starts, before anything leaves the process, so
    /// the log shows every attempt a receiver may have seen.
    fn begin(
        &self,
        _conn: &mut DbConnection,
        _job: &Self::Job,
        _now: NaiveDateTime,
    ) -> diesel::QueryResult<()> {
        Ok(())
    }

    /// Makes the attempt.
    fn perform(
        &self,
        pool: &Pool,
        job: &Self::Job,
    ) -> impl Future<Output = Outcome<Self::Detail>> + Send;

    /// Records the outcome and what follows, if the claim `job` is still
    /// held; true when recorded.
    fn record(
        &self,
        conn: &mut DbConnection,
        job: &Self::Job,
        outcome: &Outcome<Self::Detail>,
        next: Next,
        now: NaiveDateTime,
    ) -> diesel::QueryResult<bool>;

    /// Gives a claimed job back, due at `now`, if its claim is still held.
    /// `attempted`: whether the attempt began (it stays counted and logged
    /// as interrupted) or never did (its claim is not counted).
    fn give_back(
        &self,
        conn: &mut DbConnection,
        job: &Self::Job,
        attempted: bool,
        now: NaiveDateTime,
    ) -> diesel::QueryResult<()>;

    /// Deletes finished jobs last attempted before `before`; how many.
    fn prune(&self, conn: &mut DbConnection, before: NaiveDateTime) -> diesel::QueryResult<usize>;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: i64) -> NaiveDateTime {
        chrono::DateTime::from_timestamp(secs, 0)
            .unwrap()
            .naive_utc()
    }

    fn failed(permanent: bool) -> Outcome<()> {
        Outcome::Failed {
            detail: (),
            error: "x".into(),
            permanent,
        }
    }

    #[test]
    fn failures_retry_on_the_schedule_until_it_runs_out() {
        let now = at(1_000_000);
        for n in 1..MAX_ATTEMPTS {
            let Next::RetryAt(t) = Next::after(&failed(false), n, 1.0, now) else {
                panic!("attempt {n} is retried");
            };
            let wait = (t - now).num_milliseconds() as f64 / 1000.0;
            let planned = RETRY_SCHEDULE_SECS[n as usize - 1] as f64;
            assert!(
                wait >= planned * 0.8 && wait <= planned * 1.2,
                "{n}: {wait}"
            );
        }
        assert_eq!(
            Next::after(&failed(false), MAX_ATTEMPTS, 1.0, now),
            Next::Failed
        );
    }

    #[test]
    fn permanent_failures_done_and_cancelled_are_final() {
        let now = at(0);
        assert_eq!(Next::after(&failed(true), 1, 1.0, now), Next::Failed);
        assert_eq!(Next::after(&Outcome::Done(()), 1, 1.0, now), Next::Done);
        assert_eq!(
            Next::after(&Outcome::<()>::Cancelled("x".into()), 1, 1.0, now),
            Next::Cancelled
        );
    }

    #[test]
    fn the_scale_shrinks_waits() {
        let now = at(0);
        let Next::RetryAt(t) = Next::after(&failed(false), 2, 0.001, now) else {
            panic!()
        };
        assert!((t - now).num_milliseconds() <= 360);
    }
}

//! The polling loops: one per channel and one per periodic task, in every
//! process, each stopping when the [`Handle`] says so.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::NaiveDateTime;
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::clock::Clock;
use crate::db::{self, DbConnection, Pool};

use super::{Channel, Job, Next, Outcome, MAX_ATTEMPTS};

/// How often each process prunes finished jobs.
const PRUNE_EVERY: Duration = Duration::from_secs(3600);

/// Builds the loops; [`Runner::start`] sets them going.
pub struct Runner {
    pool: Pool,
    clock: Clock,
    stop: watch::Sender<bool>,
    grace: Duration,
    loops: JoinSet<()>,
}

/// Stops the loops.
pub struct Handle {
    stop: watch::Sender<bool>,
    loops: JoinSet<()>,
}

impl Runner {
    /// `grace`: how long attempts in flight may finish after a stop.
    pub fn new(pool: Pool, clock: Clock, grace: Duration) -> Self {
        Self {
            pool,
            clock,
            stop: watch::channel(false).0,
            grace,
            loops: JoinSet::new(),
        }
    }

    /// Runs a channel's jobs.
    pub fn channel<C: Channel>(&mut self, channel: C) -> &mut Self {
        let worker = Worker {
            channel: Arc::new(channel),
            pool: self.pool.clone(),
            clock: self.clock.clone(),
        };
        let stop = self.stop.subscribe();
        let grace = self.grace;
        self.loops.spawn(worker.run(stop, grace));
        self
    }

    /// Runs `task` every `interval` (and once at start) on a pooled
    /// connection with the current time; what it returns is logged when
    /// `Some`, errors are logged and the next tick tries again.
    pub fn every<F>(&mut self, name: &'static str, interval: Duration, task: F) -> &mut Self
    where
        F: Fn(&mut DbConnection, NaiveDateTime) -> anyhow::Result<Option<String>>
            + Send
            + Sync
            + 'static,
    {
        let task = Arc::new(task);
        let pool = self.pool.clone();
        let clock = self.clock.clone();
        let mut stop = self.stop.subscribe();
        self.loops.spawn(async move {
            let mut tick = tokio::time::interval(interval);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    _ = stop.changed() => return,
                    _ = tick.tick() => {}
                }
                let now = clock.now();
                let task = task.clone();
                match db::run(&pool, move |conn| task(conn, now)).await {
                    Ok(Some(done)) => tracing::info!(task = name, "{done}"),
                    Ok(None) => {}
                    Err(e) => tracing::warn!(task = name, error = %format!("{e:#}"), "failed"),
                }
            }
        });
        self
    }

    /// Sets everything going (the loops already run; this hands over the
    /// means to stop them).
    pub fn start(self) -> Handle {
        Handle {
            stop: self.stop,
            loops: self.loops,
        }
    }
}

impl Handle {
    /// Stops claiming, lets attempts in flight finish within the grace
    /// period, gives the rest back, and returns when every loop has ended.
    pub async fn shutdown(mut self) {
        let _ = self.stop.send(true);
        while self.loops.join_next().await.is_some() {}
    }
}

struct Worker<C: Channel> {
    channel: Arc<C>,
    pool: Pool,
    clock: Clock,
}

impl<C: Channel> Clone for Worker<C> {
    fn clone(&self) -> Self {
        Self {
            channel: self.channel.clone(),
            pool: self.pool.clone(),
            clock: self.clock.clone(),
        }
    }
}

/// Jobs in flight in one worker, by task.
struct InFlight<J> {
    tasks: JoinSet<()>,
    jobs: HashMap<tokio::task::Id, J>,
    keys: HashMap<String, usize>,
}

impl<J: Job> InFlight<J> {
    fn new() -> Self {
        Self {
            tasks: JoinSet::new(),
            jobs: HashMap::new(),
            keys: HashMap::new(),
        }
    }

    fn finished(&mut self, id: tokio::task::Id) {
        if let Some(job) = self.jobs.remove(&id) {
            if let Some(n) = self.keys.get_mut(job.key()) {
                *n -= 1;
                if *n == 0 {
                    self.keys.remove(job.key());
                }
            }
        }
    }

    /// Keys with `per_key` jobs in flight.
    fn full(&self, per_key: usize) -> Vec<String> {
        self.keys
            .iter()
            .filter(|(_, n)| **n >= per_key)
            .map(|(k, _)| k.clone())
            .collect()
    }
}

impl<C: Channel> Worker<C> {
    async fn run(self, mut stop: watch::Receiver<bool>, grace: Duration) {
        let limits = self.channel.limits();
        let mut tick = tokio::time::interval(limits.poll_interval);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut pruned_at: Option<Instant> = None;
        let mut flight = InFlight::new();
        loop {
            tokio::select! {
                _ = stop.changed() => break,
                _ = tick.tick() => {
                    if pruned_at.is_none_or(|t| t.elapsed() >= PRUNE_EVERY) {
                        pruned_at = Some(Instant::now());
                        self.prune().await;
                    }
                    self.enqueue().await;
                }
                Some(done) = flight.tasks.join_next_with_id(), if !flight.tasks.is_empty() => {
                    match done {
                        Ok((id, ())) => flight.finished(id),
                        Err(e) => flight.finished(e.id()),
                    }
                }
            }
            self.fill(&mut flight).await;
        }
        self.drain(flight, grace).await;
    }

    /// Claims due jobs while slots are free, and starts each at once.
    async fn fill(&self, flight: &mut InFlight<C::Job>) {
        let limits = self.channel.limits();
        loop {
            let free = limits.slots.saturating_sub(flight.tasks.len());
            if free == 0 {
                return;
            }
            let full = flight.full(limits.per_key);
            let now = self.clock.now();
            let channel = self.channel.clone();
            let claimed = db::run(&self.pool, move |conn| {
                db::write_transaction(conn, |conn| {
                    channel.claim(conn, now, now + limits.lease, free, &full)
                })
                .map_err(anyhow::Error::from)
            })
            .await;
            let jobs = match claimed {
                Ok(jobs) => jobs,
                Err(e) => {
                    tracing::warn!(channel = C::NAME, error = %format!("{e:#}"), "claiming failed; retrying next pass");
                    return;
                }
            };
            let claimed = jobs.len();
            let mut extra = Vec::new();
            for job in jobs {
                let n = flight.keys.entry(job.key().to_owned()).or_default();
                if *n >= limits.per_key {
                    extra.push(job);
                    continue;
                }
                *n += 1;
                let handle = flight.tasks.spawn(self.clone().attempt(job.clone()));
                flight.jobs.insert(handle.id(), job);
            }
            if !extra.is_empty() {
                // One claim brought more of one key than it may have in
                // flight: give those back, and claim again next pass.
                self.give_back(extra, false).await;
                return;
            }
            if claimed < free {
                return;
            }
        }
    }

    /// Makes one attempt of a claimed job and records its outcome.
    async fn attempt(self, job: C::Job) {
        let limits = self.channel.limits();
        let outcome = if job.attempts() > MAX_ATTEMPTS {
            // Claims whose attempts died with their process used them up.
            Outcome::Failed {
                detail: C::Detail::default(),
                error: format!("gave up after {} attempts", job.attempts() - 1),
                permanent: true,
            }
        } else {
            let now = self.clock.now();
            let (channel, begun) = (self.channel.clone(), job.clone());
            if let Err(e) = db::run(&self.pool, move |conn| {
                channel
                    .begin(conn, &begun, now)
                    .map_err(anyhow::Error::from)
            })
            .await
            {
                tracing::warn!(channel = C::NAME, job = job.id(), error = %format!("{e:#}"), "could not start an attempt");
                self.give_back(vec![job], false).await;
                return;
            }
            self.channel.perform(&self.pool, &job).await
        };
        let now = self.clock.now();
        let next = Next::after(&outcome, job.attempts(), limits.retry_scale, now);
        let channel = self.channel.clone();
        let id = job.id().to_owned();
        let recorded = db::run(&self.pool, move |conn| {
            db::write_transaction(conn, |conn| channel.record(conn, &job, &outcome, next, now))
                .map_err(anyhow::Error::from)
        })
        .await;
        match recorded {
            Ok(true) => {}
            Ok(false) => {
                tracing::warn!(channel = C::NAME, job = %id, "a claim ran out before its outcome was recorded")
            }
            // The lease runs out and the job is attempted again.
            Err(e) => {
                tracing::warn!(channel = C::NAME, job = %id, error = %format!("{e:#}"), "recording an outcome failed")
            }
        }
    }

    async fn give_back(&self, jobs: Vec<C::Job>, attempted: bool) {
        let now = self.clock.now();
        let channel = self.channel.clone();
        if let Err(e) = db::run(&self.pool, move |conn| {
            jobs.iter()
                .try_for_each(|job| channel.give_back(conn, job, attempted, now))
                .map_err(anyhow::Error::from)
        })
        .await
        {
            // Their leases run out instead.
            tracing::warn!(channel = C::NAME, error = %format!("{e:#}"), "giving claims back failed");
        }
    }

    async fn enqueue(&self) {
        let now = self.clock.now();
        let channel = self.channel.clone();
        let result = db::run(&self.pool, move |conn| {
            db::write_transaction(conn, |conn| channel.enqueue(conn, now))
                .map_err(anyhow::Error::from)
        })
        .await;
        if let Err(e) = result {
            // A busy database must not hold up sending what is queued.
            tracing::warn!(channel = C::NAME, error = %format!("{e:#}"), "fan-out failed; retrying next pass");
        }
    }

    async fn prune(&self) {
        let keep_for = self.channel.limits().keep_for;
        let before = self.clock.now() - keep_for;
        let channel = self.channel.clone();
        match db::run(&self.pool, move |conn| {
            channel.prune(conn, before).map_err(anyhow::Error::from)
        })
        .await
        {
            Ok(0) => {}
            Ok(n) => tracing::info!(
                channel = C::NAME,
                deleted = n,
                "pruned finished jobs older than {} days",
                keep_for.num_days()
            ),
            Err(e) => {
                tracing::warn!(channel = C::NAME, error = %format!("{e:#}"), "pruning failed")
            }
        }
    }

    /// After a stop: attempts in flight get `grace` to finish; the rest are
    /// stopped and given back, due at once, for any process to take.
    async fn drain(&self, mut flight: InFlight<C::Job>, grace: Duration) {
        let deadline = tokio::time::Instant::now() + grace;
        while !flight.tasks.is_empty() {
            match tokio::time::timeout_at(deadline, flight.tasks.join_next_with_id()).await {
                Ok(Some(Ok((id, ())))) => flight.finished(id),
                Ok(Some(Err(e))) => flight.finished(e.id()),
                Ok(None) => break,
                Err(_) => {
                    flight.tasks.abort_all();
                    while flight.tasks.join_next().await.is_some() {}
                    let rest: Vec<C::Job> = flight.jobs.drain().map(|(_, job)| job).collect();
                    tracing::info!(
                        channel = C::NAME,
                        jobs = rest.len(),
                        "stopping: giving unfinished attempts back"
                    );
                    self.give_back(rest, true).await;
                    break;
                }
            }
        }
    }
}

//! The computer players' channel of the job queue. Every process runs it:
//! it claims due bot jobs (one claim per turn, `FOR UPDATE SKIP LOCKED` on
//! PostgreSQL, so with several processes exactly one thinks), runs the
//! search on a blocking thread (at most `SANNIN_BOT_SEARCHES` at once per
//! process: the channel's slots), and plays through the same use case as a
//! human move. A claim whose process dies runs out its lease and is taken
//! again; a move that lost a race to the game moving on is cancelled, and
//! the use case's ply check means a turn is never played twice.

use std::time::Duration;

use chrono::NaiveDateTime;

use crate::clock::Clock;
use crate::db::bots::{self as q, BotJobOutcome, BotJobRow, BotJobStatus};
use crate::db::{self, DbConnection, Pool};
use crate::domain::{GameId, ProposalId};
use crate::jobs::{self, Limits, Next, Outcome};

use super::alliances::{answer_proposal, Answer};
use super::bots::{task, think, Task};
use super::moves::{play_move, MoveSubmission};
use super::{GameError, Games};

/// How long finished jobs are kept.
const KEEP_DAYS: i64 = 30;

/// A claimed job.
#[derive(Debug, Clone)]
pub struct Claimed(BotJobRow);

impl jobs::Job for Claimed {
    fn id(&self) -> &str {
        &self.0.id
    }

    fn key(&self) -> &str {
        &self.0.game_id
    }

    fn attempts(&self) -> u32 {
        self.0.attempts.max(0) as u32
    }
}

/// The channel.
pub struct BotTurns {
    pub games: Games,
    pub clock: Clock,
    /// The longest one search may take.
    pub think: Duration,
    /// Searches at once in this process.
    pub searches: usize,
    pub poll_interval: Duration,
}

impl BotTurns {
    /// The outcome of a use case the bot called.
    fn acted<T>(done: Result<T, GameError>, what: String) -> Outcome<Option<String>> {
        match done {
            Ok(_) => Outcome::Done(Some(what)),
            // The game changed between reading it and acting: the next
            // attempt reads it again (and finds nothing to do if it moved on).
            Err(GameError::Stale(why)) => Outcome::Failed {
                detail: None,
                error: why,
                permanent: false,
            },
            Err(e @ (GameError::GameOver | GameError::State(_) | GameError::ProposalNotFound)) => {
                Outcome::Cancelled(e.to_string())
            }
            Err(e @ GameError::Unavailable(_)) => Outcome::Failed {
                detail: None,
                error: e.to_string(),
                permanent: false,
            },
            Err(GameError::Internal(e)) => Outcome::Failed {
                detail: None,
                error: format!("{e:#}"),
                permanent: false,
            },
            Err(e) => {
                tracing::error!(error = %e, "a bot's action was refused");
                Outcome::Failed {
                    detail: None,
                    error: e.to_string(),
                    permanent: true,
                }
            }
        }
    }
}

impl jobs::Channel for BotTurns {
    type Job = Claimed;
    /// What the bot played or answered.
    type Detail = Option<String>;
    const NAME: &'static str = "bots";

    fn limits(&self) -> Limits {
        Limits {
            slots: self.searches,
            per_key: 1,
            // A search ends within its budget; the rest is one transaction.
            lease: chrono::Duration::from_std(self.think + Duration::from_secs(60))
                .unwrap_or(chrono::Duration::minutes(10)),
            poll_interval: self.poll_interval,
            retry_scale: 1.0,
            keep_for: chrono::Duration::days(KEEP_DAYS),
        }
    }

    /// Jobs are queued by the changes that make them due.
    fn enqueue(&self, _conn: &mut DbConnection, _now: NaiveDateTime) -> diesel::QueryResult<usize> {
        Ok(0)
    }

    fn claim(
        &self,
        conn: &mut DbConnection,
        now: NaiveDateTime,
        lease_until: NaiveDateTime,
        limit: usize,
        _full: &[String],
    ) -> diesel::QueryResult<Vec<Claimed>> {
        Ok(q::claim_due(conn, now, lease_until, limit)?
            .into_iter()
            .map(Claimed)
            .collect())
    }

    async fn perform(&self, pool: &Pool, job: &Claimed) -> Outcome<Option<String>> {
        let row = job.0.clone();
        let looked = db::run(pool, move |conn| task(conn, &row)).await;
        let job = &job.0;
        let (bot, game) = (&job.user_id, GameId::from(job.game_id.as_str()));
        match looked {
            Ok(Task::Nothing(why)) => Outcome::Cancelled(why),
            Ok(Task::Move {
                position,
                level,
                seed,
            }) => {
                let budget = self.think;
                let thought = tokio::task::spawn_blocking(move || {
                    think(&position, level, seed, budget).map(|m| m.to_string())
                })
                .await;
                let notation = match thought {
                    Ok(Some(m)) => m,
                    Ok(None) => return Outcome::Cancelled("no legal move".into()),
                    Err(e) => {
                        return Outcome::Failed {
                            detail: None,
                            error: format!("the search failed: {e}"),
                            permanent: false,
                        }
                    }
                };
                let submission = MoveSubmission {
                    notation: notation.clone(),
                    ply: i64::from(job.ply),
                    offer_draw: false,
                };
                let now = self.clock.now();
                Self::acted(
                    play_move(&self.games, bot, &game, submission, now).await,
                    notation,
                )
            }
            Ok(Task::Answer { accept }) => {
                let what = if accept {
                    Answer::Accept
                } else {
                    Answer::Decline
                };
                let Some(proposal) = job.proposal_id.as_deref().map(ProposalId::from) else {
                    return Outcome::Cancelled("the job names no proposal".into());
                };
                let now = self.clock.now();
                Self::acted(
                    answer_proposal(&self.games, bot, &game, &proposal, what, now).await,
                    if accept { "accepted" } else { "declined" }.to_owned(),
                )
            }
            Err(GameError::GameNotFound) => Outcome::Cancelled("the game is gone".into()),
            Err(e) => Outcome::Failed {
                detail: None,
                error: format!("could not read the game: {e}"),
                permanent: false,
            },
        }
    }

    fn record(
        &self,
        conn: &mut DbConnection,
        job: &Claimed,
        outcome: &Outcome<Option<String>>,
        next: Next,
        _now: NaiveDateTime,
    ) -> diesel::QueryResult<bool> {
        let j = &job.0;
        let (result, error) = match outcome {
            Outcome::Done(result) => (result.clone(), None),
            Outcome::Failed { detail, error, .. } => (detail.clone(), Some(error.clone())),
            Outcome::Cancelled(why) => (None, Some(why.clone())),
        };
        let row = match next {
            Next::Done => BotJobOutcome {
                status: Some(BotJobStatus::Done),
                result: Some(result),
                last_error: Some(None),
                ..Default::default()
            },
            Next::Cancelled => BotJobOutcome {
                status: Some(BotJobStatus::Cancelled),
                last_error: Some(error),
                ..Default::default()
            },
            Next::RetryAt(at) => BotJobOutcome {
                status: Some(BotJobStatus::Pending),
                next_attempt_at: Some(at),
                last_error: Some(error),
                ..Default::default()
            },
            Next::Failed => {
                tracing::error!(job = %j.id, error = ?error, "a bot's job failed for good");
                BotJobOutcome {
                    status: Some(BotJobStatus::Failed),
                    last_error: Some(error),
                    ..Default::default()
                }
            }
        };
        q::record_if_held(conn, &j.id, j.next_attempt_at, &row)
    }

    fn give_back(
        &self,
        conn: &mut DbConnection,
        job: &Claimed,
        attempted: bool,
        now: NaiveDateTime,
    ) -> diesel::QueryResult<()> {
        q::give_back(conn, &job.0.id, job.0.next_attempt_at, attempted, now).map(drop)
    }

    fn prune(&self, conn: &mut DbConnection, before: NaiveDateTime) -> diesel::QueryResult<usize> {
        q::prune(conn, before)
    }
}

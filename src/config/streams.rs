//! Live streams: how many each account and client may hold, how much each
//! may buffer for a slow client, and how often they speak when idle.

use std::time::Duration;

use super::raw::{variable, RawStreams};
use super::values::within;
use super::{ConfigError, DatabaseUrl};

/// Live event streams.
#[derive(Debug, Clone, Copy)]
pub struct StreamSettings {
    /// Open streams per account at most (per server process).
    pub per_account: usize,
    /// Open streams per client address at most (per server process).
    pub per_client: usize,
    /// Messages a stream holds for a client that reads slowly.
    pub buffer: usize,
    /// How long a stream's buffer may stay full before the stream is closed
    /// with a last message saying so (the client resumes from its last id).
    pub lag: Duration,
    /// How often an idle stream sends a keep-alive.
    pub keepalive: Duration,
    /// How often a stream reads even when nothing woke it: the wake-up of a
    /// change made by another process, on SQLite (PostgreSQL notifies).
    pub poll: Duration,
}

pub(super) fn stream_settings(
    raw: RawStreams,
    url: &DatabaseUrl,
) -> Result<StreamSettings, ConfigError> {
    let poll_default = match url {
        DatabaseUrl::Postgres(_) => 5_000,
        DatabaseUrl::Sqlite(_) => 250,
    };
    Ok(StreamSettings {
        per_account: within(
            variable("streams.per_account"),
            raw.per_account,
            8,
            1,
            10_000,
        )?,
        per_client: within(
            variable("streams.per_client"),
            raw.per_client,
            32,
            1,
            100_000,
        )?,
        buffer: within(variable("streams.buffer"), raw.buffer, 64, 1, 10_000)?,
        lag: Duration::from_secs(within(
            variable("streams.lag_seconds"),
            raw.lag_seconds,
            30,
            1,
            3_600,
        )?),
        keepalive: Duration::from_secs(within(
            variable("streams.keepalive_seconds"),
            raw.keepalive_seconds,
            20,
            1,
            25,
        )?),
        poll: Duration::from_millis(within(
            variable("streams.poll_ms"),
            raw.poll_ms,
            poll_default,
            50,
            60_000,
        )?),
    })
}

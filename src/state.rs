//! What every request handler shares.

use std::time::Duration;

use crate::auth::jwt::JwtKeys;
use crate::auth::rate_limit::RateLimits;
use crate::db::Pool;

pub struct AppState {
    pub pool: Pool,
    /// Sessions lately checked live (PostgreSQL; see `db::session_cache`).
    pub sessions: crate::db::session_cache::SessionCache,
    pub jwt: JwtKeys,
    /// The time, injected so tests can move it.
    pub clock: crate::clock::Clock,
    pub rate_limits: RateLimits,
    /// Proxies whose `X-Forwarded-For` names the client.
    pub trusted_proxies: crate::auth::rate_limit::TrustedProxies,
    /// Verified against when a log-in names no known user (see `auth::password`).
    pub dummy_hash: String,
    pub refresh_token_ttl: Duration,
    pub max_body_bytes: usize,
    /// How long a client may take to send a request body.
    pub body_timeout: Duration,
    /// Requests in flight per client address.
    pub in_flight: std::sync::Arc<InFlight>,
    /// The game use cases' database and time rules (the length of a day, how
    /// long invitations wait).
    pub games: crate::games::Games,
    /// Where webhooks may point, how retries are paced.
    pub webhooks: crate::notify::Settings,
    /// Writing mail: links, their signing key, the sender.
    pub mail: crate::notify::mail::MailContext,
    /// What one account may hold and how often it may do costly things.
    pub limits: crate::domain::limits::Limits,
    /// What readiness reports besides its own check.
    pub readiness: std::sync::Arc<Readiness>,
    /// Open live streams and their limits.
    pub streams: std::sync::Arc<Streams>,
}

/// What readiness knows besides its own check: when this server last
/// answered a request 503 because the database was unavailable.
#[derive(Debug, Default)]
pub struct Readiness {
    last_unavailable: std::sync::Mutex<Option<std::time::Instant>>,
}

impl Readiness {
    pub fn note(&self) {
        if let Ok(mut last) = self.last_unavailable.lock() {
            *last = Some(std::time::Instant::now());
        }
    }

    /// How long ago, if within `window`.
    pub fn unavailable_since(&self, window: std::time::Duration) -> Option<std::time::Duration> {
        let last = *self.last_unavailable.lock().ok()?;
        last.map(|t| t.elapsed()).filter(|ago| *ago <= window)
    }
}

/// Requests in flight per client address, capped so that one client (say,
/// one sending bodies a byte at a time) cannot hold every connection.
#[derive(Debug)]
pub struct InFlight {
    limit: usize,
    by_client: std::sync::Mutex<std::collections::HashMap<std::net::IpAddr, usize>>,
}

impl InFlight {
    pub fn new(limit: usize) -> Self {
        Self {
            limit,
            by_client: Default::default(),
        }
    }

    /// Counts a request of `client` while the guard lives; `None` when the
    /// client already has `limit` in flight.
    pub fn enter(self: &std::sync::Arc<Self>, client: std::net::IpAddr) -> Option<InFlightGuard> {
        let mut map = self.by_client.lock().ok()?;
        let n = map.entry(client).or_default();
        if *n >= self.limit {
            return None;
        }
        *n += 1;
        Some(InFlightGuard {
            of: self.clone(),
            client,
        })
    }
}

/// One request in flight; counted out when dropped.
#[derive(Debug)]
pub struct InFlightGuard {
    of: std::sync::Arc<InFlight>,
    client: std::net::IpAddr,
}

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        if let Ok(mut map) = self.of.by_client.lock() {
            if let Some(n) = map.get_mut(&self.client) {
                *n -= 1;
                if *n == 0 {
                    map.remove(&self.client);
                }
            }
        }
    }
}

/// Open live streams, counted per account and per client network (in this
/// process: each stream holds this process's memory and a connection), and
/// the signal that ends them when the server stops.
#[derive(Debug)]
pub struct Streams {
    pub settings: crate::config::StreamSettings,
    open: std::sync::Mutex<std::collections::HashMap<StreamHolder, usize>>,
    closing: tokio::sync::watch::Receiver<bool>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum StreamHolder {
    Account(String),
    Client(std::net::IpAddr),
}

impl Streams {
    pub fn new(
        settings: crate::config::StreamSettings,
        closing: tokio::sync::watch::Receiver<bool>,
    ) -> Self {
        Self {
            settings,
            open: Default::default(),
            closing,
        }
    }

    /// Counts a stream of `account` (if signed in) from `client`; names what
    /// is full when either has its share open. The client's count lasts as
    /// long as the connection's response; the account's as long as the
    /// stream reads for it (a stream that gave up on a slow reader no longer
    /// counts against its account, but its connection still counts against
    /// its address until it closes).
    pub fn admit(
        self: &std::sync::Arc<Self>,
        account: Option<&str>,
        client: std::net::IpAddr,
    ) -> Result<(StreamSlot, Option<StreamSlot>), &'static str> {
        let client = StreamHolder::Client(crate::auth::rate_limit::network_of(client));
        let account = account.map(|a| StreamHolder::Account(a.to_owned()));
        let mut open = self.open.lock().map_err(|_| "in this server")?;
        let count = |h: &StreamHolder| open.get(h).copied().unwrap_or_default();
        if count(&client) >= self.settings.per_client {
            return Err("from this client address");
        }
        if account
            .as_ref()
            .is_some_and(|a| count(a) >= self.settings.per_account)
        {
            return Err("for this account");
        }
        let mut slot = |holder: StreamHolder| {
            *open.entry(holder.clone()).or_default() += 1;
            StreamSlot {
                of: self.clone(),
                holder,
            }
        };
        Ok((slot(client), account.map(slot)))
    }

    /// Becomes true when the server begins to stop.
    pub fn closing(&self) -> tokio::sync::watch::Receiver<bool> {
        self.closing.clone()
    }
}

/// One open stream of an account or a client; counted out when dropped.
#[derive(Debug)]
pub struct StreamSlot {
    of: std::sync::Arc<Streams>,
    holder: StreamHolder,
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        if let Ok(mut open) = self.of.open.lock() {
            if let Some(n) = open.get_mut(&self.holder) {
                *n -= 1;
                if *n == 0 {
                    open.remove(&self.holder);
                }
            }
        }
    }
}

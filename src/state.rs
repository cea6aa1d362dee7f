//! What every request handler shares.

use std::time::Duration;

use crate::auth::jwt::JwtKeys;
use crate::auth::rate_limit::RateLimits;
use crate::db::Pool;

pub struct AppState {
    pub pool: Pool,
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
    /// The game use cases' database and time rules (the length of a day, how
    /// long invitations wait).
    pub games: crate::games::Games,
    /// Where webhooks may point, how retries are paced.
    pub webhooks: crate::notify::Settings,
    /// Writing mail: links, their signing key, the sender.
    pub mail: crate::notify::mail::MailContext,
    /// What readiness reports besides its own check.
    pub readiness: std::sync::Arc<Readiness>,
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

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
}

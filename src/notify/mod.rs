//! Notices of game events to their recipients. Webhooks: endpoints a user
//! registers, the fan-out of outbox events into deliveries, and the worker that
//! signs and sends them with retries. Mail: the same outbox rendered into
//! messages for verified addresses, sent by a worker of its own.

pub mod mail;
pub mod signature;
pub mod targets;
pub mod webhooks;
pub mod worker;

/// Settings of webhook delivery.
#[derive(Clone)]
pub struct Settings {
    /// Where webhooks may point, and the client that enforces it.
    pub targets: targets::Targets,
    /// The service's time: claims, leases and retries are measured by it.
    pub clock: crate::clock::Clock,
    pub retry_scale: f64,
    pub poll_interval: std::time::Duration,
}

impl Settings {
    /// `resolver` looks up webhook hosts: the system's in production.
    pub fn from_config(
        settings: &crate::config::Settings,
        resolver: targets::Resolver,
        clock: crate::clock::Clock,
    ) -> Self {
        let policy = targets::TargetPolicy {
            allow_private: settings.webhook_allow_private,
            allowed_networks: settings.webhook_allow_networks.clone(),
            ports: settings.webhook_ports.clone(),
        };
        Self {
            targets: targets::Targets::new(policy, resolver),
            clock,
            retry_scale: settings.webhook_retry_scale,
            poll_interval: settings.webhook_poll_interval,
        }
    }
}

/// Waits after the first, second, … failed attempt, in seconds (before scaling),
/// for webhook deliveries and mail alike.
pub const RETRY_SCHEDULE_SECS: [u64; 9] =
    [5, 300, 1_800, 7_200, 18_000, 36_000, 50_400, 72_000, 86_400];

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

//! Notices of game events to their recipients, two channels of the job
//! queue (`crate::jobs`). Webhooks: endpoints a user registers, the fan-out
//! of outbox events into deliveries, signed and sent (`delivery`). Mail: the
//! same outbox rendered into messages for verified addresses (`mail`).

pub mod delivery;
pub mod mail;
pub mod signature;
pub mod targets;
pub mod webhooks;

/// Settings of webhook delivery.
#[derive(Clone)]
pub struct Settings {
    /// Where webhooks may point, and the client that enforces it.
    pub targets: targets::Targets,
    /// The service's time: claims, leases and retries are measured by it.
    pub clock: crate::clock::Clock,
    pub retry_scale: f64,
    pub poll_interval: std::time::Duration,
    /// How long a receiver has to answer.
    pub timeout: std::time::Duration,
    /// How many webhooks an account may hold and ping.
    pub limits: crate::domain::limits::Limits,
}

impl Settings {
    /// `resolver` looks up webhook hosts: the system's in production.
    pub fn from_config(
        settings: &crate::config::Settings,
        resolver: targets::Resolver,
        clock: crate::clock::Clock,
    ) -> Self {
        let policy = targets::TargetPolicy {
            allow_private: settings.webhooks.allow_private,
            allowed_networks: settings.webhooks.allow_networks.clone(),
            denied_networks: settings.webhooks.deny_networks.clone(),
            ports: settings.webhooks.ports.clone(),
        };
        Self {
            targets: targets::Targets::new(policy, resolver),
            clock,
            retry_scale: settings.webhooks.retry_scale,
            poll_interval: settings.webhooks.poll_interval,
            timeout: settings.webhooks.timeout,
            limits: settings.limits,
        }
    }
}

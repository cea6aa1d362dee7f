//! Notices of game events to their recipients. Webhooks: endpoints a user
//! registers, the fan-out of outbox events into deliveries, and the worker that
//! signs and sends them with retries.

pub mod signature;
pub mod url_check;
pub mod webhooks;
pub mod worker;

/// Settings of webhook delivery.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    pub allow_private: bool,
    pub retry_scale: f64,
    pub poll_interval: std::time::Duration,
}

impl Settings {
    pub fn from_config(settings: &crate::config::Settings) -> Self {
        Self {
            allow_private: settings.webhook_allow_private,
            retry_scale: settings.webhook_retry_scale,
            poll_interval: settings.webhook_poll_interval,
        }
    }
}

//! Per-client-address rate limits on the unauthenticated account endpoints.

use std::net::IpAddr;
use std::num::NonZeroU32;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::error::ApiError;

/// Which endpoint family a request counts against.
#[derive(Debug, Clone, Copy)]
pub enum Limited {
    Login,
    Registration,
    Refresh,
}

/// One keyed limiter per endpoint family; each allows `per_minute` requests
/// in a burst, refilled evenly over a minute.
pub struct RateLimits {
    login: DefaultKeyedRateLimiter<IpAddr>,
    registration: DefaultKeyedRateLimiter<IpAddr>,
    refresh: DefaultKeyedRateLimiter<IpAddr>,
    clock: DefaultClock,
}

impl RateLimits {
    pub fn new(per_minute: NonZeroU32) -> Self {
        let quota = Quota::per_minute(per_minute);
        Self {
            login: RateLimiter::keyed(quota),
            registration: RateLimiter::keyed(quota),
            refresh: RateLimiter::keyed(quota),
            clock: DefaultClock::default(),
        }
    }

    /// Counts one request from `client`; refuses with the wait in seconds.
    pub fn check(&self, which: Limited, client: IpAddr) -> Result<(), ApiError> {
        let limiter = match which {
            Limited::Login => &self.login,
            Limited::Registration => &self.registration,
            Limited::Refresh => &self.refresh,
        };
        limiter.check_key(&client).map_err(|not_until| {
            let wait = not_until.wait_time_from(self.clock.now());
            ApiError::RateLimited {
                retry_after_secs: wait.as_secs() + u64::from(wait.subsec_nanos() > 0),
            }
        })
    }

    /// Forgets clients whose allowance has refilled, bounding memory.
    pub fn forget_idle(&self) {
        self.login.retain_recent();
        self.registration.retain_recent();
        self.refresh.retain_recent();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_after_the_burst_per_client() {
        let limits = RateLimits::new(NonZeroU32::new(2).unwrap());
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        assert!(limits.check(Limited::Login, a).is_ok());
        assert!(limits.check(Limited::Login, a).is_ok());
        match limits.check(Limited::Login, a) {
            Err(ApiError::RateLimited { retry_after_secs }) => assert!(retry_after_secs >= 1),
            other => panic!("expected a rate limit, got {other:?}"),
        }
        assert!(limits.check(Limited::Login, b).is_ok());
        assert!(limits.check(Limited::Refresh, a).is_ok());
    }
}

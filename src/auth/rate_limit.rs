//! Per-client-address rate limits on the unauthenticated account endpoints,
//! and which address a request comes from when it passes through proxies.

use std::net::IpAddr;
use std::num::NonZeroU32;

use governor::clock::{Clock, DefaultClock};
use governor::middleware::StateInformationMiddleware;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};

use crate::domain::limits::Standing;

/// A limiter per client network that tells what remains after each check.
type Keyed =
    RateLimiter<IpAddr, DefaultKeyedStateStore<IpAddr>, DefaultClock, StateInformationMiddleware>;
use ipnet::IpNet;

/// A request over its allowance; retry after this many seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimited {
    pub retry_after_secs: u64,
    pub standing: Standing,
}

/// Which endpoint family a request counts against.
#[derive(Debug, Clone, Copy)]
pub enum Limited {
    Login,
    Registration,
    Refresh,
}

impl Limited {
    /// The policy's name in the `RateLimit` header fields.
    pub fn policy(self) -> &'static str {
        match self {
            Limited::Login => "login",
            Limited::Registration => "registration",
            Limited::Refresh => "refresh",
        }
    }
}

/// One keyed limiter per endpoint family; each allows `per_minute` requests
/// in a burst, refilled evenly over a minute.
pub struct RateLimits {
    login: Keyed,
    registration: Keyed,
    refresh: Keyed,
    clock: DefaultClock,
    per_minute: u32,
}

impl RateLimits {
    pub fn new(per_minute: NonZeroU32) -> Self {
        let quota = Quota::per_minute(per_minute);
        let keyed = || RateLimiter::keyed(quota).with_middleware::<StateInformationMiddleware>();
        Self {
            login: keyed(),
            registration: keyed(),
            refresh: keyed(),
            clock: DefaultClock::default(),
            per_minute: per_minute.get(),
        }
    }

    /// Where a client stands: `remaining` of the minute's quota, and the
    /// seconds until the whole quota is available again (one comes back
    /// every minute / quota).
    fn standing(&self, which: Limited, remaining: u32) -> Standing {
        let used = u64::from(self.per_minute.saturating_sub(remaining));
        Standing {
            policy: which.policy(),
            quota: self.per_minute as usize,
            window_secs: 60,
            remaining: remaining as usize,
            reset_secs: (used * 60).div_ceil(u64::from(self.per_minute.max(1))),
        }
    }

    /// Counts one request from `client`; refuses with the wait in seconds.
    /// IPv6 clients count by their /64 network: one host usually holds a
    /// whole /64, and could otherwise take a fresh address per request.
    /// Counts one attempt of `client`'s; where it then stands, or how long
    /// it must wait.
    pub fn check(&self, which: Limited, client: IpAddr) -> Result<Standing, RateLimited> {
        let limiter = match which {
            Limited::Login => &self.login,
            Limited::Registration => &self.registration,
            Limited::Refresh => &self.refresh,
        };
        match limiter.check_key(&network_of(client)) {
            Ok(snapshot) => Ok(self.standing(which, snapshot.remaining_burst_capacity())),
            Err(not_until) => {
                let wait = not_until.wait_time_from(self.clock.now());
                let retry_after_secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
                Err(RateLimited {
                    retry_after_secs,
                    standing: Standing {
                        remaining: 0,
                        reset_secs: retry_after_secs,
                        ..self.standing(which, 0)
                    },
                })
            }
        }
    }

    /// Forgets clients whose allowance has refilled, bounding memory.
    pub fn forget_idle(&self) {
        self.login.retain_recent();
        self.registration.retain_recent();
        self.refresh.retain_recent();
    }
}

/// The key a client counts under: an IPv4 address (an IPv4-mapped IPv6
/// one as IPv4), or the /64 network of an IPv6 address.
pub fn network_of(client: IpAddr) -> IpAddr {
    match client {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(std::net::Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    }
}

/// Reverse proxies (load balancers) whose `X-Forwarded-For` is believed.
#[derive(Debug, Clone, Default)]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    pub fn new(nets: Vec<IpNet>) -> Self {
        Self(nets)
    }

    fn trusts(&self, ip: IpAddr) -> bool {
        self.0.iter().any(|net| net.contains(&ip))
    }

    /// Where a request comes from: the TCP peer, unless the peer is a trusted
    /// proxy; then the nearest address in `X-Forwarded-For` (read from the
    /// right, each proxy appending the address it was reached from) that is
    /// not a trusted proxy. Addresses left of it could be made up by the
    /// client and are never used. Empty entries are skipped; an entry that is
    /// not an address (`None` stands for a header line that is not text) ends
    /// the walk at the last trusted hop. IPv4 addresses written as IPv6
    /// (`::ffff:10.0.0.5`, as a dual-stack socket reports them) count as IPv4.
    pub fn client(&self, peer: IpAddr, forwarded_for: &[Option<&str>]) -> IpAddr {
        let mut client = peer.to_canonical();
        if !self.trusts(client) {
            return client;
        }
        for line in forwarded_for.iter().rev() {
            let Some(line) = line else {
                return client;
            };
            for entry in line.rsplit(',').map(str::trim).filter(|e| !e.is_empty()) {
                let Some(ip) = parse_hop(entry) else {
                    return client;
                };
                client = ip;
                if !self.trusts(ip) {
                    return client;
                }
            }
        }
        client
    }
}

/// One `X-Forwarded-For` entry: an address, possibly with a port
/// (`203.0.113.7:4711`, `[2001:db8::1]:443`).
fn parse_hop(entry: &str) -> Option<IpAddr> {
    entry
        .parse::<IpAddr>()
        .or_else(|_| entry.parse::<std::net::SocketAddr>().map(|a| a.ip()))
        .ok()
        .map(|ip| ip.to_canonical())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forwarded_for_counts_only_behind_trusted_proxies() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        let client = |t: &TrustedProxies, peer: &str, lines: &[&str]| {
            let lines: Vec<Option<&str>> = lines.iter().copied().map(Some).collect();
            t.client(ip(peer), &lines)
        };
        let none = TrustedProxies::default();
        assert_eq!(client(&none, "10.0.0.5", &["203.0.113.7"]), ip("10.0.0.5"));

        let lb = TrustedProxies::new(vec!["10.0.0.0/8".parse().unwrap()]);
        // An untrusted peer's header is ignored.
        assert_eq!(
            client(&lb, "198.51.100.1", &["203.0.113.7"]),
            ip("198.51.100.1")
        );
        // Behind the balancer: the address it saw.
        assert_eq!(client(&lb, "10.0.0.5", &["203.0.113.7"]), ip("203.0.113.7"));
        // A client's made-up entries left of it are not believed.
        assert_eq!(
            client(&lb, "10.0.0.5", &["1.2.3.4, 203.0.113.7"]),
            ip("203.0.113.7")
        );
        // Two trusted hops, over two header lines.
        assert_eq!(
            client(&lb, "10.0.0.5", &["192.0.2.9, 10.1.1.1", "10.2.2.2"]),
            ip("192.0.2.9")
        );
        // No header, garbage, or a line that is not text: the last trusted hop.
        assert_eq!(client(&lb, "10.0.0.5", &[]), ip("10.0.0.5"));
        assert_eq!(client(&lb, "10.0.0.5", &["junk, 10.3.3.3"]), ip("10.3.3.3"));
        assert_eq!(
            lb.client(ip("10.0.0.5"), &[Some("192.0.2.9"), None]),
            ip("10.0.0.5")
        );
        assert_eq!(client(&lb, "10.0.0.5", &["2001:db8::1"]), ip("2001:db8::1"));
        // A dual-stack socket's mapped peer, ports, and empty entries.
        assert_eq!(
            client(&lb, "::ffff:10.0.0.5", &["203.0.113.7"]),
            ip("203.0.113.7")
        );
        assert_eq!(
            client(&lb, "10.0.0.5", &["203.0.113.7:4711, , 10.1.1.1,"]),
            ip("203.0.113.7")
        );
        assert_eq!(
            client(&lb, "10.0.0.5", &["[2001:db8::1]:443"]),
            ip("2001:db8::1")
        );
    }

    #[test]
    fn refuses_after_the_burst_per_client() {
        let limits = RateLimits::new(NonZeroU32::new(2).unwrap());
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        assert_eq!(limits.check(Limited::Login, a).unwrap().remaining, 1);
        let last = limits.check(Limited::Login, a).unwrap();
        assert_eq!((last.remaining, last.reset_secs), (0, 60));
        match limits.check(Limited::Login, a) {
            Err(RateLimited {
                retry_after_secs,
                standing,
            }) => {
                assert!(retry_after_secs >= 1);
                assert_eq!((standing.policy, standing.remaining), ("login", 0));
            }
            other => panic!("expected a rate limit, got {other:?}"),
        }
        assert!(limits.check(Limited::Login, b).is_ok());
        assert!(limits.check(Limited::Refresh, a).is_ok());
    }

    #[test]
    fn ipv6_clients_count_by_their_slash_64() {
        let limits = RateLimits::new(NonZeroU32::new(2).unwrap());
        let host = |s: &str| -> IpAddr { s.parse().unwrap() };
        assert!(limits
            .check(Limited::Login, host("2001:db8:1:2::1"))
            .is_ok());
        assert!(limits
            .check(Limited::Login, host("2001:db8:1:2::ffff"))
            .is_ok());
        // A third address in the same /64 is the same client.
        assert!(limits
            .check(Limited::Login, host("2001:db8:1:2:abcd::9"))
            .is_err());
        // Another /64 is another client.
        assert!(limits
            .check(Limited::Login, host("2001:db8:1:3::1"))
            .is_ok());
        // An IPv4-mapped address is its IPv4 address.
        assert!(limits
            .check(Limited::Login, host("::ffff:192.0.2.1"))
            .is_ok());
        assert!(limits.check(Limited::Login, host("192.0.2.1")).is_ok());
        assert!(limits.check(Limited::Login, host("192.0.2.1")).is_err());
    }
}

//! Where a webhook may send, enforced where the connection is made.
//!
//! A host name is resolved once per connection, by the resolver the webhook
//! client connects through ([`Targets::client`]), and only the addresses the
//! [`TargetPolicy`] allows come out of it: a name that answers a public address
//! to one lookup and a loopback address to the next (DNS rebinding) can never
//! lead a delivery to the loopback address, because no second lookup exists to
//! exploit. Hosts written as IP addresses never reach a resolver, so the send
//! path checks them against the same policy ([`Targets::refusal`]).

use std::error::Error as StdError;
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::ops::RangeInclusive;
use std::sync::Arc;
use std::time::Duration;

use ipnet::IpNet;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::Url;

use crate::domain::FieldError;

/// The longest webhook URL, as given and as normalised.
pub const URL_MAX_LEN: usize = 2000;

/// How long a URL being saved may take to resolve.
pub const LOOKUP_TIMEOUT: Duration = Duration::from_secs(5);

/// Ports a webhook may use unless configured otherwise: the web's own and the
/// unprivileged range, not SMTP, SSH or other services on privileged ports.
pub fn default_ports() -> Vec<RangeInclusive<u16>> {
    vec![80..=80, 443..=443, 1024..=65535]
}

/// Which addresses and ports webhooks may target.
#[derive(Debug, Clone)]
pub struct TargetPolicy {
    /// Any address at all (tests, local set-ups).
    pub allow_private: bool,
    /// Networks allowed although not globally reachable (an internal receiver).
    pub allowed_networks: Vec<IpNet>,
    /// Networks never allowed, whatever else says so: the operator's own
    /// publicly routable ranges (an admin panel, a metadata service).
    pub denied_networks: Vec<IpNet>,
    pub ports: Vec<RangeInclusive<u16>>,
}

impl Default for TargetPolicy {
    fn default() -> Self {
        Self {
            allow_private: false,
            allowed_networks: Vec::new(),
            denied_networks: Vec::new(),
            ports: default_ports(),
        }
    }
}

impl TargetPolicy {
    pub fn allows_address(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        if self.denied_networks.iter().any(|net| net.contains(&ip)) {
            return false;
        }
        self.allow_private
            || is_global(ip)
            || self.allowed_networks.iter().any(|net| net.contains(&ip))
    }

    pub fn allows_port(&self, port: u16) -> bool {
        self.ports.iter().any(|r| r.contains(&port))
    }
}

/// A resolver of host names: the system's, or one a test supplies.
pub type Resolver = Arc<dyn Resolve>;

/// The operating system's resolver (getaddrinfo, off the async executor).
pub struct SystemResolver;

impl Resolve for SystemResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

/// Every address of a host was refused by the policy.
#[derive(Debug)]
pub struct Refused {
    host: String,
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} resolves only to addresses webhooks may not target",
            self.host
        )
    }
}

impl StdError for Refused {}

/// The resolver under the webhook client: the inner resolver's answer with
/// every refused address taken out; an error when none is left.
struct Guarded {
    inner: Resolver,
    policy: Arc<TargetPolicy>,
}

impl Resolve for Guarded {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_owned();
        let lookup = self.inner.resolve(name);
        let policy = self.policy.clone();
        Box::pin(async move {
            let allowed: Vec<SocketAddr> = lookup
                .await?
                .filter(|a| policy.allows_address(a.ip()))
                .collect();
            if allowed.is_empty() {
                tracing::warn!(host = %host, "webhook host resolves only to refused addresses");
                return Err(Box::new(Refused { host }) as Box<dyn StdError + Send + Sync>);
            }
            Ok(Box::new(allowed.into_iter()) as Addrs)
        })
    }
}

/// The policy and the resolver together: checks URLs when they are saved and
/// makes the client deliveries connect through.
#[derive(Clone)]
pub struct Targets {
    policy: Arc<TargetPolicy>,
    resolver: Resolver,
}

impl Targets {
    pub fn new(policy: TargetPolicy, resolver: Resolver) -> Self {
        Self {
            policy: Arc::new(policy),
            resolver,
        }
    }

    /// Checks a URL being saved: its form, its port, and every address its host
    /// resolves to now. The error names the field.
    pub async fn check(&self, raw: &str) -> Result<Url, FieldError> {
        let url = self.parse(raw)?;
        let host = host_of(&url)?;
        let addrs: Vec<IpAddr> = match host.parse::<IpAddr>() {
            Ok(ip) => vec![ip],
            Err(_) => {
                let name: Name = host.parse().map_err(|_| unresolvable())?;
                tokio::time::timeout(LOOKUP_TIMEOUT, self.resolver.resolve(name))
                    .await
                    .map_err(|_| unresolvable())?
                    .map_err(|_| unresolvable())?
                    .map(|a| a.ip())
                    .collect()
            }
        };
        if addrs.is_empty() {
            return Err(unresolvable());
        }
        if addrs.iter().any(|ip| !self.policy.allows_address(*ip)) {
            return Err(FieldError::new(
                "url",
                "private-address",
                "resolves to an address that is not publicly routable (private, loopback, link-local or reserved)",
            ));
        }
        Ok(url)
    }

    /// Why a stored URL may not be sent to now, short of resolving its host
    /// (the client's resolver applies the policy to names): its form, its port,
    /// or a host written as a refused address.
    pub fn refusal(&self, raw: &str) -> Option<String> {
        let url = match self.parse(raw) {
            Ok(url) => url,
            Err(e) => return Some(e.message),
        };
        match host_of(&url) {
            Ok(host) => match host.parse::<IpAddr>() {
                Ok(ip) if !self.policy.allows_address(ip) => {
                    Some("its address is not publicly routable".to_owned())
                }
                _ => None,
            },
            Err(e) => Some(e.message),
        }
    }

    /// The HTTP client of deliveries: it resolves through the policy, uses no
    /// proxy (a proxy would resolve the name itself), follows no redirect (one
    /// could lead anywhere) and gives a receiver `timeout` to answer.
    pub fn client(&self, timeout: Duration) -> anyhow::Result<reqwest::Client> {
        Ok(reqwest::Client::builder()
            .dns_resolver(Arc::new(Guarded {
                inner: self.resolver.clone(),
                policy: self.policy.clone(),
            }))
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(timeout)
            .user_agent("sannin-webhooks")
            .build()?)
    }

    fn parse(&self, raw: &str) -> Result<Url, FieldError> {
        let invalid = |code: &str, message: &str| FieldError::new("url", code, message);
        let too_long = || {
            invalid(
                "length",
                &format!("must be at most {URL_MAX_LEN} characters long"),
            )
        };
        if raw.chars().count() > URL_MAX_LEN {
            return Err(too_long());
        }
        let url = Url::parse(raw.trim()).map_err(|_| invalid("invalid-url", "is not a URL"))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(invalid("scheme", "must be an http or https URL"));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(invalid(
                "credentials",
                "must not contain a user name or password",
            ));
        }
        if url.as_str().len() > URL_MAX_LEN {
            return Err(too_long());
        }
        let port = url.port_or_known_default().unwrap_or(443);
        if !self.policy.allows_port(port) {
            return Err(FieldError::new(
                "url",
                "port",
                format!(
                    "port {port} is not allowed; webhooks may use {}",
                    describe_ports(&self.policy.ports)
                ),
            ));
        }
        Ok(url)
    }
}

/// Whether `e`, or an error under it, is the policy refusing every address.
pub fn is_refusal(e: &(dyn StdError + 'static)) -> bool {
    let mut cause = Some(e);
    while let Some(err) = cause {
        if err.is::<Refused>() {
            return true;
        }
        cause = err.source();
    }
    false
}

fn unresolvable() -> FieldError {
    FieldError::new("url", "unresolvable", "its host does not resolve")
}

fn host_of(url: &Url) -> Result<String, FieldError> {
    Ok(url
        .host_str()
        .ok_or_else(|| FieldError::new("url", "invalid-url", "has no host"))?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned())
}

fn describe_ports(ports: &[RangeInclusive<u16>]) -> String {
    ports
        .iter()
        .map(|r| {
            if r.start() == r.end() {
                r.start().to_string()
            } else {
                format!("{}–{}", r.start(), r.end())
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// IPv4 ranges that are not globally reachable, from the IANA IPv4
/// Special-Purpose Address Registry (RFC 6890 and its updates), plus the
/// multicast, reserved and broadcast blocks.
const NON_GLOBAL_V4: [(Ipv4Addr, u8); 16] = [
    (Ipv4Addr::new(0, 0, 0, 0), 8),          // "this network" (RFC 791)
    (Ipv4Addr::new(10, 0, 0, 0), 8),         // private (RFC 1918)
    (Ipv4Addr::new(100, 64, 0, 0), 10),      // shared address space (RFC 6598)
    (Ipv4Addr::new(127, 0, 0, 0), 8),        // loopback
    (Ipv4Addr::new(169, 254, 0, 0), 16),     // link-local
    (Ipv4Addr::new(172, 16, 0, 0), 12),      // private
    (Ipv4Addr::new(192, 0, 0, 0), 24),       // IETF protocol assignments
    (Ipv4Addr::new(192, 0, 2, 0), 24),       // documentation (TEST-NET-1)
    (Ipv4Addr::new(192, 88, 99, 0), 24),     // deprecated 6to4 relay anycast
    (Ipv4Addr::new(192, 168, 0, 0), 16),     // private
    (Ipv4Addr::new(198, 18, 0, 0), 15),      // benchmarking (RFC 2544)
    (Ipv4Addr::new(198, 51, 100, 0), 24),    // documentation (TEST-NET-2)
    (Ipv4Addr::new(203, 0, 113, 0), 24),     // documentation (TEST-NET-3)
    (Ipv4Addr::new(224, 0, 0, 0), 4),        // multicast
    (Ipv4Addr::new(240, 0, 0, 0), 4),        // reserved for future use
    (Ipv4Addr::new(255, 255, 255, 255), 32), // limited broadcast
];

/// IPv6 blocks inside global unicast (2000::/3) that are not globally
/// reachable, from the IANA IPv6 Special-Purpose Address Registry.
const NON_GLOBAL_V6: [(Ipv6Addr, u8); 4] = [
    (Ipv6Addr::new(0x2001, 0, 0, 0, 0, 0, 0, 0), 23), // IETF protocol assignments (Teredo, ORCHID, benchmarking…)
    (Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0), 32), // documentation
    (Ipv6Addr::new(0x2002, 0, 0, 0, 0, 0, 0, 0), 16), // 6to4: embeds any IPv4 address
    (Ipv6Addr::new(0x3fff, 0, 0, 0, 0, 0, 0, 0), 20), // documentation (RFC 9637)
];

fn in_v4(ip: Ipv4Addr, table: &[(Ipv4Addr, u8)]) -> bool {
    table.iter().any(|&(net, len)| {
        ipnet::Ipv4Net::new(net, len)
            .expect("valid prefix")
            .contains(&ip)
    })
}

/// True only for addresses reachable on the public internet: an allow-list of
/// global unicast. IPv4-mapped IPv6 (`::ffff:a.b.c.d`) and NAT64
/// (`64:ff9b::a.b.c.d`) are judged as the IPv4 address they reach; every
/// other IPv6 address outside 2000::/3 (IPv4-compatible `::/96`, local-use
/// NAT64 `64:ff9b:1::/48`, site-local `fec0::/10`, discard `100::/64`,
/// unique-local, link-local, multicast…) is not global.
pub fn is_global(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => !in_v4(v4, &NON_GLOBAL_V4),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return !in_v4(v4, &NON_GLOBAL_V4);
            }
            // NAT64 (RFC 6052): the IPv4 address it reaches is the last 32 bits.
            let s = v6.segments();
            if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
                let v4 = Ipv4Addr::from((u32::from(s[6]) << 16) | u32::from(s[7]));
                return !in_v4(v4, &NON_GLOBAL_V4);
            }
            let global_unicast = (v6.segments()[0] & 0xe000) == 0x2000;
            global_unicast
                && !NON_GLOBAL_V6.iter().any(|&(net, len)| {
                    ipnet::Ipv6Net::new(net, len)
                        .expect("valid prefix")
                        .contains(&v6)
                })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_global_unicast_is_global() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "192.0.0.8",
            "192.0.2.1",
            "198.18.0.1",
            "198.19.255.255",
            "198.51.100.7",
            "203.0.113.9",
            "224.0.0.1",
            "240.0.0.1",
            "255.255.255.255",
            "::",
            "::1",
            "::127.0.0.1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "64:ff9b::7f00:1",
            "64:ff9b:1::1",
            "100::1",
            "2001::1",
            "2001:db8::1",
            "2002:7f00:1::1",
            "3fff::1",
            "fc00::1",
            "fd00::1",
            "fe80::1",
            "fec0::1",
            "ff02::1",
        ] {
            assert!(!is_global(ip.parse().unwrap()), "{ip} must not be global");
        }
        for ip in [
            "93.184.216.34",
            "8.8.8.8",
            "1.1.1.1",
            "::ffff:93.184.216.34",
            "64:ff9b::5db8:d822",
            "2606:2800:220:1::1",
            "2a00:1450:4001:80b::200e",
        ] {
            assert!(is_global(ip.parse().unwrap()), "{ip} is global");
        }
    }

    #[test]
    fn allowed_networks_and_ports() {
        let policy = TargetPolicy {
            allowed_networks: vec!["10.1.0.0/16".parse().unwrap()],
            ..TargetPolicy::default()
        };
        assert!(policy.allows_address("10.1.2.3".parse().unwrap()));
        assert!(!policy.allows_address("10.2.0.1".parse().unwrap()));
        for port in [80, 443, 1024, 8080, 65535] {
            assert!(policy.allows_port(port), "{port}");
        }
        for port in [22, 25, 110, 1023] {
            assert!(!policy.allows_port(port), "{port}");
        }
    }

    #[test]
    fn denied_networks_win_over_everything() {
        let policy = TargetPolicy {
            allow_private: true,
            allowed_networks: vec!["10.1.0.0/16".parse().unwrap()],
            denied_networks: vec![
                "10.1.2.0/24".parse().unwrap(),
                "203.0.113.0/24".parse().unwrap(),
            ],
            ..TargetPolicy::default()
        };
        assert!(!policy.allows_address("10.1.2.3".parse().unwrap()));
        assert!(!policy.allows_address("203.0.113.9".parse().unwrap()));
        assert!(!policy.allows_address("::ffff:203.0.113.9".parse().unwrap()));
        assert!(policy.allows_address("10.1.3.3".parse().unwrap()));
    }

    fn targets(allow_private: bool) -> Targets {
        Targets::new(
            TargetPolicy {
                allow_private,
                ..TargetPolicy::default()
            },
            Arc::new(SystemResolver),
        )
    }

    #[tokio::test]
    async fn only_http_urls_to_allowed_hosts_and_ports_pass() {
        let open = targets(true);
        assert_eq!(
            open.check("ftp://x.example/").await.unwrap_err().code,
            "scheme"
        );
        assert_eq!(
            open.check("not a url").await.unwrap_err().code,
            "invalid-url"
        );
        assert_eq!(
            open.check("http://127.0.0.1:25/").await.unwrap_err().code,
            "port"
        );
        assert!(open.check("http://127.0.0.1:9000/").await.is_ok());
        let strict = targets(false);
        for url in [
            "http://127.0.0.1:9000/",
            "http://[::127.0.0.1]:9000/",
            "http://[64:ff9b::7f00:1]/",
            "http://0x7f.1:8080/",
        ] {
            assert_eq!(
                strict.check(url).await.unwrap_err().code,
                "private-address",
                "{url}"
            );
            assert!(strict.refusal(url).is_some(), "{url}");
        }
        assert!(strict.refusal("http://93.184.216.34/").is_none());
    }
}

//! Where a webhook may point: http(s) URLs whose host resolves only to public
//! addresses, unless private targets are allowed by configuration.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use reqwest::Url;

use crate::error::FieldError;

/// Checks `raw` and resolves its host; the error names the field.
pub async fn check(raw: &str, allow_private: bool) -> Result<Url, FieldError> {
    let invalid = |code: &str, message: &str| FieldError::new("url", code, message);
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
    if url.as_str().len() > 2000 {
        return Err(invalid("length", "must be at most 2000 characters long"));
    }
    let host = url
        .host_str()
        .ok_or_else(|| invalid("invalid-url", "has no host"))?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned();
    let port = url.port_or_known_default().unwrap_or(443);
    let addrs: Vec<IpAddr> = tokio::net::lookup_host((host.as_str(), port))
        .await
        .map_err(|_| invalid("unresolvable", "its host does not resolve"))?
        .map(|a| a.ip())
        .collect();
    if addrs.is_empty() {
        return Err(invalid("unresolvable", "its host does not resolve"));
    }
    if !allow_private && addrs.iter().any(|ip| !is_public(*ip)) {
        return Err(invalid(
            "private-address",
            "resolves to a private, loopback or link-local address",
        ));
    }
    Ok(url)
}

/// False for loopback, private, link-local, shared, unspecified, multicast and
/// documentation ranges, in IPv4, IPv6 and IPv4-mapped IPv6.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => is_public_v4(v4),
            None => is_public_v6(v6),
        },
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, ..] = ip.octets();
    !(ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || a == 0
        || (a == 100 && (64..128).contains(&b)))
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    let first = ip.segments()[0];
    !(ip.is_loopback()
        || ip.is_unspecified()
        || ip.is_multicast()
        || (first & 0xfe00) == 0xfc00
        || (first & 0xffc0) == 0xfe80)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_ranges_are_not_public() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fe80::1",
            "fd00::1",
            "::ffff:127.0.0.1",
        ] {
            assert!(!is_public(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["93.184.216.34", "2606:2800:220:1::1"] {
            assert!(is_public(ip.parse().unwrap()), "{ip}");
        }
    }

    #[actix_web::test]
    async fn only_http_urls_to_public_hosts_pass() {
        assert_eq!(
            check("ftp://x.example/", true).await.unwrap_err().code,
            "scheme"
        );
        assert_eq!(
            check("not a url", true).await.unwrap_err().code,
            "invalid-url"
        );
        assert_eq!(
            check("http://127.0.0.1:9/", false).await.unwrap_err().code,
            "private-address"
        );
        assert!(check("http://127.0.0.1:9/", true).await.is_ok());
    }
}

//! Checks of single values after serde has parsed them: numbers in a range,
//! lists of networks and ports, retry scales. Each error names its variable.

use std::fmt;

use super::ConfigError;

/// A comma-separated list of addresses and networks (`10.0.0.0/8`).
pub(super) fn networks(
    var: &'static str,
    raw: Option<&str>,
) -> Result<Vec<ipnet::IpNet>, ConfigError> {
    let mut out = Vec::new();
    for entry in raw
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|e| !e.is_empty())
    {
        let net = entry
            .parse::<ipnet::IpNet>()
            .or_else(|_| entry.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
            .map_err(|_| {
                ConfigError::new(
                    var,
                    format!("`{entry}` is neither an IP address nor a network such as 10.0.0.0/8"),
                )
            })?;
        out.push(net);
    }
    Ok(out)
}

/// A comma-separated list of ports and ranges (`80,443,1024-65535`).
pub(super) fn ports(raw: &str) -> Result<Vec<std::ops::RangeInclusive<u16>>, String> {
    let mut out = Vec::new();
    for entry in raw.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let port = |p: &str| {
            p.trim()
                .parse::<u16>()
                .ok()
                .filter(|p| *p > 0)
                .ok_or_else(|| {
                    format!("`{entry}` is not a port (1–65535) or a range such as 1024-65535")
                })
        };
        let range = match entry.split_once('-') {
            Some((a, b)) => port(a)?..=port(b)?,
            None => port(entry)?..=port(entry)?,
        };
        if range.is_empty() {
            return Err(format!("`{entry}` is an empty range"));
        }
        out.push(range);
    }
    if out.is_empty() {
        return Err("names no port".to_owned());
    }
    Ok(out)
}

/// A factor on a retry schedule: above 0 and at most 1 (1 when unset).
pub(super) fn retry_scale(var: &'static str, value: Option<f64>) -> Result<f64, ConfigError> {
    match value {
        None => Ok(1.0),
        Some(v) if v > 0.0 && v <= 1.0 => Ok(v),
        Some(v) => Err(ConfigError::new(
            var,
            format!("`{v}` is not a number above 0 and at most 1"),
        )),
    }
}

/// A whole number from `min` to `max`, `default` when unset.
pub(super) fn within<T>(
    var: &'static str,
    value: Option<T>,
    default: T,
    min: T,
    max: T,
) -> Result<T, ConfigError>
where
    T: PartialOrd + fmt::Display + Copy,
{
    match value {
        None => Ok(default),
        Some(v) if v >= min && v <= max => Ok(v),
        Some(v) => Err(ConfigError::new(
            var,
            format!("`{v}` is not a whole number from {min} to {max}"),
        )),
    }
}

//! Parsers of single values: numbers in a range, lists of networks and ports,
//! retry scales. Each error names its variable.

use std::fmt;

use super::ConfigError;

/// A comma-separated list of addresses and networks (`10.0.0.0/8`).
pub(super) fn networks(
    get: &impl Fn(&'static str) -> Option<String>,
    var: &'static str,
) -> Result<Vec<ipnet::IpNet>, ConfigError> {
    let mut out = Vec::new();
    for entry in get(var)
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

pub(super) fn retry_scale(
    get: &impl Fn(&'static str) -> Option<String>,
    var: &'static str,
) -> Result<f64, ConfigError> {
    match get(var) {
        None => Ok(1.0),
        Some(raw) => match raw.trim().parse::<f64>() {
            Ok(v) if v > 0.0 && v <= 1.0 => Ok(v),
            _ => Err(ConfigError::new(
                var,
                format!("`{raw}` is not a number above 0 and at most 1"),
            )),
        },
    }
}

pub(super) fn number<T>(
    get: &impl Fn(&'static str) -> Option<String>,
    var: &'static str,
    default: T,
    min: T,
    max: T,
) -> Result<T, ConfigError>
where
    T: std::str::FromStr + PartialOrd + fmt::Display + Copy,
{
    let Some(raw) = get(var) else {
        return Ok(default);
    };
    match raw.trim().parse::<T>() {
        Ok(v) if v >= min && v <= max => Ok(v),
        _ => Err(ConfigError::new(
            var,
            format!("`{raw}` is not a whole number from {min} to {max}"),
        )),
    }
}

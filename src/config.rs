//! Settings from the environment (and an optional `.env` file), validated once
//! at start-up. Every problem names the variable it comes from.

use std::fmt;
use std::net::ToSocketAddrs;
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::time::Duration;

/// A configuration problem, reported as one line naming the variable.
#[derive(Debug, thiserror::Error)]
#[error("{var}: {message}")]
pub struct ConfigError {
    pub var: &'static str,
    pub message: String,
}

impl ConfigError {
    fn new(var: &'static str, message: impl Into<String>) -> Self {
        Self {
            var,
            message: message.into(),
        }
    }
}

/// Where the service runs; production demands explicit secrets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Environment {
    Development,
    Production,
}

/// Log line format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    Text,
    Json,
}

/// The database to use, decided from the URL scheme alone.
#[derive(Clone, PartialEq, Eq)]
pub enum DatabaseUrl {
    Postgres(String),
    Sqlite(PathBuf),
}

impl DatabaseUrl {
    /// Parses `DATABASE_URL`. Anything that is neither a `postgres://` URL nor
    /// plainly a SQLite path is refused, so a libpq keyword string never turns
    /// silently into a SQLite file of that name.
    pub fn parse(raw: &str) -> Result<Self, String> {
        let raw = raw.trim();
        if raw.is_empty() {
            return Err("must not be empty".into());
        }
        if raw.starts_with("postgres://") || raw.starts_with("postgresql://") {
            return Ok(Self::Postgres(raw.to_owned()));
        }
        let path = if let Some(rest) = raw.strip_prefix("sqlite://") {
            rest
        } else if let Some(rest) = raw.strip_prefix("sqlite:") {
            rest
        } else if let Some((scheme, _)) = raw.split_once("://") {
            return Err(format!(
                "unsupported scheme `{scheme}` (use postgres://… or a SQLite path / sqlite://…)"
            ));
        } else if raw.contains('=') || raw.contains(char::is_whitespace) {
            return Err(
                "looks like a libpq keyword string; write it as a postgres://user@host:port/db URL"
                    .into(),
            );
        } else {
            raw
        };
        if path.is_empty() {
            return Err("the SQLite path is empty".into());
        }
        if path == ":memory:" {
            return Err(
                "an in-memory SQLite database is not supported (each pooled connection would get its own)"
                    .into(),
            );
        }
        Ok(Self::Sqlite(PathBuf::from(path)))
    }

    pub fn backend_name(&self) -> &'static str {
        match self {
            Self::Postgres(_) => "postgres",
            Self::Sqlite(_) => "sqlite",
        }
    }
}

/// Shows the database without its password.
impl fmt::Debug for DatabaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for DatabaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Sqlite(path) => write!(f, "sqlite://{}", path.display()),
            Self::Postgres(url) => {
                // postgres://user:password@host/db -> postgres://user:***@host/db
                let (scheme, rest) = url.split_once("://").unwrap_or(("postgres", url));
                match rest.split_once('@') {
                    Some((userinfo, host)) => {
                        let user = userinfo.split(':').next().unwrap_or("");
                        if userinfo.contains(':') {
                            write!(f, "{scheme}://{user}:***@{host}")
                        } else {
                            write!(f, "{scheme}://{user}@{host}")
                        }
                    }
                    None => write!(f, "{scheme}://{rest}"),
                }
            }
        }
    }
}

/// A secret string that never shows up in `Debug` output or logs.
#[derive(Clone)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: String) -> Self {
        Self(value)
    }
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// Every setting of the service.
#[derive(Debug, Clone)]
pub struct Settings {
    pub environment: Environment,
    pub bind: String,
    pub database_url: DatabaseUrl,
    pub database_pool_size: u32,
    pub database_timeout: Duration,
    pub jwt_secret: Option<Secret>,
    pub jwt_issuer: String,
    pub jwt_audience: String,
    pub access_token_ttl: Duration,
    pub refresh_token_ttl: Duration,
    pub auth_rate_limit_per_minute: NonZeroU32,
    pub max_body_bytes: usize,
    pub workers: Option<usize>,
    pub shutdown_timeout: Duration,
    pub log_filter: String,
    pub log_format: LogFormat,
    /// Length of one "day" of a time control (a real day unless shortened for tests
    /// and demonstrations).
    pub day_seconds: u64,
    /// How often each process looks for expired deadlines and lapsed invitations.
    pub sweep_interval: Duration,
    /// Days invitations and open seats wait before the game lapses.
    pub invitation_days: u64,
    /// Whether webhooks may target private, loopback and link-local addresses.
    pub webhook_allow_private: bool,
    /// Networks webhooks may target although they are not publicly routable.
    pub webhook_allow_networks: Vec<ipnet::IpNet>,
    /// Ports webhooks may target.
    pub webhook_ports: Vec<std::ops::RangeInclusive<u16>>,
    /// Factor on the webhook retry schedule (1 = 5 s, 5 min, … 24 h); small
    /// values make retries quick for tests and demonstrations.
    pub webhook_retry_scale: f64,
    /// How often each process looks for webhook deliveries to make.
    pub webhook_poll_interval: Duration,
    /// Outgoing mail.
    pub mail: MailSettings,
    /// Reverse proxies whose `X-Forwarded-For` is believed (for rate limits).
    pub trusted_proxies: Vec<ipnet::IpNet>,
}

/// How the SMTP connection is secured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SmtpTls {
    /// Plain text (a relay on the same host or a test server).
    None,
    /// Plain connection upgraded with STARTTLS, which is required.
    StartTls,
    /// TLS from the first byte (implicit TLS, "SMTPS").
    Tls,
}

/// Where mail goes.
#[derive(Debug, Clone)]
pub enum MailTransport {
    Smtp {
        host: String,
        port: u16,
        tls: SmtpTls,
        /// User name and password, when the relay wants them.
        credentials: Option<(String, Secret)>,
        /// PEM certificates trusted besides the usual public roots (a
        /// relay with a private certificate authority).
        ca_file: Option<PathBuf>,
    },
    /// No SMTP relay configured: each message is written as an `.eml` file here.
    Dir(PathBuf),
}

/// Settings of outgoing mail.
#[derive(Debug, Clone)]
pub struct MailSettings {
    pub transport: MailTransport,
    /// The `From` of every message, e.g. `Sannin <games@example.org>`.
    pub from: String,
    /// The start of every link in mail, without a trailing slash.
    pub public_url: String,
    /// How often each process looks for mail to send.
    pub poll_interval: Duration,
    /// Factor on the retry schedule (1 = 5 s, 5 min, … 24 h).
    pub retry_scale: f64,
}

/// The minimum length of an explicit JWT secret (256 bits for HS256).
const MIN_JWT_SECRET_BYTES: usize = 32;

impl Settings {
    /// Reads the process environment.
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads settings through `lookup`, so tests can supply their own values.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let get = |name: &'static str| lookup(name).filter(|v| !v.trim().is_empty());

        let environment = match get("SANNIN_ENV").as_deref().map(str::trim) {
            None | Some("development") => Environment::Development,
            Some("production") => Environment::Production,
            Some(other) => {
                return Err(ConfigError::new(
                    "SANNIN_ENV",
                    format!("`{other}` is not one of development, production"),
                ))
            }
        };

        let bind = get("SANNIN_BIND").unwrap_or_else(|| "127.0.0.1:8080".into());
        let resolves = bind
            .to_socket_addrs()
            .is_ok_and(|mut addrs| addrs.next().is_some());
        if !resolves {
            return Err(ConfigError::new(
                "SANNIN_BIND",
                format!("`{bind}` is not a host:port address"),
            ));
        }

        let database_url =
            DatabaseUrl::parse(&get("DATABASE_URL").unwrap_or_else(|| "sqlite://sannin.db".into()))
                .map_err(|m| ConfigError::new("DATABASE_URL", m))?;

        let jwt_secret = get("SANNIN_JWT_SECRET").map(Secret::new);
        match (&jwt_secret, environment) {
            (None, Environment::Production) => {
                return Err(ConfigError::new(
                    "SANNIN_JWT_SECRET",
                    "required when SANNIN_ENV=production",
                ))
            }
            (Some(secret), _) if secret.expose().len() < MIN_JWT_SECRET_BYTES => {
                return Err(ConfigError::new(
                    "SANNIN_JWT_SECRET",
                    format!("must be at least {MIN_JWT_SECRET_BYTES} bytes long"),
                ))
            }
            _ => {}
        }

        let log_format = match get("SANNIN_LOG_FORMAT").as_deref().map(str::trim) {
            None | Some("text") => LogFormat::Text,
            Some("json") => LogFormat::Json,
            Some(other) => {
                return Err(ConfigError::new(
                    "SANNIN_LOG_FORMAT",
                    format!("`{other}` is not one of text, json"),
                ))
            }
        };

        let workers = match get("SANNIN_WORKERS") {
            None => None,
            Some(_) => Some(number::<usize>(&get, "SANNIN_WORKERS", 0, 1, 1024)?),
        };

        let webhook_allow_private = match get("SANNIN_WEBHOOK_ALLOW_PRIVATE")
            .as_deref()
            .map(str::trim)
        {
            None | Some("false") => false,
            Some("true") => true,
            Some(other) => {
                return Err(ConfigError::new(
                    "SANNIN_WEBHOOK_ALLOW_PRIVATE",
                    format!("`{other}` is not one of true, false"),
                ))
            }
        };

        let webhook_retry_scale = retry_scale(&get, "SANNIN_WEBHOOK_RETRY_SCALE")?;

        let mail = mail_settings(&get, environment, &bind)?;

        let trusted_proxies = networks(&get, "SANNIN_TRUSTED_PROXIES")?;
        let webhook_allow_networks = networks(&get, "SANNIN_WEBHOOK_ALLOW_NETWORKS")?;
        let webhook_ports = match get("SANNIN_WEBHOOK_PORTS") {
            None => crate::notify::targets::default_ports(),
            Some(raw) => ports(&raw).map_err(|m| ConfigError::new("SANNIN_WEBHOOK_PORTS", m))?,
        };

        Ok(Self {
            environment,
            bind,
            database_url,
            database_pool_size: number(&get, "SANNIN_DATABASE_POOL_SIZE", 8, 1, 512)?,
            database_timeout: Duration::from_secs(number(
                &get,
                "SANNIN_DATABASE_TIMEOUT_SECONDS",
                10,
                1,
                300,
            )?),
            jwt_secret,
            jwt_issuer: get("SANNIN_JWT_ISSUER").unwrap_or_else(|| "sannin".into()),
            jwt_audience: get("SANNIN_JWT_AUDIENCE").unwrap_or_else(|| "sannin-api".into()),
            access_token_ttl: Duration::from_secs(number(
                &get,
                "SANNIN_ACCESS_TOKEN_TTL_SECONDS",
                900,
                30,
                86_400,
            )?),
            refresh_token_ttl: Duration::from_secs(
                86_400 * number::<u64>(&get, "SANNIN_REFRESH_TOKEN_TTL_DAYS", 30, 1, 365)?,
            ),
            auth_rate_limit_per_minute: NonZeroU32::new(number(
                &get,
                "SANNIN_AUTH_RATE_LIMIT_PER_MINUTE",
                20,
                1,
                100_000,
            )?)
            .expect("lower bound is 1"),
            max_body_bytes: number(&get, "SANNIN_MAX_BODY_BYTES", 65_536, 1_024, 16 << 20)?,
            workers,
            shutdown_timeout: Duration::from_secs(number(
                &get,
                "SANNIN_SHUTDOWN_TIMEOUT_SECONDS",
                30,
                0,
                3_600,
            )?),
            log_filter: get("SANNIN_LOG").unwrap_or_else(|| "info".into()),
            log_format,
            day_seconds: number(&get, "SANNIN_DAY_SECONDS", 86_400, 1, 86_400)?,
            sweep_interval: Duration::from_millis(number(
                &get,
                "SANNIN_SWEEP_INTERVAL_MS",
                30_000,
                100,
                3_600_000,
            )?),
            invitation_days: number(&get, "SANNIN_INVITATION_DAYS", 14, 1, 365)?,
            webhook_allow_private,
            webhook_allow_networks,
            webhook_ports,
            webhook_retry_scale,
            webhook_poll_interval: Duration::from_millis(number(
                &get,
                "SANNIN_WEBHOOK_POLL_INTERVAL_MS",
                1_000,
                50,
                3_600_000,
            )?),
            mail,
            trusted_proxies,
        })
    }
}

/// A comma-separated list of addresses and networks (`10.0.0.0/8`).
fn networks(
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
fn ports(raw: &str) -> Result<Vec<std::ops::RangeInclusive<u16>>, String> {
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

fn retry_scale(
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

fn mail_settings(
    get: &impl Fn(&'static str) -> Option<String>,
    environment: Environment,
    bind: &str,
) -> Result<MailSettings, ConfigError> {
    let from = get("SANNIN_MAIL_FROM").unwrap_or_else(|| "Sannin <sannin@localhost>".into());
    if let Err(e) = from.parse::<lettre::message::Mailbox>() {
        return Err(ConfigError::new(
            "SANNIN_MAIL_FROM",
            format!("`{from}` is not a mailbox such as `Sannin <games@example.org>` ({e})"),
        ));
    }
    let public_url = match get("SANNIN_PUBLIC_URL") {
        Some(url) => {
            let url = url.trim().trim_end_matches('/').to_owned();
            let valid = (url.starts_with("http://") || url.starts_with("https://"))
                && !url.contains(char::is_whitespace)
                && reqwest::Url::parse(&url).is_ok();
            if !valid {
                return Err(ConfigError::new(
                    "SANNIN_PUBLIC_URL",
                    format!("`{url}` is not an http:// or https:// URL"),
                ));
            }
            url
        }
        None if environment == Environment::Production => {
            return Err(ConfigError::new(
                "SANNIN_PUBLIC_URL",
                "required when SANNIN_ENV=production (links in mail start with it)",
            ))
        }
        None => format!("http://{bind}"),
    };
    let transport = match get("SANNIN_SMTP_HOST") {
        Some(host) => {
            let tls = match get("SANNIN_SMTP_TLS").as_deref().map(str::trim) {
                None | Some("starttls") => SmtpTls::StartTls,
                Some("tls") => SmtpTls::Tls,
                Some("none") => SmtpTls::None,
                Some(other) => {
                    return Err(ConfigError::new(
                        "SANNIN_SMTP_TLS",
                        format!("`{other}` is not one of none, starttls, tls"),
                    ))
                }
            };
            let default_port = match tls {
                SmtpTls::None => 25,
                SmtpTls::StartTls => 587,
                SmtpTls::Tls => 465,
            };
            let credentials = match (get("SANNIN_SMTP_USERNAME"), get("SANNIN_SMTP_PASSWORD")) {
                (Some(user), Some(password)) => Some((user, Secret::new(password))),
                (None, None) => None,
                (Some(_), None) => {
                    return Err(ConfigError::new(
                        "SANNIN_SMTP_PASSWORD",
                        "required with SANNIN_SMTP_USERNAME",
                    ))
                }
                (None, Some(_)) => {
                    return Err(ConfigError::new(
                        "SANNIN_SMTP_USERNAME",
                        "required with SANNIN_SMTP_PASSWORD",
                    ))
                }
            };
            let ca_file = get("SANNIN_SMTP_CA_FILE").map(PathBuf::from);
            if ca_file.is_some() && tls == SmtpTls::None {
                return Err(ConfigError::new(
                    "SANNIN_SMTP_CA_FILE",
                    "set, but SANNIN_SMTP_TLS=none uses no certificates",
                ));
            }
            MailTransport::Smtp {
                host: host.trim().to_owned(),
                port: number(get, "SANNIN_SMTP_PORT", default_port, 1, 65_535)?,
                tls,
                credentials,
                ca_file,
            }
        }
        None => {
            for var in [
                "SANNIN_SMTP_PORT",
                "SANNIN_SMTP_TLS",
                "SANNIN_SMTP_USERNAME",
                "SANNIN_SMTP_PASSWORD",
                "SANNIN_SMTP_CA_FILE",
            ] {
                if get(var).is_some() {
                    return Err(ConfigError::new(var, "set, but SANNIN_SMTP_HOST is not"));
                }
            }
            match get("SANNIN_MAIL_DIR") {
                Some(dir) => MailTransport::Dir(PathBuf::from(dir)),
                None if environment == Environment::Production => {
                    return Err(ConfigError::new(
                        "SANNIN_SMTP_HOST",
                        "required when SANNIN_ENV=production (or set SANNIN_MAIL_DIR to keep mail in a folder)",
                    ))
                }
                None => MailTransport::Dir(PathBuf::from("mail")),
            }
        }
    };
    Ok(MailSettings {
        transport,
        from,
        public_url,
        poll_interval: Duration::from_millis(number(
            get,
            "SANNIN_MAIL_POLL_INTERVAL_MS",
            1_000,
            50,
            3_600_000,
        )?),
        retry_scale: retry_scale(get, "SANNIN_MAIL_RETRY_SCALE")?,
    })
}

fn number<T>(
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use std::path::Path;

    fn settings(vars: &[(&str, &str)]) -> Result<Settings, ConfigError> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Settings::from_lookup(|k| map.get(k).cloned())
    }

    #[test]
    fn defaults_work_without_any_variable() {
        let s = settings(&[]).unwrap();
        assert_eq!(s.bind, "127.0.0.1:8080");
        assert_eq!(
            s.database_url,
            DatabaseUrl::Sqlite(PathBuf::from("sannin.db"))
        );
        assert_eq!(s.environment, Environment::Development);
        assert!(s.jwt_secret.is_none());
        assert!(!s.webhook_allow_private);
        assert_eq!(s.webhook_retry_scale, 1.0);
    }

    #[test]
    fn production_requires_a_jwt_secret() {
        let err = settings(&[("SANNIN_ENV", "production")]).unwrap_err();
        assert_eq!(err.var, "SANNIN_JWT_SECRET");
        let no_url = settings(&[
            ("SANNIN_ENV", "production"),
            ("SANNIN_JWT_SECRET", &"k".repeat(32)),
        ])
        .unwrap_err();
        assert_eq!(no_url.var, "SANNIN_PUBLIC_URL");
        let no_smtp = settings(&[
            ("SANNIN_ENV", "production"),
            ("SANNIN_JWT_SECRET", &"k".repeat(32)),
            ("SANNIN_PUBLIC_URL", "https://sannin.example.org/"),
        ])
        .unwrap_err();
        assert_eq!(no_smtp.var, "SANNIN_SMTP_HOST");
        let ok = settings(&[
            ("SANNIN_ENV", "production"),
            ("SANNIN_JWT_SECRET", &"k".repeat(32)),
            ("SANNIN_PUBLIC_URL", "https://sannin.example.org/"),
            ("SANNIN_SMTP_HOST", "smtp.example.org"),
        ]);
        assert_eq!(ok.unwrap().mail.public_url, "https://sannin.example.org");
    }

    #[test]
    fn mail_goes_to_a_folder_unless_smtp_is_configured() {
        let s = settings(&[]).unwrap();
        assert!(matches!(s.mail.transport, MailTransport::Dir(ref p) if p == Path::new("mail")));
        assert_eq!(s.mail.public_url, "http://127.0.0.1:8080");
        let s = settings(&[("SANNIN_SMTP_HOST", "smtp.example.org")]).unwrap();
        assert!(matches!(
            s.mail.transport,
            MailTransport::Smtp {
                port: 587,
                tls: SmtpTls::StartTls,
                credentials: None,
                ..
            }
        ));
        let s = settings(&[
            ("SANNIN_SMTP_HOST", "smtp.example.org"),
            ("SANNIN_SMTP_TLS", "tls"),
            ("SANNIN_SMTP_USERNAME", "u"),
            ("SANNIN_SMTP_PASSWORD", "p"),
        ])
        .unwrap();
        assert!(matches!(
            s.mail.transport,
            MailTransport::Smtp {
                port: 465,
                tls: SmtpTls::Tls,
                credentials: Some(_),
                ..
            }
        ));
        assert!(
            !format!("{:?}", s.mail).contains("\"p\""),
            "the password stays hidden"
        );
    }

    #[test]
    fn invalid_values_name_their_variable() {
        for (var, value) in [
            ("SANNIN_BIND", "not an address"),
            ("DATABASE_URL", "host=localhost dbname=sannin"),
            ("DATABASE_URL", "mysql://localhost/db"),
            ("SANNIN_DATABASE_POOL_SIZE", "0"),
            ("SANNIN_LOG_FORMAT", "xml"),
            ("SANNIN_JWT_SECRET", "short"),
            ("SANNIN_ACCESS_TOKEN_TTL_SECONDS", "ten"),
            ("SANNIN_WEBHOOK_ALLOW_PRIVATE", "yes"),
            ("SANNIN_WEBHOOK_RETRY_SCALE", "0"),
            ("SANNIN_WEBHOOK_RETRY_SCALE", "2"),
            ("SANNIN_WEBHOOK_POLL_INTERVAL_MS", "1"),
            ("SANNIN_SMTP_PORT", "25"),
            ("SANNIN_MAIL_FROM", "not a mailbox"),
            ("SANNIN_PUBLIC_URL", "ftp://example.org"),
            ("SANNIN_MAIL_RETRY_SCALE", "0"),
            ("SANNIN_SMTP_CA_FILE", "ca.pem"),
            ("SANNIN_TRUSTED_PROXIES", "10.0.0.1, proxy.example"),
            ("SANNIN_WEBHOOK_ALLOW_NETWORKS", "10.0.0.0/33"),
            ("SANNIN_WEBHOOK_PORTS", "80,http"),
            ("SANNIN_WEBHOOK_PORTS", "0"),
            ("SANNIN_WEBHOOK_PORTS", ","),
            ("SANNIN_WEBHOOK_PORTS", "9000-8000"),
        ] {
            let err = settings(&[(var, value)]).unwrap_err();
            assert_eq!(err.var, var, "{value}");
            assert!(err.to_string().starts_with(var));
        }
    }

    #[test]
    fn webhook_ports_and_networks_parse() {
        let s = settings(&[
            ("SANNIN_WEBHOOK_PORTS", "443, 8000-8999"),
            ("SANNIN_WEBHOOK_ALLOW_NETWORKS", "10.1.0.0/16, 192.168.5.5"),
        ])
        .unwrap();
        assert_eq!(s.webhook_ports, vec![443..=443, 8000..=8999]);
        assert_eq!(s.webhook_allow_networks.len(), 2);
        let defaults = settings(&[]).unwrap();
        assert_eq!(
            defaults.webhook_ports,
            crate::notify::targets::default_ports()
        );
        assert!(defaults.webhook_allow_networks.is_empty());
    }

    #[test]
    fn database_url_picks_backend_from_scheme() {
        assert!(matches!(
            DatabaseUrl::parse("postgres://u@h/db"),
            Ok(DatabaseUrl::Postgres(_))
        ));
        assert_eq!(
            DatabaseUrl::parse("sqlite:///tmp/x.db"),
            Ok(DatabaseUrl::Sqlite(PathBuf::from("/tmp/x.db")))
        );
        assert_eq!(
            DatabaseUrl::parse("data/s.db"),
            Ok(DatabaseUrl::Sqlite(PathBuf::from("data/s.db")))
        );
        assert!(DatabaseUrl::parse(":memory:").is_err());
    }

    #[test]
    fn database_url_display_hides_password() {
        let url = DatabaseUrl::parse("postgres://me:hunter2@db:5432/x").unwrap();
        assert_eq!(url.to_string(), "postgres://me:***@db:5432/x");
    }
}

//! Settings from the environment (and an optional `.env` file), validated once
//! at start-up. Every problem names the variable it comes from.

use std::fmt;

use secrecy::ExposeSecret as _;
use std::net::ToSocketAddrs;
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::time::Duration;

mod mail;
mod values;

use mail::mail_settings;
pub use mail::{MailSettings, MailTransport, SmtpTls};
use values::{networks, number, ports, retry_scale};

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

/// A secret string: redacted in `Debug` output and logs, zeroed when
/// dropped; `expose_secret()` (from `secrecy::ExposeSecret`) reads it.
pub type Secret = secrecy::SecretString;

/// Every setting of the service.
#[derive(Debug, Clone)]
pub struct Settings {
    pub environment: Environment,
    pub bind: String,
    pub database_url: DatabaseUrl,
    pub database_pool_size: u32,
    pub database_timeout: Duration,
    /// How long one statement may run on PostgreSQL (zero: no limit).
    pub database_statement_timeout: Duration,
    /// How long a statement may wait for a lock on PostgreSQL (zero: no limit).
    pub database_lock_timeout: Duration,
    pub jwt_secret: Option<Secret>,
    pub jwt_issuer: String,
    pub jwt_audience: String,
    pub access_token_ttl: Duration,
    pub refresh_token_ttl: Duration,
    pub auth_rate_limit_per_minute: NonZeroU32,
    pub max_body_bytes: usize,
    /// How long a client may take to send a request body.
    pub body_timeout: Duration,
    /// Open connections per HTTP worker at most.
    pub max_connections: usize,
    /// Requests in flight from one client address at most.
    pub max_requests_per_client: usize,
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
    /// How long a webhook receiver has to answer.
    pub webhook_timeout: Duration,
    /// Outgoing mail.
    pub mail: MailSettings,
    /// Reverse proxies whose `X-Forwarded-For` is believed (for rate limits).
    pub trusted_proxies: Vec<ipnet::IpNet>,
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

        let jwt_secret = get("SANNIN_JWT_SECRET").map(Secret::from);
        match (&jwt_secret, environment) {
            (None, Environment::Production) => {
                return Err(ConfigError::new(
                    "SANNIN_JWT_SECRET",
                    "required when SANNIN_ENV=production",
                ))
            }
            (Some(secret), _) if secret.expose_secret().len() < MIN_JWT_SECRET_BYTES => {
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
                5,
                1,
                300,
            )?),
            database_statement_timeout: Duration::from_millis(number(
                &get,
                "SANNIN_DATABASE_STATEMENT_TIMEOUT_MS",
                5_000,
                0,
                3_600_000,
            )?),
            database_lock_timeout: Duration::from_millis(number(
                &get,
                "SANNIN_DATABASE_LOCK_TIMEOUT_MS",
                2_000,
                0,
                3_600_000,
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
            body_timeout: Duration::from_millis(number(
                &get,
                "SANNIN_BODY_TIMEOUT_MS",
                10_000,
                100,
                600_000,
            )?),
            max_connections: number(&get, "SANNIN_MAX_CONNECTIONS", 256, 1, 25_000)?,
            max_requests_per_client: number(
                &get,
                "SANNIN_MAX_REQUESTS_PER_CLIENT",
                32,
                1,
                100_000,
            )?,
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
            webhook_timeout: Duration::from_millis(number(
                &get,
                "SANNIN_WEBHOOK_TIMEOUT_MS",
                10_000,
                100,
                60_000,
            )?),
            mail,
            trusted_proxies,
        })
    }
}

#[cfg(test)]
mod tests;

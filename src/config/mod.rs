//! Settings from the environment (and an optional `.env` file), validated once
//! at start-up, in sections: http, database, auth, games, webhooks, mail, log.
//! figment gathers the variables into raw sections that serde parses
//! (`raw`); ranges and cross-field rules are checked here. Every problem is
//! one line naming the variable it comes from.

use std::fmt;

use secrecy::ExposeSecret as _;
use std::net::ToSocketAddrs;
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::time::Duration;

mod mail;
mod raw;
mod streams;
mod values;

use mail::mail_settings;
pub use mail::{MailSettings, MailTransport, SmtpTls};
use raw::variable;
pub use streams::StreamSettings;
use values::{networks, ports, retry_scale, within};

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
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Environment {
    Development,
    Production,
}

/// Log line format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
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

/// Every setting of the service, by section.
#[derive(Debug, Clone)]
pub struct Settings {
    pub environment: Environment,
    pub http: HttpSettings,
    pub database: DatabaseSettings,
    pub auth: AuthSettings,
    pub games: GameSettings,
    pub webhooks: WebhookSettings,
    pub mail: MailSettings,
    pub log: LogSettings,
    /// Per-account quotas and rates.
    pub limits: crate::domain::limits::Limits,
    pub streams: StreamSettings,
}

/// The HTTP server and what it accepts.
#[derive(Debug, Clone)]
pub struct HttpSettings {
    pub bind: String,
    pub max_body_bytes: usize,
    /// How long a client may take to send a request body.
    pub body_timeout: Duration,
    /// Open connections per HTTP worker at most.
    pub max_connections: usize,
    /// Requests in flight from one client address at most.
    pub max_requests_per_client: usize,
    pub workers: Option<usize>,
    pub shutdown_timeout: Duration,
    /// Reverse proxies whose `X-Forwarded-For` is believed (for rate limits).
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// The kernel's send buffer per connection, when set (else the system
    /// sizes it): what a slow reader can leave queued outside the process.
    pub send_buffer_bytes: Option<usize>,
}

/// The database and how long its work may take.
#[derive(Debug, Clone)]
pub struct DatabaseSettings {
    pub url: DatabaseUrl,
    pub pool_size: u32,
    /// How long a request waits for a pooled connection.
    pub timeout: Duration,
    /// How long one statement may run on PostgreSQL (zero: no limit).
    pub statement_timeout: Duration,
    /// How long a statement may wait for a lock on PostgreSQL (zero: no limit).
    pub lock_timeout: Duration,
}

/// Tokens and log-in limits.
#[derive(Debug, Clone)]
pub struct AuthSettings {
    pub jwt_secret: Option<Secret>,
    pub jwt_issuer: String,
    pub jwt_audience: String,
    pub access_token_ttl: Duration,
    pub refresh_token_ttl: Duration,
    pub rate_limit_per_minute: NonZeroU32,
}

/// Time in games.
#[derive(Debug, Clone)]
pub struct GameSettings {
    /// Length of one "day" of a time control (a real day unless shortened for
    /// tests and demonstrations).
    pub day_seconds: u64,
    /// How often each process looks for expired deadlines and lapsed invitations.
    pub sweep_interval: Duration,
    /// Days invitations and open seats wait before the game lapses.
    pub invitation_days: u64,
    /// The longest a computer player thinks about one move (level 5 uses
    /// all of it; lower levels stop at their depth, sooner).
    pub bot_think: Duration,
    /// Searches one process runs at once (each takes a core while it lasts).
    pub bot_searches: usize,
    /// How often each process looks for computer players' turns.
    pub bot_poll_interval: Duration,
    /// An account earns one vacation day for every this many days.
    pub vacation_earn_every_days: u64,
    /// The most vacation days an account holds.
    pub vacation_max_days: u64,
}

/// Where webhooks may point and how they are retried.
#[derive(Debug, Clone)]
pub struct WebhookSettings {
    /// Whether webhooks may target private, loopback and link-local addresses.
    pub allow_private: bool,
    /// Networks webhooks may target although they are not publicly routable.
    pub allow_networks: Vec<ipnet::IpNet>,
    /// Networks webhooks may never target, whatever else allows them.
    pub deny_networks: Vec<ipnet::IpNet>,
    /// Ports webhooks may target.
    pub ports: Vec<std::ops::RangeInclusive<u16>>,
    /// Factor on the retry schedule (1 = 5 s, 5 min, … 24 h); small values
    /// make retries quick for tests and demonstrations.
    pub retry_scale: f64,
    /// How often each process looks for webhook deliveries to make.
    pub poll_interval: Duration,
    /// How long a webhook receiver has to answer.
    pub timeout: Duration,
}

/// What is logged and how.
#[derive(Debug, Clone)]
pub struct LogSettings {
    pub filter: String,
    pub format: LogFormat,
}

/// The minimum length of an explicit JWT secret (256 bits for HS256).
const MIN_JWT_SECRET_BYTES: usize = 32;

fn millis(
    var: &'static str,
    v: Option<u64>,
    default: u64,
    min: u64,
    max: u64,
) -> Result<Duration, ConfigError> {
    within(var, v, default, min, max).map(Duration::from_millis)
}

fn seconds(
    var: &'static str,
    v: Option<u64>,
    default: u64,
    min: u64,
    max: u64,
) -> Result<Duration, ConfigError> {
    within(var, v, default, min, max).map(Duration::from_secs)
}

impl Settings {
    /// Reads the process environment.
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads settings through `lookup`, so tests can supply their own values.
    /// A blank variable counts as unset.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let get = |name: &'static str| lookup(name).filter(|v| !v.trim().is_empty());
        let raw = raw::read(&get)?;
        let environment = raw.environment.unwrap_or(Environment::Development);
        let http = http_settings(raw.http)?;
        let database = database_settings(raw.database)?;
        let auth = auth_settings(raw.auth, environment)?;
        let games = GameSettings {
            day_seconds: within(
                variable("games.day_seconds"),
                raw.games.day_seconds,
                86_400,
                1,
                86_400,
            )?,
            sweep_interval: millis(
                variable("games.sweep_interval_ms"),
                raw.games.sweep_interval_ms,
                30_000,
                100,
                3_600_000,
            )?,
            invitation_days: within(
                variable("games.invitation_days"),
                raw.games.invitation_days,
                14,
                1,
                365,
            )?,
            vacation_earn_every_days: within(
                variable("games.vacation_earn_every_days"),
                raw.games.vacation_earn_every_days,
                10,
                1,
                365,
            )?,
            vacation_max_days: within(
                variable("games.vacation_max_days"),
                raw.games.vacation_max_days,
                30,
                0,
                365,
            )?,
            bot_think: millis(
                variable("games.bot_think_ms"),
                raw.games.bot_think_ms,
                5_000,
                10,
                600_000,
            )?,
            bot_searches: within(
                variable("games.bot_searches"),
                raw.games.bot_searches,
                1,
                1,
                64,
            )? as usize,
            bot_poll_interval: millis(
                variable("games.bot_poll_interval_ms"),
                raw.games.bot_poll_interval_ms,
                1_000,
                10,
                60_000,
            )?,
        };
        let webhooks = webhook_settings(raw.webhooks)?;
        let mail = mail_settings(raw.mail, environment, &http.bind)?;
        let l = raw.limits;
        let limit = |key: &'static str, v: Option<usize>, default: usize| {
            within(variable(key), v, default, 1, 1_000_000)
        };
        let d = crate::domain::limits::Limits::default();
        let mut limits = crate::domain::limits::Limits::new(
            limit("limits.webhooks", l.webhooks, d.webhooks.max)?,
            limit(
                "limits.personal_tokens",
                l.personal_tokens,
                d.personal_tokens.max,
            )?,
            limit(
                "limits.unfinished_games",
                l.unfinished_games,
                d.unfinished_games.max,
            )?,
            limit(
                "limits.games_per_hour",
                l.games_per_hour,
                d.games_created.max,
            )?,
            limit(
                "limits.verification_mails_per_day",
                l.verification_mails_per_day,
                d.verification_mails.max,
            )?,
            limit("limits.pings_per_hour", l.pings_per_hour, d.pings.max)?,
        );
        limits.chat_messages.max = limit(
            "limits.chat_per_minute",
            l.chat_per_minute,
            d.chat_messages.max,
        )?;
        limits.bot_games.max = limit("limits.bot_games", l.bot_games, d.bot_games.max)?;
        let streams = streams::stream_settings(raw.streams, &database.url)?;
        let log = LogSettings {
            filter: raw.log.filter.unwrap_or_else(|| "info".into()),
            format: raw.log.format.unwrap_or(LogFormat::Text),
        };
        Ok(Self {
            environment,
            http,
            database,
            auth,
            games,
            webhooks,
            mail,
            log,
            limits,
            streams,
        })
    }
}

fn http_settings(raw: raw::RawHttp) -> Result<HttpSettings, ConfigError> {
    let bind = raw.bind.unwrap_or_else(|| "127.0.0.1:8080".into());
    let resolves = bind
        .to_socket_addrs()
        .is_ok_and(|mut addrs| addrs.next().is_some());
    if !resolves {
        return Err(ConfigError::new(
            variable("http.bind"),
            format!("`{bind}` is not a host:port address"),
        ));
    }
    let workers = match raw.workers {
        None => None,
        some => Some(within(variable("http.workers"), some, 0, 1, 1024)?),
    };
    Ok(HttpSettings {
        bind,
        max_body_bytes: within(
            variable("http.max_body_bytes"),
            raw.max_body_bytes,
            65_536,
            1_024,
            16 << 20,
        )?,
        body_timeout: millis(
            variable("http.body_timeout_ms"),
            raw.body_timeout_ms,
            10_000,
            100,
            600_000,
        )?,
        max_connections: within(
            variable("http.max_connections"),
            raw.max_connections,
            256,
            1,
            25_000,
        )?,
        max_requests_per_client: within(
            variable("http.max_requests_per_client"),
            raw.max_requests_per_client,
            32,
            1,
            100_000,
        )?,
        workers,
        shutdown_timeout: seconds(
            variable("http.shutdown_timeout_seconds"),
            raw.shutdown_timeout_seconds,
            30,
            0,
            3_600,
        )?,
        trusted_proxies: networks(
            variable("http.trusted_proxies"),
            raw.trusted_proxies.as_deref(),
        )?,
        send_buffer_bytes: match raw.send_buffer_bytes {
            None => None,
            some => Some(within(
                variable("http.send_buffer_bytes"),
                some,
                0,
                2_048,
                64 << 20,
            )?),
        },
    })
}

fn database_settings(raw: raw::RawDatabase) -> Result<DatabaseSettings, ConfigError> {
    let url = DatabaseUrl::parse(raw.url.as_deref().unwrap_or("sqlite://sannin.db"))
        .map_err(|m| ConfigError::new(variable("database.url"), m))?;
    Ok(DatabaseSettings {
        url,
        pool_size: within(variable("database.pool_size"), raw.pool_size, 8, 1, 512)?,
        timeout: seconds(
            variable("database.timeout_seconds"),
            raw.timeout_seconds,
            5,
            1,
            300,
        )?,
        statement_timeout: millis(
            variable("database.statement_timeout_ms"),
            raw.statement_timeout_ms,
            5_000,
            0,
            3_600_000,
        )?,
        lock_timeout: millis(
            variable("database.lock_timeout_ms"),
            raw.lock_timeout_ms,
            2_000,
            0,
            3_600_000,
        )?,
    })
}

fn auth_settings(raw: raw::RawAuth, environment: Environment) -> Result<AuthSettings, ConfigError> {
    let jwt_secret = raw.jwt_secret.map(Secret::from);
    let var = variable("auth.jwt_secret");
    match (&jwt_secret, environment) {
        (None, Environment::Production) => {
            return Err(ConfigError::new(var, "required when SANNIN_ENV=production"))
        }
        (Some(secret), _) if secret.expose_secret().len() < MIN_JWT_SECRET_BYTES => {
            return Err(ConfigError::new(
                var,
                format!("must be at least {MIN_JWT_SECRET_BYTES} bytes long"),
            ))
        }
        _ => {}
    }
    let rate = within(
        variable("auth.rate_limit_per_minute"),
        raw.rate_limit_per_minute,
        20,
        1,
        100_000,
    )?;
    Ok(AuthSettings {
        jwt_secret,
        jwt_issuer: raw.jwt_issuer.unwrap_or_else(|| "sannin".into()),
        jwt_audience: raw.jwt_audience.unwrap_or_else(|| "sannin-api".into()),
        access_token_ttl: seconds(
            variable("auth.access_token_ttl_seconds"),
            raw.access_token_ttl_seconds,
            900,
            30,
            86_400,
        )?,
        refresh_token_ttl: Duration::from_secs(
            86_400
                * within(
                    variable("auth.refresh_token_ttl_days"),
                    raw.refresh_token_ttl_days,
                    30,
                    1,
                    365,
                )?,
        ),
        rate_limit_per_minute: NonZeroU32::new(rate).expect("lower bound is 1"),
    })
}

fn webhook_settings(raw: raw::RawWebhooks) -> Result<WebhookSettings, ConfigError> {
    let ports = match raw.ports {
        None => crate::notify::targets::default_ports(),
        Some(list) => ports(&list).map_err(|m| ConfigError::new(variable("webhooks.ports"), m))?,
    };
    Ok(WebhookSettings {
        allow_private: raw.allow_private.unwrap_or(false),
        deny_networks: networks(
            variable("webhooks.deny_networks"),
            raw.deny_networks.as_deref(),
        )?,
        allow_networks: networks(
            variable("webhooks.allow_networks"),
            raw.allow_networks.as_deref(),
        )?,
        ports,
        retry_scale: retry_scale(variable("webhooks.retry_scale"), raw.retry_scale)?,
        poll_interval: millis(
            variable("webhooks.poll_interval_ms"),
            raw.poll_interval_ms,
            1_000,
            50,
            3_600_000,
        )?,
        timeout: millis(
            variable("webhooks.timeout_ms"),
            raw.timeout_ms,
            10_000,
            100,
            60_000,
        )?,
    })
}

#[cfg(test)]
mod tests;

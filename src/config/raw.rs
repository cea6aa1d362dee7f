//! The environment as figment sees it: every variable this service reads, the
//! section and field it fills, and the raw sections serde parses them into.
//! Ranges and cross-field rules are checked afterwards, in `super`.

use serde::Deserialize;
use serde_with::{serde_as, DisplayFromStr};

use super::{ConfigError, Environment, LogFormat, SmtpTls};

/// Every variable, and the `section.field` it fills.
pub(super) const VARIABLES: &[(&str, &str)] = &[
    ("SANNIN_ENV", "environment"),
    ("SANNIN_BIND", "http.bind"),
    ("SANNIN_MAX_BODY_BYTES", "http.max_body_bytes"),
    ("SANNIN_BODY_TIMEOUT_MS", "http.body_timeout_ms"),
    ("SANNIN_MAX_CONNECTIONS", "http.max_connections"),
    (
        "SANNIN_MAX_REQUESTS_PER_CLIENT",
        "http.max_requests_per_client",
    ),
    ("SANNIN_WORKERS", "http.workers"),
    (
        "SANNIN_SHUTDOWN_TIMEOUT_SECONDS",
        "http.shutdown_timeout_seconds",
    ),
    ("SANNIN_TRUSTED_PROXIES", "http.trusted_proxies"),
    ("DATABASE_URL", "database.url"),
    ("SANNIN_DATABASE_POOL_SIZE", "database.pool_size"),
    (
        "SANNIN_DATABASE_TIMEOUT_SECONDS",
        "database.timeout_seconds",
    ),
    (
        "SANNIN_DATABASE_STATEMENT_TIMEOUT_MS",
        "database.statement_timeout_ms",
    ),
    (
        "SANNIN_DATABASE_LOCK_TIMEOUT_MS",
        "database.lock_timeout_ms",
    ),
    ("SANNIN_JWT_SECRET", "auth.jwt_secret"),
    ("SANNIN_JWT_ISSUER", "auth.jwt_issuer"),
    ("SANNIN_JWT_AUDIENCE", "auth.jwt_audience"),
    (
        "SANNIN_ACCESS_TOKEN_TTL_SECONDS",
        "auth.access_token_ttl_seconds",
    ),
    (
        "SANNIN_REFRESH_TOKEN_TTL_DAYS",
        "auth.refresh_token_ttl_days",
    ),
    (
        "SANNIN_AUTH_RATE_LIMIT_PER_MINUTE",
        "auth.rate_limit_per_minute",
    ),
    ("SANNIN_DAY_SECONDS", "games.day_seconds"),
    ("SANNIN_SWEEP_INTERVAL_MS", "games.sweep_interval_ms"),
    ("SANNIN_INVITATION_DAYS", "games.invitation_days"),
    (
        "SANNIN_VACATION_EARN_EVERY_DAYS",
        "games.vacation_earn_every_days",
    ),
    ("SANNIN_VACATION_MAX_DAYS", "games.vacation_max_days"),
    ("SANNIN_BOT_THINK_MS", "games.bot_think_ms"),
    ("SANNIN_BOT_SEARCHES", "games.bot_searches"),
    ("SANNIN_BOT_POLL_INTERVAL_MS", "games.bot_poll_interval_ms"),
    ("SANNIN_WEBHOOK_ALLOW_PRIVATE", "webhooks.allow_private"),
    ("SANNIN_WEBHOOK_ALLOW_NETWORKS", "webhooks.allow_networks"),
    ("SANNIN_WEBHOOK_DENY_NETWORKS", "webhooks.deny_networks"),
    ("SANNIN_WEBHOOK_PORTS", "webhooks.ports"),
    ("SANNIN_WEBHOOK_RETRY_SCALE", "webhooks.retry_scale"),
    (
        "SANNIN_WEBHOOK_POLL_INTERVAL_MS",
        "webhooks.poll_interval_ms",
    ),
    ("SANNIN_WEBHOOK_TIMEOUT_MS", "webhooks.timeout_ms"),
    ("SANNIN_MAIL_FROM", "mail.from"),
    ("SANNIN_PUBLIC_URL", "mail.public_url"),
    ("SANNIN_SMTP_HOST", "mail.smtp_host"),
    ("SANNIN_SMTP_PORT", "mail.smtp_port"),
    ("SANNIN_SMTP_TLS", "mail.smtp_tls"),
    ("SANNIN_SMTP_USERNAME", "mail.smtp_username"),
    ("SANNIN_SMTP_PASSWORD", "mail.smtp_password"),
    ("SANNIN_SMTP_CA_FILE", "mail.smtp_ca_file"),
    ("SANNIN_MAIL_DIR", "mail.dir"),
    ("SANNIN_MAIL_POLL_INTERVAL_MS", "mail.poll_interval_ms"),
    ("SANNIN_MAIL_RETRY_SCALE", "mail.retry_scale"),
    ("SANNIN_LOG", "log.filter"),
    ("SANNIN_LOG_FORMAT", "log.format"),
    ("SANNIN_LIMIT_WEBHOOKS", "limits.webhooks"),
    ("SANNIN_LIMIT_PERSONAL_TOKENS", "limits.personal_tokens"),
    ("SANNIN_LIMIT_UNFINISHED_GAMES", "limits.unfinished_games"),
    ("SANNIN_LIMIT_GAMES_PER_HOUR", "limits.games_per_hour"),
    (
        "SANNIN_LIMIT_VERIFICATION_MAILS_PER_DAY",
        "limits.verification_mails_per_day",
    ),
    ("SANNIN_LIMIT_PINGS_PER_HOUR", "limits.pings_per_hour"),
    ("SANNIN_LIMIT_CHAT_PER_MINUTE", "limits.chat_per_minute"),
    ("SANNIN_LIMIT_BOT_GAMES", "limits.bot_games"),
    ("SANNIN_STREAMS_PER_ACCOUNT", "streams.per_account"),
    ("SANNIN_STREAMS_PER_CLIENT", "streams.per_client"),
    ("SANNIN_STREAM_BUFFER", "streams.buffer"),
    ("SANNIN_STREAM_LAG_SECONDS", "streams.lag_seconds"),
    (
        "SANNIN_STREAM_KEEPALIVE_SECONDS",
        "streams.keepalive_seconds",
    ),
    ("SANNIN_STREAM_POLL_MS", "streams.poll_ms"),
    ("SANNIN_SEND_BUFFER_BYTES", "http.send_buffer_bytes"),
];

/// Variables whose value is taken exactly as written (secrets may begin or
/// end with spaces); every other value is trimmed.
const VERBATIM: &[&str] = &["SANNIN_JWT_SECRET", "SANNIN_SMTP_PASSWORD"];

/// The variable that fills `section.field`.
pub(super) fn variable(key: &str) -> &'static str {
    VARIABLES
        .iter()
        .find(|(_, k)| *k == key)
        .map(|(var, _)| *var)
        .unwrap_or_else(|| panic!("`{key}` is filled by no variable"))
}

/// Gathers the set (non-blank) variables through figment and parses them
/// into the raw sections; a value of the wrong form is an error naming its
/// variable.
pub(super) fn read(get: &impl Fn(&'static str) -> Option<String>) -> Result<Raw, ConfigError> {
    let mut figment = figment::Figment::new();
    for (var, key) in VARIABLES {
        if let Some(value) = get(var) {
            let value = if VERBATIM.contains(var) {
                value
            } else {
                value.trim().to_owned()
            };
            figment = figment.merge(figment::providers::Serialized::default(key, value));
        }
    }
    figment.extract::<Raw>().map_err(|e| {
        let var = variable(&e.path.join("."));
        let raw = get(var).unwrap_or_default();
        let raw = raw.trim();
        let message = match &e.kind {
            figment::error::Kind::UnknownVariant(_, expected) => {
                format!("`{raw}` is not one of {}", expected.join(", "))
            }
            figment::error::Kind::Message(m) => format!("`{raw}` is not valid ({m})"),
            other => format!("`{raw}`: {other}"),
        };
        ConfigError::new(var, message)
    })
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(super) struct Raw {
    pub environment: Option<Environment>,
    pub http: RawHttp,
    pub database: RawDatabase,
    pub auth: RawAuth,
    pub games: RawGames,
    pub webhooks: RawWebhooks,
    pub mail: RawMail,
    pub log: RawLog,
    pub limits: RawLimits,
    pub streams: RawStreams,
}

#[serde_as]
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(super) struct RawHttp {
    pub bind: Option<String>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub send_buffer_bytes: Option<usize>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub max_body_bytes: Option<usize>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub body_timeout_ms: Option<u64>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub max_connections: Option<usize>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub max_requests_per_client: Option<usize>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub workers: Option<usize>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub shutdown_timeout_seconds: Option<u64>,
    pub trusted_proxies: Option<String>,
}

#[serde_as]
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(super) struct RawDatabase {
    pub url: Option<String>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub pool_size: Option<u32>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub timeout_seconds: Option<u64>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub statement_timeout_ms: Option<u64>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub lock_timeout_ms: Option<u64>,
}

#[serde_as]
#[derive(Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(super) struct RawAuth {
    pub jwt_secret: Option<String>,
    pub jwt_issuer: Option<String>,
    pub jwt_audience: Option<String>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub access_token_ttl_seconds: Option<u64>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub refresh_token_ttl_days: Option<u64>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub rate_limit_per_minute: Option<u32>,
}

/// Shows no secret.
impl std::fmt::Debug for RawAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawAuth").finish_non_exhaustive()
    }
}

#[serde_as]
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(super) struct RawGames {
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub day_seconds: Option<u64>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub sweep_interval_ms: Option<u64>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub invitation_days: Option<u64>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub vacation_earn_every_days: Option<u64>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub vacation_max_days: Option<u64>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub bot_think_ms: Option<u64>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub bot_searches: Option<u64>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub bot_poll_interval_ms: Option<u64>,
}

#[serde_as]
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(super) struct RawWebhooks {
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub allow_private: Option<bool>,
    pub allow_networks: Option<String>,
    pub deny_networks: Option<String>,
    pub ports: Option<String>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub retry_scale: Option<f64>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub poll_interval_ms: Option<u64>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub timeout_ms: Option<u64>,
}

#[serde_as]
#[derive(Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(super) struct RawMail {
    pub from: Option<String>,
    pub public_url: Option<String>,
    pub smtp_host: Option<String>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub smtp_port: Option<u16>,
    pub smtp_tls: Option<SmtpTls>,
    pub smtp_username: Option<String>,
    pub smtp_password: Option<String>,
    pub smtp_ca_file: Option<String>,
    pub dir: Option<String>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub poll_interval_ms: Option<u64>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub retry_scale: Option<f64>,
}

/// Shows no secret.
impl std::fmt::Debug for RawMail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawMail").finish_non_exhaustive()
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(super) struct RawLog {
    pub filter: Option<String>,
    pub format: Option<LogFormat>,
}

#[serde_as]
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(super) struct RawLimits {
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub webhooks: Option<usize>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub personal_tokens: Option<usize>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub unfinished_games: Option<usize>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub games_per_hour: Option<usize>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub verification_mails_per_day: Option<usize>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub pings_per_hour: Option<usize>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub chat_per_minute: Option<usize>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub bot_games: Option<usize>,
}

#[serde_as]
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(super) struct RawStreams {
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub per_account: Option<usize>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub per_client: Option<usize>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub buffer: Option<usize>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub lag_seconds: Option<u64>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub keepalive_seconds: Option<u64>,
    #[serde_as(as = "Option<DisplayFromStr>")]
    pub poll_ms: Option<u64>,
}

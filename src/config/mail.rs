//! Mail settings: the transport (an SMTP relay, or a folder of `.eml` files),
//! the sender, and the public URL that starts every link.

use std::path::PathBuf;
use std::time::Duration;

use super::values::{number, retry_scale};
use super::{ConfigError, Environment, Secret};

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

pub(super) fn mail_settings(
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
                (Some(user), Some(password)) => Some((user, Secret::from(password))),
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

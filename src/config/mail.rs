//! Mail settings: the transport (an SMTP relay, or a folder of `.eml` files),
//! the sender, and the public URL that starts every link.

use std::path::PathBuf;
use std::time::Duration;

use super::raw::{variable, RawMail};
use super::values::{retry_scale, within};
use super::{ConfigError, Environment, Secret};

/// How the SMTP connection is secured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
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
    raw: RawMail,
    environment: Environment,
    bind: &str,
) -> Result<MailSettings, ConfigError> {
    let from = raw
        .from
        .unwrap_or_else(|| "Sannin <sannin@localhost>".into());
    if let Err(e) = from.parse::<lettre::message::Mailbox>() {
        return Err(ConfigError::new(
            variable("mail.from"),
            format!("`{from}` is not a mailbox such as `Sannin <games@example.org>` ({e})"),
        ));
    }
    let public_url = match raw.public_url {
        Some(url) => {
            let url = url.trim_end_matches('/').to_owned();
            let valid = (url.starts_with("http://") || url.starts_with("https://"))
                && !url.contains(char::is_whitespace)
                && reqwest::Url::parse(&url).is_ok();
            if !valid {
                return Err(ConfigError::new(
                    variable("mail.public_url"),
                    format!("`{url}` is not an http:// or https:// URL"),
                ));
            }
            url
        }
        None if environment == Environment::Production => {
            return Err(ConfigError::new(
                variable("mail.public_url"),
                "required when SANNIN_ENV=production (links in mail start with it)",
            ))
        }
        None => format!("http://{bind}"),
    };
    let transport = match raw.smtp_host {
        Some(host) => {
            let tls = raw.smtp_tls.unwrap_or(SmtpTls::StartTls);
            let default_port = match tls {
                SmtpTls::None => 25,
                SmtpTls::StartTls => 587,
                SmtpTls::Tls => 465,
            };
            let credentials = match (raw.smtp_username, raw.smtp_password) {
                (Some(user), Some(password)) => Some((user, Secret::from(password))),
                (None, None) => None,
                (Some(_), None) => {
                    return Err(ConfigError::new(
                        variable("mail.smtp_password"),
                        "required with SANNIN_SMTP_USERNAME",
                    ))
                }
                (None, Some(_)) => {
                    return Err(ConfigError::new(
                        variable("mail.smtp_username"),
                        "required with SANNIN_SMTP_PASSWORD",
                    ))
                }
            };
            let ca_file = raw.smtp_ca_file.map(PathBuf::from);
            if ca_file.is_some() && tls == SmtpTls::None {
                return Err(ConfigError::new(
                    variable("mail.smtp_ca_file"),
                    "set, but SANNIN_SMTP_TLS=none uses no certificates",
                ));
            }
            MailTransport::Smtp {
                host,
                port: within(
                    variable("mail.smtp_port"),
                    raw.smtp_port,
                    default_port,
                    1,
                    65_535,
                )?,
                tls,
                credentials,
                ca_file,
            }
        }
        None => {
            let stray = [
                ("mail.smtp_port", raw.smtp_port.is_some()),
                ("mail.smtp_tls", raw.smtp_tls.is_some()),
                ("mail.smtp_username", raw.smtp_username.is_some()),
                ("mail.smtp_password", raw.smtp_password.is_some()),
                ("mail.smtp_ca_file", raw.smtp_ca_file.is_some()),
            ];
            if let Some((key, _)) = stray.iter().find(|(_, set)| *set) {
                return Err(ConfigError::new(
                    variable(key),
                    "set, but SANNIN_SMTP_HOST is not",
                ));
            }
            match raw.dir {
                Some(dir) => MailTransport::Dir(PathBuf::from(dir)),
                None if environment == Environment::Production => {
                    return Err(ConfigError::new(
                        variable("mail.smtp_host"),
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
        poll_interval: Duration::from_millis(within(
            variable("mail.poll_interval_ms"),
            raw.poll_interval_ms,
            1_000,
            50,
            3_600_000,
        )?),
        retry_scale: retry_scale(variable("mail.retry_scale"), raw.retry_scale)?,
    })
}

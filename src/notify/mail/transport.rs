//! Sending a stored message: building the MIME message (text and HTML
//! alternatives, the one-click unsubscribe headers of RFC 8058, a Message-ID
//! made from the row's id so receivers can tell a resend) and handing it to
//! SMTP or to the folder of `.eml` files.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use lettre::message::header::{Header, HeaderName, HeaderValue};
use lettre::message::{Mailbox, MultiPart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use lettre::{AsyncFileTransport, AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

use crate::config::{MailTransport, SmtpTls};
use crate::db::mail::MailRow;

/// How long one network step of SMTP (connecting, one command) may take.
const STEP_TIMEOUT: Duration = Duration::from_secs(30);
/// How long sending one message may take in all.
pub const SEND_TIMEOUT: Duration = Duration::from_secs(60);

/// Why a message was not sent.
#[derive(Debug)]
pub struct Failure {
    /// The relay refused it for good (a 5xx answer, an invalid address): retrying cannot help.
    pub permanent: bool,
    pub message: String,
}

/// Where messages go.
pub enum Transport {
    Smtp(AsyncSmtpTransport<Tokio1Executor>),
    Dir(AsyncFileTransport<Tokio1Executor>, PathBuf),
}

impl Transport {
    pub fn new(settings: &MailTransport) -> anyhow::Result<Self> {
        Ok(match settings {
            MailTransport::Smtp {
                host,
                port,
                tls,
                credentials,
                ca_file,
            } => {
                let tls = match tls {
                    SmtpTls::None => Tls::None,
                    SmtpTls::StartTls => Tls::Required(tls_parameters(host, ca_file.as_deref())?),
                    SmtpTls::Tls => Tls::Wrapper(tls_parameters(host, ca_file.as_deref())?),
                };
                let mut builder = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(host)
                    .tls(tls)
                    .port(*port)
                    .timeout(Some(STEP_TIMEOUT));
                if let Some((user, password)) = credentials {
                    builder = builder.credentials(Credentials::new(
                        user.clone(),
                        secrecy::ExposeSecret::expose_secret(password).to_owned(),
                    ));
                }
                Self::Smtp(builder.build())
            }
            MailTransport::Dir(dir) => {
                std::fs::create_dir_all(dir).map_err(|e| {
                    anyhow::anyhow!("SANNIN_MAIL_DIR: cannot create {}: {e}", dir.display())
                })?;
                Self::Dir(AsyncFileTransport::new(dir), dir.clone())
            }
        })
    }

    pub async fn send(&self, message: Message) -> Result<(), Failure> {
        match self {
            Self::Smtp(smtp) => {
                match tokio::time::timeout(SEND_TIMEOUT, smtp.send(message)).await {
                    Ok(Ok(_)) => Ok(()),
                    Ok(Err(e)) => Err(Failure {
                        permanent: e.is_permanent(),
                        message: smtp_error(&e),
                    }),
                    Err(_) => Err(Failure {
                        permanent: false,
                        message: "timed out".to_owned(),
                    }),
                }
            }
            Self::Dir(files, dir) => match files.send(message).await {
                Ok(id) => {
                    tracing::info!(file = %dir.join(format!("{id}.eml")).display(), "mail written");
                    Ok(())
                }
                Err(e) => Err(Failure {
                    permanent: false,
                    message: format!("cannot write into {}: {e}", dir.display()),
                }),
            },
        }
    }
}

/// Certificate checks for `host`: the public roots, and those of `ca_file` if given.
fn tls_parameters(host: &str, ca_file: Option<&Path>) -> anyhow::Result<TlsParameters> {
    let mut builder = TlsParameters::builder(host.to_owned());
    if let Some(path) = ca_file {
        let pem = std::fs::read(path).map_err(|e| {
            anyhow::anyhow!("SANNIN_SMTP_CA_FILE: cannot read {}: {e}", path.display())
        })?;
        let no_certs = || {
            anyhow::anyhow!(
                "SANNIN_SMTP_CA_FILE: {} holds no PEM certificates",
                path.display()
            )
        };
        if !String::from_utf8_lossy(&pem).contains("-----BEGIN CERTIFICATE-----") {
            return Err(no_certs());
        }
        let certs = Certificate::from_pem(&pem).map_err(|_| no_certs())?;
        builder = builder.add_root_certificate(certs);
    }
    Ok(builder.build_rustls()?)
}

fn smtp_error(e: &lettre::transport::smtp::Error) -> String {
    if e.is_timeout() {
        "timed out".to_owned()
    } else {
        // The error's own text names the relay's answer; no credentials appear in it.
        e.to_string()
    }
}

/// `List-Unsubscribe: <url>`.
#[derive(Debug, Clone)]
struct ListUnsubscribe(String);

impl Header for ListUnsubscribe {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("List-Unsubscribe")
    }

    fn parse(s: &str) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        Ok(Self(
            s.trim()
                .trim_start_matches('<')
                .trim_end_matches('>')
                .to_owned(),
        ))
    }

    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), format!("<{}>", self.0))
    }
}

/// `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058).
#[derive(Debug, Clone)]
struct ListUnsubscribePost;

impl Header for ListUnsubscribePost {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("List-Unsubscribe-Post")
    }

    fn parse(_: &str) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        Ok(Self)
    }

    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), "List-Unsubscribe=One-Click".to_owned())
    }
}

/// `X-Sannin-Kind: game.your_turn`: what the mail is about, for mail filters.
#[derive(Debug, Clone)]
struct Kind(String);

impl Header for Kind {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("X-Sannin-Kind")
    }

    fn parse(s: &str) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        Ok(Self(s.trim().to_owned()))
    }

    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), self.0.clone())
    }
}

/// The MIME message of a stored row. Fails (for good) only when the stored
/// address is not one.
pub fn message(row: &MailRow, from: &Mailbox) -> Result<Message, Failure> {
    let to = row.to_address.parse().map_err(|e| Failure {
        permanent: true,
        message: format!("`{}` is not a mail address: {e}", row.to_address),
    })?;
    let domain = from.email.domain().to_owned();
    let created: SystemTime = row.created_at.and_utc().into();
    let mut builder = Message::builder()
        .from(from.clone())
        .to(Mailbox::new(None, to))
        .subject(row.subject.clone())
        .date(created)
        .message_id(Some(format!("<{}@{domain}>", row.id)))
        .header(Kind(row.kind.clone()));
    if let Some(url) = &row.unsubscribe_url {
        builder = builder
            .header(ListUnsubscribe(url.clone()))
            .header(ListUnsubscribePost);
    }
    builder
        .multipart(MultiPart::alternative_plain_html(
            row.text_body.clone(),
            row.html_body.clone(),
        ))
        .map_err(|e| Failure {
            permanent: true,
            message: format!("cannot build the message: {e}"),
        })
}

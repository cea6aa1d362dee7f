//! A real SMTP server on loopback (`mailin-embedded`) that keeps every message
//! it accepts, parsed with `mail-parser`. It can be told to refuse mail for a
//! while (a 451, which senders retry), and it refuses recipients whose address
//! starts with `bounce` for good (a 550).

use std::net::TcpListener;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mail_parser::MessageParser;
use mailin_embedded::response::{self, Response};
use mailin_embedded::{AuthMechanism, Handler, Server, SslConfig};
use sannin::config::{MailTransport, Secret, Settings, SmtpTls};

use crate::helpers::eventually;

/// One accepted message.
#[derive(Clone, Debug)]
pub struct Mail {
    pub to: Vec<String>,
    pub raw: Vec<u8>,
}

impl Mail {
    fn parsed(&self) -> mail_parser::Message<'_> {
        MessageParser::default()
            .parse(&self.raw)
            .expect("a parsable message")
    }

    pub fn subject(&self) -> String {
        self.parsed().subject().unwrap_or_default().to_owned()
    }

    pub fn text(&self) -> String {
        self.parsed()
            .body_text(0)
            .map(|t| t.into_owned())
            .unwrap_or_default()
    }

    pub fn html(&self) -> String {
        self.parsed()
            .body_html(0)
            .map(|t| t.into_owned())
            .unwrap_or_default()
    }

    /// A header's raw value, trimmed.
    pub fn header(&self, name: &str) -> Option<String> {
        self.parsed().header_raw(name).map(|v| v.trim().to_owned())
    }

    pub fn kind(&self) -> String {
        self.header("X-Sannin-Kind").unwrap_or_default()
    }

    /// The first link in the text body that contains `path`, as a path and query.
    pub fn link(&self, path: &str) -> String {
        let text = self.text();
        let start = text
            .find(path)
            .unwrap_or_else(|| panic!("no {path} link in {text}"));
        let end = text[start..]
            .find(char::is_whitespace)
            .map_or(text.len(), |e| start + e);
        text[start..end].to_owned()
    }
}

#[derive(Clone)]
struct Sink {
    got: Arc<Mutex<Vec<Mail>>>,
    refusing: Arc<AtomicBool>,
    /// The user name and password the server accepts, when it asks for them.
    login: Option<(String, String)>,
    logins: Arc<Mutex<Vec<String>>>,
    to: Vec<String>,
    data: Vec<u8>,
}

impl Handler for Sink {
    fn auth_plain(&mut self, _authz: &str, user: &str, password: &str) -> Response {
        self.logins.lock().unwrap().push(user.to_owned());
        match &self.login {
            Some((u, p)) if u == user && p == password => response::AUTH_OK,
            _ => response::INVALID_CREDENTIALS,
        }
    }

    fn rcpt(&mut self, to: &str) -> Response {
        if to.starts_with("bounce") {
            response::NO_MAILBOX
        } else {
            response::OK
        }
    }

    fn data_start(&mut self, _domain: &str, _from: &str, _is8bit: bool, to: &[String]) -> Response {
        if self.refusing.load(Ordering::SeqCst) {
            return response::INTERNAL_ERROR;
        }
        self.to = to.to_vec();
        self.data.clear();
        response::OK
    }

    fn data(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.data.extend_from_slice(buf);
        Ok(())
    }

    fn data_end(&mut self) -> Response {
        self.got.lock().unwrap().push(Mail {
            to: std::mem::take(&mut self.to),
            raw: std::mem::take(&mut self.data),
        });
        response::OK
    }
}

/// A relay that offers STARTTLS with its own certificate and wants a log-in.
pub struct Secured {
    /// Holds the certificate (`ca.pem`, which the client must trust) and key.
    pub dir: tempfile::TempDir,
    pub user: String,
    pub password: String,
    certified: rcgen::CertifiedKey<rcgen::KeyPair>,
}

impl Secured {
    pub fn new() -> Secured {
        let dir = tempfile::tempdir().unwrap();
        let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
        std::fs::write(dir.path().join("ca.pem"), certified.cert.pem()).unwrap();
        std::fs::write(
            dir.path().join("key.pem"),
            certified.signing_key.serialize_pem(),
        )
        .unwrap();
        Secured {
            dir,
            user: "relay-user".into(),
            password: "relay password".into(),
            certified,
        }
    }

    pub fn ca_file(&self) -> std::path::PathBuf {
        self.dir.path().join("ca.pem")
    }
}

/// Accepts TLS on a port of its own and passes the plain conversation on to
/// `backend` (as a relay that speaks TLS from the first byte does); returns
/// its port.
fn tls_front(secured: &Secured, backend: u16) -> u16 {
    use tokio_rustls::rustls::{self, pki_types};
    let cert = pki_types::CertificateDer::from(secured.certified.cert.der().to_vec());
    let key = pki_types::PrivateKeyDer::Pkcs8(secured.certified.signing_key.serialize_der().into());
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![cert], key)
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            loop {
                let (tcp, _) = listener.accept().await.unwrap();
                let acceptor = acceptor.clone();
                tokio::spawn(async move {
                    let Ok(mut tls) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let mut plain = tokio::net::TcpStream::connect(("127.0.0.1", backend))
                        .await
                        .unwrap();
                    let _ = tokio::io::copy_bidirectional(&mut tls, &mut plain).await;
                });
            }
        });
    });
    port
}

/// How the app reaches the server.
enum Front {
    Plain,
    /// STARTTLS and a log-in.
    StartTls(Secured),
    /// TLS from the first byte, then plain SMTP behind it.
    Tls(Secured, u16),
}

/// The running server.
pub struct SmtpServer {
    pub port: u16,
    got: Arc<Mutex<Vec<Mail>>>,
    refusing: Arc<AtomicBool>,
    logins: Arc<Mutex<Vec<String>>>,
    front: Front,
}

impl SmtpServer {
    /// A plain-text relay that takes mail from anyone.
    pub fn start() -> SmtpServer {
        Self::start_with(None)
    }

    /// A relay with STARTTLS and a log-in.
    pub fn start_secured() -> SmtpServer {
        Self::start_with(Some(Secured::new()))
    }

    /// A relay reached over TLS from the first byte (no log-in).
    pub fn start_implicit_tls() -> SmtpServer {
        let mut server = Self::start_with(None);
        let secured = Secured::new();
        let port = tls_front(&secured, server.port);
        server.front = Front::Tls(secured, port);
        server
    }

    fn start_with(secured: Option<Secured>) -> SmtpServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let got: Arc<Mutex<Vec<Mail>>> = Arc::default();
        let refusing = Arc::new(AtomicBool::new(false));
        let logins: Arc<Mutex<Vec<String>>> = Arc::default();
        let sink = Sink {
            got: got.clone(),
            refusing: refusing.clone(),
            login: secured
                .as_ref()
                .map(|s| (s.user.clone(), s.password.clone())),
            logins: logins.clone(),
            to: Vec::new(),
            data: Vec::new(),
        };
        let mut server = Server::new(sink);
        let ssl = match &secured {
            Some(s) => SslConfig::SelfSigned {
                cert_path: s.ca_file().to_string_lossy().into_owned(),
                key_path: s.dir.path().join("key.pem").to_string_lossy().into_owned(),
            },
            None => SslConfig::None,
        };
        server
            .with_name("localhost")
            .with_ssl(ssl)
            .unwrap()
            .with_num_threads(16)
            .with_tcp_listener(listener);
        if secured.is_some() {
            server.with_auth(AuthMechanism::Plain);
        }
        // Runs until the test process ends.
        std::thread::spawn(move || {
            if let Err(e) = server.serve() {
                panic!("the SMTP server stopped: {e}");
            }
        });
        SmtpServer {
            port,
            got,
            refusing,
            logins,
            front: match secured {
                Some(s) => Front::StartTls(s),
                None => Front::Plain,
            },
        }
    }

    /// The user names the server was offered, in order.
    pub fn logins(&self) -> Vec<String> {
        self.logins.lock().unwrap().clone()
    }

    /// Points the app's mail at this server (over STARTTLS with a log-in if
    /// it is secured), polling and retrying quickly.
    pub fn configure(&self, s: &mut Settings) {
        s.mail.transport = match &self.front {
            Front::Plain => MailTransport::Smtp {
                host: "127.0.0.1".into(),
                port: self.port,
                tls: SmtpTls::None,
                credentials: None,
                ca_file: None,
            },
            Front::StartTls(secured) => MailTransport::Smtp {
                host: "localhost".into(),
                port: self.port,
                tls: SmtpTls::StartTls,
                credentials: Some((secured.user.clone(), Secret::from(secured.password.clone()))),
                ca_file: Some(secured.ca_file()),
            },
            Front::Tls(secured, port) => MailTransport::Smtp {
                host: "localhost".into(),
                port: *port,
                tls: SmtpTls::Tls,
                credentials: None,
                ca_file: Some(secured.ca_file()),
            },
        };
        s.mail.poll_interval = Duration::from_millis(50);
        s.mail.retry_scale = 0.0002; // 5 s -> 1 ms, 5 min -> 60 ms, 30 min -> 0.36 s
        s.mail.public_url = "https://sannin.test".into();
    }

    /// Turns temporary refusal (451) on or off.
    pub fn refuse(&self, on: bool) {
        self.refusing.store(on, Ordering::SeqCst);
    }

    pub fn mails(&self) -> Vec<Mail> {
        self.got.lock().unwrap().clone()
    }

    /// The mail to `address`, in the order received.
    pub fn to(&self, address: &str) -> Vec<Mail> {
        self.mails()
            .into_iter()
            .filter(|m| m.to.iter().any(|t| t == address))
            .collect()
    }

    /// Waits until `address` has `n` messages, then returns them.
    pub async fn wait_for(&self, address: &str, n: usize) -> Vec<Mail> {
        eventually(&format!("{n} mails to {address}"), || async {
            Some(self.to(address)).filter(|got| got.len() >= n)
        })
        .await
    }

    /// Waits for the one message of `kind` to `address`.
    pub async fn wait_for_kind(&self, address: &str, kind: &str) -> Mail {
        eventually(&format!("a {kind} mail to {address}"), || async {
            self.to(address).into_iter().find(|m| m.kind() == kind)
        })
        .await
    }
}

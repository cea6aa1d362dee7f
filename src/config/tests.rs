//! Settings parsing: defaults, errors naming their variable, cross-field rules.
use super::*;
use crate::config::mail::*;
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
    assert_eq!(s.http.bind, "127.0.0.1:8080");
    assert_eq!(
        s.database.url,
        DatabaseUrl::Sqlite(PathBuf::from("sannin.db"))
    );
    assert_eq!(s.environment, Environment::Development);
    assert!(s.auth.jwt_secret.is_none());
    assert!(!s.webhooks.allow_private);
    assert_eq!(s.webhooks.retry_scale, 1.0);
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
    assert_eq!(s.webhooks.ports, vec![443..=443, 8000..=8999]);
    assert_eq!(s.webhooks.allow_networks.len(), 2);
    let defaults = settings(&[]).unwrap();
    assert_eq!(
        defaults.webhooks.ports,
        crate::notify::targets::default_ports()
    );
    assert!(defaults.webhooks.allow_networks.is_empty());
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

#[test]
fn every_variable_fills_its_own_field() {
    for (var, key) in raw::VARIABLES {
        match settings(&[(var, "1")]) {
            Ok(_) => {}
            Err(e) => assert_eq!(e.var, *var, "{key}: {e}"),
        }
    }
}

#[test]
fn variables_land_in_their_sections() {
    let s = settings(&[
        ("SANNIN_DATABASE_POOL_SIZE", " 12 "),
        ("SANNIN_WEBHOOK_TIMEOUT_MS", "2500"),
        ("SANNIN_SMTP_HOST", " smtp.example.org "),
        ("SANNIN_SMTP_TLS", "none"),
        ("SANNIN_LOG_FORMAT", "json"),
        ("SANNIN_JWT_SECRET", &format!(" {} ", "k".repeat(32))),
    ])
    .unwrap();
    assert_eq!(s.database.pool_size, 12);
    assert_eq!(s.webhooks.timeout, Duration::from_millis(2500));
    assert!(matches!(
        s.mail.transport,
        MailTransport::Smtp { ref host, port: 25, tls: SmtpTls::None, .. } if host == "smtp.example.org"
    ));
    assert_eq!(s.log.format, LogFormat::Json);
    let secret = s.auth.jwt_secret.unwrap();
    assert_eq!(
        secret.expose_secret().len(),
        34,
        "secrets are kept as written"
    );
}

#[test]
fn malformed_values_are_quoted_in_one_line() {
    let err = settings(&[("SANNIN_ACCESS_TOKEN_TTL_SECONDS", "ten")]).unwrap_err();
    let line = err.to_string();
    assert!(
        line.starts_with("SANNIN_ACCESS_TOKEN_TTL_SECONDS: `ten` is not"),
        "{line}"
    );
    assert!(!line.contains('\n'));
    let err = settings(&[("SANNIN_ENV", "staging")]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "SANNIN_ENV: `staging` is not one of development, production"
    );
    let err = settings(&[("SANNIN_DATABASE_POOL_SIZE", "600")]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "SANNIN_DATABASE_POOL_SIZE: `600` is not a whole number from 1 to 512"
    );
}

#[test]
fn account_limits_default_to_a_public_servers_and_can_be_set() {
    let d = settings(&[]).unwrap().limits;
    assert_eq!(
        (
            d.webhooks.max,
            d.personal_tokens.max,
            d.unfinished_games.max,
            d.games_created.max,
            d.verification_mails.max,
            d.pings.max
        ),
        (20, 50, 200, 30, 5, 10)
    );
    let s = settings(&[("SANNIN_LIMIT_WEBHOOKS", "3")]).unwrap();
    assert_eq!(s.limits.webhooks.max, 3);
    let err = settings(&[("SANNIN_LIMIT_PINGS_PER_HOUR", "0")]).unwrap_err();
    assert_eq!(err.var, "SANNIN_LIMIT_PINGS_PER_HOUR");
}

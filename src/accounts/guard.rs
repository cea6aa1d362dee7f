//! Password guessing is limited per account, on top of the per-address
//! limits at the edge: after [`FREE_FAILURES`] wrong passwords in a row
//! (log-in or `current_password`, from anywhere), the account refuses
//! passwords for [`BLOCK_MINUTES`] minutes, without checking them, to every
//! client network it has not logged in from before. The block ends by
//! itself, and the owner's own networks never meet it, so an attacker can
//! slow guessing to a crawl but cannot lock the owner out. The counts live
//! in the database, so every server process sees the same ones. A log-in
//! name that no account has is counted and blocked the same way, so that a
//! block does not tell whether an address is registered.

use std::net::IpAddr;

use chrono::{Duration, NaiveDateTime};

use super::AccountError;
use crate::auth::rate_limit::network_of;
use crate::db::{self, guards};
use crate::state::AppState;

/// Wrong passwords in a row an account takes before it is blocked.
pub const FREE_FAILURES: i32 = 10;
/// How long a block lasts.
pub const BLOCK_MINUTES: i64 = 15;
/// A network the account has not logged in from for this long is forgotten.
const KNOWN_NETWORK_DAYS: i64 = 180;
/// A run of failures with no new one for this long is forgotten.
const FAILURES_KEPT_HOURS: i64 = 24;

/// Whose password attempts are counted: an account, or a log-in name that
/// no account has (kept only as a digest).
#[derive(Debug, Clone)]
pub(super) enum Subject {
    Account(String),
    Nobody(String),
}

impl Subject {
    pub fn unknown_login(login: &str) -> Self {
        Subject::Nobody(format!("login:{}", crate::auth::opaque::digest(login)))
    }

    fn key(&self) -> &str {
        match self {
            Subject::Account(id) | Subject::Nobody(id) => id,
        }
    }
}

fn network(client: IpAddr) -> String {
    network_of(client).to_string()
}

/// Refuses while the account is blocked, unless `client` is on one of its
/// known networks.
pub(super) async fn admit(
    state: &AppState,
    subject: &Subject,
    client: IpAddr,
) -> Result<(), AccountError> {
    let (subject, net, now) = (subject.clone(), network(client), state.clock.now());
    db::run(&state.pool, move |conn| {
        let blocked_until = guards::guard_of(conn, subject.key())?.and_then(|(_, until)| until);
        let known = |conn: &mut db::DbConnection| match &subject {
            Subject::Account(id) => guards::is_known(conn, id, &net),
            Subject::Nobody(_) => Ok(false),
        };
        match blocked_until {
            Some(until) if until > now && !known(conn)? => {
                let wait = (until - now).num_seconds().max(1) as u64;
                Err(AccountError::PasswordAttemptsBlocked {
                    retry_after_secs: wait,
                })
            }
            _ => Ok(()),
        }
    })
    .await
}

/// Counts the outcome of a password check: a failure towards a block, a
/// success resets the count (a standing block stays) and, for a log-in,
/// makes the client's network known.
pub(super) async fn record(
    state: &AppState,
    subject: &Subject,
    client: IpAddr,
    outcome: Outcome,
) -> Result<(), AccountError> {
    let (subject, net, now) = (subject.clone(), network(client), state.clock.now());
    db::run(&state.pool, move |conn| {
        db::write_transaction(conn, |conn| record_in(conn, &subject, &net, outcome, now))
    })
    .await
}

/// What a password check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Outcome {
    Wrong,
    /// Right, proving the account's password in a request already signed in.
    Right,
    /// Right, logging in: the client's network becomes known.
    LoggedIn,
}

fn record_in(
    conn: &mut db::DbConnection,
    subject: &Subject,
    net: &str,
    outcome: Outcome,
    now: NaiveDateTime,
) -> Result<(), AccountError> {
    let key = subject.key();
    guards::prune(conn, now - Duration::hours(FAILURES_KEPT_HOURS), now)?;
    let (failures, blocked_until) = guards::guard_of(conn, key)?.unwrap_or((0, None));
    match outcome {
        Outcome::Wrong if failures + 1 >= FREE_FAILURES => {
            tracing::warn!(subject = key, "password attempts blocked");
            let until = now + Duration::minutes(BLOCK_MINUTES);
            guards::set_guard(conn, key, 0, Some(until), now)?;
        }
        Outcome::Wrong => guards::set_guard(conn, key, failures + 1, blocked_until, now)?,
        Outcome::Right | Outcome::LoggedIn => {
            if failures > 0 {
                guards::set_guard(conn, key, 0, blocked_until, now)?;
            }
            if let (Outcome::LoggedIn, Subject::Account(id)) = (outcome, subject) {
                let forget = now - Duration::days(KNOWN_NETWORK_DAYS);
                guards::remember(conn, id, net, now, forget)?;
            }
        }
    }
    Ok(())
}

/// Checks `candidate` against `stored` (a password hash) for `subject` under
/// the limit: refused while blocked, and the outcome counted.
pub(super) async fn check_password(
    state: &AppState,
    subject: &Subject,
    stored: String,
    candidate: String,
    client: IpAddr,
    logging_in: bool,
) -> Result<bool, AccountError> {
    admit(state, subject, client).await?;
    let matches =
        super::blocking(move || crate::auth::password::verify(&stored, &candidate)).await?;
    let outcome = match (matches, logging_in) {
        (false, _) => Outcome::Wrong,
        (true, true) => Outcome::LoggedIn,
        (true, false) => Outcome::Right,
    };
    record(state, subject, client, outcome).await?;
    Ok(matches)
}

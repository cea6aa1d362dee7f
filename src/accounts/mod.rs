//! Account and token use cases: the work behind the account routes, in terms
//! of domain types. Database calls run off the async executor via `db::run`,
//! password hashing via `blocking`.

mod error;
mod guard;
pub mod limits;
mod notifications;
mod personal_tokens;
pub mod ratings;
mod sessions;

pub use error::AccountError;
pub use guard::{BLOCK_MINUTES, FREE_FAILURES};
pub use notifications::{notification_settings, set_notification_settings, unsubscribe};
pub use personal_tokens::{
    create_token, delete_all_tokens, delete_token, list_tokens, NewPersonalToken, PersonalToken,
    FRESH_PASSWORD_MINUTES,
};
pub use ratings::public_profile;
pub use sessions::{authenticate, log_in, log_out, refresh, TokenPair};

use crate::domain::UserId;

use crate::auth::links::LinkError;
use crate::auth::password;
use crate::db::{self, models::User};
use crate::domain::{Email, Password, Username};
use crate::notify;
use crate::state::AppState;

/// Password hashing at once, at most: one per core. Each argon2 hash takes
/// 19 MiB, so a flood of log-ins queues here (cheaply, as waiting tasks)
/// instead of exhausting memory, and more at once would not be faster.
static HASHING: std::sync::LazyLock<tokio::sync::Semaphore> = std::sync::LazyLock::new(|| {
    tokio::sync::Semaphore::new(std::thread::available_parallelism().map_or(2, |n| n.get()))
});

/// Runs password hashing on the blocking pool, at most [`HASHING`]'s
/// permits at once.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, AccountError> {
    let _permit = HASHING
        .acquire()
        .await
        .map_err(|e| AccountError::Internal(anyhow::anyhow!("hashing queue closed: {e}")))?;
    let span = tracing::Span::current();
    tokio::task::spawn_blocking(move || {
        let _entered = span.enter();
        f()
    })
    .await
    .map_err(|e| AccountError::Internal(anyhow::anyhow!("blocking task failed: {e}")))
}

/// A new account.
pub struct Registration {
    pub username: Username,
    pub email: Email,
    pub password: Password,
}

/// Creates an account; the username must be free. An address another
/// account holds is not refused (that would tell who is registered): the
/// account claims it, and its verification mail tells the address's owner
/// instead (see `notify::mail::queue_verification`).
pub async fn register(state: &AppState, new: Registration) -> Result<User, AccountError> {
    let password_hash = blocking(move || password::hash(&new.password)).await??;
    let now = state.clock.now();
    let user = User {
        id: UserId::from(uuid::Uuid::new_v4().to_string()),
        username: new.username.as_str().to_owned(),
        email: new.email.as_str().to_owned(),
        email_verified: false,
        password_hash,
        created_at: now,
        updated_at: now,
        claimed_email: None,
        bot_level: None,
        time_zone: "UTC".into(),
        vacation_credit: 0,
        vacation_credit_at: None,
        vacation_started_at: None,
        vacation_until: None,
    };
    let mail = state.mail.clone();
    db::run(&state.pool, move |conn| {
        // Checked first for a precise answer; the unique indexes still decide
        // races: a lost race for the username is re-checked to say so, and
        // one for the address makes a claim of it, like a held address.
        // The computer players' names are the server's.
        if crate::games::bots::is_reserved(&user.username)
            || db::users::find_by_username(conn, &user.username)?.is_some()
        {
            return Err(AccountError::UsernameTaken);
        }
        match create(conn, &mail, user.clone(), now) {
            Ok(user) => Ok(user),
            Err(e) if db::is_unique_violation(&e) => {
                if db::users::find_by_username(conn, &user.username)?.is_some() {
                    Err(AccountError::UsernameTaken)
                } else {
                    Ok(create(conn, &mail, user, now)?)
                }
            }
            Err(e) => Err(e.into()),
        }
    })
    .await
}

/// Inserts the account with its address, or with a claim of it when another
/// account holds it, and queues the verification mail in one transaction.
fn create(
    conn: &mut db::DbConnection,
    mail: &notify::mail::MailContext,
    mut user: User,
    now: chrono::NaiveDateTime,
) -> diesel::QueryResult<User> {
    db::write_transaction(conn, |conn| {
        if db::users::find_by_email(conn, &user.email)?.is_some() {
            user.claimed_email = Some(std::mem::replace(
                &mut user.email,
                User::placeholder_email(&user.id),
            ));
        }
        db::users::insert(conn, &user)?;
        notify::mail::queue_verification(conn, mail, &user, now)?;
        Ok(user)
    })
}

/// The account behind an authenticated request.
pub async fn me(state: &AppState, user_id: UserId) -> Result<User, AccountError> {
    db::run(&state.pool, move |conn| {
        db::users::find_by_id(conn, &user_id)?.ok_or(AccountError::UserGone)
    })
    .await
}

/// A new password, with the current one as proof.
pub struct PasswordChange {
    pub current: String,
    pub new: Password,
}

/// Changes to one's own account. A password change revokes every session
/// except `keep_session` (the caller's own, when it is a session), and every
/// personal token too unless `keep_tokens`.
pub struct AccountUpdate {
    pub email: Option<Email>,
    /// A time zone's IANA name, already checked.
    pub time_zone: Option<String>,
    pub password: Option<PasswordChange>,
    pub keep_session: Option<String>,
    pub keep_tokens: bool,
}

pub async fn update_me(
    state: &AppState,
    user_id: UserId,
    update: AccountUpdate,
    client: std::net::IpAddr,
) -> Result<User, AccountError> {
    let user = me(state, user_id.clone()).await?;
    let new_hash = match update.password {
        Some(change) => {
            let subject = guard::Subject::Account(user.id.to_string());
            let stored = user.password_hash.clone();
            let current = change.current;
            if !guard::check_password(state, &subject, stored, current, client, false).await? {
                return Err(AccountError::WrongCurrentPassword);
            }
            let new = change.new;
            Some(blocking(move || password::hash(&new)).await??)
        }
        None => None,
    };
    let email = update.email.map(|e| e.as_str().to_owned());
    if let Some(new) = email.clone().filter(|e| *e != user.shown_email()) {
        let id = user.id.clone();
        let (now, limits) = (state.clock.now(), state.limits);
        db::run(&state.pool, move |conn| {
            verification_allowed(conn, &limits, &id, &new, now)
        })
        .await?;
    }
    let keep = update.keep_session;
    let keep_tokens = update.keep_tokens;
    let time_zone = update.time_zone;
    let mail = state.mail.clone();
    let now = state.clock.now();
    db::run(&state.pool, move |conn| {
        db::write_transaction(conn, |conn| {
            // An address another account holds is claimed, not refused (see
            // `register`); its verification mail goes to its owner instead.
            let new_email = email.filter(|e| *e != user.shown_email());
            if let Some(email) = &new_email {
                match db::users::find_by_email(conn, email)? {
                    Some(holder) if holder.id != user.id => {
                        let placeholder = User::placeholder_email(&user.id);
                        db::users::update_email(conn, &user.id, &placeholder, Some(email), now)?
                    }
                    _ => db::users::update_email(conn, &user.id, email, None, now)?,
                }
            }
            if let Some(tz) = &time_zone {
                db::users::update_time_zone(conn, &user.id, tz, now)?;
            }
            if let Some(hash) = &new_hash {
                // Compare and set: a password change that committed while
                // this one checked the old password wins, and this one is
                // refused as if its current password were wrong (it is now).
                let proven = &user.password_hash;
                if !db::users::update_password_hash(conn, &user.id, proven, hash, now)? {
                    return Err(AccountError::WrongCurrentPassword);
                }
                db::sessions::revoke_all_for_user(conn, &user.id, keep.as_deref(), now)?;
                if !keep_tokens {
                    db::tokens::delete_all_for_user(conn, &user.id)?;
                }
            }
            let updated = db::users::find_by_id(conn, &user.id)?.ok_or(AccountError::UserGone)?;
            if new_email.is_some() {
                // The new address is unverified until its owner follows this link.
                notify::mail::queue_verification(conn, &mail, &updated, now)?;
            }
            Ok(updated)
        })
    })
    .await
}

/// Sends a new verification link to the account's address.
pub async fn resend_verification(state: &AppState, user_id: UserId) -> Result<(), AccountError> {
    let mail = state.mail.clone();
    let (now, limits) = (state.clock.now(), state.limits);
    db::run(&state.pool, move |conn| {
        let user = db::users::find_by_id(conn, &user_id)?.ok_or(AccountError::UserGone)?;
        if user.email_verified {
            return Err(AccountError::AlreadyVerified);
        }
        verification_allowed(conn, &limits, &user.id, user.shown_email(), now)?;
        notify::mail::queue_verification(conn, &mail, &user, now)?;
        Ok(())
    })
    .await
}

/// How often one account may have a verification link sent to one address:
/// since anyone can type anyone's address, links must not become a way to
/// flood someone's mailbox.
const VERIFICATION_EVERY_SECS: i64 = 60;

/// Refuses a verification link to `address` if one went there too recently.
fn verification_allowed(
    conn: &mut db::DbConnection,
    limits: &crate::domain::limits::Limits,
    user_id: &str,
    address: &str,
    now: chrono::NaiveDateTime,
) -> Result<(), AccountError> {
    let rate = limits.verification_mails;
    let sent = db::mail::of_kind_since(conn, user_id, notify::mail::VERIFY_EMAIL, rate.since(now))?;
    rate.admit(&sent, now)?;
    let since = now - chrono::Duration::seconds(VERIFICATION_EVERY_SECS);
    let last =
        db::mail::last_sent_of_kind(conn, user_id, notify::mail::VERIFY_EMAIL, address, since)?;
    match last {
        Some(at) => Err(AccountError::TooSoon {
            retry_after_secs: (at + chrono::Duration::seconds(VERIFICATION_EVERY_SECS) - now)
                .num_seconds()
                .max(1) as u64,
        }),
        None => Ok(()),
    }
}

/// Marks an address verified from the token of a verification link. The token
/// names the address: once the account's address has changed, an old link
/// verifies nothing.
pub async fn verify_email(state: &AppState, token: String) -> Result<User, AccountError> {
    let claim = state
        .mail
        .links()
        .check_verification(&token)
        .map_err(|e| match e {
            LinkError::Expired => AccountError::LinkExpired,
            LinkError::Invalid => AccountError::LinkInvalid,
        })?;
    let now = state.clock.now();
    db::run(&state.pool, move |conn| {
        let user = db::users::find_by_id(conn, &claim.user_id)?.ok_or(AccountError::LinkInvalid)?;
        if user.shown_email() != claim.email {
            return Err(AccountError::EmailChanged);
        }
        if user.claimed_email.is_some() {
            // The address was held when claimed and the link went out once
            // it was free: take it now, if nobody took it in between.
            db::write_transaction(conn, |conn| {
                db::users::update_email(conn, &user.id, &claim.email, None, now)
            })
            .map_err(|e| {
                if db::is_unique_violation(&e) {
                    AccountError::EmailTaken
                } else {
                    e.into()
                }
            })?;
        }
        if !user.email_verified {
            db::users::mark_email_verified(conn, &user.id, &claim.email, now)?;
        }
        db::users::find_by_id(conn, &user.id)?.ok_or(AccountError::UserGone)
    })
    .await
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn password_hashing_runs_at_most_one_per_core() {
        let cap = super::HASHING.available_permits();
        let (now, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let tasks: Vec<_> = (0..cap * 4)
            .map(|_| {
                let (now, most) = (now.clone(), most.clone());
                tokio::spawn(super::blocking(move || {
                    let running = now.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(running, Ordering::SeqCst);
                    std::thread::sleep(std::time::Duration::from_millis(20));
                    now.fetch_sub(1, Ordering::SeqCst);
                }))
            })
            .collect();
        for t in tasks {
            t.await.unwrap().unwrap();
        }
        let most = most.load(Ordering::SeqCst);
        assert!(most <= cap, "{most} hashed at once; the cap is {cap}");
        assert!(most >= 1);
    }
}

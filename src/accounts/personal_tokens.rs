//! Personal access tokens for scripts and integrations.
//!
//! A token never outlives or outranks what minted it: a personal token mints
//! only tokens with its own scopes or fewer that expire no later than itself,
//! and minting needs proof of the password — a session that began with it
//! less than [`FRESH_PASSWORD_MINUTES`] ago, or the current password in the
//! request — so a stolen access token cannot mint a lasting one.

use crate::domain::{TokenId, UserId};
use chrono::NaiveDateTime;

use super::guard::{self, Subject};
use super::AccountError;
use crate::auth::{opaque, Authenticated, Credential};
use crate::db::{self, models::PersonalAccessToken};
use crate::domain::{ScopeSet, TokenName};
use crate::state::AppState;

/// What a token is created from.
pub struct NewPersonalToken {
    pub name: TokenName,
    pub scopes: ScopeSet,
    pub expires_in_days: Option<u32>,
    /// The account's password, when the caller's proof of it is not fresh.
    pub current_password: Option<String>,
}

/// How long after log-in a session may mint tokens without the password.
pub const FRESH_PASSWORD_MINUTES: i64 = 10;

/// A token as listed; `secret` is only present right after creation.
pub struct PersonalToken {
    pub id: String,
    pub name: String,
    pub scopes: ScopeSet,
    pub secret: Option<String>,
    pub created_at: NaiveDateTime,
    pub expires_at: Option<NaiveDateTime>,
    pub last_used_at: Option<NaiveDateTime>,
}

impl From<PersonalAccessToken> for PersonalToken {
    fn from(row: PersonalAccessToken) -> Self {
        Self {
            scopes: ScopeSet::from_stored(&row.scopes),
            id: row.id.into_string(),
            name: row.name,
            secret: None,
            created_at: row.created_at,
            expires_at: row.expires_at,
            last_used_at: row.last_used_at,
        }
    }
}

/// Creates a token, within what the caller may grant (see the module).
pub async fn create_token(
    state: &AppState,
    caller: &Authenticated,
    new: NewPersonalToken,
    client: std::net::IpAddr,
) -> Result<PersonalToken, AccountError> {
    if let Some(missing) = new.scopes.iter().find(|s| !caller.scopes.contains(*s)) {
        return Err(AccountError::ScopeNotHeld(missing));
    }
    let now = state.clock.now();
    let expires_at = new
        .expires_in_days
        .map(|days| now + chrono::Duration::days(i64::from(days)));
    if let Credential::PersonalToken {
        expires_at: Some(limit),
        ..
    } = &caller.credential
    {
        if expires_at.is_none_or(|at| at > *limit) {
            return Err(AccountError::OutlivesCaller {
                caller_expires_at: *limit,
                max_days: (*limit - now).num_days().max(0),
            });
        }
    }
    let fresh = matches!(
        &caller.credential,
        Credential::Session { authenticated_at, .. }
            if *authenticated_at <= now
                && now - *authenticated_at < chrono::Duration::minutes(FRESH_PASSWORD_MINUTES)
    );
    // The password hash the proof was checked against, if a password was given.
    let mut proven_hash = None;
    if !fresh {
        let Some(candidate) = new.current_password else {
            return Err(AccountError::PasswordRequired);
        };
        let user_id = caller.user_id.clone();
        let user = db::run(&state.pool, move |conn| {
            db::users::find_by_id(conn, &user_id)?.ok_or(AccountError::UserGone)
        })
        .await?;
        let subject = Subject::Account(user.id.to_string());
        let stored = user.password_hash.clone();
        if !guard::check_password(state, &subject, stored, candidate, client, false).await? {
            return Err(AccountError::WrongCurrentPassword);
        }
        proven_hash = Some(user.password_hash);
    }
    let (secret, token_hash) = opaque::generate(opaque::PAT_PREFIX);
    let row = PersonalAccessToken {
        id: TokenId::from(uuid::Uuid::new_v4().to_string()),
        user_id: caller.user_id.clone(),
        name: new.name.as_str().to_owned(),
        scopes: new.scopes.to_stored(),
        token_hash,
        created_at: now,
        expires_at,
        last_used_at: None,
        minted_by: match &caller.credential {
            Credential::PersonalToken { token_id, .. } => Some(TokenId::from(token_id.as_str())),
            Credential::Session { .. } => None,
        },
    };
    let stored = row.clone();
    let credential = caller.credential.clone();
    let limits = state.limits;
    db::run(&state.pool, move |conn| {
        // A password change, a log-out or a revocation may have committed
        // while the password was being checked: the credential, and the
        // password it was proven with, must still hold when the token lands.
        db::write_transaction(conn, |conn| {
            still_valid(conn, &stored.user_id, &credential, proven_hash.as_deref())?;
            let held = db::tokens::count_of_user(conn, &stored.user_id)?;
            limits.personal_tokens.admit(held)?;
            db::tokens::insert(conn, &stored).map_err(AccountError::from)
        })
    })
    .await?;
    tracing::info!(token_id = %row.id, "personal access token created");
    Ok(PersonalToken {
        secret: Some(secret),
        ..row.into()
    })
}

/// Refuses when the calling credential no longer works, or the password it
/// proved has changed since.
fn still_valid(
    conn: &mut db::DbConnection,
    user_id: &str,
    credential: &Credential,
    proven_hash: Option<&str>,
) -> Result<(), AccountError> {
    let live = match credential {
        Credential::Session { session_id, .. } => {
            db::sessions::live_session_user(conn, session_id, user_id)?.is_some()
        }
        Credential::PersonalToken { token_id, .. } => db::tokens::exists(conn, token_id)?,
    };
    if !live {
        return Err(AccountError::InvalidAccessToken);
    }
    if let Some(hash) = proven_hash {
        let user = db::users::find_by_id(conn, user_id)?.ok_or(AccountError::UserGone)?;
        if user.password_hash != hash {
            return Err(AccountError::WrongCurrentPassword);
        }
    }
    Ok(())
}

pub async fn list_tokens(
    state: &AppState,
    user_id: UserId,
) -> Result<Vec<PersonalToken>, AccountError> {
    let rows = db::run(&state.pool, move |conn| {
        db::tokens::list_for_user(conn, &user_id).map_err(AccountError::from)
    })
    .await?;
    Ok(rows.into_iter().map(PersonalToken::from).collect())
}

/// Revokes every personal token of the account; how many there were.
pub async fn delete_all_tokens(state: &AppState, user_id: UserId) -> Result<usize, AccountError> {
    let count = db::run(&state.pool, move |conn| {
        db::tokens::delete_all_for_user(conn, &user_id).map_err(AccountError::from)
    })
    .await?;
    tracing::info!(count, "personal access tokens revoked");
    Ok(count)
}

pub async fn delete_token(
    state: &AppState,
    user_id: UserId,
    token_id: TokenId,
) -> Result<(), AccountError> {
    db::run(&state.pool, move |conn| {
        if db::tokens::delete_for_user(conn, &token_id, &user_id)? {
            Ok(())
        } else {
            Err(AccountError::TokenNotFound)
        }
    })
    .await
}

//! Personal access tokens for scripts and integrations.

use chrono::{NaiveDateTime, Utc};

use super::AccountError;
use crate::auth::{opaque, Authenticated};
use crate::db::{self, models::PersonalAccessToken};
use crate::domain::{ScopeSet, TokenName};
use crate::state::AppState;

/// What a token is created from.
pub struct NewPersonalToken {
    pub name: TokenName,
    pub scopes: ScopeSet,
    pub expires_in_days: Option<u32>,
}

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
            id: row.id,
            name: row.name,
            secret: None,
            created_at: row.created_at,
            expires_at: row.expires_at,
            last_used_at: row.last_used_at,
        }
    }
}

/// Creates a token. A token cannot mint another with scopes it lacks.
pub async fn create_token(
    state: &AppState,
    caller: &Authenticated,
    new: NewPersonalToken,
) -> Result<PersonalToken, AccountError> {
    if let Some(missing) = new.scopes.iter().find(|s| !caller.scopes.contains(*s)) {
        return Err(AccountError::ScopeNotHeld(missing));
    }
    let now = Utc::now().naive_utc();
    let (secret, token_hash) = opaque::generate(opaque::PAT_PREFIX);
    let row = PersonalAccessToken {
        id: uuid::Uuid::new_v4().to_string(),
        user_id: caller.user_id.clone(),
        name: new.name.as_str().to_owned(),
        scopes: new.scopes.to_stored(),
        token_hash,
        created_at: now,
        expires_at: new
            .expires_in_days
            .map(|days| now + chrono::Duration::days(i64::from(days))),
        last_used_at: None,
    };
    let stored = row.clone();
    db::run(&state.pool, move |conn| {
        db::tokens::insert(conn, &stored).map_err(AccountError::from)
    })
    .await?;
    tracing::info!(token_id = %row.id, "personal access token created");
    Ok(PersonalToken {
        secret: Some(secret),
        ..row.into()
    })
}

pub async fn list_tokens(
    state: &AppState,
    user_id: String,
) -> Result<Vec<PersonalToken>, AccountError> {
    let rows = db::run(&state.pool, move |conn| {
        db::tokens::list_for_user(conn, &user_id).map_err(AccountError::from)
    })
    .await?;
    Ok(rows.into_iter().map(PersonalToken::from).collect())
}

pub async fn delete_token(
    state: &AppState,
    user_id: String,
    token_id: String,
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

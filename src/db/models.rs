//! Rows as stored. Times are UTC without zone (portable across backends).

use crate::domain::{TokenId, UserId};
use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::schema::{personal_access_tokens, refresh_tokens, server_secrets, sessions, users};

#[derive(Debug, Clone, Queryable, Insertable)]
#[diesel(table_name = users)]
pub struct User {
    pub id: UserId,
    pub username: String,
    pub email: String,
    pub email_verified: bool,
    pub password_hash: String,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
    /// An address the account asked for while another account held it:
    /// `email` is then a placeholder that is never mailed.
    pub claimed_email: Option<String>,
    /// Set for the built-in computer players (1–5, their engine level);
    /// such an account cannot log in.
    pub bot_level: Option<i32>,
    /// An IANA time zone name (`UTC` unless set).
    pub time_zone: String,
    /// Vacation held, in seconds, as of `vacation_credit_at` (unset: since
    /// registration); it grows with time (see `accounts::vacation`).
    pub vacation_credit: i64,
    pub vacation_credit_at: Option<NaiveDateTime>,
    /// The vacation under way, if any: when it began and ends.
    pub vacation_started_at: Option<NaiveDateTime>,
    pub vacation_until: Option<NaiveDateTime>,
}

impl User {
    /// The account's time zone; a stored name that is not one is an error
    /// naming the account.
    pub fn zone(&self) -> anyhow::Result<chrono_tz::Tz> {
        self.time_zone.parse().map_err(|_| {
            anyhow::anyhow!(
                "stored time zone of user {} is not a time zone: {:?}",
                self.id,
                self.time_zone
            )
        })
    }

    /// The `email` of an account whose address another account holds
    /// (`.invalid` is never delivered).
    pub fn placeholder_email(id: &str) -> String {
        format!("{id}@unclaimed.invalid")
    }

    /// The address the account asked for, whether or not it holds it: what
    /// it is shown, and where its verification mail goes.
    pub fn shown_email(&self) -> &str {
        self.claimed_email.as_deref().unwrap_or(&self.email)
    }

    pub fn is_bot(&self) -> bool {
        self.bot_level.is_some()
    }
}

#[derive(Debug, Clone, Queryable, Insertable)]
#[diesel(table_name = sessions)]
pub struct Session {
    pub id: String,
    pub user_id: UserId,
    pub created_at: NaiveDateTime,
    pub revoked_at: Option<NaiveDateTime>,
}

#[derive(Debug, Clone, Queryable, Insertable)]
#[diesel(table_name = refresh_tokens)]
pub struct RefreshToken {
    pub id: String,
    pub session_id: String,
    pub token_hash: String,
    pub created_at: NaiveDateTime,
    pub expires_at: NaiveDateTime,
    pub used_at: Option<NaiveDateTime>,
}

#[derive(Debug, Clone, Queryable, Insertable)]
#[diesel(table_name = personal_access_tokens)]
pub struct PersonalAccessToken {
    pub id: TokenId,
    pub user_id: UserId,
    pub name: String,
    /// Space-separated scope names.
    pub scopes: String,
    pub token_hash: String,
    pub created_at: NaiveDateTime,
    pub expires_at: Option<NaiveDateTime>,
    pub last_used_at: Option<NaiveDateTime>,
    /// The personal token this one was minted with, if any: deleting that
    /// one deletes this one too.
    pub minted_by: Option<TokenId>,
}

#[derive(Debug, Clone, Queryable, Insertable)]
#[diesel(table_name = server_secrets)]
pub struct ServerSecret {
    pub name: String,
    pub value: String,
    pub created_at: NaiveDateTime,
}

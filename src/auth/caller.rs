//! `Authenticated`: a caller with a valid bearer credential, as the use cases
//! see it. Its extractor lives with the routes (`routes::extract`).

use crate::domain::UserId;
use chrono::NaiveDateTime;

use crate::domain::{Scope, ScopeSet};

/// The credential lacks a scope the operation needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScopeMissing(pub Scope);

/// How the caller proved who they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credential {
    /// An access token from log-in, tied to a session.
    Session {
        session_id: String,
        /// When the session began: the last time the password was given.
        authenticated_at: NaiveDateTime,
    },
    /// A personal access token.
    PersonalToken {
        token_id: String,
        expires_at: Option<NaiveDateTime>,
    },
}

/// A caller with a valid bearer credential.
#[derive(Debug, Clone)]
pub struct Authenticated {
    pub user_id: UserId,
    pub username: String,
    pub scopes: ScopeSet,
    pub credential: Credential,
}

impl Authenticated {
    /// Refuses unless the credential holds `scope`.
    pub fn require_scope(&self, scope: Scope) -> Result<(), ScopeMissing> {
        if self.scopes.contains(scope) {
            Ok(())
        } else {
            Err(ScopeMissing(scope))
        }
    }

    /// The session behind the credential, if it is a session token.
    pub fn session_id(&self) -> Option<&str> {
        match &self.credential {
            Credential::Session { session_id, .. } => Some(session_id),
            Credential::PersonalToken { .. } => None,
        }
    }
}

/// A caller who may be anonymous: no `Authorization` header means `None`, but a
/// header that is present must be valid.
#[derive(Debug, Clone)]
pub struct MaybeAuthenticated(pub Option<Authenticated>);

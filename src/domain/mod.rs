//! Domain newtypes. Request bodies are parsed into these before any work is
//! done, so everything past the handler holds only valid values.

mod email;
mod field_error;
mod ids;
pub mod limits;
mod password;
pub mod schema;
mod scope;
mod token_name;
mod username;

pub use email::Email;
pub use field_error::FieldError;
pub use ids::{is_uuid, EventId, GameId, ProposalId, TokenId, UserId, WebhookId};
pub use password::Password;
pub use scope::{Scope, ScopeSet};
pub use token_name::TokenName;
pub use username::Username;

/// Why a value was refused: a stable machine code and a human message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    pub code: &'static str,
    pub message: String,
}

impl Invalid {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }
}

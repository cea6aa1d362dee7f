//! Passwords, tokens, rate limits and the authenticated caller.

pub mod caller;
pub mod jwt;
pub mod links;
pub mod opaque;
pub mod password;
pub mod rate_limit;

pub use caller::{Authenticated, Credential, MaybeAuthenticated, ScopeMissing};

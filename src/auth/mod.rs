//! Passwords, tokens, rate limits and the authenticated-user extractor.

pub mod extractor;
pub mod jwt;
pub mod links;
pub mod opaque;
pub mod password;
pub mod rate_limit;

pub use extractor::{Authenticated, Credential, MaybeAuthenticated};

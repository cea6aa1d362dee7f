//! Opaque bearer secrets (refresh tokens, personal access tokens): 256 random
//! bits, shown once, stored only as a SHA-256 digest. A fast digest is enough
//! here because the secrets are random, unlike passwords.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use rand::RngCore;
use sha2::{Digest, Sha256};

/// Prefix of personal access tokens, so they can be told apart from JWTs
/// (and found by secret scanners).
pub const PAT_PREFIX: &str = "sannin_pat_";
/// Prefix of refresh tokens.
pub const REFRESH_PREFIX: &str = "sannin_rt_";

/// A new secret with `prefix`, and the digest to store.
pub fn generate(prefix: &str) -> (String, String) {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    let secret = format!("{prefix}{}", URL_SAFE_NO_PAD.encode(bytes));
    let digest = digest(&secret);
    (secret, digest)
}

/// The stored form of a secret.
pub fn digest(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// A random key for signing JWTs when none is configured.
pub fn signing_key() -> String {
    let mut bytes = [0u8; 64];
    rand::rng().fill_bytes(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_unique_and_digest_matches() {
        let (a, da) = generate(PAT_PREFIX);
        let (b, _) = generate(PAT_PREFIX);
        assert_ne!(a, b);
        assert!(a.starts_with(PAT_PREFIX));
        assert_eq!(digest(&a), da);
        assert_eq!(da.len(), 64);
    }
}

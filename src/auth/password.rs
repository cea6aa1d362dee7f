//! Password hashing with argon2id at the OWASP-recommended cost
//! (19 MiB memory, 2 iterations, 1 lane). Call these from a blocking task.

use anyhow::Context as _;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use rand::RngCore;

use crate::domain::Password;

fn hasher() -> Argon2<'static> {
    let params = Params::new(19 * 1024, 2, 1, None).expect("constant argon2 parameters are valid");
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// Hashes a new password into a PHC string (algorithm, parameters and salt
/// travel with the hash).
pub fn hash(password: &Password) -> anyhow::Result<String> {
    let mut salt = [0u8; 16];
    rand::rng().fill_bytes(&mut salt);
    let salt = SaltString::encode_b64(&salt).map_err(|e| anyhow::anyhow!("salt encoding: {e}"))?;
    let hash = hasher()
        .hash_password(password.expose().as_bytes(), &salt)
        .map_err(|e| anyhow::anyhow!("{e}"))
        .context("hashing a password")?;
    Ok(hash.to_string())
}

/// Checks a candidate against a stored hash. A malformed stored hash counts
/// as a mismatch (and is logged), never as a match.
pub fn verify(stored_hash: &str, candidate: &str) -> bool {
    match PasswordHash::new(stored_hash) {
        Ok(parsed) => hasher()
            .verify_password(candidate.as_bytes(), &parsed)
            .is_ok(),
        Err(e) => {
            tracing::error!(error = %e, "stored password hash is malformed");
            false
        }
    }
}

/// A hash of a random password, verified against when the user is unknown so
/// that "no such user" costs the same time as "wrong password".
pub fn dummy_hash() -> anyhow::Result<String> {
    let mut bytes = [0u8; 24];
    rand::rng().fill_bytes(&mut bytes);
    let random = Password::parse(hex::encode(bytes), &[])
        .expect("48 random hex digits are a valid password");
    hash(&random)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_then_verify() {
        let pw = Password::parse("correct horse battery".into(), &[]).unwrap();
        let stored = hash(&pw).unwrap();
        assert!(stored.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"));
        assert!(verify(&stored, "correct horse battery"));
        assert!(!verify(&stored, "wrong horse battery"));
        assert!(!verify("not a hash", "correct horse battery"));
    }
}

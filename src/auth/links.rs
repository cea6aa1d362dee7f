//! Tokens carried in links of mail: verifying an email address, and leaving
//! one kind of mail without logging in. Both are HS256 JWTs signed with the
//! service key; each purpose has its own audience, so neither kind of token
//! (nor an access token) passes for another.

use chrono::Utc;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};

const VERIFY_AUDIENCE: &str = "sannin-verify-email";
const UNSUBSCRIBE_AUDIENCE: &str = "sannin-unsubscribe";
/// How long a verification link works.
pub const VERIFY_TTL_SECS: i64 = 7 * 86_400;

#[derive(Debug, Serialize, Deserialize)]
struct VerifyClaims {
    iss: String,
    aud: String,
    sub: String,
    /// The address verified: a link for an address since replaced verifies nothing.
    email: String,
    iat: i64,
    exp: i64,
}

#[derive(Debug, Serialize, Deserialize)]
struct UnsubscribeClaims {
    iss: String,
    aud: String,
    sub: String,
    /// The event type left.
    evt: String,
    iat: i64,
}

/// Why a link's token was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkError {
    Expired,
    Invalid,
}

/// What a verification link claims.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verification {
    pub user_id: String,
    pub email: String,
}

/// What an unsubscribe link claims.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsubscribe {
    pub user_id: String,
    pub event_type: String,
}

pub struct LinkKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    issuer: String,
}

impl LinkKeys {
    pub fn new(secret: &[u8], issuer: String) -> Self {
        Self {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
            issuer,
        }
    }

    fn validation(&self, audience: &str, expires: bool) -> Validation {
        let mut v = Validation::new(Algorithm::HS256);
        v.set_issuer(&[&self.issuer]);
        v.set_audience(&[audience]);
        v.validate_exp = expires;
        v.leeway = 5;
        let mut required = vec!["iss", "aud", "sub"];
        if expires {
            required.push("exp");
        }
        v.set_required_spec_claims(&required);
        v
    }

    fn sign<T: Serialize>(&self, claims: &T) -> String {
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), claims, &self.encoding)
            .expect("HS256 signing of plain claims cannot fail")
    }

    pub fn verification_token(&self, user_id: &str, email: &str) -> String {
        let now = Utc::now().timestamp();
        self.sign(&VerifyClaims {
            iss: self.issuer.clone(),
            aud: VERIFY_AUDIENCE.into(),
            sub: user_id.into(),
            email: email.into(),
            iat: now,
            exp: now + VERIFY_TTL_SECS,
        })
    }

    pub fn check_verification(&self, token: &str) -> Result<Verification, LinkError> {
        let claims = jsonwebtoken::decode::<VerifyClaims>(
            token,
            &self.decoding,
            &self.validation(VERIFY_AUDIENCE, true),
        )
        .map_err(refusal)?
        .claims;
        Ok(Verification {
            user_id: claims.sub,
            email: claims.email,
        })
    }

    /// Never expires: an old mail's link still works.
    pub fn unsubscribe_token(&self, user_id: &str, event_type: &str) -> String {
        self.sign(&UnsubscribeClaims {
            iss: self.issuer.clone(),
            aud: UNSUBSCRIBE_AUDIENCE.into(),
            sub: user_id.into(),
            evt: event_type.into(),
            iat: Utc::now().timestamp(),
        })
    }

    pub fn check_unsubscribe(&self, token: &str) -> Result<Unsubscribe, LinkError> {
        let claims = jsonwebtoken::decode::<UnsubscribeClaims>(
            token,
            &self.decoding,
            &self.validation(UNSUBSCRIBE_AUDIENCE, false),
        )
        .map_err(refusal)?
        .claims;
        Ok(Unsubscribe {
            user_id: claims.sub,
            event_type: claims.evt,
        })
    }
}

fn refusal(e: jsonwebtoken::errors::Error) -> LinkError {
    match e.kind() {
        jsonwebtoken::errors::ErrorKind::ExpiredSignature => LinkError::Expired,
        _ => LinkError::Invalid,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys() -> LinkKeys {
        LinkKeys::new(b"0123456789abcdef0123456789abcdef", "sannin".into())
    }

    #[test]
    fn tokens_round_trip() {
        let k = keys();
        let v = k.check_verification(&k.verification_token("u1", "a@example.org"));
        assert_eq!(
            v,
            Ok(Verification {
                user_id: "u1".into(),
                email: "a@example.org".into()
            })
        );
        let u = k.check_unsubscribe(&k.unsubscribe_token("u1", "game.your_turn"));
        assert_eq!(
            u,
            Ok(Unsubscribe {
                user_id: "u1".into(),
                event_type: "game.your_turn".into()
            })
        );
    }

    #[test]
    fn purposes_and_keys_do_not_mix() {
        let k = keys();
        let other = LinkKeys::new(b"fedcba9876543210fedcba9876543210", "sannin".into());
        let unsubscribe = k.unsubscribe_token("u1", "game.move");
        let verify = k.verification_token("u1", "a@example.org");
        assert_eq!(k.check_verification(&unsubscribe), Err(LinkError::Invalid));
        assert_eq!(k.check_unsubscribe(&verify), Err(LinkError::Invalid));
        assert_eq!(
            other.check_unsubscribe(&unsubscribe),
            Err(LinkError::Invalid)
        );
        assert_eq!(k.check_unsubscribe("garbage"), Err(LinkError::Invalid));
    }

    #[test]
    fn verification_links_expire() {
        let k = keys();
        let now = Utc::now().timestamp();
        let old = k.sign(&VerifyClaims {
            iss: "sannin".into(),
            aud: VERIFY_AUDIENCE.into(),
            sub: "u1".into(),
            email: "a@example.org".into(),
            iat: now - VERIFY_TTL_SECS - 60,
            exp: now - 60,
        });
        assert_eq!(k.check_verification(&old), Err(LinkError::Expired));
    }
}

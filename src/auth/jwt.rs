//! Short-lived access tokens: HS256 JWTs with iss, aud, sub, exp, iat, jti
//! and the session id they were minted for. The algorithm is pinned on
//! verification, so a token claiming another algorithm is refused.

use std::time::Duration;

use chrono::Utc;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Claims {
    pub iss: String,
    pub aud: String,
    /// The user id.
    pub sub: String,
    pub exp: i64,
    pub iat: i64,
    pub jti: String,
    /// The session (refresh-token family) this token belongs to.
    pub sid: String,
}

/// Signs and checks access tokens.
pub struct JwtKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    issuer: String,
    audience: String,
    ttl: Duration,
}

impl JwtKeys {
    pub fn new(secret: &[u8], issuer: String, audience: String, ttl: Duration) -> Self {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.set_issuer(&[&issuer]);
        validation.set_audience(&[&audience]);
        validation.set_required_spec_claims(&["exp", "iat", "iss", "aud", "sub"]);
        validation.leeway = 5;
        Self {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
            validation,
            issuer,
            audience,
            ttl,
        }
    }

    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// A new access token for `user_id` in `session_id`.
    pub fn issue(&self, user_id: &str, session_id: &str) -> anyhow::Result<String> {
        let now = Utc::now().timestamp();
        let claims = Claims {
            iss: self.issuer.clone(),
            aud: self.audience.clone(),
            sub: user_id.to_owned(),
            iat: now,
            exp: now + self.ttl.as_secs() as i64,
            jti: uuid::Uuid::new_v4().to_string(),
            sid: session_id.to_owned(),
        };
        Ok(jsonwebtoken::encode(
            &Header::new(Algorithm::HS256),
            &claims,
            &self.encoding,
        )?)
    }

    /// The claims of a valid token, or why it is not.
    pub fn verify(&self, token: &str) -> Result<Claims, jsonwebtoken::errors::Error> {
        jsonwebtoken::decode::<Claims>(token, &self.decoding, &self.validation).map(|d| d.claims)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(secret: &[u8]) -> JwtKeys {
        JwtKeys::new(
            secret,
            "sannin".into(),
            "sannin-api".into(),
            Duration::from_secs(60),
        )
    }

    #[test]
    fn issues_and_verifies() {
        let k = keys(b"0123456789abcdef0123456789abcdef");
        let token = k.issue("user-1", "session-1").unwrap();
        let claims = k.verify(&token).unwrap();
        assert_eq!(claims.sub, "user-1");
        assert_eq!(claims.sid, "session-1");
        assert_eq!(claims.exp - claims.iat, 60);
    }

    #[test]
    fn refuses_other_keys_audiences_and_algorithms() {
        let k = keys(b"0123456789abcdef0123456789abcdef");
        let other = keys(b"fedcba9876543210fedcba9876543210");
        assert!(k.verify(&other.issue("u", "s").unwrap()).is_err());

        let wrong_aud = JwtKeys::new(
            b"0123456789abcdef0123456789abcdef",
            "sannin".into(),
            "elsewhere".into(),
            Duration::from_secs(60),
        );
        assert!(k.verify(&wrong_aud.issue("u", "s").unwrap()).is_err());

        let now = Utc::now().timestamp();
        let claims = Claims {
            iss: "sannin".into(),
            aud: "sannin-api".into(),
            sub: "u".into(),
            exp: now + 60,
            iat: now,
            jti: "j".into(),
            sid: "s".into(),
        };
        let hs512 = jsonwebtoken::encode(
            &Header::new(Algorithm::HS512),
            &claims,
            &EncodingKey::from_secret(b"0123456789abcdef0123456789abcdef"),
        )
        .unwrap();
        assert!(k.verify(&hs512).is_err());
    }
}

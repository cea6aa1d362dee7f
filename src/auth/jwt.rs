//! Short-lived access tokens: HS256 JWTs with iss, aud, sub, exp, iat, jti
//! and the session id they were minted for. The algorithm is pinned on
//! verification, so a token claiming another algorithm is refused, and its
//! times are checked against the service's clock and configured lifetime: a
//! validly signed token issued in the future, or living longer than access
//! tokens live, is refused.

use std::time::Duration;

use jsonwebtoken::errors::{Error as JwtError, ErrorKind};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};

use crate::clock::Clock;

/// Seconds of disagreement between the clocks of server processes that
/// verification forgives.
const LEEWAY_SECS: i64 = 30;

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
    clock: Clock,
}

impl JwtKeys {
    pub fn new(
        secret: &[u8],
        issuer: String,
        audience: String,
        ttl: Duration,
        clock: Clock,
    ) -> Self {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.set_issuer(&[&issuer]);
        validation.set_audience(&[&audience]);
        validation.set_required_spec_claims(&["exp", "iat", "iss", "aud", "sub"]);
        // Times are checked in `verify`, against the service's clock.
        validation.validate_exp = false;
        Self {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
            validation,
            issuer,
            audience,
            ttl,
            clock,
        }
    }

    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// A new access token for `user_id` in `session_id`.
    pub fn issue(&self, user_id: &str, session_id: &str) -> anyhow::Result<String> {
        let now = self.clock.now_utc().timestamp();
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
    pub fn verify(&self, token: &str) -> Result<Claims, JwtError> {
        let claims =
            jsonwebtoken::decode::<Claims>(token, &self.decoding, &self.validation)?.claims;
        let now = self.clock.now_utc().timestamp();
        if claims.exp.saturating_add(LEEWAY_SECS) <= now {
            return Err(ErrorKind::ExpiredSignature.into());
        }
        // Issued in the future, expiring before it was issued, or for longer
        // than access tokens live: not a token this service issued under its
        // settings.
        let lifetime = claims.exp.saturating_sub(claims.iat);
        if claims.iat > now.saturating_add(LEEWAY_SECS)
            || lifetime < 0
            || lifetime > (self.ttl.as_secs() as i64).saturating_add(LEEWAY_SECS)
        {
            return Err(ErrorKind::ImmatureSignature.into());
        }
        Ok(claims)
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
            Clock::system(),
        )
    }

    fn signed(claims: &Claims) -> String {
        jsonwebtoken::encode(
            &Header::new(Algorithm::HS256),
            claims,
            &EncodingKey::from_secret(b"0123456789abcdef0123456789abcdef"),
        )
        .unwrap()
    }

    #[test]
    fn refuses_lifetimes_the_service_does_not_issue() {
        let k = keys(b"0123456789abcdef0123456789abcdef");
        let now = chrono::Utc::now().timestamp();
        let claims = |iat: i64, exp: i64| Claims {
            iss: "sannin".into(),
            aud: "sannin-api".into(),
            sub: "u".into(),
            exp,
            iat,
            jti: "j".into(),
            sid: "s".into(),
        };
        assert!(k.verify(&signed(&claims(now, now + 60))).is_ok());
        // Years ahead.
        assert!(k
            .verify(&signed(&claims(now, now + 86_400 * 3650)))
            .is_err());
        // Issued in the future.
        assert!(k.verify(&signed(&claims(now + 600, now + 630))).is_err());
        // Expired, and expiring before issued.
        assert!(k.verify(&signed(&claims(now - 120, now - 60))).is_err());
        assert!(k.verify(&signed(&claims(now, now - 1))).is_err());
        assert!(k.verify(&signed(&claims(i64::MIN, i64::MAX))).is_err());
    }

    #[test]
    fn verifies_by_the_services_clock() {
        let clock = Clock::adjustable();
        let k = JwtKeys::new(
            b"0123456789abcdef0123456789abcdef",
            "sannin".into(),
            "sannin-api".into(),
            Duration::from_secs(60),
            clock.clone(),
        );
        let token = k.issue("u", "s").unwrap();
        assert!(k.verify(&token).is_ok());
        clock.advance(chrono::Duration::seconds(120));
        assert!(k.verify(&token).is_err());
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
            Clock::system(),
        );
        assert!(k.verify(&wrong_aud.issue("u", "s").unwrap()).is_err());

        let now = chrono::Utc::now().timestamp();
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

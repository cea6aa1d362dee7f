use std::fmt;

use super::Invalid;

/// A new password: 8–1024 bytes. The upper bound keeps hashing cost bounded.
#[derive(Clone)]
pub struct Password(String);

impl Password {
    pub const MIN_BYTES: usize = 8;
    pub const MAX_BYTES: usize = 1024;

    pub fn parse(raw: String) -> Result<Self, Invalid> {
        if raw.len() < Self::MIN_BYTES || raw.len() > Self::MAX_BYTES {
            return Err(Invalid::new(
                "length",
                format!(
                    "must be {} to {} bytes long",
                    Self::MIN_BYTES,
                    Self::MAX_BYTES
                ),
            ));
        }
        Ok(Self(raw))
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

/// Never print a password, not even in debug output.
impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password(***)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_are_in_bytes() {
        assert!(Password::parse("1234567".into()).is_err());
        assert!(Password::parse("12345678".into()).is_ok());
        assert!(Password::parse("x".repeat(1024)).is_ok());
        assert!(Password::parse("x".repeat(1025)).is_err());
        // Four 2-byte characters are 8 bytes.
        assert!(Password::parse("éééé".into()).is_ok());
        assert_eq!(
            format!("{:?}", Password::parse("secret-pw".into()).unwrap()),
            "Password(***)"
        );
    }
}

use super::Invalid;

/// A username: 3–32 characters of `a-z 0-9 _ -`. Input is lower-cased first,
/// which makes usernames unique case-insensitively.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Username(String);

impl Username {
    pub const MIN_LEN: usize = 3;
    pub const MAX_LEN: usize = 32;

    pub fn parse(raw: &str) -> Result<Self, Invalid> {
        let name = raw.to_ascii_lowercase();
        let len = name.chars().count();
        if !(Self::MIN_LEN..=Self::MAX_LEN).contains(&len) {
            return Err(Invalid::new(
                "length",
                format!(
                    "must be {} to {} characters long",
                    Self::MIN_LEN,
                    Self::MAX_LEN
                ),
            ));
        }
        if !name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
        {
            return Err(Invalid::new(
                "charset",
                "may contain only letters a-z, digits, `_` and `-`",
            ));
        }
        Ok(Self(name))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl utoipa::PartialSchema for Username {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        super::schema::bounded(
            "3–32 characters of `a-z 0-9 _ -` (upper case is folded to lower case).",
            Self::MIN_LEN,
            Self::MAX_LEN,
            Some(format!(
                "^[A-Za-z0-9_-]{{{},{}}}$",
                Self::MIN_LEN,
                Self::MAX_LEN
            )),
            "alice",
        )
    }
}

impl utoipa::ToSchema for Username {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_allowed_alphabet_and_lowercases() {
        assert_eq!(Username::parse("Ab_c-9").unwrap().as_str(), "ab_c-9");
    }

    #[test]
    fn refuses_bad_lengths_and_characters() {
        assert_eq!(Username::parse("ab").unwrap_err().code, "length");
        assert_eq!(Username::parse(&"a".repeat(33)).unwrap_err().code, "length");
        assert!(Username::parse(&"a".repeat(32)).is_ok());
        for bad in ["a b c", "abc!", "ünï", "abc.def", "abc@x"] {
            assert_eq!(Username::parse(bad).unwrap_err().code, "charset", "{bad}");
        }
    }
}

use super::Invalid;

/// The label of a personal access token: 1–100 characters, not blank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenName(String);

impl TokenName {
    pub const MAX_LEN: usize = 100;

    pub fn parse(raw: &str) -> Result<Self, Invalid> {
        let name = raw.trim();
        if name.is_empty() {
            return Err(Invalid::new("required", "must not be blank"));
        }
        if name.chars().count() > Self::MAX_LEN {
            return Err(Invalid::new(
                "length",
                format!("must be at most {} characters long", Self::MAX_LEN),
            ));
        }
        if name.chars().any(char::is_control) {
            return Err(Invalid::new(
                "charset",
                "must not contain control characters",
            ));
        }
        Ok(Self(name.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

use super::Invalid;

/// The label of a personal access token: 1–100 characters, not blank, no
/// control characters; spaces around it are dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenName(String);

impl TokenName {
    pub const MAX_LEN: usize = 100;

    pub fn parse(raw: &str) -> Result<Self, Invalid> {
        let name = raw.trim();
        if name.is_empty() {
            return Err(Invalid::new("required", "must not be blank"));
        }
        if raw.chars().count() > Self::MAX_LEN {
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

impl utoipa::PartialSchema for TokenName {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use super::schema::{CONTROL_CLASS, WHITESPACE_CLASS};
        super::schema::bounded(
            "A label for you to recognise the token by: 1–100 characters, not blank, \
             no control characters (spaces around it are dropped).",
            1,
            Self::MAX_LEN,
            Some(format!(
                "^[^{CONTROL_CLASS}]*[^{CONTROL_CLASS}{WHITESPACE_CLASS}][^{CONTROL_CLASS}]*$"
            )),
            "my bot",
        )
    }
}

impl utoipa::ToSchema for TokenName {}

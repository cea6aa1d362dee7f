use super::Invalid;

/// A syntactically valid email address, stored lower-cased so that uniqueness
/// and log-in by email are case-insensitive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Email(String);

impl Email {
    /// RFC 5321 caps a forward path at 254 characters.
    pub const MAX_LEN: usize = 254;

    pub fn parse(raw: &str) -> Result<Self, Invalid> {
        let email = raw.trim().to_lowercase();
        if email.len() > Self::MAX_LEN {
            return Err(Invalid::new(
                "length",
                format!("must be at most {} characters long", Self::MAX_LEN),
            ));
        }
        // The crate accepts dot-less domains such as `a@localhost`; accounts
        // need an address mail can reach.
        let has_dotted_domain = email
            .rsplit_once('@')
            .is_some_and(|(_, domain)| domain.contains('.') && !domain.ends_with('.'));
        // A bare address only: no display name (`Evil <evil@example.com>`)
        // and no domain literal (`a@[127.0.0.1]`), neither of which a relay
        // would deliver to from a plain RCPT TO.
        let options = email_address::Options::default()
            .with_required_tld()
            .without_domain_literal()
            .without_display_text();
        let bare = email_address::EmailAddress::parse_with_options(&email, options)
            .is_ok_and(|parsed| parsed.as_str() == email);
        if !bare || !has_dotted_domain {
            return Err(Invalid::new("format", "is not a valid email address"));
        }
        Ok(Self(email))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl utoipa::PartialSchema for Email {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{KnownFormat, SchemaFormat};
        super::schema::string(
            "A bare address (no display name, no domain literal) whose domain has a dot; \
             stored lower-cased.",
        )
        .format(Some(SchemaFormat::KnownFormat(KnownFormat::Email)))
        .min_length(Some(3))
        .max_length(Some(Self::MAX_LEN))
        .examples([serde_json::Value::from("alice@example.org")])
        .into()
    }
}

impl utoipa::ToSchema for Email {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_and_normalises() {
        assert_eq!(
            Email::parse(" Alice@Example.COM ").unwrap().as_str(),
            "alice@example.com"
        );
    }

    #[test]
    fn refuses_invalid() {
        for bad in [
            "",
            "alice",
            "alice@",
            "@example.com",
            "a b@example.com",
            "a@localhost",
            // Issue 10: only bare, deliverable addresses.
            "evil <evil@example.com>",
            "a@[127.0.0.1]",
            "a@[ipv6:::1]",
        ] {
            assert!(Email::parse(bad).is_err(), "{bad}");
        }
        let long = format!("{}@example.com", "a".repeat(250));
        assert_eq!(Email::parse(&long).unwrap_err().code, "length");
    }
}

use std::fmt;

use super::Invalid;

/// A new password: 8–1024 characters, not only whitespace, and not easy to
/// guess (zxcvbn's estimate: a score of at least 2, "somewhat guessable",
/// about 10^8 guesses). The upper bound keeps hashing cost bounded. Lengths
/// are in characters, as a person counts them and as JSON Schema's
/// `minLength`/`maxLength` do.
#[derive(Clone)]
pub struct Password(String);

impl Password {
    pub const MIN_CHARS: usize = 8;
    pub const MAX_CHARS: usize = 1024;
    /// How much of a password the estimator reads: its cost grows fast with
    /// length, and a guessable start makes a guessable password.
    const ESTIMATED_CHARS: usize = 128;

    /// Checks a new password; `related` are the account's own words (its
    /// username and address), which make a password easier to guess.
    pub fn parse(raw: String, related: &[&str]) -> Result<Self, Invalid> {
        let chars = raw.chars().count();
        if !(Self::MIN_CHARS..=Self::MAX_CHARS).contains(&chars) {
            return Err(Invalid::new(
                "length",
                format!(
                    "must be {} to {} characters long",
                    Self::MIN_CHARS,
                    Self::MAX_CHARS
                ),
            ));
        }
        if raw.trim().is_empty() {
            return Err(Invalid::new("blank", "must not be only whitespace"));
        }
        let start: String = raw.chars().take(Self::ESTIMATED_CHARS).collect();
        let estimate = zxcvbn::zxcvbn(&start, related);
        if estimate.score() < zxcvbn::Score::Two {
            let why = estimate
                .feedback()
                .and_then(|f| f.warning())
                .map(|w| format!(" ({w})"))
                .unwrap_or_default();
            return Err(Invalid::new(
                "too-guessable",
                format!(
                    "is too easy to guess{why}; a few uncommon words, or a longer phrase, will do"
                ),
            ));
        }
        Ok(Self(raw))
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl utoipa::PartialSchema for Password {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        super::schema::bounded(
            "8–1024 characters, not only whitespace, and not easy to guess (a common \
             password, a keyboard run, the username…: refused with `too-guessable`).",
            Self::MIN_CHARS,
            Self::MAX_CHARS,
            // Some character that is not whitespace.
            Some(format!("[^{}]", super::schema::WHITESPACE_CLASS)),
            "correct horse battery staple",
        )
    }
}

impl utoipa::ToSchema for Password {}

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
    fn bounds_are_in_characters() {
        let parse = |s: &str| Password::parse(s.into(), &[]);
        assert_eq!(parse("k7#Qw9z").unwrap_err().code, "length");
        assert!(parse("k7#Qw9z!").is_ok());
        let long: String = "k7#Qw9z!".repeat(128);
        assert!(parse(&long).is_ok());
        assert_eq!(parse(&format!("{long}x")).unwrap_err().code, "length");
        // Seven 2-byte characters are 14 bytes but only seven characters.
        assert_eq!(parse("éàüöçñß").unwrap_err().code, "length");
        let wide = format!("correct horse battery staple {}", "é".repeat(1024 - 29));
        assert_eq!((wide.chars().count(), wide.len()), (1024, 2019));
        assert!(parse(&wide).is_ok());
        assert_eq!(parse(&format!("{wide}é")).unwrap_err().code, "length");
        assert_eq!(
            format!("{:?}", parse("secret-pw-of-mine").unwrap()),
            "Password(***)"
        );
    }

    /// Issue 10: whitespace and the commonest passwords are refused, saying why.
    #[test]
    fn guessable_passwords_are_refused() {
        let parse = |s: &str, related: &[&str]| Password::parse(s.into(), related);
        assert_eq!(parse("          ", &[]).unwrap_err().code, "blank");
        for weak in [
            "password",
            "12345678",
            "qwertyuiop",
            "password1",
            "aaaaaaaaaaaa",
        ] {
            let e = parse(weak, &[]).unwrap_err();
            assert_eq!(e.code, "too-guessable", "{weak}");
            assert!(e.message.contains("easy to guess"), "{}", e.message);
        }
        assert!(parse("correct horse battery staple", &[]).is_ok());
        // The account's own name makes a password weaker.
        assert!(parse("tangerine quokka 47", &[]).is_ok());
        assert_eq!(
            parse("tangerine quokka 47", &["tangerine quokka 47"])
                .unwrap_err()
                .code,
            "too-guessable"
        );
    }
}

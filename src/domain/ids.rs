//! Ids as types: a game's id cannot be passed where a user's is wanted.
//! Each is text (a UUID as the service writes them) wherever it is stored
//! or sent (through `stored_as_text!`, like the stored enums), and reads as
//! `&str` for the storage queries below the use cases.

/// An id type stored as text: `stored_id!(GameId, "a game")`.
/// Whether `s` is a UUID written as the server writes ids (hyphenated, 36
/// characters), as the `uuid` format of their schemas says.
pub fn is_uuid(s: &str) -> bool {
    s.len() == 36 && uuid::Uuid::try_parse(s).is_ok()
}

macro_rules! stored_id {
    ($(#[$doc:meta])* $ty:ident) => {
        $(#[$doc])*
        #[derive(
            Debug,
            Clone,
            PartialEq,
            Eq,
            Hash,
            PartialOrd,
            Ord,
            serde::Serialize,
            serde::Deserialize,
            diesel::AsExpression,
            diesel::FromSqlRow,
        )]
        #[diesel(sql_type = diesel::sql_types::Text)]
        #[serde(transparent)]
        pub struct $ty(String);

        impl $ty {
            /// A new, time-ordered id (UUID v7).
            pub fn generate() -> Self {
                Self(uuid::Uuid::now_v7().to_string())
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }

            pub fn into_string(self) -> String {
                self.0
            }

            /// Any text is an id (for `stored_as_text!`; it never fails).
            pub fn parse(id: &str) -> Option<Self> {
                Some(Self(id.to_owned()))
            }
        }

        impl From<String> for $ty {
            fn from(id: String) -> Self {
                Self(id)
            }
        }

        impl From<&str> for $ty {
            fn from(id: &str) -> Self {
                Self(id.to_owned())
            }
        }

        impl std::ops::Deref for $ty {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl PartialEq<str> for $ty {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $ty {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        impl utoipa::PartialSchema for $ty {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                $crate::domain::schema::uuid("An id the server made (a UUID).")
            }
        }

        impl utoipa::ToSchema for $ty {}

        crate::stored_as_text!($ty, "an id");
    };
}

stored_id!(
    /// An account.
    UserId
);
stored_id!(
    /// A game.
    GameId
);
stored_id!(
    /// An event of a game, time-ordered (UUID v7).
    EventId
);
stored_id!(
    /// A registered webhook.
    WebhookId
);
stored_id!(
    /// An alliance proposal.
    ProposalId
);
stored_id!(
    /// A personal access token.
    TokenId
);

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// What a credential may do. Session (log-in) tokens hold every scope; a
/// personal access token holds the ones it was created with.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
pub enum Scope {
    #[serde(rename = "account:read")]
    AccountRead,
    #[serde(rename = "account:write")]
    AccountWrite,
    #[serde(rename = "games:read")]
    GamesRead,
    #[serde(rename = "games:play")]
    GamesPlay,
    #[serde(rename = "webhooks:manage")]
    WebhooksManage,
}

impl Scope {
    pub const ALL: [Scope; 5] = [
        Scope::AccountRead,
        Scope::AccountWrite,
        Scope::GamesRead,
        Scope::GamesPlay,
        Scope::WebhooksManage,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::AccountRead => "account:read",
            Scope::AccountWrite => "account:write",
            Scope::GamesRead => "games:read",
            Scope::GamesPlay => "games:play",
            Scope::WebhooksManage => "webhooks:manage",
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Scope {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Scope::ALL
            .into_iter()
            .find(|scope| scope.as_str() == s)
            .ok_or_else(|| format!("unknown scope `{s}`"))
    }
}

/// A set of scopes, stored as space-separated names.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ScopeSet(BTreeSet<Scope>);

impl ScopeSet {
    pub fn all() -> Self {
        Self(Scope::ALL.into_iter().collect())
    }

    pub fn contains(&self, scope: Scope) -> bool {
        self.0.contains(&scope)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn is_subset(&self, other: &ScopeSet) -> bool {
        self.0.is_subset(&other.0)
    }

    pub fn iter(&self) -> impl Iterator<Item = Scope> + '_ {
        self.0.iter().copied()
    }

    /// The stored form: names in a fixed order, separated by spaces.
    pub fn to_stored(&self) -> String {
        self.iter().map(Scope::as_str).collect::<Vec<_>>().join(" ")
    }

    /// Reads the stored form; unknown names (from a newer version) are ignored
    /// rather than granting anything.
    pub fn from_stored(stored: &str) -> Self {
        Self(
            stored
                .split_whitespace()
                .filter_map(|s| s.parse().ok())
                .collect(),
        )
    }
}

impl FromIterator<Scope> for ScopeSet {
    fn from_iter<I: IntoIterator<Item = Scope>>(iter: I) -> Self {
        Self(iter.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_form_round_trips() {
        let set: ScopeSet = [Scope::GamesPlay, Scope::AccountRead].into_iter().collect();
        assert_eq!(set.to_stored(), "account:read games:play");
        assert_eq!(ScopeSet::from_stored(&set.to_stored()), set);
        assert_eq!(
            ScopeSet::from_stored("account:read bogus"),
            [Scope::AccountRead].into_iter().collect()
        );
    }

    #[test]
    fn names_match_serde() {
        for scope in Scope::ALL {
            let json = serde_json::to_string(&scope).unwrap();
            assert_eq!(json, format!("\"{scope}\""));
            assert_eq!(scope.as_str().parse::<Scope>(), Ok(scope));
        }
    }
}

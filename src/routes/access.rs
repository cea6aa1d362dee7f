//! Who may call each operation, declared once: the bearer extractors check
//! it (`routes::extract`) and the OpenAPI document's `security` entries are
//! written from it (`routes::openapi`), so the two cannot drift. An
//! operation missing from the table answers 500 and fails the document's
//! generation, so a new route cannot slip through unchecked.

use crate::domain::Scope;

/// What an operation asks of its caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Anyone, no credential looked at.
    Public,
    /// Anyone; a credential, if one is given, must be valid and hold the scope.
    Optional(Scope),
    /// A valid credential holding the scope (access tokens hold every scope).
    Required(Scope),
}

/// (method, route pattern as in the OpenAPI document, access).
pub const ACCESS: &[(&str, &str, Access)] = &[
    ("POST", "/api/v1/accounts", Access::Public),
    ("POST", "/api/v1/auth/logout", Access::Public),
    ("POST", "/api/v1/auth/refresh", Access::Public),
    ("POST", "/api/v1/auth/token", Access::Public),
    ("GET", "/api/v1/email/verify", Access::Public),
    ("POST", "/api/v1/email/verify", Access::Public),
    ("GET", "/api/v1/games", Access::Required(Scope::GamesRead)),
    ("POST", "/api/v1/games", Access::Required(Scope::GamesPlay)),
    (
        "POST",
        "/api/v1/games/import",
        Access::Required(Scope::GamesPlay),
    ),
    (
        "GET",
        "/api/v1/games/{id}",
        Access::Optional(Scope::GamesRead),
    ),
    (
        "POST",
        "/api/v1/games/{id}/alliance/proposals",
        Access::Required(Scope::GamesPlay),
    ),
    (
        "POST",
        "/api/v1/games/{id}/alliance/proposals/{pid}/accept",
        Access::Required(Scope::GamesPlay),
    ),
    (
        "POST",
        "/api/v1/games/{id}/alliance/proposals/{pid}/decline",
        Access::Required(Scope::GamesPlay),
    ),
    (
        "POST",
        "/api/v1/games/{id}/alliance/proposals/{pid}/withdraw",
        Access::Required(Scope::GamesPlay),
    ),
    ("GET", "/api/v1/games/{id}/board.svg", Access::Public),
    (
        "GET",
        "/api/v1/games/{id}/stream",
        Access::Optional(Scope::GamesRead),
    ),
    (
        "POST",
        "/api/v1/games/{id}/cancel",
        Access::Required(Scope::GamesPlay),
    ),
    (
        "GET",
        "/api/v1/games/{id}/chat",
        Access::Required(Scope::GamesRead),
    ),
    (
        "POST",
        "/api/v1/games/{id}/chat",
        Access::Required(Scope::GamesPlay),
    ),
    (
        "PUT",
        "/api/v1/games/{id}/chat/mute",
        Access::Required(Scope::GamesPlay),
    ),
    (
        "GET",
        "/api/v1/games/{id}/premoves",
        Access::Required(Scope::GamesRead),
    ),
    (
        "PUT",
        "/api/v1/games/{id}/premoves",
        Access::Required(Scope::GamesPlay),
    ),
    (
        "DELETE",
        "/api/v1/games/{id}/premoves",
        Access::Required(Scope::GamesPlay),
    ),
    (
        "GET",
        "/api/v1/games/{id}/notes",
        Access::Required(Scope::GamesRead),
    ),
    (
        "PUT",
        "/api/v1/games/{id}/notes",
        Access::Required(Scope::GamesPlay),
    ),
    (
        "POST",
        "/api/v1/games/{id}/draw/offer",
        Access::Required(Scope::GamesPlay),
    ),
    (
        "POST",
        "/api/v1/games/{id}/time",
        Access::Required(Scope::GamesPlay),
    ),
    (
        "GET",
        "/api/v1/me/vacation",
        Access::Required(Scope::GamesRead),
    ),
    (
        "POST",
        "/api/v1/me/vacation",
        Access::Required(Scope::GamesPlay),
    ),
    (
        "DELETE",
        "/api/v1/me/vacation",
        Access::Required(Scope::GamesPlay),
    ),
    (
        "POST",
        "/api/v1/games/{id}/draw/accept",
        Access::Required(Scope::GamesPlay),
    ),
    (
        "POST",
        "/api/v1/games/{id}/draw/decline",
        Access::Required(Scope::GamesPlay),
    ),
    (
        "POST",
        "/api/v1/games/{id}/decline",
        Access::Required(Scope::GamesPlay),
    ),
    (
        "POST",
        "/api/v1/games/{id}/join",
        Access::Required(Scope::GamesPlay),
    ),
    (
        "GET",
        "/api/v1/games/{id}/moves",
        Access::Optional(Scope::GamesRead),
    ),
    (
        "POST",
        "/api/v1/games/{id}/moves",
        Access::Required(Scope::GamesPlay),
    ),
    (
        "GET",
        "/api/v1/games/{id}/record",
        Access::Optional(Scope::GamesRead),
    ),
    (
        "POST",
        "/api/v1/games/{id}/resign",
        Access::Required(Scope::GamesPlay),
    ),
    ("GET", "/api/v1/me", Access::Required(Scope::AccountRead)),
    ("PATCH", "/api/v1/me", Access::Required(Scope::AccountWrite)),
    (
        "POST",
        "/api/v1/me/email/verification",
        Access::Required(Scope::AccountWrite),
    ),
    (
        "GET",
        "/api/v1/me/events",
        Access::Required(Scope::GamesRead),
    ),
    (
        "GET",
        "/api/v1/me/events/stream",
        Access::Required(Scope::GamesRead),
    ),
    (
        "GET",
        "/api/v1/me/notifications",
        Access::Required(Scope::AccountRead),
    ),
    (
        "PATCH",
        "/api/v1/me/notifications",
        Access::Required(Scope::AccountWrite),
    ),
    (
        "GET",
        "/api/v1/me/tokens",
        Access::Required(Scope::AccountRead),
    ),
    (
        "POST",
        "/api/v1/me/tokens",
        Access::Required(Scope::AccountWrite),
    ),
    (
        "DELETE",
        "/api/v1/me/tokens",
        Access::Required(Scope::AccountWrite),
    ),
    (
        "DELETE",
        "/api/v1/me/tokens/{id}",
        Access::Required(Scope::AccountWrite),
    ),
    ("GET", "/api/v1/unsubscribe", Access::Public),
    ("POST", "/api/v1/unsubscribe", Access::Public),
    ("GET", "/api/v1/users/{username}", Access::Public),
    ("GET", "/api/v1/users/{username}/ratings", Access::Public),
    ("GET", "/api/v1/leaderboard", Access::Public),
    (
        "GET",
        "/api/v1/webhooks",
        Access::Required(Scope::WebhooksManage),
    ),
    (
        "POST",
        "/api/v1/webhooks",
        Access::Required(Scope::WebhooksManage),
    ),
    (
        "GET",
        "/api/v1/webhooks/{id}",
        Access::Required(Scope::WebhooksManage),
    ),
    (
        "DELETE",
        "/api/v1/webhooks/{id}",
        Access::Required(Scope::WebhooksManage),
    ),
    (
        "PATCH",
        "/api/v1/webhooks/{id}",
        Access::Required(Scope::WebhooksManage),
    ),
    (
        "GET",
        "/api/v1/webhooks/{id}/deliveries",
        Access::Required(Scope::WebhooksManage),
    ),
    (
        "POST",
        "/api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver",
        Access::Required(Scope::WebhooksManage),
    ),
    (
        "POST",
        "/api/v1/webhooks/{id}/ping",
        Access::Required(Scope::WebhooksManage),
    ),
    ("GET", "/healthz", Access::Public),
    ("GET", "/readyz", Access::Public),
];

/// The access rule of the operation `method` `pattern`, if it has one.
pub fn access_of(method: &str, pattern: &str) -> Option<Access> {
    ACCESS
        .iter()
        .find(|(m, p, _)| m.eq_ignore_ascii_case(method) && *p == pattern)
        .map(|(_, _, a)| *a)
}

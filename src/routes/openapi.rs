//! The OpenAPI document. `openapi/openapi.json` is this, committed; a test
//! fails when they differ.

use std::sync::LazyLock;

use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{ContentBuilder, Ref, ResponseBuilder};
use utoipa::{Modify, OpenApi};

use crate::routes;
use crate::routes::access::{access_of, Access};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Sannin",
        description = "Correspondence play of sannin shogi, the three-player hexagonal shogi.\n\n\
            Errors are `application/problem+json` documents (RFC 9457) with a stable `code`.\n\n\
            Authenticate with `Authorization: Bearer <token>`, where the token is either an \
            access token from `POST /api/v1/auth/token` (all scopes) or a personal access token \
            from `POST /api/v1/me/tokens` (its own scopes)."
    ),
    paths(
        routes::health::healthz,
        routes::health::readyz,
        routes::accounts::register,
        routes::auth::token,
        routes::auth::refresh,
        routes::auth::logout,
        routes::me::get_me,
        routes::me::patch_me,
        routes::notifications::get,
        routes::notifications::patch,
        routes::notifications::resend,
        routes::notifications::verify_page,
        routes::notifications::verify,
        routes::notifications::unsubscribe_page,
        routes::notifications::unsubscribe,
        routes::tokens::create,
        routes::tokens::list,
        routes::tokens::delete,
        routes::tokens::delete_all,
        routes::users::profile,
        routes::ratings::history,
        routes::ratings::leaderboard,
        routes::games::lobby::create,
        routes::games::reading::list,
        routes::games::reading::get,
        routes::games::lobby::join,
        routes::games::lobby::decline,
        routes::games::lobby::cancel,
        routes::games::play::play,
        routes::games::play::moves,
        routes::games::play::resign,
        routes::games::play::offer_draw,
        routes::games::time::give,
        routes::vacation::get,
        routes::vacation::start,
        routes::vacation::end,
        routes::games::talk::post,
        routes::games::talk::read,
        routes::games::talk::mute,
        routes::games::talk::read_notes,
        routes::games::premoves::set,
        routes::games::premoves::read,
        routes::games::premoves::clear,
        routes::games::talk::write_notes,
        routes::games::play::accept_draw,
        routes::games::play::decline_draw,
        routes::games::alliances::propose,
        routes::games::alliances::accept,
        routes::games::alliances::decline_alliance,
        routes::games::alliances::withdraw_alliance,
        routes::games::records::record,
        routes::games::records::import,
        routes::games::reading::board,
        routes::games::reading::events,
        routes::streams::my_events,
        routes::streams::game,
        routes::webhooks::create,
        routes::webhooks::list,
        routes::webhooks::get,
        routes::webhooks::update,
        routes::webhooks::delete,
        routes::webhooks::ping,
        routes::webhooks::deliveries,
        routes::webhooks::redeliver,
    ),
    components(schemas(
        crate::error::Problem,
        crate::domain::FieldError,
        crate::domain::Scope,
        crate::domain::GameId,
        crate::domain::ProposalId,
        crate::domain::WebhookId,
        crate::domain::TokenId,
        crate::domain::EventId,
        crate::domain::Username,
        crate::routes::schemas::DeliveryId,
        crate::routes::schemas::GameVersion,
        crate::routes::schemas::GameStatus,
        crate::routes::schemas::Seat,
        crate::routes::schemas::Cursor,
    )),
    modifiers(&SecuritySchemes, &Security, &ServerErrors, &RateLimitHeaders, &Links, &ParametersNotNull),
    tags(
        (name = "health", description = "Liveness and readiness"),
        (name = "accounts", description = "Registration, address verification, one-click unsubscribe"),
        (name = "auth", description = "Log-in sessions: access and refresh tokens"),
        (name = "me", description = "Your own account"),
        (name = "tokens", description = "Personal access tokens for scripts and integrations"),
        (name = "users", description = "Public profiles, ratings and the leaderboard"),
        (name = "games", description = "Correspondence games: challenges, moves, alliances, records, pictures"),
        (name = "webhooks", description = "Signed HTTP notices of your game events (Standard Webhooks)"),
    )
)]
pub struct ApiDoc;

/// The operations of a path, with their methods.
fn operations_of(
    item: &mut utoipa::openapi::PathItem,
) -> impl Iterator<Item = (&'static str, &mut utoipa::openapi::path::Operation)> {
    [
        ("GET", &mut item.get),
        ("PUT", &mut item.put),
        ("POST", &mut item.post),
        ("DELETE", &mut item.delete),
        ("PATCH", &mut item.patch),
    ]
    .into_iter()
    .filter_map(|(method, operation)| operation.as_mut().map(|op| (method, op)))
}

struct SecuritySchemes;

impl Modify for SecuritySchemes {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer_jwt",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .description(Some(
                        "Access token from `POST /api/v1/auth/token`; holds every scope.",
                    ))
                    .build(),
            ),
        );
        components.add_security_scheme(
            "personal_access_token",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("sannin_pat_…")
                    .description(Some(
                        "Personal access token from `POST /api/v1/me/tokens`; limited to its scopes \
                         (account:read, account:write, games:read, games:play, webhooks:manage).",
                    ))
                    .build(),
            ),
        );
    }
}

/// Each operation's `security`, written from the one table the extractors
/// check (`routes::access`).
struct Security;

impl Modify for Security {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::security::SecurityRequirement;
        let mut unruled = Vec::new();
        for (path, item) in openapi.paths.paths.iter_mut() {
            for (method, operation) in operations_of(item) {
                let requirements = |scope: crate::domain::Scope| {
                    vec![
                        SecurityRequirement::new("bearer_jwt", Vec::<String>::new()),
                        SecurityRequirement::new("personal_access_token", [scope.as_str()]),
                    ]
                };
                operation.security = match access_of(method, path) {
                    None => {
                        unruled.push(format!("{method} {path}"));
                        None
                    }
                    Some(Access::Public) => None,
                    Some(Access::Required(scope)) => Some(requirements(scope)),
                    Some(Access::Optional(scope)) => {
                        let mut all = vec![SecurityRequirement::default()];
                        all.extend(requirements(scope));
                        Some(all)
                    }
                };
            }
        }
        assert!(
            unruled.is_empty(),
            "operations without an access rule in routes::access: {unruled:?}"
        );
    }
}

/// The operations under a rate limit, with the policy named in their
/// `RateLimit-Policy` and `RateLimit` header fields (docs/security.md, "Limits").
pub const RATE_LIMITED: &[(&str, &str)] = &[
    ("log_in", "login"),
    ("register_account", "registration"),
    ("refresh_token", "refresh"),
    ("create_game", "games"),
    ("import_game", "games"),
    ("resend_verification", "verification-mail"),
    ("ping_webhook", "ping"),
    ("post_chat", "chat"),
    ("offer_draw", "offers"),
    ("propose_alliance", "offers"),
];

/// Every answer of a rate-limited operation says where the caller stands, in
/// the IETF `RateLimit-Policy` and `RateLimit` header fields
/// (draft-ietf-httpapi-ratelimit-headers): described on each of its responses.
struct RateLimitHeaders;

impl Modify for RateLimitHeaders {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let text = || {
            utoipa::openapi::ObjectBuilder::new().schema_type(utoipa::openapi::schema::Type::String)
        };
        for item in openapi.paths.paths.values_mut() {
            for (_, operation) in operations_of(item) {
                let id = operation.operation_id.clone().unwrap_or_default();
                let Some((_, policy)) = RATE_LIMITED.iter().find(|(op, _)| *op == id) else {
                    continue;
                };
                let policy_field = utoipa::openapi::HeaderBuilder::new()
                    .schema(text())
                    .description(Some(format!(
                        "The limit: `\"{policy}\";q=<quota>;w=<window in seconds>`"
                    )))
                    .build();
                let limit_field = utoipa::openapi::HeaderBuilder::new()
                    .schema(text())
                    .description(Some(format!(
                        "Where you stand: `\"{policy}\";r=<remaining>;t=<seconds until more is available>`"
                    )))
                    .build();
                for response in operation.responses.responses.values_mut() {
                    if let utoipa::openapi::RefOr::T(response) = response {
                        response
                            .headers
                            .insert("RateLimit-Policy".into(), policy_field.clone());
                        response
                            .headers
                            .insert("RateLimit".into(), limit_field.clone());
                    }
                }
            }
        }
    }
}

/// Any operation can fail inside the server or lose its database, and the
/// edge limits every request (requests in flight per client address, the
/// time a body may take to arrive); rather than repeat those answers on
/// every handler, they are added to each operation here.
struct ServerErrors;

impl Modify for ServerErrors {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let builder = |description: &str| {
            ResponseBuilder::new().description(description).content(
                crate::error::PROBLEM_JSON,
                ContentBuilder::new()
                    .schema(Some(Ref::from_schema_name("Problem")))
                    .build(),
            )
        };
        let problem = |description: &str| builder(description).build();
        let retry_after = |description: &str| {
            let seconds = utoipa::openapi::ObjectBuilder::new()
                .schema_type(utoipa::openapi::schema::Type::Integer)
                .minimum(Some(0));
            let header = utoipa::openapi::HeaderBuilder::new()
                .schema(seconds)
                .description(Some("Seconds to wait before retrying"))
                .build();
            builder(description).header("Retry-After", header).build()
        };
        for (path, item) in openapi.paths.paths.iter_mut() {
            // Liveness never touches the database.
            let uses_database = path != "/healthz";
            for (_, operation) in operations_of(item) {
                let has_body = operation.request_body.is_some();
                let responses = &mut operation.responses.responses;
                responses.entry("500".into()).or_insert_with(|| {
                    problem("Internal error (`internal-error`); details are only logged").into()
                });
                if uses_database {
                    responses.entry("503".into()).or_insert_with(|| {
                        retry_after("The database is unavailable (`service-unavailable`): send the same request again after `Retry-After`").into()
                    });
                }
                responses.entry("429".into()).or_insert_with(|| {
                    retry_after(
                        "Too many requests in flight from your address (`too-many-in-flight`)",
                    )
                    .into()
                });
                // A NUL character is refused at the edge (routes::nul).
                let has_query =
                    operation.parameters.iter().flatten().any(|p| {
                        matches!(p.parameter_in, utoipa::openapi::path::ParameterIn::Query)
                    });
                if has_query || has_body {
                    responses.entry("422".into()).or_insert_with(|| {
                        problem(
                            "A NUL character in a query parameter or the body (`nul-character`)",
                        )
                        .into()
                    });
                }
                // Pictures are bytes to keep, not text to parse: say so,
                // or generated clients drop them.
                for response in responses.values_mut() {
                    if let utoipa::openapi::RefOr::T(response) = response {
                        if let Some(svg) = response.content.get_mut("image/svg+xml") {
                            svg.schema = Some(
                                utoipa::openapi::ObjectBuilder::new()
                                    .schema_type(utoipa::openapi::schema::Type::String)
                                    .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
                                        utoipa::openapi::KnownFormat::Binary,
                                    )))
                                    .into(),
                            );
                        }
                    }
                }
                if has_body {
                    responses.entry("422".into()).or_insert_with(|| {
                        problem("Missing or ill-typed fields (`validation-failed`); `errors` names each").into()
                    });
                }
                // The pages opened from mail answer their own errors as
                // pages, and the edge's (a malformed query, a limit) as
                // problems: either may come.
                let page = matches!(responses.get("200"), Some(utoipa::openapi::RefOr::T(ok)) if ok.content.contains_key("text/html"));
                if page {
                    for status in ["400", "500", "503"] {
                        if let Some(utoipa::openapi::RefOr::T(response)) = responses.get_mut(status)
                        {
                            let html = ContentBuilder::new()
                                .schema(Some(
                                    utoipa::openapi::ObjectBuilder::new()
                                        .schema_type(utoipa::openapi::schema::Type::String),
                                ))
                                .build();
                            let problem = ContentBuilder::new()
                                .schema(Some(Ref::from_schema_name("Problem")))
                                .build();
                            response.content.entry("text/html".into()).or_insert(html);
                            response
                                .content
                                .entry(crate::error::PROBLEM_JSON.into())
                                .or_insert(problem);
                        }
                    }
                }
                if has_body {
                    responses.entry("408".into()).or_insert_with(|| {
                        problem("The body did not arrive in time (`request-timeout`); the connection is closed").into()
                    });
                }
            }
        }
    }
}

/// OpenAPI `links` from each answer that creates something to the
/// operations that take its id, so that clients and stateful testers can
/// chain create, use and delete: (creating operation, its status, [(link
/// target, [(parameter, where its value comes from)])]).
type LinkTable = [(
    &'static str,
    &'static str,
    &'static [(&'static str, &'static [(&'static str, &'static str)])],
)];

const NEW_ID: &str = "$response.body#/id";
const PATH_ID: &str = "$request.path.id";

const LINKS: &LinkTable = &[
    (
        "create_game",
        "201",
        &[
            ("get_game", &[("id", NEW_ID)]),
            ("join_game", &[("id", NEW_ID)]),
            ("decline_game", &[("id", NEW_ID)]),
            ("cancel_game", &[("id", NEW_ID)]),
            ("play_move", &[("id", NEW_ID)]),
            ("resign_game", &[("id", NEW_ID)]),
            ("offer_draw", &[("id", NEW_ID)]),
            ("post_chat", &[("id", NEW_ID)]),
            ("read_chat", &[("id", NEW_ID)]),
            ("set_premoves", &[("id", NEW_ID)]),
            ("list_moves", &[("id", NEW_ID)]),
            ("game_board_svg", &[("id", NEW_ID)]),
            ("game_record", &[("id", NEW_ID)]),
            ("propose_alliance", &[("id", NEW_ID)]),
        ],
    ),
    (
        "import_game",
        "201",
        &[
            ("get_game", &[("id", NEW_ID)]),
            ("list_moves", &[("id", NEW_ID)]),
            ("game_board_svg", &[("id", NEW_ID)]),
            ("game_record", &[("id", NEW_ID)]),
        ],
    ),
    (
        "propose_alliance",
        "201",
        &[
            ("accept_alliance", &[("id", PATH_ID), ("pid", NEW_ID)]),
            ("decline_alliance", &[("id", PATH_ID), ("pid", NEW_ID)]),
            ("withdraw_alliance", &[("id", PATH_ID), ("pid", NEW_ID)]),
        ],
    ),
    (
        "create_webhook",
        "201",
        &[
            ("get_webhook", &[("id", NEW_ID)]),
            ("update_webhook", &[("id", NEW_ID)]),
            ("delete_webhook", &[("id", NEW_ID)]),
            ("ping_webhook", &[("id", NEW_ID)]),
            ("list_webhook_deliveries", &[("id", NEW_ID)]),
        ],
    ),
    (
        "ping_webhook",
        "202",
        &[(
            "redeliver_webhook_delivery",
            &[("id", PATH_ID), ("delivery_id", NEW_ID)],
        )],
    ),
    (
        "create_token",
        "201",
        &[("delete_token", &[("id", NEW_ID)])],
    ),
];

struct Links;

impl Modify for Links {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        for item in openapi.paths.paths.values_mut() {
            for (_, operation) in operations_of(item) {
                let Some(id) = operation.operation_id.as_deref() else {
                    continue;
                };
                let Some((_, status, targets)) = LINKS.iter().find(|(op, _, _)| *op == id) else {
                    continue;
                };
                let Some(utoipa::openapi::RefOr::T(response)) =
                    operation.responses.responses.get_mut(*status)
                else {
                    panic!("{id} has no {status} answer to link from");
                };
                for (target, parameters) in targets.iter() {
                    let mut link = utoipa::openapi::link::LinkBuilder::new().operation_id(*target);
                    for (name, value) in parameters.iter() {
                        link = link.parameter(*name, *value);
                    }
                    response
                        .links
                        .insert((*target).to_owned(), link.build().into());
                }
            }
        }
    }
}

/// A query or header parameter is left out by not sending it: on the wire
/// it has no null. Optional parameters are `Option`s in the handlers, which
/// utoipa writes as "null or the value"; keep only the value.
struct ParametersNotNull;

impl Modify for ParametersNotNull {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::schema::{Schema, Type};
        use utoipa::openapi::RefOr;
        for item in openapi.paths.paths.values_mut() {
            for (_, operation) in operations_of(item) {
                for parameter in operation.parameters.iter_mut().flatten() {
                    let Some(RefOr::T(Schema::OneOf(one_of))) = &parameter.schema else {
                        continue;
                    };
                    let is_null = |s: &RefOr<Schema>| matches!(s, RefOr::T(Schema::Object(o)) if o.schema_type == Type::Null.into());
                    let values: Vec<&RefOr<Schema>> =
                        one_of.items.iter().filter(|s| !is_null(s)).collect();
                    if let [value] = values[..] {
                        parameter.schema = Some(value.clone());
                    }
                }
            }
        }
    }
}

static SPEC_JSON: LazyLock<String> = LazyLock::new(|| {
    let json = ApiDoc::openapi()
        .to_pretty_json()
        .expect("the OpenAPI document serialises");
    // utoipa 5 writes a Link object's fields in snake case; OpenAPI spells
    // them `operationId`, `operationRef` and `requestBody`. Only links have
    // such keys (a test checks that none is left).
    let mut json = json
        .replace("\"operation_id\": ", "\"operationId\": ")
        .replace("\"operation_ref\": ", "\"operationRef\": ")
        .replace("\"request_body\": ", "\"requestBody\": ");
    json.push('\n');
    json
});

/// The document as served and committed: pretty JSON with a final newline.
pub fn spec_json() -> &'static str {
    &SPEC_JSON
}

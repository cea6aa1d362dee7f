use reqwest::StatusCode;
use serde_json::{json, Value};

use base64::Engine as _;
use reqwest::Method;
use sannin::clock::Clock;
use sannin::startup::Dependencies;

use crate::helpers::{assert_problem, error_fields, spawn_app, spawn_app_using, Backend};

async fn create_list_use_and_delete(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = app.register_user("olga").await;
    let session = app.tokens_for(&user).await;

    let res = app
        .create_token(
            &session.access,
            &json!({"name": "my bot", "scopes": ["games:play", "account:read"], "expires_in_days": 30}),
        )
        .await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let created: Value = res.json().await.unwrap();
    let secret = created["token"].as_str().unwrap().to_owned();
    let id = created["id"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("sannin_pat_"));
    assert_eq!(created["name"], "my bot");
    assert_eq!(created["scopes"], json!(["account:read", "games:play"]));
    assert!(created["created_at"].is_string());
    assert!(created["expires_at"].is_string());

    // Usable like an access token.
    let me: Value = app.get_me(&secret).await.json().await.unwrap();
    assert_eq!(me["username"], "olga");

    // Listed without its secret, and marked as used.
    let res = app.list_tokens(&session.access).await;
    assert_eq!(res.status(), StatusCode::OK);
    let list: Value = res.json().await.unwrap();
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0]["id"], id.as_str());
    assert!(list[0].get("token").is_none());
    assert!(list[0]["last_used_at"].is_string());

    assert_eq!(
        app.delete_token(&session.access, &id).await.status(),
        StatusCode::NO_CONTENT
    );
    assert_problem(
        app.get_me(&secret).await,
        StatusCode::UNAUTHORIZED,
        "unauthenticated",
    )
    .await;
    assert_problem(
        app.delete_token(&session.access, &id).await,
        StatusCode::NOT_FOUND,
        "not-found",
    )
    .await;

    // A token without expiry.
    let res = app
        .create_token(
            &session.access,
            &json!({"name": "forever", "scopes": ["games:read"]}),
        )
        .await;
    let created: Value = res.json().await.unwrap();
    assert!(created["expires_at"].is_null());
}

async fn scopes_limit_personal_tokens(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = app.register_user("pete").await;
    let session = app.tokens_for(&user).await;

    let (games_only, _) = app.personal_token(&session.access, &["games:read"]).await;
    let res = app.get_me(&games_only).await;
    assert!(res.headers()["www-authenticate"]
        .to_str()
        .unwrap()
        .contains("insufficient_scope"));
    let problem = assert_problem(res, StatusCode::FORBIDDEN, "insufficient-scope").await;
    assert!(problem["detail"].as_str().unwrap().contains("account:read"));

    let (reader, _) = app.personal_token(&session.access, &["account:read"]).await;
    assert_eq!(app.get_me(&reader).await.status(), StatusCode::OK);
    assert_eq!(app.list_tokens(&reader).await.status(), StatusCode::OK);
    assert_problem(
        app.patch_me(&reader, &json!({"email": "pete@elsewhere.example.com"}))
            .await,
        StatusCode::FORBIDDEN,
        "insufficient-scope",
    )
    .await;
    assert_problem(
        app.create_token(&reader, &json!({"name": "x", "scopes": ["account:read"]}))
            .await,
        StatusCode::FORBIDDEN,
        "insufficient-scope",
    )
    .await;

    // A token may mint tokens, but only with scopes it holds itself.
    let (writer, _) = app
        .personal_token(&session.access, &["account:read", "account:write"])
        .await;
    assert_eq!(
        app.create_token(
            &writer,
            &json!({"name": "ok", "scopes": ["account:read"], "current_password": user.password})
        )
        .await
        .status(),
        StatusCode::CREATED
    );
    assert_problem(
        app.create_token(
            &writer,
            &json!({"name": "escalate", "scopes": ["games:play"], "current_password": user.password}),
        )
        .await,
        StatusCode::FORBIDDEN,
        "forbidden",
    )
    .await;

    // Every named scope is accepted from a session.
    let (all, _) = app
        .personal_token(
            &session.access,
            &[
                "account:read",
                "account:write",
                "games:read",
                "games:play",
                "webhooks:manage",
            ],
        )
        .await;
    assert_eq!(app.get_me(&all).await.status(), StatusCode::OK);
}

async fn token_requests_are_validated(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = app.register_user("quinn").await;
    let session = app.tokens_for(&user).await;

    let cases = [
        (json!({"name": " ", "scopes": ["games:read"]}), "name"),
        (json!({"name": "x", "scopes": []}), "scopes"),
        (json!({"name": "x", "scopes": ["games:cheat"]}), "scopes[0]"),
        (
            json!({"name": "x", "scopes": ["games:read"], "expires_in_days": 0}),
            "expires_in_days",
        ),
        (
            json!({"name": "x", "scopes": ["games:read"], "expires_in_days": 4000}),
            "expires_in_days",
        ),
        (json!({"scopes": ["games:read"]}), "name"),
    ];
    for (body, field) in cases {
        let res = app.create_token(&session.access, &body).await;
        let problem =
            assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
        assert_eq!(error_fields(&problem), [field], "{body}");
    }
}

async fn tokens_belong_to_their_owner(backend: Backend) {
    let app = spawn_app(backend).await;
    let rosa = app.register_user("rosa").await;
    let sam = app.register_user("sam").await;
    let rosa_session = app.tokens_for(&rosa).await;
    let sam_session = app.tokens_for(&sam).await;
    let (_, rosa_token_id) = app
        .personal_token(&rosa_session.access, &["games:read"])
        .await;

    assert_problem(
        app.delete_token(&sam_session.access, &rosa_token_id).await,
        StatusCode::NOT_FOUND,
        "not-found",
    )
    .await;
    let list: Value = app
        .list_tokens(&sam_session.access)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(list, json!([]));
    let list: Value = app
        .list_tokens(&rosa_session.access)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(list.as_array().unwrap().len(), 1);
}

/// Issue 10: a personal token cannot outlive or outrank the token that mints
/// it, and minting from it needs the password.
async fn a_personal_token_mints_only_within_itself(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = app.register_user("tara").await;
    let session = app.tokens_for(&user).await;
    let res = app
        .create_token(
            &session.access,
            &json!({"name": "month", "scopes": ["account:read", "account:write"], "expires_in_days": 30}),
        )
        .await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let month: Value = res.json().await.unwrap();
    let month = month["token"].as_str().unwrap();

    let problem = assert_problem(
        app.create_token(
            month,
            &json!({"name": "x", "scopes": ["account:read"], "expires_in_days": 1}),
        )
        .await,
        StatusCode::FORBIDDEN,
        "password-required",
    )
    .await;
    assert!(problem["detail"]
        .as_str()
        .unwrap()
        .contains("current_password"));
    let problem = assert_problem(
        app.create_token(
            month,
            &json!({"name": "x", "scopes": ["account:read"], "expires_in_days": 1, "current_password": "wrong-password"}),
        )
        .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "validation-failed",
    )
    .await;
    assert_eq!(error_fields(&problem), ["current_password"]);
    for expiry in [json!(31), json!(null)] {
        let problem = assert_problem(
            app.create_token(
                month,
                &json!({"name": "x", "scopes": ["account:read"], "expires_in_days": expiry, "current_password": user.password}),
            )
            .await,
            StatusCode::UNPROCESSABLE_ENTITY,
            "validation-failed",
        )
        .await;
        assert_eq!(problem["errors"][0]["code"], "outlives-token", "{problem}");
    }
    assert_eq!(
        app.create_token(
            month,
            &json!({"name": "x", "scopes": ["account:read"], "expires_in_days": 29, "current_password": user.password}),
        )
        .await
        .status(),
        StatusCode::CREATED
    );
}

/// Issue 10: a session mints tokens without the password only for ten
/// minutes after log-in; a stolen access token of an older session cannot.
async fn an_old_session_needs_the_password_to_mint(backend: Backend) {
    let clock = Clock::adjustable();
    let app = spawn_app_using(
        backend,
        |_| {},
        Dependencies {
            clock: Some(clock.clone()),
            ..Default::default()
        },
    )
    .await;
    let user = app.register_user("ursula").await;
    let session = app.tokens_for(&user).await;
    clock.advance(chrono::Duration::minutes(11));
    // The access token itself lives 15 minutes.
    assert_eq!(app.get_me(&session.access).await.status(), StatusCode::OK);
    assert_problem(
        app.create_token(
            &session.access,
            &json!({"name": "x", "scopes": ["games:read"]}),
        )
        .await,
        StatusCode::FORBIDDEN,
        "password-required",
    )
    .await;
    // Refreshing keeps the session, and its age.
    let res = app.refresh(&session.refresh).await;
    let refreshed: Value = res.json().await.unwrap();
    let access = refreshed["access_token"].as_str().unwrap();
    assert_problem(
        app.create_token(access, &json!({"name": "x", "scopes": ["games:read"]}))
            .await,
        StatusCode::FORBIDDEN,
        "password-required",
    )
    .await;
    assert_eq!(
        app.create_token(
            access,
            &json!({"name": "x", "scopes": ["games:read"], "current_password": user.password})
        )
        .await
        .status(),
        StatusCode::CREATED
    );
    let fresh = app.tokens_for(&user).await;
    assert_eq!(
        app.create_token(
            &fresh.access,
            &json!({"name": "y", "scopes": ["games:read"]})
        )
        .await
        .status(),
        StatusCode::CREATED
    );
}

/// Issue 10: changing the password revokes personal tokens unless asked not
/// to; `DELETE /api/v1/me/tokens` revokes them all.
async fn password_changes_and_revoke_all_end_personal_tokens(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = app.register_user("vera").await;
    let session = app.tokens_for(&user).await;
    let (first, _) = app.personal_token(&session.access, &["account:read"]).await;
    let res = app
        .patch_me(
            &session.access,
            &json!({"current_password": user.password, "new_password": "a brand new passphrase"}),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_problem(
        app.get_me(&first).await,
        StatusCode::UNAUTHORIZED,
        "unauthenticated",
    )
    .await;

    let (second, _) = app.personal_token(&session.access, &["account:read"]).await;
    let res = app
        .patch_me(
            &session.access,
            &json!({"current_password": "a brand new passphrase", "new_password": "another new passphrase", "revoke_tokens": false}),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(app.get_me(&second).await.status(), StatusCode::OK);

    let (third, _) = app.personal_token(&session.access, &["account:read"]).await;
    let res = app
        .authed(Method::DELETE, "/api/v1/me/tokens", &session.access, None)
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["revoked"], 2);
    for token in [&second, &third] {
        assert_problem(
            app.get_me(token).await,
            StatusCode::UNAUTHORIZED,
            "unauthenticated",
        )
        .await;
    }
    let list: Value = app.list_tokens(&session.access).await.json().await.unwrap();
    assert_eq!(list, json!([]));
}

/// Issue 10: a validly signed access token whose times the service would
/// never issue (years ahead, or issued in the future) is refused.
async fn access_tokens_must_have_the_configured_lifetime(backend: Backend) {
    let secret = "an-access-token-key-of-at-least-32-bytes";
    let app = spawn_app_using(
        backend,
        |s| s.auth.jwt_secret = Some(sannin::config::Secret::from(secret.to_owned())),
        Dependencies::default(),
    )
    .await;
    let user = app.register_user("wanda").await;
    let session = app.tokens_for(&user).await;
    let payload = session.access.split('.').nth(1).unwrap();
    let claims: Value = serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(payload)
            .unwrap(),
    )
    .unwrap();
    let now = chrono::Utc::now().timestamp();
    let forge = |iat: i64, exp: i64| {
        let mut c = claims.clone();
        c["iat"] = json!(iat);
        c["exp"] = json!(exp);
        jsonwebtoken::encode(
            &jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256),
            &c,
            &jsonwebtoken::EncodingKey::from_secret(secret.as_bytes()),
        )
        .unwrap()
    };
    assert_eq!(
        app.get_me(&forge(now, now + 600)).await.status(),
        StatusCode::OK
    );
    for token in [
        forge(now, now + 86_400 * 3650),
        forge(now + 3_600, now + 3_900),
    ] {
        assert_problem(
            app.get_me(&token).await,
            StatusCode::UNAUTHORIZED,
            "unauthenticated",
        )
        .await;
    }
}

/// Issue 10: a token minted with a personal token ends with it, however
/// deep the line, so revoking a stolen token also ends the thief's copies.
async fn revoking_a_token_revokes_what_it_minted(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = app.register_user("lineage").await;
    let session = app.tokens_for(&user).await;
    let scopes = json!(["account:read", "account:write"]);
    let mint = |bearer: String| {
        let body = json!({"name": "copy", "scopes": scopes, "current_password": user.password});
        let app = &app;
        async move {
            let res = app.create_token(&bearer, &body).await;
            assert_eq!(res.status(), StatusCode::CREATED);
            let v: Value = res.json().await.unwrap();
            (
                v["token"].as_str().unwrap().to_owned(),
                v["id"].as_str().unwrap().to_owned(),
            )
        }
    };
    let (stolen, stolen_id) = mint(session.access.clone()).await;
    let (child, _) = mint(stolen.clone()).await;
    let (grandchild, _) = mint(child.clone()).await;
    let (unrelated, _) = mint(session.access.clone()).await;
    assert_eq!(app.get_me(&grandchild).await.status(), StatusCode::OK);

    assert_eq!(
        app.delete_token(&session.access, &stolen_id).await.status(),
        StatusCode::NO_CONTENT
    );
    for gone in [&stolen, &child, &grandchild] {
        assert_problem(
            app.get_me(gone).await,
            StatusCode::UNAUTHORIZED,
            "unauthenticated",
        )
        .await;
    }
    assert_eq!(app.get_me(&unrelated).await.status(), StatusCode::OK);
    let list: Value = app.list_tokens(&session.access).await.json().await.unwrap();
    assert_eq!(list.as_array().map(Vec::len), Some(1), "{list}");
}

crate::on_both_backends!(
    revoking_a_token_revokes_what_it_minted,
    a_personal_token_mints_only_within_itself,
    an_old_session_needs_the_password_to_mint,
    password_changes_and_revoke_all_end_personal_tokens,
    access_tokens_must_have_the_configured_lifetime,
    create_list_use_and_delete,
    scopes_limit_personal_tokens,
    token_requests_are_validated,
    tokens_belong_to_their_owner,
);

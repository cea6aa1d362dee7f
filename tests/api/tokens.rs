use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, error_fields, spawn_app, Backend};

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
        app.create_token(&writer, &json!({"name": "ok", "scopes": ["account:read"]}))
            .await
            .status(),
        StatusCode::CREATED
    );
    assert_problem(
        app.create_token(
            &writer,
            &json!({"name": "escalate", "scopes": ["games:play"]}),
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

crate::on_both_backends!(
    create_list_use_and_delete,
    scopes_limit_personal_tokens,
    token_requests_are_validated,
    tokens_belong_to_their_owner,
);

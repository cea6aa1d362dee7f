use reqwest::{Method, StatusCode};

use crate::helpers::{assert_problem, error_fields, spawn_app, spawn_app_with, Backend};

async fn malformed_json_is_400(backend: Backend) {
    let app = spawn_app(backend).await;
    let res = app
        .client
        .post(app.url("/api/v1/accounts"))
        .header("content-type", "application/json")
        .body("{\"username\": \"x\",")
        .send()
        .await
        .unwrap();
    assert_problem(res, StatusCode::BAD_REQUEST, "malformed-json").await;
}

async fn wrong_shape_is_422_naming_the_field(backend: Backend) {
    let app = spawn_app(backend).await;
    let res = app
        .client
        .post(app.url("/api/v1/accounts"))
        .header("content-type", "application/json")
        .body(r#"{"username": 42, "email": "a@example.com", "password": "k7#Qw9z!tr"}"#)
        .send()
        .await
        .unwrap();
    let problem = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    assert_eq!(error_fields(&problem), ["username"]);
    assert_eq!(problem["errors"][0]["code"], "type");

    let res = app
        .client
        .post(app.url("/api/v1/auth/token"))
        .header("content-type", "application/json")
        .body(r#"{"username": "a", "password": "b", "extra": true}"#)
        .send()
        .await
        .unwrap();
    let problem = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    assert_eq!(problem["errors"][0]["code"], "unknown");
}

async fn wrong_content_type_is_415(backend: Backend) {
    let app = spawn_app(backend).await;
    for content_type in [
        None,
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
    ] {
        let mut req = app
            .client
            .post(app.url("/api/v1/auth/token"))
            .body(r#"{"username": "a", "password": "b"}"#);
        if let Some(ct) = content_type {
            req = req.header("content-type", ct);
        }
        let res = req.send().await.unwrap();
        assert_problem(
            res,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported-media-type",
        )
        .await;
    }
    // `application/json; charset=utf-8` and `+json` types are JSON.
    let res = app
        .client
        .post(app.url("/api/v1/auth/token"))
        .header("content-type", "application/json; charset=utf-8")
        .body(r#"{"username": "nobody", "password": "whatever1"}"#)
        .send()
        .await
        .unwrap();
    assert_problem(res, StatusCode::UNAUTHORIZED, "invalid-credentials").await;
}

async fn oversized_bodies_are_413(backend: Backend) {
    let app = spawn_app_with(backend, |s| s.http.max_body_bytes = 2048).await;
    let big = format!(r#"{{"username": "x", "password": "{}"}}"#, "p".repeat(4096));
    let res = app
        .client
        .post(app.url("/api/v1/auth/token"))
        .header("content-type", "application/json")
        .body(big)
        .send()
        .await
        .unwrap();
    assert_problem(res, StatusCode::PAYLOAD_TOO_LARGE, "payload-too-large").await;
}

async fn unknown_routes_are_404(backend: Backend) {
    let app = spawn_app(backend).await;
    // (`/` and the web client's pages answer its page.)
    for path in ["/nothing-here", "/api/v1/nothing", "/api/v1/me/tokens/a/b"] {
        assert_problem(
            app.request(Method::GET, path).await,
            StatusCode::NOT_FOUND,
            "route-not-found",
        )
        .await;
    }
}

async fn wrong_methods_are_405(backend: Backend) {
    let app = spawn_app(backend).await;
    let res = app.request(Method::PUT, "/api/v1/me").await;
    let allow = res.headers()["allow"].to_str().unwrap().to_owned();
    assert!(allow.contains("GET") && allow.contains("PATCH"), "{allow}");
    assert_problem(res, StatusCode::METHOD_NOT_ALLOWED, "method-not-allowed").await;
    for (method, path) in [
        (Method::GET, "/api/v1/accounts"),
        (Method::DELETE, "/healthz"),
        (Method::GET, "/api/v1/auth/token"),
    ] {
        assert_problem(
            app.request(method, path).await,
            StatusCode::METHOD_NOT_ALLOWED,
            "method-not-allowed",
        )
        .await;
    }
}

/// A NUL character anywhere in a path, a query parameter or a JSON body: the
/// same clear answer on both databases, never a 500 (PostgreSQL cannot hold a
/// NUL in text). Every path and query parameter of the document is tried.
async fn a_nul_character_is_refused_the_same_on_both_databases(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = app.register_user("nulcaller").await;
    let token = app.tokens_for(&user).await.access;
    let doc: serde_json::Value = app.openapi_json().await.json().await.unwrap();
    let mut tried = 0;
    for (path, ops) in doc["paths"].as_object().unwrap() {
        for (method, op) in ops.as_object().unwrap() {
            let method = Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
            let params: Vec<&serde_json::Value> = op["parameters"]
                .as_array()
                .map(|a| a.iter().filter(|p| p["in"] != "header").collect())
                .unwrap_or_default();
            let filled = |nul: Option<&str>| {
                let mut url = path.clone();
                let mut query = Vec::new();
                for p in &params {
                    let name = p["name"].as_str().unwrap();
                    let value = if nul == Some(name) { "ab%00c" } else { "x1" };
                    if p["in"] == "path" {
                        url = url.replace(&format!("{{{name}}}"), value);
                    } else if nul == Some(name) {
                        query.push(format!("{name}={value}"));
                    }
                }
                if query.is_empty() {
                    url
                } else {
                    format!("{url}?{}", query.join("&"))
                }
            };
            for p in &params {
                let name = p["name"].as_str().unwrap();
                let url = filled(Some(name));
                let res = app
                    .client
                    .request(method.clone(), app.url(&url))
                    .bearer_auth(&token)
                    .json(&serde_json::json!({}))
                    .send()
                    .await
                    .unwrap();
                if p["in"] == "path" {
                    assert_problem(res, StatusCode::NOT_FOUND, "not-found").await;
                } else {
                    let problem =
                        assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed")
                            .await;
                    assert_eq!(error_fields(&problem), [name], "{method} {url}");
                    assert_eq!(problem["errors"][0]["code"], "nul-character");
                }
                tried += 1;
            }
        }
    }
    assert!(tried >= 50, "only {tried} parameters in the document");

    // The same in a JSON body: logging in, and deep in an array.
    let res = app
        .client
        .post(app.url("/api/v1/auth/token"))
        .json(&serde_json::json!({"username": "nulcaller\u{0}", "password": "whatever-it-is"}))
        .send()
        .await
        .unwrap();
    let problem = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    assert_eq!(error_fields(&problem), ["username"]);
    let res = app
        .authed(
            Method::POST,
            "/api/v1/games",
            &token,
            Some(&serde_json::json!({"invite": ["someone", "bo\u{0}b"]})),
        )
        .await;
    let problem = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    assert_eq!(error_fields(&problem), ["invite[1]"]);
    // A backslash before u0000 is text, not a NUL.
    let res = app
        .client
        .post(app.url("/api/v1/auth/token"))
        .header("content-type", "application/json")
        .body(r#"{"username": "nulcaller\\u0000", "password": "whatever-it-is"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
}

crate::on_both_backends!(
    a_nul_character_is_refused_the_same_on_both_databases,
    malformed_json_is_400,
    wrong_shape_is_422_naming_the_field,
    wrong_content_type_is_415,
    oversized_bodies_are_413,
    unknown_routes_are_404,
    wrong_methods_are_405,
);

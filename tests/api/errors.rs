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
    for path in ["/", "/api/v1/nothing", "/api/v1/me/tokens/a/b"] {
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

crate::on_both_backends!(
    malformed_json_is_400,
    wrong_shape_is_422_naming_the_field,
    wrong_content_type_is_415,
    oversized_bodies_are_413,
    unknown_routes_are_404,
    wrong_methods_are_405,
);

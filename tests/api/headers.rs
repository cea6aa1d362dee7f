//! Issue 10: security headers on every kind of answer.

use reqwest::{Method, Response, StatusCode};
use serde_json::json;

use crate::helpers::{spawn_app, Backend};

fn csp(res: &Response) -> String {
    res.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned()
}

fn assert_common(res: &Response, what: &str) {
    let h = res.headers();
    assert_eq!(h["x-content-type-options"], "nosniff", "{what}");
    assert_eq!(h["x-frame-options"], "DENY", "{what}");
    assert_eq!(h["referrer-policy"], "no-referrer", "{what}");
    assert!(csp(res).contains("frame-ancestors 'none'"), "{what}");
}

async fn every_answer_carries_security_headers(backend: Backend) {
    let app = spawn_app(backend).await;

    let res = app.healthz().await;
    assert_common(&res, "JSON");
    assert!(csp(&res).starts_with("default-src 'none'"));

    let res = app.request(Method::GET, "/api/v1/nowhere").await;
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    assert_common(&res, "problem");

    // A page opened from mail: inline style only, its form posts back.
    let res = app
        .request(Method::GET, "/api/v1/email/verify?token=not-a-token")
        .await;
    assert!(res.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    assert_common(&res, "page");
    let policy = csp(&res);
    assert!(policy.contains("default-src 'none'"), "{policy}");
    assert!(policy.contains("form-action 'self'"), "{policy}");
    assert!(!policy.contains("script-src"), "{policy}");

    let t = app.trio("hdr").await;
    let id = app.started_game(&t, json!({})).await;
    let res = app
        .request(Method::GET, &format!("/api/v1/games/{id}/board.svg"))
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_common(&res, "SVG");
    assert!(!csp(&res).contains("script-src"));

    let res = app.request(Method::GET, "/docs/").await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_common(&res, "docs");
    assert!(csp(&res).contains("script-src 'self'"));
}

crate::on_both_backends!(every_answer_carries_security_headers);

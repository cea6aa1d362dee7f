//! The web client, served by the server itself: its pages and files, with a
//! policy that lets it load nothing from elsewhere and run no inline script.
//! (What it does in a browser is tested by `tests/browser/run.py`.)

use reqwest::{header, Method, StatusCode};

use crate::helpers::{assert_problem, spawn_app, Backend};

async fn the_client_is_served_from_the_binary(backend: Backend) {
    let app = spawn_app(backend).await;
    let mut index = None;
    for page in [
        "/",
        "/login",
        "/games/some-game",
        "/users/alice",
        "/verify?token=x",
    ] {
        let res = app.request(Method::GET, page).await;
        assert_eq!(res.status(), StatusCode::OK, "{page}");
        let h = res.headers();
        assert!(h[header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with("text/html"));
        let csp = h[header::CONTENT_SECURITY_POLICY].to_str().unwrap();
        assert!(csp.contains("script-src 'self';"), "{csp}");
        assert!(!csp.contains("unsafe-inline"), "{csp}");
        assert!(csp.contains("connect-src 'self'"), "{csp}");
        let body = res.text().await.unwrap();
        assert!(
            body.contains("<script type=\"module\" src=\"/web/app.js\">"),
            "{page}"
        );
        assert_eq!(index.get_or_insert_with(|| body.clone()), &body, "{page}");
    }

    let res = app.request(Method::GET, "/web/app.js").await;
    assert_eq!(res.status(), StatusCode::OK);
    let content_type = res.headers()[header::CONTENT_TYPE]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(content_type.contains("javascript"), "{content_type}");
    let etag = res.headers()[header::ETAG].to_str().unwrap().to_owned();
    assert_eq!(res.headers()[header::CACHE_CONTROL], "no-cache");
    let res = app
        .client
        .get(app.url("/web/app.js"))
        .header(header::IF_NONE_MATCH, &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(res.headers()[header::ETAG].to_str().unwrap(), etag);

    let res = app.request(Method::GET, "/web/no-such-file.js").await;
    assert_problem(res, StatusCode::NOT_FOUND, "route-not-found").await;
    // The API keeps its own answers.
    let res = app.request(Method::GET, "/api/v1/no-such-thing").await;
    assert_problem(res, StatusCode::NOT_FOUND, "route-not-found").await;
}

crate::on_both_backends!(the_client_is_served_from_the_binary);

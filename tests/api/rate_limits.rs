use std::num::NonZeroU32;

use reqwest::{Response, StatusCode};

use crate::helpers::{assert_problem, spawn_app_with, Backend};

async fn assert_limited(res: Response) {
    let retry_after: u64 = res.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .expect("Retry-After is a number of seconds");
    assert!(retry_after >= 1);
    assert_problem(res, StatusCode::TOO_MANY_REQUESTS, "rate-limited").await;
}

async fn login_registration_and_refresh_are_limited(backend: Backend) {
    let app = spawn_app_with(backend, |s| {
        s.auth.rate_limit_per_minute = NonZeroU32::new(3).unwrap();
    })
    .await;

    // Registration: three pass, the fourth is refused.
    let user = app.register_user("tara").await;
    app.register_user("ugo").await;
    app.register_user("vera").await;
    assert_limited(app.register(&serde_json::json!({"username": "walt", "email": "walt@example.com", "password": "k7#Qw9z!tr"})).await).await;

    // Log-in has its own allowance; failed attempts count too.
    let tokens = app.tokens_for(&user).await;
    assert_eq!(
        app.login("tara", "wrong password").await.status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        app.login("tara", "wrong password").await.status(),
        StatusCode::UNAUTHORIZED
    );
    assert_limited(app.login(&user.username, &user.password).await).await;

    // Refresh too.
    let res = app.refresh(&tokens.refresh).await;
    assert_eq!(res.status(), StatusCode::OK);
    let body: serde_json::Value = res.json().await.unwrap();
    let next = body["refresh_token"].as_str().unwrap().to_owned();
    assert_eq!(
        app.refresh("sannin_rt_bogus").await.status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        app.refresh("sannin_rt_bogus").await.status(),
        StatusCode::UNAUTHORIZED
    );
    assert_limited(app.refresh(&next).await).await;

    // Authenticated endpoints are not limited by these.
    assert_eq!(app.get_me(&tokens.access).await.status(), StatusCode::OK);
}

/// A log-in attempt from `forwarded_for`, as a proxy would pass it on.
async fn login_via(app: &crate::helpers::TestApp, forwarded_for: &str) -> Response {
    app.client
        .post(app.url("/api/v1/auth/token"))
        .header("x-forwarded-for", forwarded_for)
        .json(&serde_json::json!({"username": "nobody", "password": "wrong password"}))
        .send()
        .await
        .unwrap()
}

async fn behind_a_trusted_proxy_each_client_has_its_own_allowance(backend: Backend) {
    let app = spawn_app_with(backend, |s| {
        s.auth.rate_limit_per_minute = NonZeroU32::new(2).unwrap();
        s.http.trusted_proxies = vec!["127.0.0.0/8".parse().unwrap()];
    })
    .await;
    for _ in 0..2 {
        let res = login_via(&app, "203.0.113.1").await;
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    }
    assert_limited(login_via(&app, "203.0.113.1").await).await;
    // Another client behind the same proxy is not held up, nor is one whose
    // made-up entries precede the address the proxy saw.
    assert_eq!(
        login_via(&app, "203.0.113.2").await.status(),
        StatusCode::UNAUTHORIZED
    );
    assert_limited(login_via(&app, "198.51.100.9, 203.0.113.1").await).await;
}

async fn without_trusted_proxies_forwarded_for_is_ignored(backend: Backend) {
    let app = spawn_app_with(backend, |s| {
        s.auth.rate_limit_per_minute = NonZeroU32::new(2).unwrap();
    })
    .await;
    // Changing the header does not buy a client new attempts.
    assert_eq!(
        login_via(&app, "203.0.113.1").await.status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        login_via(&app, "203.0.113.2").await.status(),
        StatusCode::UNAUTHORIZED
    );
    assert_limited(login_via(&app, "203.0.113.3").await).await;
}

/// The `(RateLimit-Policy, RateLimit)` header fields of an answer.
fn fields(res: &Response) -> (String, String) {
    let get = |name: &str| {
        res.headers()
            .get(name)
            .unwrap_or_else(|| panic!("no {name} on {}", res.status()))
            .to_str()
            .unwrap()
            .to_owned()
    };
    (get("ratelimit-policy"), get("ratelimit"))
}

/// Every answer of a rate-limited operation, refused or not, says where the
/// caller stands (IETF `RateLimit-Policy` and `RateLimit`), and a 429 keeps
/// `Retry-After`; the document describes the fields on those operations.
async fn rate_limited_answers_say_where_the_caller_stands(backend: Backend) {
    let app = spawn_app_with(backend, |s| {
        s.auth.rate_limit_per_minute = NonZeroU32::new(5).unwrap();
        s.limits.chat_messages.max = 2;
    })
    .await;
    let user = app.register_user("rlh_alice").await;
    let res = app.login("rlh_alice", "not the password").await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        fields(&res),
        ("\"login\";q=5;w=60".into(), "\"login\";r=4;t=12".into())
    );
    let token = app.tokens_for(&user).await.access;

    let game = app
        .authed(
            reqwest::Method::POST,
            "/api/v1/games",
            &token,
            Some(&serde_json::json!({"bots": [1, 2]})),
        )
        .await;
    assert_eq!(game.status(), StatusCode::CREATED);
    let (policy, limit) = fields(&game);
    assert_eq!(policy, "\"games\";q=30;w=3600");
    assert!(limit.starts_with("\"games\";r=29;t="), "{limit}");
    let id = game.json::<serde_json::Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (path, body) = (
        format!("/api/v1/games/{id}/chat"),
        serde_json::json!({"text": "hi"}),
    );
    let say = || app.authed(reqwest::Method::POST, &path, &token, Some(&body));
    let first = say().await;
    let (_, limit) = fields(&first);
    let t: u64 = limit
        .strip_prefix("\"chat\";r=1;t=")
        .unwrap()
        .parse()
        .unwrap();
    assert!((55..=60).contains(&t), "{limit}");
    say().await;
    let refused = say().await;
    assert_eq!(
        fields(&refused).1.split(";t=").next().unwrap(),
        "\"chat\";r=0"
    );
    assert_limited(refused).await;

    let doc: serde_json::Value = app.openapi_json().await.json().await.unwrap();
    let ok = &doc["paths"]["/api/v1/games/{id}/chat"]["post"]["responses"]["201"]["headers"];
    assert!(
        ok["RateLimit"].is_object() && ok["RateLimit-Policy"].is_object(),
        "{ok}"
    );
}

crate::on_both_backends!(
    login_registration_and_refresh_are_limited,
    rate_limited_answers_say_where_the_caller_stands,
    behind_a_trusted_proxy_each_client_has_its_own_allowance,
    without_trusted_proxies_forwarded_for_is_ignored,
);

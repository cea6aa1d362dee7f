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

crate::on_both_backends!(
    login_registration_and_refresh_are_limited,
    behind_a_trusted_proxy_each_client_has_its_own_allowance,
    without_trusted_proxies_forwarded_for_is_ignored,
);

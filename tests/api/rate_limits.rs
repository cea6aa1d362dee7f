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
        s.auth_rate_limit_per_minute = NonZeroU32::new(3).unwrap();
    })
    .await;

    // Registration: three pass, the fourth is refused.
    let user = app.register_user("tara").await;
    app.register_user("ugo").await;
    app.register_user("vera").await;
    assert_limited(app.register(&serde_json::json!({"username": "walt", "email": "walt@example.com", "password": "12345678"})).await).await;

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

crate::on_both_backends!(login_registration_and_refresh_are_limited);

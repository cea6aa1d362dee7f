//! Password guessing is limited per account (issue 10, item 4): a run of
//! wrong passwords blocks the account for a while, from every network it
//! has not logged in from, and the block ends by itself.

use std::num::NonZeroU32;

use reqwest::{Response, StatusCode};
use sannin::accounts::{BLOCK_MINUTES, FREE_FAILURES};
use serde_json::json;

use crate::helpers::{assert_problem, spawn_app_with, Backend, TestApp};

/// A log-in from `client`, as a trusted proxy would pass it on.
async fn login_from(app: &TestApp, client: &str, login: &str, password: &str) -> Response {
    app.client
        .post(app.url("/api/v1/auth/token"))
        .header("x-forwarded-for", client)
        .json(&json!({"username": login, "password": password}))
        .send()
        .await
        .unwrap()
}

async fn assert_blocked(res: Response) {
    let wait: u64 = res.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(wait >= 1 && wait <= 60 * BLOCK_MINUTES as u64, "{wait}");
    assert_problem(res, StatusCode::TOO_MANY_REQUESTS, "rate-limited").await;
}

async fn limited_app(backend: Backend) -> TestApp {
    spawn_app_with(backend, |s| {
        // Only the per-account limit is under test.
        s.auth.rate_limit_per_minute = NonZeroU32::new(10_000).unwrap();
        s.http.trusted_proxies = vec!["127.0.0.0/8".parse().unwrap()];
    })
    .await
}

async fn wrong_passwords_block_an_account_but_not_from_its_own_networks(backend: Backend) {
    let app = limited_app(backend).await;
    let user = app.register_user("rhea").await;
    app.execute_sql("UPDATE users SET email_verified = TRUE WHERE username = 'rhea'")
        .await;
    let (home, attacker, cafe) = ("203.0.113.5", "198.51.100.7", "192.0.2.44");
    let ok = login_from(&app, home, &user.username, &user.password).await;
    assert_eq!(ok.status(), StatusCode::OK);

    // The attacker's guesses are answered until the run is long enough ...
    for _ in 0..FREE_FAILURES {
        let res = login_from(&app, attacker, &user.username, "guess-guess-guess").await;
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    }
    // ... then even the right password is refused unchecked, from any
    // network the account has not logged in from (the email is the same
    // account) ...
    assert_blocked(login_from(&app, attacker, &user.username, &user.password).await).await;
    assert_blocked(login_from(&app, cafe, &user.email, &user.password).await).await;
    // ... but the owner still gets in from home.
    let home_again = login_from(&app, home, &user.username, &user.password).await;
    assert_eq!(home_again.status(), StatusCode::OK);

    // The block ends by itself.
    app.clock
        .advance(chrono::Duration::minutes(BLOCK_MINUTES) + chrono::Duration::seconds(1));
    let later = login_from(&app, cafe, &user.username, &user.password).await;
    assert_eq!(later.status(), StatusCode::OK);
}

async fn unknown_log_in_names_are_blocked_alike(backend: Backend) {
    let app = limited_app(backend).await;
    for _ in 0..FREE_FAILURES {
        let res = login_from(&app, "198.51.100.7", "nobody@example.com", "guess-guess").await;
        assert_problem(res, StatusCode::UNAUTHORIZED, "invalid-credentials").await;
    }
    assert_blocked(login_from(&app, "198.51.100.8", "nobody@example.com", "guess-guess").await)
        .await;
}

async fn current_password_guesses_count_towards_the_block(backend: Backend) {
    let app = limited_app(backend).await;
    let user = app.register_user("otto").await;
    let (home, thief) = ("203.0.113.5", "198.51.100.7");
    let res = login_from(&app, home, &user.username, &user.password).await;
    let body: serde_json::Value = res.json().await.unwrap();
    let access = body["access_token"].as_str().unwrap().to_owned();
    // Someone holding the access token guesses the password to change it.
    let change = |client: &str, current: &str| {
        app.client
            .patch(app.url("/api/v1/me"))
            .header("x-forwarded-for", client)
            .bearer_auth(&access)
            .json(&json!({"current_password": current, "new_password": "another-long-password"}))
            .send()
    };
    for _ in 0..FREE_FAILURES {
        let res = change(thief, "guess-guess").await.unwrap();
        assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    }
    assert_blocked(change(thief, &user.password).await.unwrap()).await;
    // The owner, at home, is not locked out.
    let res = change(home, &user.password).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK, "{:?}", res.text().await);
}

crate::on_both_backends!(
    wrong_passwords_block_an_account_but_not_from_its_own_networks,
    unknown_log_in_names_are_blocked_alike,
    current_password_guesses_count_towards_the_block,
);

use reqwest::StatusCode;
use serde_json::Value;

use crate::helpers::{assert_problem, spawn_app, Backend};

async fn log_in_by_username_or_email(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = app.register_user("jane").await;
    // An address logs in once it is verified (issue 10: an unverified one
    // may be anybody's).
    let res = app.login("jane@example.com", &user.password).await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "invalid-credentials").await;
    app.execute_sql("UPDATE users SET email_verified = TRUE WHERE username = 'jane'")
        .await;
    for login in ["jane", "JANE", "jane@example.com", "Jane@Example.COM"] {
        let res = app.login(login, &user.password).await;
        assert_eq!(res.status(), StatusCode::OK, "{login}");
        assert_eq!(res.headers()["cache-control"], "no-store");
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["token_type"], "Bearer");
        assert!(body["expires_in"].as_u64().unwrap() > 0);
        assert_eq!(body["access_token"].as_str().unwrap().split('.').count(), 3);
        assert!(body["refresh_token"]
            .as_str()
            .unwrap()
            .starts_with("sannin_rt_"));
    }
}

async fn unknown_user_and_wrong_password_look_alike(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = app.register_user("kate").await;
    let wrong_password = assert_problem(
        app.login(&user.username, "not the password").await,
        StatusCode::UNAUTHORIZED,
        "invalid-credentials",
    )
    .await;
    let unknown_user = assert_problem(
        app.login("nobody-here", "not the password").await,
        StatusCode::UNAUTHORIZED,
        "invalid-credentials",
    )
    .await;
    assert_eq!(wrong_password, unknown_user);

    let res = app.login("", "").await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
}

/// `token` with its last character changed: its signature no longer holds.
fn tampered(token: &str) -> String {
    let mut t = token.to_owned();
    t.pop();
    t.push(if token.ends_with('A') { 'B' } else { 'A' });
    t
}

async fn bearer_tokens_are_checked(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = app.register_user("liam").await;
    let tokens = app.tokens_for(&user).await;

    let res = app.request(reqwest::Method::GET, "/api/v1/me").await;
    assert_eq!(res.headers()["www-authenticate"], "Bearer");
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthenticated").await;

    // A token signed with another key, a mangled one, a refresh token, a
    // made-up personal token.
    let tampered = tampered(&tokens.access);
    for bad in [
        tampered.as_str(),
        "garbage",
        &tokens.refresh,
        "sannin_pat_madeup",
    ] {
        assert_problem(
            app.get_me(bad).await,
            StatusCode::UNAUTHORIZED,
            "unauthenticated",
        )
        .await;
    }

    let basic = app
        .client
        .get(app.url("/api/v1/me"))
        .header("authorization", format!("Basic {}", tokens.access))
        .send()
        .await
        .unwrap();
    assert_problem(basic, StatusCode::UNAUTHORIZED, "unauthenticated").await;
}

/// An access token past its lifetime answers `token-expired` (refresh it),
/// not `unauthenticated` (log in again); within the 30 s clock-skew
/// allowance it still works. A revoked or forged one stays `unauthenticated`.
async fn an_expired_access_token_says_so(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = app.register_user("otto").await;
    let tokens = app.tokens_for(&user).await;
    let ttl = chrono::Duration::seconds(900);
    app.clock.advance(ttl + chrono::Duration::seconds(10));
    assert_eq!(
        app.get_me(&tokens.access).await.status(),
        StatusCode::OK,
        "within the allowance"
    );
    app.clock.advance(chrono::Duration::seconds(30));
    let res = app.get_me(&tokens.access).await;
    let challenge = res.headers()["www-authenticate"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
    let problem = assert_problem(res, StatusCode::UNAUTHORIZED, "token-expired").await;
    assert!(
        problem["detail"].as_str().unwrap().contains("refresh"),
        "{problem}"
    );
    // Refreshing gives a token that works.
    let res = app.refresh(&tokens.refresh).await;
    assert_eq!(res.status(), StatusCode::OK);
    let fresh: serde_json::Value = res.json().await.unwrap();
    let access = fresh["access_token"].as_str().unwrap();
    assert_eq!(app.get_me(access).await.status(), StatusCode::OK);
    // Expired and tampered with: not this service's, so not "expired".
    let forged = tampered(&tokens.access);
    assert_problem(
        app.get_me(&forged).await,
        StatusCode::UNAUTHORIZED,
        "unauthenticated",
    )
    .await;
}

async fn refresh_rotates_and_reuse_revokes_the_family(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = app.register_user("mona").await;
    let first = app.tokens_for(&user).await;

    let res = app.refresh(&first.refresh).await;
    assert_eq!(res.status(), StatusCode::OK);
    let second: Value = res.json().await.unwrap();
    let second_refresh = second["refresh_token"].as_str().unwrap().to_owned();
    let second_access = second["access_token"].as_str().unwrap().to_owned();
    assert_ne!(second_refresh, first.refresh);
    assert_eq!(app.get_me(&second_access).await.status(), StatusCode::OK);

    let res = app.refresh(&second_refresh).await;
    assert_eq!(res.status(), StatusCode::OK);
    let third: Value = res.json().await.unwrap();
    let third_refresh = third["refresh_token"].as_str().unwrap().to_owned();

    // Replaying a spent token revokes the whole family...
    assert_problem(
        app.refresh(&first.refresh).await,
        StatusCode::UNAUTHORIZED,
        "refresh-token-reused",
    )
    .await;
    // ...so the latest refresh token and the access tokens die with it.
    assert_problem(
        app.refresh(&third_refresh).await,
        StatusCode::UNAUTHORIZED,
        "invalid-refresh-token",
    )
    .await;
    assert_problem(
        app.get_me(&second_access).await,
        StatusCode::UNAUTHORIZED,
        "unauthenticated",
    )
    .await;

    // Another session of the same user is untouched.
    let other = app.tokens_for(&user).await;
    assert_eq!(app.refresh(&other.refresh).await.status(), StatusCode::OK);

    assert_problem(
        app.refresh("sannin_rt_unknown").await,
        StatusCode::UNAUTHORIZED,
        "invalid-refresh-token",
    )
    .await;
}

async fn logout_revokes_the_session(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = app.register_user("nina").await;
    let tokens = app.tokens_for(&user).await;
    let other = app.tokens_for(&user).await;

    assert_eq!(
        app.logout(&tokens.refresh).await.status(),
        StatusCode::NO_CONTENT
    );
    assert_problem(
        app.refresh(&tokens.refresh).await,
        StatusCode::UNAUTHORIZED,
        "invalid-refresh-token",
    )
    .await;
    assert_problem(
        app.get_me(&tokens.access).await,
        StatusCode::UNAUTHORIZED,
        "unauthenticated",
    )
    .await;
    assert_eq!(app.get_me(&other.access).await.status(), StatusCode::OK);

    assert_problem(
        app.logout("sannin_rt_unknown").await,
        StatusCode::UNAUTHORIZED,
        "invalid-refresh-token",
    )
    .await;
}

crate::on_both_backends!(
    log_in_by_username_or_email,
    unknown_user_and_wrong_password_look_alike,
    bearer_tokens_are_checked,
    an_expired_access_token_says_so,
    refresh_rotates_and_reuse_revokes_the_family,
    logout_revokes_the_session,
);

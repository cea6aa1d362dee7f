//! What one account may hold and how often it may do costly things (issue
//! 10, item 4): quotas answer 409 `quota-exceeded`, rates 429 with
//! `Retry-After`. The maxima are set small here; the defaults are in
//! `domain::limits`.

use std::time::Duration;

use reqwest::{Method, Response, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{assert_problem, spawn_app_with, Backend, TestApp};
use crate::webhooks::{ping, Receiver};

async fn retry_after(res: Response) -> u64 {
    let wait = res.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_problem(res, StatusCode::TOO_MANY_REQUESTS, "rate-limited").await;
    wait
}

async fn post(app: &TestApp, path: &str, token: String, body: Value) -> Response {
    app.authed(Method::POST, path, &token, Some(&body)).await
}

async fn created(res: Response) -> Value {
    let status = res.status();
    let body: Value = res.json().await.unwrap();
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body
}

async fn webhooks_and_pings_are_limited(backend: Backend) {
    let app = spawn_app_with(backend, |s| {
        s.webhooks.allow_private = true;
        s.webhooks.poll_interval = Duration::from_secs(3600);
        s.limits.webhooks.max = 2;
        s.limits.pings.max = 2;
    })
    .await;
    let t = app.trio("lim").await;
    let rx = Receiver::start();
    let body = json!({"url": rx.url, "events": ["game.move"]});
    let hook = |token: &str| post(&app, "/api/v1/webhooks", token.to_owned(), body.clone());
    let first = created(hook(&t.tokens[0]).await).await;
    created(hook(&t.tokens[0]).await).await;
    let full = hook(&t.tokens[0]).await;
    let problem = assert_problem(full, StatusCode::CONFLICT, "quota-exceeded").await;
    assert!(
        problem["detail"].as_str().unwrap().contains("2 webhooks"),
        "{problem}"
    );
    // Another account has its own quota; removing one makes room.
    created(hook(&t.tokens[1]).await).await;
    let id = first["id"].as_str().unwrap();

    for _ in 0..2 {
        assert_eq!(
            ping(&app, &t.tokens[0], id).await.status(),
            StatusCode::ACCEPTED
        );
    }
    let wait = retry_after(ping(&app, &t.tokens[0], id).await).await;
    assert!(wait > 3500 && wait <= 3600, "{wait}");
    app.clock.advance(chrono::Duration::hours(1));
    let t = app.log_in_again(&t).await;
    assert_eq!(
        ping(&app, &t.tokens[0], id).await.status(),
        StatusCode::ACCEPTED
    );

    let res = app
        .authed(
            Method::DELETE,
            &format!("/api/v1/webhooks/{id}"),
            &t.tokens[0],
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    created(hook(&t.tokens[0]).await).await;
}

async fn personal_tokens_are_limited(backend: Backend) {
    let app = spawn_app_with(backend, |s| s.limits.personal_tokens.max = 2).await;
    let user = app.register_user("tokyo").await;
    let access = app.tokens_for(&user).await.access;
    let body = json!({"name": "bot", "scopes": ["games:read"]});
    created(app.create_token(&access, &body).await).await;
    created(app.create_token(&access, &body).await).await;
    let res = app.create_token(&access, &body).await;
    assert_problem(res, StatusCode::CONFLICT, "quota-exceeded").await;
}

async fn game_creation_and_seats_are_limited(backend: Backend) {
    let app = spawn_app_with(backend, |s| {
        s.limits.games_created.max = 3;
        s.limits.unfinished_games.max = 3;
    })
    .await;
    let t = app.trio("gam").await;
    // Three games created in the hour (one started, two waiting) ...
    let started = app.started_game(&t, json!({})).await;
    let open = json!({"seat": "first", "open_seats": 2});
    let waiting = created(app.create_game(&t.tokens[0], &open).await).await;
    created(app.create_game(&t.tokens[0], &open).await).await;
    // ... and the fourth must wait for the first to leave the hour.
    let wait = retry_after(app.create_game(&t.tokens[0], &open).await).await;
    assert!(wait > 3500 && wait <= 3600, "{wait}");
    // Imports are created games too.
    let record = app
        .request(Method::GET, &format!("/api/v1/games/{started}/record"))
        .await
        .text()
        .await
        .unwrap();
    let body = json!({"record": record});
    let import = |token: &str| post(&app, "/api/v1/games/import", token.to_owned(), body.clone());
    retry_after(import(&t.tokens[0]).await).await;
    created(import(&t.tokens[1]).await).await;

    // An hour later the rate allows more, but three seats in unfinished
    // games are all an account may hold: creating and joining are refused.
    app.clock.advance(chrono::Duration::hours(1));
    let t = app.log_in_again(&t).await;
    let res = app.create_game(&t.tokens[0], &open).await;
    assert_problem(res, StatusCode::CONFLICT, "quota-exceeded").await;
    let other = created(app.create_game(&t.tokens[1], &open).await).await;
    let other_id = other["id"].as_str().unwrap();
    let res = app.join_game(&t.tokens[0], other_id).await;
    assert_problem(res, StatusCode::CONFLICT, "quota-exceeded").await;
    // Cancelling a waiting game frees its seat.
    let waiting_id = waiting["id"].as_str().unwrap();
    let res = app
        .authed(
            Method::POST,
            &format!("/api/v1/games/{waiting_id}/cancel"),
            &t.tokens[0],
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(
        app.join_game(&t.tokens[0], other_id).await.status(),
        StatusCode::OK
    );
}

async fn email_changes_are_limited(backend: Backend) {
    let app = spawn_app_with(backend, |s| s.limits.verification_mails.max = 2).await;
    let user = app.register_user("mailer").await;
    let access = app.tokens_for(&user).await.access;
    // Registration sent one verification mail; one change sends the second.
    let res = app
        .patch_me(&access, &json!({"email": "second@example.com"}))
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let res = app
        .patch_me(&access, &json!({"email": "third@example.com"}))
        .await;
    let wait = retry_after(res).await;
    assert!(wait > 86_000 && wait <= 86_400, "{wait}");
    let me: Value = app.get_me(&access).await.json().await.unwrap();
    assert_eq!(
        me["email"], "second@example.com",
        "the refused change changed nothing"
    );
}

crate::on_both_backends!(
    webhooks_and_pings_are_limited,
    personal_tokens_are_limited,
    game_creation_and_seats_are_limited,
    email_changes_are_limited,
);

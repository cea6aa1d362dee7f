use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, error_fields, spawn_app, Backend};

async fn registration_creates_an_account(backend: Backend) {
    let app = spawn_app(backend).await;
    let res = app
        .register(&json!({"username": "Alice_01", "email": "Alice@Example.com", "password": "correct horse"}))
        .await;
    assert_eq!(res.status(), StatusCode::CREATED);
    assert_eq!(res.headers()["location"], "/api/v1/users/alice_01");
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["username"], "alice_01");
    assert_eq!(body["email"], "alice@example.com");
    assert_eq!(body["email_verified"], false);
    assert!(body["created_at"].as_str().unwrap().ends_with('Z'));
    assert!(body.get("password").is_none() && body.get("password_hash").is_none());
}

async fn usernames_are_unique_case_insensitively(backend: Backend) {
    let app = spawn_app(backend).await;
    app.register_user("bob").await;
    let res = app
        .register(
            &json!({"username": "BOB", "email": "other@example.com", "password": "k7#Qw9z!tr"}),
        )
        .await;
    let problem = assert_problem(res, StatusCode::CONFLICT, "username-taken").await;
    assert_eq!(error_fields(&problem), ["username"]);
}

/// An address another account holds (compared without case) is not refused,
/// since that would tell who is registered: the new account only claims it,
/// and cannot log in with it (see `mail::a_held_address_is_not_revealed`).
async fn emails_are_unique_case_insensitively(backend: Backend) {
    let app = spawn_app(backend).await;
    let carol = app.register_user("carol").await;
    let res = app
        .register(
            &json!({"username": "carol2", "email": "CAROL@example.COM", "password": "k7#Qw9z!tr"}),
        )
        .await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["email"], "carol@example.com");
    assert_eq!(body["email_verified"], false);
    let mine = app.tokens_for(&carol).await;
    let me: Value = app.get_me(&mine.access).await.json().await.unwrap();
    assert_eq!(me["email"], "carol@example.com");
    assert_eq!(me["username"], "carol");
}

async fn registration_checks_every_field(backend: Backend) {
    let app = spawn_app(backend).await;
    let res = app
        .register(&json!({"username": "a!", "email": "not-an-email", "password": "short"}))
        .await;
    let problem = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    assert_eq!(error_fields(&problem), ["username", "email", "password"]);

    let res = app
        .register(&json!({"username": "dave", "email": "dave@example.com"}))
        .await;
    let problem = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    assert_eq!(error_fields(&problem), ["password"]);
    assert_eq!(problem["errors"][0]["code"], "required");
}

async fn registration_length_bounds(backend: Backend) {
    let app = spawn_app(backend).await;
    let cases = [
        ("ab", "x@example.com", "k7#Qw9z!", Some("username")),
        (
            &"u".repeat(33) as &str,
            "x@example.com",
            "k7#Qw9z!",
            Some("username"),
        ),
        ("abc", "abc@example.com", "1234567", Some("password")),
        (
            "abd",
            "abd@example.com",
            &"p".repeat(1025),
            Some("password"),
        ),
        ("abe", "abe@example.com", "k7#Qw9z!", None),
        (
            &"v".repeat(32),
            "v32@example.com",
            &"k7#Qw9z!".repeat(128),
            None,
        ),
        ("ab-_9", "ab9@example.com", "k7#Qw9z!", None),
        // Issue 10: blank and common passwords are refused, saying why.
        ("abf", "abf@example.com", "          ", Some("password")),
        ("abg", "abg@example.com", "12345678", Some("password")),
        ("abh", "abh@example.com", "password", Some("password")),
        // Issue 10: only bare addresses a relay delivers to.
        ("abi", "Evil <evil@example.com>", "k7#Qw9z!", Some("email")),
        ("abj", "abj@[127.0.0.1]", "k7#Qw9z!", Some("email")),
    ];
    for (username, email, password, bad_field) in cases {
        let res = app
            .register(&json!({"username": username, "email": email, "password": password}))
            .await;
        match bad_field {
            Some(field) => {
                let problem =
                    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed")
                        .await;
                assert_eq!(error_fields(&problem), [field], "{username}");
            }
            None => assert_eq!(res.status(), StatusCode::CREATED, "{username}"),
        }
    }
}

async fn public_profiles(backend: Backend) {
    let app = spawn_app(backend).await;
    app.register_user("erin").await;
    let res = app.get_user("ERIN").await;
    assert_eq!(res.status(), StatusCode::OK);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["username"], "erin");
    assert!(body.get("email").is_none(), "the email address is private");

    assert_problem(
        app.get_user("nobody").await,
        StatusCode::NOT_FOUND,
        "not-found",
    )
    .await;
}

async fn me_shows_the_account(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = app.register_user("frank").await;
    let tokens = app.tokens_for(&user).await;
    let res = app.get_me(&tokens.access).await;
    assert_eq!(res.status(), StatusCode::OK);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["username"], "frank");
    assert_eq!(body["email"], "frank@example.com");
    assert_eq!(body["email_verified"], false);
    assert!(body["created_at"].is_string());
    assert_eq!(body["time_zone"], "UTC", "until set");
}

async fn the_time_zone_is_an_iana_name(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = app.register_user("tzuser").await;
    let tokens = app.tokens_for(&user).await;
    let res = app
        .patch_me(&tokens.access, &json!({"time_zone": "Asia/Tokyo"}))
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["time_zone"], "Asia/Tokyo");
    for bad in ["Mars/Olympus", "", "utc+2"] {
        let res = app
            .patch_me(&tokens.access, &json!({"time_zone": bad}))
            .await;
        let p = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
        assert_eq!(p["errors"][0]["field"], "time_zone", "{bad}: {p}");
    }
    let me: Value = app.get_me(&tokens.access).await.json().await.unwrap();
    assert_eq!(
        me["time_zone"], "Asia/Tokyo",
        "a refused change changes nothing"
    );
}

async fn changing_the_email(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = app.register_user("gina").await;
    app.register_user("hank").await;
    let tokens = app.tokens_for(&user).await;

    let res = app
        .patch_me(&tokens.access, &json!({"email": "Gina@New.example.com"}))
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["email"], "gina@new.example.com");

    // Hank's address is claimed, not refused: the answer tells nothing.
    let res = app
        .patch_me(&tokens.access, &json!({"email": "hank@example.com"}))
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["email"], "hank@example.com");

    let res = app
        .patch_me(&tokens.access, &json!({"email": "nope"}))
        .await;
    let problem = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    assert_eq!(error_fields(&problem), ["email"]);

    // Only a verified address logs in (an unverified one may be anybody's).
    assert_eq!(
        app.login("GINA@new.example.com", &user.password)
            .await
            .status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        app.login("gina", &user.password).await.status(),
        StatusCode::OK
    );
}

async fn changing_the_password_revokes_other_sessions(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = app.register_user("ivan").await;
    let here = app.tokens_for(&user).await;
    let elsewhere = app.tokens_for(&user).await;

    let res = app
        .patch_me(
            &here.access,
            &json!({"current_password": "wrong password", "new_password": "brand new password"}),
        )
        .await;
    let problem = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    assert_eq!(error_fields(&problem), ["current_password"]);

    let res = app
        .patch_me(&here.access, &json!({"new_password": "brand new password"}))
        .await;
    let problem = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    assert_eq!(error_fields(&problem), ["current_password"]);

    let res = app
        .patch_me(
            &here.access,
            &json!({"current_password": user.password, "new_password": "brand new password"}),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);

    // The other session is over, this one goes on.
    assert_problem(
        app.get_me(&elsewhere.access).await,
        StatusCode::UNAUTHORIZED,
        "unauthenticated",
    )
    .await;
    assert_problem(
        app.refresh(&elsewhere.refresh).await,
        StatusCode::UNAUTHORIZED,
        "invalid-refresh-token",
    )
    .await;
    assert_eq!(app.get_me(&here.access).await.status(), StatusCode::OK);
    assert_eq!(app.refresh(&here.refresh).await.status(), StatusCode::OK);

    assert_problem(
        app.login("ivan", &user.password).await,
        StatusCode::UNAUTHORIZED,
        "invalid-credentials",
    )
    .await;
    assert_eq!(
        app.login("ivan", "brand new password").await.status(),
        StatusCode::OK
    );
}

/// Two changes proving the same current password at once: one wins, the
/// other is refused (its current password no longer is), and the winner's
/// password is the one that works.
async fn concurrent_password_changes_do_not_both_succeed(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = app.register_user("janus").await;
    let here = app.tokens_for(&user).await;
    let change = |new: &str| json!({"current_password": user.password, "new_password": new, "revoke_tokens": false});
    let (a, b) = (change("first new password"), change("second new password"));
    let (ra, rb) = tokio::join!(
        app.patch_me(&here.access, &a),
        app.patch_me(&here.access, &b)
    );
    let statuses = [ra.status(), rb.status()];
    let won: Vec<_> = statuses.iter().filter(|s| **s == StatusCode::OK).collect();
    assert_eq!(won.len(), 1, "{statuses:?}");
    let lost = if statuses[0] == StatusCode::OK {
        rb
    } else {
        ra
    };
    assert_problem(lost, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    let winner = if statuses[0] == StatusCode::OK {
        "first new password"
    } else {
        "second new password"
    };
    let loser = if statuses[0] == StatusCode::OK {
        "second new password"
    } else {
        "first new password"
    };
    assert_eq!(app.login("janus", winner).await.status(), StatusCode::OK);
    assert_eq!(
        app.login("janus", loser).await.status(),
        StatusCode::UNAUTHORIZED
    );
}

crate::on_both_backends!(
    the_time_zone_is_an_iana_name,
    concurrent_password_changes_do_not_both_succeed,
    registration_creates_an_account,
    usernames_are_unique_case_insensitively,
    emails_are_unique_case_insensitively,
    registration_checks_every_field,
    registration_length_bounds,
    public_profiles,
    me_shows_the_account,
    changing_the_email,
    changing_the_password_revokes_other_sessions,
);

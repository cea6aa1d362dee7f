//! Mail end to end: a real SMTP server on loopback receives what the server
//! sends; links in the mail are followed over HTTP.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{
    assert_problem, error_fields, eventually, spawn_app_with, Backend, TestApp, TestUser,
};
use crate::on_both_backends;
use crate::smtp::{Mail, SmtpServer};
use crate::webhooks::Receiver;

/// First's bishop, then Last's castling capture, leave Middle mated by 10k9k.
const MATE_IN_FOUR: [&str; 4] = ["2g10k+", "12l8d", "10d8d", "10k9k"];

const MAILED: [&str; 8] = [
    "game.invited",
    "game.started",
    "game.your_turn",
    "game.alliance_proposed",
    "game.player_eliminated",
    "game.finished",
    "game.deadline_approaching",
    "webhook.disabled",
];

async fn app_with_smtp(backend: Backend) -> (TestApp, SmtpServer) {
    let smtp = SmtpServer::start();
    let app = spawn_app_with(backend, |s| smtp.configure(s)).await;
    (app, smtp)
}

/// Follows a link from mail (its path and query) against the app.
async fn follow(app: &TestApp, method: Method, link: &str) -> reqwest::Response {
    let path = link
        .strip_prefix("https://sannin.test")
        .unwrap_or_else(|| panic!("{link} starts with SANNIN_PUBLIC_URL"));
    app.request(method, path).await
}

/// Registers `name` and follows the link in the verification mail.
async fn verified_user(app: &TestApp, smtp: &SmtpServer, name: &str) -> (TestUser, String) {
    let user = app.register_user(name).await;
    let mail = smtp
        .wait_for_kind(&user.email, "account.verify_email")
        .await;
    let res = follow(
        app,
        Method::GET,
        &mail.link("https://sannin.test/api/v1/email/verify"),
    )
    .await;
    assert_eq!(res.status(), StatusCode::OK);
    let token = app.tokens_for(&user).await.access;
    (user, token)
}

/// Alice and Bob, with verified addresses, and Carol, who never verifies hers.
struct Cast {
    alice: TestUser,
    bob: TestUser,
    carol: TestUser,
    tokens: [String; 3],
}

async fn cast(app: &TestApp, smtp: &SmtpServer, prefix: &str) -> Cast {
    let (alice, alice_token) = verified_user(app, smtp, &format!("{prefix}alice")).await;
    let (bob, bob_token) = verified_user(app, smtp, &format!("{prefix}bob")).await;
    let carol = app.register_user(&format!("{prefix}carol")).await;
    let carol_token = app.tokens_for(&carol).await.access;
    Cast {
        alice,
        bob,
        carol,
        tokens: [alice_token, bob_token, carol_token],
    }
}

/// Alice invites Bob and Carol to a new game with `days_per_move`; its id.
async fn invite(app: &TestApp, c: &Cast, days_per_move: Option<u32>) -> String {
    let res = app
        .create_game(
            &c.tokens[0],
            &json!({
                "seat": "first",
                "invite": [c.bob.username, c.carol.username],
                "days_per_move": days_per_move,
            }),
        )
        .await;
    assert_eq!(res.status(), StatusCode::CREATED);
    res.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

async fn notifications(app: &TestApp, bearer: &str) -> Value {
    let res = app
        .authed(Method::GET, "/api/v1/me/notifications", bearer, None)
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    res.json().await.unwrap()
}

/// The caller's recent mail once none of it is waiting to be sent: after
/// this, every message has had its one successful send or its last try.
async fn settled_mail(app: &TestApp, bearer: &str) -> Vec<Value> {
    eventually("the caller's mail to settle", || async {
        let recent = notifications(app, bearer).await["recent"]
            .as_array()
            .unwrap()
            .clone();
        recent
            .iter()
            .all(|m| m["status"] != "pending")
            .then_some(recent)
    })
    .await
}

async fn me(app: &TestApp, bearer: &str) -> Value {
    let res = app.get_me(bearer).await;
    assert_eq!(res.status(), StatusCode::OK);
    res.json().await.unwrap()
}

/// Asks `probe` until `done` holds for its answer, and returns that answer.
async fn poll<T, F, Fut>(mut probe: F, done: impl Fn(&T) -> bool) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = T>,
{
    eventually("the awaited answer", || {
        let answer = probe();
        let done = &done;
        async move { Some(answer.await).filter(|a| done(a)) }
    })
    .await
}

/// The caller's newest message once `done` holds for it.
async fn newest_mail_when(app: &TestApp, bearer: &str, done: impl Fn(&Value) -> bool) -> Value {
    poll(
        || async { notifications(app, bearer).await["recent"][0].clone() },
        done,
    )
    .await
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

async fn registration_mails_a_link_that_verifies_the_address(backend: Backend) {
    let (app, smtp) = app_with_smtp(backend).await;
    let user = app.register_user("vera").await;
    let token = app.tokens_for(&user).await.access;
    assert_eq!(me(&app, &token).await["email_verified"], false);

    let mail = smtp
        .wait_for_kind(&user.email, "account.verify_email")
        .await;
    assert_eq!(mail.subject(), "Confirm your email address for Sannin");
    assert!(mail.text().contains("vera@example.com"));
    let link = mail.link("https://sannin.test/api/v1/email/verify?token=");
    assert!(
        mail.html().contains(&link.replace('&', "&amp;")),
        "the HTML body has the same link"
    );
    assert!(
        mail.header("List-Unsubscribe").is_none(),
        "a verification mail cannot be unsubscribed from"
    );

    // A damaged link is refused, as a page and as a problem.
    let res = follow(&app, Method::GET, &format!("{link}x")).await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let page = res.text().await.unwrap();
    assert!(page.contains("Invalid link"), "{page}");
    let res = app
        .client
        .post(app.url("/api/v1/email/verify"))
        .json(&json!({"token": "not-a-token"}))
        .send()
        .await
        .unwrap();
    assert_problem(res, StatusCode::BAD_REQUEST, "link-invalid").await;

    let res = follow(&app, Method::GET, &link).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert!(res
        .text()
        .await
        .unwrap()
        .contains("vera@example.com is verified"));
    assert_eq!(me(&app, &token).await["email_verified"], true);
    // Following it again does no harm.
    assert_eq!(
        follow(&app, Method::GET, &link).await.status(),
        StatusCode::OK
    );
    let res = app
        .authed(Method::POST, "/api/v1/me/email/verification", &token, None)
        .await;
    assert_problem(res, StatusCode::CONFLICT, "already-verified").await;

    // A new address is unverified until its own link is followed; the old link
    // no longer verifies anything.
    let res = app
        .patch_me(&token, &json!({"email": "vera@example.org"}))
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(me(&app, &token).await["email_verified"], false);
    let token_of = |l: &str| l.split("token=").nth(1).unwrap().to_owned();
    let res = app
        .client
        .post(app.url("/api/v1/email/verify"))
        .json(&json!({"token": token_of(&link)}))
        .send()
        .await
        .unwrap();
    assert_problem(res, StatusCode::CONFLICT, "email-changed").await;
    let mail = smtp
        .wait_for_kind("vera@example.org", "account.verify_email")
        .await;
    let new_link = mail.link("https://sannin.test/api/v1/email/verify?token=");
    // Asking for another link at once is refused for a minute, so that
    // links cannot flood someone's mailbox.
    let res = app
        .authed(Method::POST, "/api/v1/me/email/verification", &token, None)
        .await;
    let retry_after: u64 = res.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry_after));
    assert_problem(res, StatusCode::TOO_MANY_REQUESTS, "rate-limited").await;
    let res = app
        .client
        .post(app.url("/api/v1/email/verify"))
        .json(&json!({"token": token_of(&new_link)}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let account: Value = res.json().await.unwrap();
    assert_eq!(account["email"], "vera@example.org");
    assert_eq!(account["email_verified"], true);
}

async fn a_whole_game_mails_exactly_the_expected_notices(backend: Backend) {
    let (app, smtp) = app_with_smtp(backend).await;
    let c = cast(&app, &smtp, "gm_").await;
    let id = invite(&app, &c, Some(3)).await;
    let Cast {
        alice,
        bob,
        carol,
        tokens: [alice_token, bob_token, carol_token],
    } = c;
    let invited = smtp.wait_for_kind(&bob.email, "game.invited").await;
    assert_eq!(
        invited.subject(),
        "gm_alice invites you to a game of sannin shogi"
    );
    for t in [&bob_token, &carol_token] {
        assert_eq!(app.join_game(t, &id).await.status(), StatusCode::OK);
    }
    let trio = crate::helpers::Trio {
        names: [
            alice.username.clone(),
            bob.username.clone(),
            carol.username.clone(),
        ],
        tokens: [alice_token.clone(), bob_token.clone(), carol_token.clone()],
    };
    app.play_all(&trio, &id, &MATE_IN_FOUR).await;
    let res = app
        .authed(
            Method::POST,
            &format!("/api/v1/games/{id}/resign"),
            &carol_token,
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);

    // Each verified player gets one mail per mailed event of theirs; Carol
    // gets nothing but her verification link.
    for (user, token) in [(&alice, &alice_token), (&bob, &bob_token)] {
        let expected: Vec<String> = app
            .events(token, &id)
            .await
            .iter()
            .map(|e| e["type"].as_str().unwrap().to_owned())
            .filter(|t| MAILED.contains(&t.as_str()))
            .collect();
        let mails = smtp.wait_for(&user.email, expected.len() + 1).await;
        let got: Vec<String> = mails
            .iter()
            .map(Mail::kind)
            .filter(|k| k != "account.verify_email")
            .collect();
        assert_eq!(sorted(got), sorted(expected), "mail to {}", user.username);
    }
    let alice_kinds: Vec<String> = smtp.to(&alice.email).iter().map(Mail::kind).collect();
    for kind in [
        "game.started",
        "game.your_turn",
        "game.player_eliminated",
        "game.finished",
    ] {
        assert!(
            alice_kinds.iter().any(|k| k == kind),
            "{kind}: {alice_kinds:?}"
        );
    }
    assert_eq!(
        alice_kinds
            .iter()
            .filter(|k| *k == "game.player_eliminated")
            .count(),
        2,
        "Bob mated, Carol resigned"
    );
    assert!(
        !app.events(&carol_token, &id).await.is_empty(),
        "Carol has events, yet no mail"
    );

    // What a "your turn" mail says: the opponents, the last move, the
    // deadline, links to the game and its picture, and how to stop it.
    let turns: Vec<Mail> = smtp
        .to(&alice.email)
        .into_iter()
        .filter(|m| m.kind() == "game.your_turn")
        .collect();
    assert_eq!(
        turns.len(),
        3,
        "the opening move, after Carol's, after mating Bob (R27)"
    );
    assert!(turns[0]
        .text()
        .contains("Last move: none yet: you open the game"));
    assert!(turns[2]
        .text()
        .contains("Last move: you played 10k9k (ply 4)"));
    let turn = &turns[1];
    assert_eq!(turn.subject(), "Your move against gm_bob and gm_carol");
    let text = turn.text();
    assert!(text.contains("gm_carol played 10d8d (ply 3)"), "{text}");
    assert!(text.contains("Move by: "), "{text}");
    assert!(text.contains(&format!(
        "https://sannin.test/api/v1/games/{id}/board.svg?view=first"
    )));
    let html = turn.html();
    assert!(html.contains("gm_carol played 10d8d (ply 3)"), "{html}");
    assert!(html.contains(&format!("href=\"https://sannin.test/games/{id}\"")));
    assert!(
        text.contains(&format!("https://sannin.test/games/{id}")),
        "{text}"
    );
    let unsubscribe = turn.header("List-Unsubscribe").unwrap();
    assert!(unsubscribe.starts_with("<https://sannin.test/api/v1/unsubscribe?token="));
    assert_eq!(
        turn.header("List-Unsubscribe-Post").as_deref(),
        Some("List-Unsubscribe=One-Click")
    );
    let finished = smtp.wait_for_kind(&alice.email, "game.finished").await;
    assert_eq!(
        finished.subject(),
        "You won your game with gm_bob and gm_carol"
    );
    let finished = smtp.wait_for_kind(&bob.email, "game.finished").await;
    assert_eq!(finished.subject(), "Game over: gm_alice won");

    // Once every message is settled, each went out once (no duplicates),
    // and Carol got only her link.
    let (a, b) = (
        settled_mail(&app, &alice_token).await.len(),
        settled_mail(&app, &bob_token).await.len(),
    );
    assert_eq!(
        (smtp.to(&alice.email).len(), smtp.to(&bob.email).len()),
        (a, b)
    );
    let carol_kinds: Vec<String> = smtp.to(&carol.email).iter().map(Mail::kind).collect();
    assert_eq!(carol_kinds, ["account.verify_email"]);

    // The mail shows in the recipient's settings, sent.
    let settings = notifications(&app, &alice_token).await;
    let recent = settings["recent"].as_array().unwrap();
    assert!(recent.iter().all(|m| m["status"] == "sent"), "{settings}");
    assert!(recent.iter().any(|m| m["kind"] == "game.finished"));
}

fn count(smtp: &SmtpServer, address: &str, kind: &str) -> usize {
    smtp.to(address).iter().filter(|m| m.kind() == kind).count()
}

async fn unsubscribe_stops_one_kind_of_mail(backend: Backend) {
    let (app, smtp) = app_with_smtp(backend).await;
    let c = cast(&app, &smtp, "un_").await;
    let [_, bob_token, carol_token] = c.tokens.clone();
    let bob = c.bob.clone();

    invite(&app, &c, None).await;
    let mail = smtp.wait_for_kind(&bob.email, "game.invited").await;
    let link = mail.link("https://sannin.test/api/v1/unsubscribe?token=");
    let header = mail.header("List-Unsubscribe").unwrap();
    assert_eq!(header, format!("<{link}>"), "the body and the header agree");

    // The link's page asks first; a GET changes nothing.
    let res = follow(&app, Method::GET, &link).await;
    assert_eq!(res.status(), StatusCode::OK);
    let page = res.text().await.unwrap();
    assert!(page.contains("<form method=\"post\""), "{page}");
    assert_eq!(
        notifications(&app, &bob_token).await["mail"]["game.invited"],
        true
    );

    // One click, as a mail client does it (RFC 8058), without logging in.
    let path = link.strip_prefix("https://sannin.test").unwrap();
    let res = app
        .client
        .post(app.url(path))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("List-Unsubscribe=One-Click")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert!(res
        .text()
        .await
        .unwrap()
        .contains("no more mail about invitations"));
    let settings = notifications(&app, &bob_token).await;
    assert_eq!(settings["mail"]["game.invited"], false);
    assert_eq!(settings["mail"]["game.your_turn"], true);

    // A damaged link changes nothing.
    let res = follow(&app, Method::POST, &format!("{link}x")).await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);

    // The next invitation is not mailed to Bob; the game's start still is.
    // (Events are mailed in order, so once the start is mailed, the
    // invitation has been passed over.)
    let second = invite(&app, &c, None).await;
    for t in [&bob_token, &carol_token] {
        assert_eq!(app.join_game(t, &second).await.status(), StatusCode::OK);
    }
    smtp.wait_for_kind(&bob.email, "game.started").await;
    assert_eq!(count(&smtp, &bob.email, "game.invited"), 1);

    // Back on through the settings.
    let res = app
        .authed(
            Method::PATCH,
            "/api/v1/me/notifications",
            &bob_token,
            Some(&json!({"mail": {"game.invited": true, "game.started": false}})),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let settings: Value = res.json().await.unwrap();
    assert_eq!(settings["mail"]["game.invited"], true);
    assert_eq!(settings["mail"]["game.started"], false);
    let third = invite(&app, &c, None).await;
    smtp.wait_for(&bob.email, 4).await; // verification, two invitations, one start
    for t in [&bob_token, &carol_token] {
        assert_eq!(app.join_game(t, &third).await.status(), StatusCode::OK);
    }
    // Alice's turn is mailed to her after the start; once it is, Bob's
    // start has been passed over.
    let alice_turns = |smtp: &SmtpServer| count(smtp, "un_alice@example.com", "game.your_turn");
    poll(|| async { alice_turns(&smtp) }, |n| *n >= 2).await;
    assert_eq!(alice_turns(&smtp), 2);
    assert_eq!(count(&smtp, &bob.email, "game.invited"), 2);
    assert_eq!(count(&smtp, &bob.email, "game.started"), 1);

    // Unknown kinds are refused by name.
    let res = app
        .authed(
            Method::PATCH,
            "/api/v1/me/notifications",
            &bob_token,
            Some(&json!({"mail": {"game.moves": false}})),
        )
        .await;
    let problem = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    assert_eq!(error_fields(&problem), ["mail.game.moves"]);
}

async fn mail_is_retried_until_the_relay_takes_it(backend: Backend) {
    let (app, smtp) = app_with_smtp(backend).await;
    smtp.refuse(true);
    let user = app.register_user("retry").await;
    let token = app.tokens_for(&user).await.access;
    // The relay answers 451: the message waits, with the reason shown.
    let recent = newest_mail_when(&app, &token, |m| m["attempts"].as_i64().unwrap_or(0) >= 2).await;
    assert_eq!(recent["status"], "pending", "{recent}");
    assert!(recent["attempts"].as_i64().unwrap() >= 2, "{recent}");
    assert!(
        recent["last_error"].as_str().unwrap().contains("451"),
        "{recent}"
    );
    assert!(smtp.to(&user.email).is_empty());

    smtp.refuse(false);
    smtp.wait_for_kind(&user.email, "account.verify_email")
        .await;
    let recent = newest_mail_when(&app, &token, |m| m["status"] == "sent").await;
    assert_eq!(recent["status"], "sent", "{recent}");
    assert_eq!(smtp.to(&user.email).len(), 1, "sent once");
}

async fn a_refused_address_fails_at_once_and_shows(backend: Backend) {
    let (app, smtp) = app_with_smtp(backend).await;
    let res = app
        .register(&json!({"username": "bouncy", "email": "bounce@example.com", "password": "a long password"}))
        .await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let token = app
        .tokens_for(&TestUser {
            username: "bouncy".into(),
            email: "bounce@example.com".into(),
            password: "a long password".into(),
        })
        .await
        .access;
    let recent = newest_mail_when(&app, &token, |m| m["status"] != "pending").await;
    // A 550 is final: no retries.
    assert_eq!(recent["status"], "failed", "{recent}");
    assert_eq!(recent["attempts"], 1);
    assert!(
        recent["last_error"].as_str().unwrap().contains("550"),
        "{recent}"
    );
    assert!(smtp.mails().is_empty());
}

async fn a_disabled_webhook_mails_its_owner(backend: Backend) {
    let smtp = SmtpServer::start();
    let app = spawn_app_with(backend, |s| {
        smtp.configure(s);
        s.webhooks.allow_private = true;
        s.webhooks.poll_interval = Duration::from_millis(50);
    })
    .await;
    let (user, token) = verified_user(&app, &smtp, "hooked").await;
    let receiver = Receiver::start();
    receiver
        .status
        .store(410, std::sync::atomic::Ordering::SeqCst);
    let res = app
        .authed(
            Method::POST,
            "/api/v1/webhooks",
            &token,
            Some(&json!({"url": receiver.url, "events": ["game.your_turn"]})),
        )
        .await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let id = res.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let res = app
        .authed(
            Method::POST,
            &format!("/api/v1/webhooks/{id}/ping"),
            &token,
            None,
        )
        .await;
    assert!(res.status().is_success());

    let mail = smtp.wait_for_kind(&user.email, "webhook.disabled").await;
    assert_eq!(mail.subject(), "Your Sannin webhook was disabled");
    let text = mail.text();
    assert!(text.contains(&receiver.url), "{text}");
    assert!(text.contains("410 Gone"), "{text}");
    assert!(text.contains(&format!("https://sannin.test/api/v1/webhooks/{id}")));
    assert!(mail.header("List-Unsubscribe").is_some());
}

async fn without_smtp_mail_is_written_to_a_folder(backend: Backend) {
    let app = spawn_app_with(backend, |s| {
        s.mail.poll_interval = Duration::from_millis(50);
    })
    .await;
    app.register_user("filed").await;
    let files: Vec<std::path::PathBuf> = poll(
        || async {
            std::fs::read_dir(app.mail_dir.path())
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "eml"))
                .collect()
        },
        |files: &Vec<std::path::PathBuf>| !files.is_empty(),
    )
    .await;
    assert_eq!(files.len(), 1, "one message, one file");
    let raw = std::fs::read(&files[0]).unwrap();
    let mail = Mail {
        to: vec!["filed@example.com".into()],
        raw,
    };
    assert_eq!(mail.subject(), "Confirm your email address for Sannin");
    assert_eq!(mail.header("To").as_deref(), Some("filed@example.com"));
    assert!(mail.text().contains("/api/v1/email/verify?token="));
}

async fn two_processes_send_each_mail_once(backend: Backend) {
    let (app, smtp) = app_with_smtp(backend).await;
    let second = app.restart_with(|s| smtp.configure(s)).await;
    // Twenty accounts, registered through both processes.
    let mut users = Vec::new();
    for i in 0..20 {
        let server = if i % 2 == 0 { &app } else { &second };
        users.push(server.register_user(&format!("twice{i}")).await);
    }
    // Once each account's link is sent for good, nothing more can go out.
    for user in &users {
        let token = app.tokens_for(user).await.access;
        let settled = settled_mail(&app, &token).await;
        assert_eq!(settled.len(), 1);
        assert_eq!(settled[0]["status"], "sent");
    }
    let mails = smtp.mails();
    let mut ids: Vec<String> = smtp
        .mails()
        .iter()
        .map(|m| m.header("Message-ID").unwrap())
        .collect();
    assert_eq!(mails.len(), 20);
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 20, "each message sent once");
}

async fn alliance_proposals_and_deadline_reminders_are_mailed(backend: Backend) {
    let smtp = SmtpServer::start();
    let app = spawn_app_with(backend, |s| {
        smtp.configure(s);
        s.games.sweep_interval = Duration::from_millis(100);
    })
    .await;
    let c = cast(&app, &smtp, "al_").await;
    let id = invite(&app, &c, Some(1)).await;
    let Cast {
        alice,
        bob,
        tokens: [alice_token, bob_token, carol_token],
        ..
    } = c;
    for t in [&bob_token, &carol_token] {
        assert_eq!(app.join_game(t, &id).await.status(), StatusCode::OK);
    }

    let res = app
        .authed(
            Method::POST,
            &format!("/api/v1/games/{id}/alliance/proposals"),
            &alice_token,
            Some(&json!({"to": "middle"})),
        )
        .await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let proposal: Value = res.json().await.unwrap();
    let mail = smtp
        .wait_for_kind(&bob.email, "game.alliance_proposed")
        .await;
    assert_eq!(mail.subject(), "al_alice proposes an alliance");
    assert!(mail.text().contains(&format!(
        "/alliance/proposals/{}/accept",
        proposal["id"].as_str().unwrap()
    )));

    // Alice lets her time run low: one reminder (with 12 hours of her day
    // left), then the time-out.
    app.clock.advance(chrono::Duration::hours(13));
    let reminder = smtp
        .wait_for_kind(&alice.email, "game.deadline_approaching")
        .await;
    assert_eq!(
        reminder.subject(),
        "Time is running out in your game with al_bob and al_carol"
    );
    assert!(reminder.text().contains("Move by: "));
    app.clock.advance(chrono::Duration::hours(12));
    smtp.wait_for_kind(&alice.email, "game.player_eliminated")
        .await;
    assert_eq!(count(&smtp, &alice.email, "game.deadline_approaching"), 1);
}

async fn mail_goes_over_starttls_with_a_log_in(backend: Backend) {
    let smtp = SmtpServer::start_secured();
    let app = spawn_app_with(backend, |s| smtp.configure(s)).await;
    let user = app.register_user("secure").await;
    let mail = smtp
        .wait_for_kind(&user.email, "account.verify_email")
        .await;
    assert_eq!(mail.subject(), "Confirm your email address for Sannin");
    assert_eq!(smtp.logins(), ["relay-user"]);
}

async fn mail_goes_over_implicit_tls(backend: Backend) {
    let smtp = SmtpServer::start_implicit_tls();
    let app = spawn_app_with(backend, |s| smtp.configure(s)).await;
    let user = app.register_user("wrapped").await;
    let mail = smtp
        .wait_for_kind(&user.email, "account.verify_email")
        .await;
    assert_eq!(mail.subject(), "Confirm your email address for Sannin");
}

async fn a_relay_with_an_untrusted_certificate_gets_nothing(backend: Backend) {
    let smtp = SmtpServer::start_secured();
    let app = spawn_app_with(backend, |s| {
        smtp.configure(s);
        if let sannin::config::MailTransport::Smtp { ca_file, .. } = &mut s.mail.transport {
            *ca_file = None; // only the public roots: the relay's own certificate fails
        }
    })
    .await;
    let user = app.register_user("untrusting").await;
    let token = app.tokens_for(&user).await.access;
    // An attempt counts from its claim; wait for its outcome.
    let recent = newest_mail_when(&app, &token, |m| m["last_error"].is_string()).await;
    assert!(recent["attempts"].as_i64().unwrap() >= 1, "{recent}");
    assert_ne!(recent["status"], "sent", "{recent}");
    assert!(
        recent["last_error"]
            .as_str()
            .unwrap()
            .contains("invalid peer certificate"),
        "{recent}"
    );
    assert!(
        smtp.logins().is_empty(),
        "no password before a trusted TLS session"
    );
    assert!(smtp.mails().is_empty());
}

/// A process that claims a message and dies before sending it: the claim's
/// lease runs out and another process sends it, once.
async fn a_claim_lost_in_a_crash_is_sent_later(backend: Backend) {
    let smtp = SmtpServer::start();
    // This process's worker makes one pass at start-up, then sleeps.
    let app = spawn_app_with(backend, |s| {
        smtp.configure(s);
        s.mail.poll_interval = Duration::from_secs(3600);
    })
    .await;
    let user = app.register_user("crashed").await;

    // The crashed process: claims with a one-minute lease and never sends.
    let url = sannin::config::DatabaseUrl::parse(&app.database_url()).unwrap();
    let now = app.clock.now();
    let claimed = actix_web::rt::task::spawn_blocking(move || {
        let pool = sannin::db::connect(&url, 1, Duration::from_secs(5)).unwrap();
        let mut conn = pool.get().unwrap();
        sannin::db::mail::claim_due(&mut conn, now, now + chrono::Duration::minutes(1), 10)
            .unwrap()
            .len()
    })
    .await
    .unwrap();
    assert_eq!(claimed, 1);

    let _survivor = app.restart_with(|s| smtp.configure(s)).await;
    // A later account's link going out shows the survivor sending while the
    // lease is held: the lost message stays unsent.
    let marker = app.register_user("marker").await;
    smtp.wait_for_kind(&marker.email, "account.verify_email")
        .await;
    assert!(smtp.to(&user.email).is_empty(), "the lease is still held");
    app.clock.advance(chrono::Duration::minutes(2));
    smtp.wait_for_kind(&user.email, "account.verify_email")
        .await;
    let token = app.tokens_for(&user).await.access;
    let settled = settled_mail(&app, &token).await;
    assert_eq!(settled[0]["status"], "sent");
    assert_eq!(smtp.to(&user.email).len(), 1, "sent once");
}

async fn mail_no_longer_wanted_is_cancelled(backend: Backend) {
    let (app, smtp) = app_with_smtp(backend).await;
    smtp.refuse(true);
    let user = app.register_user("fickle").await;
    let token = app.tokens_for(&user).await.access;
    let recent = newest_mail_when(&app, &token, |m| {
        m["attempts"].as_i64().unwrap_or(0) >= 1 && m["last_error"].is_string()
    })
    .await;
    assert_eq!(recent["status"], "pending", "{recent}");
    // The address changes while the first link waits: at its next turn that
    // link is dropped without reaching the relay (an attempt already under
    // way when the address changed is refused by the relay still).
    let res = app
        .patch_me(&token, &json!({"email": "fickle@example.org"}))
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let old = poll(
        || async {
            notifications(&app, &token).await["recent"]
                .as_array()
                .unwrap()
                .iter()
                .find(|m| m["to"] == "fickle@example.com")
                .cloned()
                .unwrap()
        },
        |m| m["status"] != "pending",
    )
    .await;
    assert_eq!(old["status"], "cancelled", "{old}");
    assert_eq!(old["last_error"], "the account's address changed");
    smtp.refuse(false);
    smtp.wait_for_kind("fickle@example.org", "account.verify_email")
        .await;
    assert!(smtp.to(&user.email).is_empty());
}

async fn finished_mail_is_pruned_and_pending_mail_kept(backend: Backend) {
    let (app, smtp) = app_with_smtp(backend).await;
    let sent = app.register_user("pruned").await;
    smtp.wait_for_kind(&sent.email, "account.verify_email")
        .await;
    let sent_token = app.tokens_for(&sent).await.access;
    smtp.refuse(true);
    let waiting = app.register_user("waiting").await;
    let waiting_token = app.tokens_for(&waiting).await.access;
    newest_mail_when(&app, &sent_token, |m| m["status"] == "sent").await;

    // As if the keeping period had passed for everything now finished.
    let url = sannin::config::DatabaseUrl::parse(&app.database_url()).unwrap();
    let deleted = actix_web::rt::task::spawn_blocking(move || {
        let pool = sannin::db::connect(&url, 1, Duration::from_secs(5)).unwrap();
        let mut conn = pool.get().unwrap();
        let later = chrono::Utc::now().naive_utc() + chrono::Duration::hours(1);
        sannin::db::mail::prune(&mut conn, later).unwrap()
    })
    .await
    .unwrap();
    assert_eq!(deleted, 1);
    assert_eq!(notifications(&app, &sent_token).await["recent"], json!([]));
    let waiting_mail = &notifications(&app, &waiting_token).await["recent"][0];
    assert_eq!(waiting_mail["status"], "pending", "{waiting_mail}");
}

/// Issue 10, item 7: registering with, or changing to, an address another
/// account holds answers exactly as for a free address; the mail that would
/// verify it goes to the address as usual, but tells its owner that someone
/// asked for it, and carries no link.
async fn a_held_address_is_not_revealed(backend: Backend) {
    let (app, smtp) = app_with_smtp(backend).await;
    let owner = app.register_user("owner").await;
    let password = "a long enough password";
    let register = |name: &str, email: &str| {
        let body = json!({"username": name, "email": email, "password": password});
        let app = &app;
        async move { app.register(&body).await }
    };
    let held = register("squatter", "OWNER@example.com").await;
    let free = register("newcomer", "newcomer@example.com").await;
    assert_eq!(held.status(), StatusCode::CREATED);
    assert_eq!(free.status(), StatusCode::CREATED);
    let (held, free): (Value, Value) = (held.json().await.unwrap(), free.json().await.unwrap());
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&held), keys(&free));
    assert_eq!(held["email"], "owner@example.com");
    assert_eq!(held["email_verified"], false);

    // Each address gets one mail of the same kind: the free one a link, the
    // owner (whose own link came first) a notice without one.
    let to_owner = smtp.wait_for(&owner.email, 2).await;
    let notice = &to_owner[1];
    assert_eq!(notice.kind(), "account.verify_email");
    assert!(
        notice
            .text()
            .contains("Someone asked to use owner@example.com"),
        "{}",
        notice.text()
    );
    assert!(!notice.text().contains("token="), "{}", notice.text());
    smtp.wait_for_kind("newcomer@example.com", "account.verify_email")
        .await
        .link("https://sannin.test/api/v1/email/verify?token=");

    // The askers' lists of recent mail look alike too.
    let listed = |name: &'static str| {
        let app = &app;
        async move {
            let res = app.login(name, password).await;
            let token = res.json::<Value>().await.unwrap()["access_token"]
                .as_str()
                .unwrap()
                .to_owned();
            let recent = eventually("the verification mail sent", || async {
                let n = notifications(app, &token).await;
                let m = n["recent"][0].clone();
                (m["status"] == "sent").then_some(m)
            })
            .await;
            (recent["kind"].clone(), recent["subject"].clone())
        }
    };
    assert_eq!(listed("squatter").await, listed("newcomer").await);

    // Neither unverified address logs in; the owner's account is untouched.
    for (login, expected) in [
        ("owner@example.com", StatusCode::UNAUTHORIZED),
        ("newcomer@example.com", StatusCode::UNAUTHORIZED),
        ("squatter", StatusCode::OK),
    ] {
        assert_eq!(
            app.login(login, password).await.status(),
            expected,
            "{login}"
        );
    }
    let owner_tokens = app.tokens_for(&owner).await;
    assert_eq!(me(&app, &owner_tokens.access).await["email"], owner.email);

    // Changing to a held address answers as changing to a free one does.
    let newcomer = app.login("newcomer", password).await;
    let access = newcomer.json::<Value>().await.unwrap()["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let res = app.patch_me(&access, &json!({"email": owner.email})).await;
    assert_eq!(res.status(), StatusCode::OK);
    let changed: Value = res.json().await.unwrap();
    assert_eq!(changed["email"], owner.email);
    assert_eq!(changed["email_verified"], false);
    smtp.wait_for(&owner.email, 3).await;
    assert_eq!(me(&app, &owner_tokens.access).await["email"], owner.email);
}

on_both_backends!(
    a_held_address_is_not_revealed,
    mail_goes_over_implicit_tls,
    finished_mail_is_pruned_and_pending_mail_kept,
    mail_no_longer_wanted_is_cancelled,
    a_claim_lost_in_a_crash_is_sent_later,
    mail_goes_over_starttls_with_a_log_in,
    a_relay_with_an_untrusted_certificate_gets_nothing,
    alliance_proposals_and_deadline_reminders_are_mailed,
    registration_mails_a_link_that_verifies_the_address,
    a_whole_game_mails_exactly_the_expected_notices,
    unsubscribe_stops_one_kind_of_mail,
    mail_is_retried_until_the_relay_takes_it,
    a_refused_address_fails_at_once_and_shows,
    a_disabled_webhook_mails_its_owner,
    without_smtp_mail_is_written_to_a_folder,
    two_processes_send_each_mail_once,
);

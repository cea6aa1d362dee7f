//! Table talk end to end: draw offers (R36), chat, notes and premoves.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{
    assert_problem, heard, ok, spawn_app, spawn_app_with, Backend, TestApp, Trio,
};
use crate::on_both_backends;
use crate::webhooks::{self, Receiver};

/// POST `/api/v1/games/{id}/<path>` as player `who` with no body.
async fn post(app: &TestApp, t: &Trio, who: usize, id: &str, path: &str) -> reqwest::Response {
    app.authed(
        Method::POST,
        &format!("/api/v1/games/{id}/{path}"),
        &t.tokens[who],
        None,
    )
    .await
}

async fn r36_an_agreed_three_way_draw(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("agree").await;
    let id = app.started_game(&t, json!({"rated": true})).await;
    app.play_all(&t, &id, &["3d4d"]).await;
    let res = post(&app, &t, 1, &id, "draw/accept").await;
    assert_problem(res, StatusCode::CONFLICT, "game-state").await;

    let game = ok(post(&app, &t, 0, &id, "draw/offer").await).await;
    assert_eq!(game["draw_offer"]["by"], "first");
    assert_eq!(game["draw_offer"]["accepted"], json!(["first"]));
    assert_eq!(game["draw_offer"]["awaiting"], json!(["middle", "last"]));
    assert_eq!(game["draw_offer"]["ply"], 2);
    let again = ok(post(&app, &t, 0, &id, "draw/offer").await).await;
    assert_eq!(
        again["draw_offer"], game["draw_offer"],
        "offering twice changes nothing"
    );
    let res = post(&app, &t, 2, &id, "draw/offer").await;
    let p = assert_problem(res, StatusCode::CONFLICT, "game-state").await;
    assert!(
        p["detail"].as_str().unwrap().contains("accept or decline"),
        "{p}"
    );
    for who in [1, 2] {
        let offers = heard(&app, &t, who, &id, "game.draw_offered").await;
        assert_eq!(offers.len(), 1, "player {who}");
        assert_eq!(offers[0]["seat"], "first");
        assert_eq!(offers[0]["username"], t.names[0].as_str());
        assert_eq!(offers[0]["awaiting"], json!(["middle", "last"]));
    }
    assert!(heard(&app, &t, 0, &id, "game.draw_offered")
        .await
        .is_empty());

    let game = ok(post(&app, &t, 1, &id, "draw/accept").await).await;
    assert_eq!(game["status"], "active");
    assert_eq!(game["draw_offer"]["accepted"], json!(["first", "middle"]));
    assert_eq!(game["draw_offer"]["awaiting"], json!(["last"]));
    let twice = ok(post(&app, &t, 1, &id, "draw/accept").await).await;
    assert_eq!(twice["draw_offer"], game["draw_offer"]);
    // Middle, having accepted, moves on: the offer stands.
    let game = app.play_all(&t, &id, &["10m10l"]).await;
    assert_eq!(game["draw_offer"]["awaiting"], json!(["last"]));

    let game = ok(post(&app, &t, 2, &id, "draw/accept").await).await;
    assert_eq!(game["status"], "finished");
    assert_eq!(game["draw_offer"], Value::Null);
    assert_eq!(
        game["result"],
        json!({"winner": null, "draw": ["first", "middle", "last"], "reason": "agreement"})
    );
    for p in game["players"].as_array().unwrap() {
        assert_eq!(p["state"], "drew");
    }
    for who in 0..3 {
        let finished = heard(&app, &t, who, &id, "game.finished").await;
        assert_eq!(finished[0]["result"]["reason"], "agreement", "player {who}");
    }
    let res = post(&app, &t, 0, &id, "draw/offer").await;
    assert_problem(res, StatusCode::GONE, "game-over").await;
    let moves = app.move_list(&id).await;
    let last = moves.as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["kind"], "draw_agreed", "{last}");
    let record = app
        .request(Method::GET, &format!("/api/v1/games/{id}/record"))
        .await
        .text()
        .await
        .unwrap();
    assert!(record.contains("[Termination \"agreement\"]"), "{record}");
    assert!(record.contains("\ndraw:agreed"), "{record}");
}

/// Draw offers and alliance proposals mail the others, so each player may
/// make one of each per move of their own in a game (or one a day while
/// they cannot move): offering, withdrawing and offering again is refused
/// with 429 and `Retry-After`.
async fn offers_are_limited_to_one_per_own_move(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("flood").await;
    let id = app.started_game(&t, json!({})).await;
    ok(post(&app, &t, 0, &id, "draw/offer").await).await;
    ok(post(&app, &t, 0, &id, "draw/decline").await).await;
    let res = post(&app, &t, 0, &id, "draw/offer").await;
    let retry: i64 = res.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((86_000..=86_400).contains(&retry), "{retry}");
    assert_problem(res, StatusCode::TOO_MANY_REQUESTS, "rate-limited").await;
    // Another player is not limited by Alice's offers.
    ok(post(&app, &t, 1, &id, "draw/offer").await).await;
    ok(post(&app, &t, 1, &id, "draw/decline").await).await;

    let propose = |who: usize, to: &'static str| {
        let app = &app;
        let token = t.tokens[who].clone();
        let id = id.clone();
        async move {
            app.authed(
                Method::POST,
                &format!("/api/v1/games/{id}/alliance/proposals"),
                &token,
                Some(&json!({"to": to})),
            )
            .await
        }
    };
    let withdraw = |p: Value| {
        let (app, t, id) = (&app, &t, &id);
        async move {
            let pid = p["id"].as_str().unwrap().to_owned();
            let path = format!("alliance/proposals/{pid}/withdraw");
            ok(post(app, t, 0, id, &path).await).await;
        }
    };
    withdraw(ok(propose(0, "middle").await).await).await;
    let res = propose(0, "middle").await;
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(res.headers().contains_key("retry-after"));
    // A proposal to the other player mails someone else: it may go.
    withdraw(ok(propose(0, "last").await).await).await;

    // Once Alice has moved, she may offer and propose again.
    app.play_all(&t, &id, &["3d4d"]).await;
    ok(post(&app, &t, 0, &id, "draw/offer").await).await;
    ok(post(&app, &t, 0, &id, "draw/decline").await).await;
    withdraw(ok(propose(0, "last").await).await).await;
    assert_eq!(
        post(&app, &t, 0, &id, "draw/offer").await.status(),
        StatusCode::TOO_MANY_REQUESTS
    );
    // A day later without a move of hers (it is not her turn), once more.
    app.clock
        .advance(chrono::Duration::hours(24) + chrono::Duration::seconds(1));
    let t = app.log_in_again(&t).await;
    ok(post(&app, &t, 0, &id, "draw/offer").await).await;

    // Bob heard of three offers by Alice, not of the refused ones.
    let offers = heard(&app, &t, 1, &id, "game.draw_offered").await;
    let alices = offers.iter().filter(|o| o["seat"] == "first").count();
    assert_eq!(alices, 3, "{offers:?}");
}

async fn r36_a_draw_declined_by_moving_withdrawn_and_lapsed(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("decl").await;
    let id = app.started_game(&t, json!({})).await;
    // First offers with its move; Middle moves instead of answering.
    let res = app
        .authed(
            Method::POST,
            &format!("/api/v1/games/{id}/moves"),
            &t.tokens[0],
            Some(&json!({"move": "3d4d", "ply": 1, "offer_draw": true})),
        )
        .await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let game: Value = res.json().await.unwrap();
    assert_eq!(game["draw_offer"]["by"], "first");
    assert_eq!(game["draw_offer"]["ply"], 2);
    let game = app.play_all(&t, &id, &["10m10l"]).await;
    assert_eq!(game["draw_offer"], Value::Null, "moving declines (R36)");
    for who in [0, 2] {
        let declined = heard(&app, &t, who, &id, "game.draw_declined").await;
        assert_eq!(declined.len(), 1, "player {who}");
        assert_eq!(declined[0]["reason"], "moved");
        assert_eq!(declined[0]["seat"], "middle");
        assert_eq!(declined[0]["offered_by"], "first");
    }
    assert!(heard(&app, &t, 1, &id, "game.draw_declined")
        .await
        .is_empty());

    // Last offers and withdraws; then, having moved (one offer per move of
    // one's own), offers again and First declines.
    ok(post(&app, &t, 2, &id, "draw/offer").await).await;
    let game = ok(post(&app, &t, 2, &id, "draw/decline").await).await;
    assert_eq!(game["draw_offer"], Value::Null);
    let last = app.game_json(&t.tokens[2], &id).await;
    let mv = last["legal_moves"][0].as_str().unwrap().to_owned();
    app.play_all(&t, &id, &[mv.as_str()]).await;
    ok(post(&app, &t, 2, &id, "draw/offer").await).await;
    let game = ok(post(&app, &t, 0, &id, "draw/decline").await).await;
    assert_eq!(game["draw_offer"], Value::Null);
    let reasons: Vec<Value> = heard(&app, &t, 1, &id, "game.draw_declined")
        .await
        .into_iter()
        .map(|d| d["reason"].clone())
        .collect();
    assert_eq!(reasons, [json!("withdrawn"), json!("declined")]);

    // An alliance formed while an offer stands withdraws it.
    ok(post(&app, &t, 1, &id, "draw/offer").await).await;
    let p = app
        .authed(
            Method::POST,
            &format!("/api/v1/games/{id}/alliance/proposals"),
            &t.tokens[0],
            Some(&json!({"to": "last"})),
        )
        .await;
    let p: Value = p.json().await.unwrap();
    let pid = p["id"].as_str().unwrap();
    let answered = ok(post(
        &app,
        &t,
        2,
        &id,
        &format!("alliance/proposals/{pid}/accept"),
    )
    .await)
    .await;
    assert_eq!(
        answered["game"]["alliance"]["seats"],
        json!(["first", "last"])
    );
    assert_eq!(answered["game"]["draw_offer"], Value::Null);
    let last = heard(&app, &t, 1, &id, "game.draw_declined").await;
    assert_eq!(last.last().unwrap()["reason"], "alliance_formed");
    assert_eq!(last.last().unwrap()["seat"], Value::Null);

    // An elimination withdraws one too; only the living take part. (First
    // moves first: her last offer came with her last move.)
    let first = app.game_json(&t.tokens[0], &id).await;
    let mv = first["legal_moves"][0].as_str().unwrap().to_owned();
    app.play_all(&t, &id, &[mv.as_str()]).await;
    ok(post(&app, &t, 0, &id, "draw/offer").await).await;
    ok(post(&app, &t, 1, &id, "resign").await).await;
    let game = app.game_json(&t.tokens[0], &id).await;
    assert_eq!(game["draw_offer"], Value::Null);
    let res = post(&app, &t, 1, &id, "draw/offer").await;
    assert_problem(res, StatusCode::CONFLICT, "not-playing").await;
    let res = app
        .authed(
            Method::POST,
            &format!("/api/v1/games/{id}/draw/offer"),
            "nope",
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    let outsider = app.trio("out").await;
    let res = post(&app, &outsider, 0, &id, "draw/offer").await;
    assert_problem(res, StatusCode::FORBIDDEN, "not-a-player").await;
}

/// POST a chat message as player `who`.
async fn say(
    app: &TestApp,
    t: &Trio,
    who: usize,
    id: &str,
    text: &str,
    to: &str,
) -> reqwest::Response {
    app.authed(
        Method::POST,
        &format!("/api/v1/games/{id}/chat"),
        &t.tokens[who],
        Some(&json!({"text": text, "to": to})),
    )
    .await
}

/// The texts of the chat `who` reads.
async fn chat_of(app: &TestApp, t: &Trio, who: usize, id: &str) -> Vec<String> {
    let page = ok(app
        .authed(
            Method::GET,
            &format!("/api/v1/games/{id}/chat"),
            &t.tokens[who],
            None,
        )
        .await)
    .await;
    page["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap().to_owned())
        .collect()
}

async fn private_chat_is_invisible_to_the_third_player(backend: Backend) {
    let app = webhooks::app(backend, "1").await;
    let t = app.trio("pm").await;
    // Alice, the third player, listens for chat on a webhook.
    let rx = Receiver::start();
    let hook = webhooks::create(
        &app,
        &t.tokens[0],
        json!({"url": rx.url, "events": ["game.chat"]}),
    )
    .await;
    let id = app.started_game(&t, json!({})).await;
    let secret = "<b>Bob & Carol</b> against Alice?";
    let sent = ok(say(&app, &t, 1, &id, secret, "last").await).await;
    assert_eq!(sent["n"], 1);
    assert_eq!(sent["from"], "middle");
    assert_eq!(sent["to"], "last");
    assert_eq!(sent["text"], secret, "stored as written");
    assert_eq!(sent["username"], t.names[1].as_str());
    let sent = ok(say(&app, &t, 1, &id, "good luck, all", "all").await).await;
    assert_eq!(sent["n"], 2);
    assert_eq!(sent["to"], "all");

    assert_eq!(chat_of(&app, &t, 0, &id).await, ["good luck, all"]);
    for who in [1, 2] {
        assert_eq!(
            chat_of(&app, &t, who, &id).await,
            [secret, "good luck, all"]
        );
    }
    let page = ok(app
        .authed(
            Method::GET,
            &format!("/api/v1/games/{id}/chat?after=1"),
            &t.tokens[2],
            None,
        )
        .await)
    .await;
    assert_eq!(page["messages"].as_array().unwrap().len(), 1);
    assert_eq!(page["table_muted"], false);

    let texts = |events: Vec<Value>| -> Vec<String> {
        events
            .iter()
            .map(|e| e["text"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        texts(heard(&app, &t, 0, &id, "game.chat").await),
        ["good luck, all"]
    );
    assert_eq!(
        texts(heard(&app, &t, 2, &id, "game.chat").await),
        [secret, "good luck, all"]
    );
    assert!(
        heard(&app, &t, 1, &id, "game.chat").await.is_empty(),
        "not to the writer"
    );
    // The webhook carries the table message; the private one, written
    // before it, never reaches Alice's receiver.
    let got = rx.wait_for(1).await;
    let body = webhooks::verified(hook["secret"].as_str().unwrap(), &got[0]);
    assert_eq!(body["type"], "game.chat");
    assert_eq!(body["data"]["text"], "good luck, all");
    let log = webhooks::wait_deliveries(&app, &t.tokens[0], hook["id"].as_str().unwrap(), |l| {
        l.iter().all(|d| d["status"] == "delivered")
    })
    .await;
    assert_eq!(log.len(), 1, "{log:?}");

    // Not after the game either, and not in the record.
    ok(post(&app, &t, 1, &id, "resign").await).await;
    let game = ok(post(&app, &t, 2, &id, "resign").await).await;
    assert_eq!(game["status"], "finished");
    assert_eq!(chat_of(&app, &t, 0, &id).await, ["good luck, all"]);
    let record = app
        .request(Method::GET, &format!("/api/v1/games/{id}/record"))
        .await
        .text()
        .await
        .unwrap();
    assert!(!record.contains("Carol against"), "{record}");
    // Players only; the text and the recipient are checked.
    let outsider = app.trio("pmout").await;
    let res = say(&app, &outsider, 0, &id, "hi", "all").await;
    assert_problem(res, StatusCode::FORBIDDEN, "not-a-player").await;
    let res = app
        .authed(
            Method::GET,
            &format!("/api/v1/games/{id}/chat"),
            &outsider.tokens[0],
            None,
        )
        .await;
    assert_problem(res, StatusCode::FORBIDDEN, "not-a-player").await;
    for (text, to) in [
        ("", "all"),
        ("   ", "all"),
        ("ding\u{7}", "all"),
        ("me", "middle"),
        ("x", "centre"),
    ] {
        let res = say(&app, &t, 1, &id, text, to).await;
        assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    }
    let long = "ä".repeat(501);
    let res = say(&app, &t, 1, &id, &long, "all").await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    ok(say(&app, &t, 1, &id, &"ä".repeat(500), "all").await).await;
}

/// The chat `who` reads, as (number, text).
async fn numbered_chat_of(app: &TestApp, token: &str, id: &str, after: i64) -> Vec<(i64, String)> {
    let page = ok(app
        .authed(
            Method::GET,
            &format!("/api/v1/games/{id}/chat?after={after}"),
            token,
            None,
        )
        .await)
    .await;
    page["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["n"].as_i64().unwrap(),
                m["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// A private message is addressed to a person, not to a seat: whoever takes
/// a seat later never reads what was written to it before.
async fn a_private_message_is_for_a_person_not_a_seat(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("pa").await;
    let mallory = {
        let user = app.register_user("pamallory").await;
        app.tokens_for(&user).await.access
    };
    let body = json!({"seat": "first", "invite": [t.names[1], t.names[2]]});
    let game = ok(app.create_game(&t.tokens[0], &body).await).await;
    let id = game["id"].as_str().unwrap().to_owned();
    ok(app.join_game(&t.tokens[1], &id).await).await;
    app.clock.advance(chrono::Duration::minutes(1));

    // Carol is invited but has not joined: her seat is nobody's yet.
    let res = say(&app, &t, 0, &id, "Carol, ally with me?", "last").await;
    let problem = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    assert_eq!(crate::helpers::error_fields(&problem), ["to"], "{problem}");
    ok(say(&app, &t, 0, &id, "Bob, ally with me?", "middle").await).await;
    // A message the old server stored for the invited seat (it refused only
    // seats without an invitation).
    let quoted = |s: &str| s.replace('\'', "''");
    app.execute_sql(&format!(
        "INSERT INTO chat_messages (game_id, n, user_id, from_seat, to_seat, body, created_at) \
         SELECT game_id, 2, user_id, 'first', 'last', '{}', created_at FROM chat_messages \
         WHERE game_id = '{}' AND n = 1",
        quoted("Carol, it's me"),
        quoted(&id)
    ))
    .await;
    app.clock.advance(chrono::Duration::minutes(1));

    // Carol declines; Mallory takes the seat.
    ok(app
        .authed(
            Method::POST,
            &format!("/api/v1/games/{id}/decline"),
            &t.tokens[2],
            None,
        )
        .await)
    .await;
    app.clock.advance(chrono::Duration::minutes(1));
    ok(app.join_game(&mallory, &id).await).await;
    let game = app.game_json(&mallory, &id).await;
    assert_eq!(game["status"], "active", "{game}");
    ok(app
        .authed(
            Method::POST,
            &format!("/api/v1/games/{id}/chat"),
            &mallory,
            Some(&json!({"text": "hello, table", "to": "all"})),
        )
        .await)
    .await;

    // Stored messages get their recipient as the migration gives it: the
    // seat's holder only if they had joined before the message was written.
    let up = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(
        format!(
            "migrations/{}/2026-12-11-000000_chat_recipients/up.sql",
            backend.dir()
        ),
    ))
    .unwrap();
    app.execute_sql("UPDATE chat_messages SET to_user_id = NULL")
        .await;
    let code: String = up
        .lines()
        .filter(|l| !l.trim_start().starts_with("--"))
        .collect::<Vec<_>>()
        .join("\n");
    for statement in code.split(';').map(str::trim) {
        if !statement.is_empty() && !statement.starts_with("ALTER") {
            app.execute_sql(statement).await;
        }
    }

    assert_eq!(
        numbered_chat_of(&app, &mallory, &id, 0).await,
        [(1, "hello, table".to_owned())],
        "Mallory reads nothing written before she sat down"
    );
    assert_eq!(
        numbered_chat_of(&app, &t.tokens[1], &id, 0).await,
        [
            (1, "Bob, ally with me?".to_owned()),
            (2, "hello, table".to_owned())
        ]
    );
    assert_eq!(
        numbered_chat_of(&app, &t.tokens[0], &id, 0).await,
        [
            (1, "Bob, ally with me?".to_owned()),
            (2, "Carol, it's me".to_owned()),
            (3, "hello, table".to_owned())
        ],
        "the writer still reads what they wrote"
    );
    let mallory_heard: Vec<Value> = app.events(&mallory, &id).await;
    assert!(
        !mallory_heard.iter().any(|e| e["type"] == "game.chat"),
        "{mallory_heard:?}"
    );
    let res = app
        .authed(
            Method::GET,
            &format!("/api/v1/games/{id}/chat"),
            &t.tokens[2],
            None,
        )
        .await;
    assert_problem(res, StatusCode::FORBIDDEN, "not-a-player").await;
}

/// Each reader numbers the messages they may read 1, 2, 3…: the third player
/// cannot count the private messages between the other two (in the chat, the
/// answers and the events).
async fn chat_is_numbered_per_reader(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("np").await;
    let id = app.started_game(&t, json!({})).await;
    let sent = ok(say(&app, &t, 1, &id, "one for all", "all").await).await;
    assert_eq!(sent["n"], 1);
    for (i, text) in ["psst 1", "psst 2"].iter().enumerate() {
        let sent = ok(say(&app, &t, 1, &id, text, "last").await).await;
        assert_eq!(sent["n"], i as i64 + 2);
    }
    let sent = ok(say(&app, &t, 2, &id, "two for all", "all").await).await;
    assert_eq!(sent["n"], 4, "Carol read the two private ones");

    let alice = numbered_chat_of(&app, &t.tokens[0], &id, 0).await;
    assert_eq!(
        alice,
        [(1, "one for all".to_owned()), (2, "two for all".to_owned())]
    );
    assert_eq!(
        numbered_chat_of(&app, &t.tokens[0], &id, 1).await,
        [(2, "two for all".to_owned())],
        "after is in the reader's numbering"
    );
    assert_eq!(numbered_chat_of(&app, &t.tokens[2], &id, 3).await.len(), 1);
    assert!(
        numbered_chat_of(&app, &t.tokens[2], &id, i64::from(i32::MAX) - 1)
            .await
            .is_empty()
    );
    let numbers = |events: Vec<Value>| -> Vec<i64> {
        events.iter().map(|e| e["n"].as_i64().unwrap()).collect()
    };
    assert_eq!(numbers(heard(&app, &t, 0, &id, "game.chat").await), [1, 2]);
    assert_eq!(numbers(heard(&app, &t, 1, &id, "game.chat").await), [4]);
    assert_eq!(
        numbers(heard(&app, &t, 2, &id, "game.chat").await),
        [1, 2, 3]
    );
}

async fn chat_is_rate_limited_and_the_table_can_be_muted(backend: Backend) {
    let app = spawn_app_with(backend, |s| s.limits.chat_messages.max = 3).await;
    let t = app.trio("rl").await;
    let id = app.started_game(&t, json!({})).await;
    let muted = ok(app
        .authed(
            Method::PUT,
            &format!("/api/v1/games/{id}/chat/mute"),
            &t.tokens[2],
            Some(&json!({"table_muted": true})),
        )
        .await)
    .await;
    assert_eq!(muted["table_muted"], true);
    for i in 0..3 {
        ok(say(&app, &t, 0, &id, &format!("message {i}"), "all").await).await;
    }
    let res = say(&app, &t, 0, &id, "one too many", "all").await;
    let wait: u64 = res.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&wait), "{wait}");
    assert_problem(res, StatusCode::TOO_MANY_REQUESTS, "rate-limited").await;
    // The limit is per player per game: Bob may still write.
    ok(say(&app, &t, 1, &id, "my turn to talk", "last").await).await;
    app.clock.advance(chrono::Duration::seconds(61));
    ok(say(&app, &t, 0, &id, "after a minute", "all").await).await;
    // Carol muted the table: she hears only the private message, and still
    // reads everything.
    let heard_texts: Vec<Value> = heard(&app, &t, 2, &id, "game.chat")
        .await
        .into_iter()
        .map(|e| e["text"].clone())
        .collect();
    assert_eq!(heard_texts, [json!("my turn to talk")]);
    assert_eq!(chat_of(&app, &t, 2, &id).await.len(), 5);
    assert_eq!(heard(&app, &t, 1, &id, "game.chat").await.len(), 4);
    // Mail for chat is off until turned on.
    let settings = ok(app
        .authed(Method::GET, "/api/v1/me/notifications", &t.tokens[2], None)
        .await)
    .await;
    assert_eq!(settings["mail"]["game.chat"], false);
    assert_eq!(settings["mail"]["game.draw_offered"], true);
    let settings = ok(app
        .authed(
            Method::PATCH,
            "/api/v1/me/notifications",
            &t.tokens[2],
            Some(&json!({"mail": {"game.chat": true, "game.draw_offered": false}})),
        )
        .await)
    .await;
    assert_eq!(settings["mail"]["game.chat"], true);
    assert_eq!(settings["mail"]["game.draw_offered"], false);
}

async fn notes_are_private_to_their_writer(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("notes").await;
    let id = app.started_game(&t, json!({})).await;
    let path = format!("/api/v1/games/{id}/notes");
    let read = |who: usize| {
        let (app, t, path) = (&app, &t, path.clone());
        async move { ok(app.authed(Method::GET, &path, &t.tokens[who], None).await).await }
    };
    let write = |who: usize, text: String| {
        let (app, t, path) = (&app, &t, path.clone());
        async move {
            app.authed(
                Method::PUT,
                &path,
                &t.tokens[who],
                Some(&json!({ "text": text })),
            )
            .await
        }
    };
    let empty = read(1).await;
    assert_eq!(empty, json!({"text": "", "updated_at": null}));
    let plan = "Carol agreed to ally if <Alice> castles.\nWatch 7g.".to_owned();
    let saved = ok(write(1, plan.clone()).await).await;
    assert_eq!(saved["text"], plan.as_str());
    assert!(saved["updated_at"].is_string());
    assert_eq!(read(1).await["text"], plan.as_str());
    for other in [0, 2] {
        assert_eq!(read(other).await["text"], "", "player {other}");
    }
    ok(write(2, "mine".into()).await).await;
    assert_eq!(read(1).await["text"], plan.as_str());
    // At most 10,000 characters; empty removes them.
    let res = write(1, "n".repeat(10_001)).await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    ok(write(1, "ü".repeat(10_000)).await).await;
    ok(write(1, String::new()).await).await;
    assert_eq!(read(1).await, json!({"text": "", "updated_at": null}));
    assert_eq!(read(2).await["text"], "mine");
    let outsider = app.trio("notesout").await;
    let res = app
        .authed(Method::GET, &path, &outsider.tokens[0], None)
        .await;
    assert_problem(res, StatusCode::FORBIDDEN, "not-a-player").await;
    let res = app
        .authed(
            Method::PUT,
            &path,
            &outsider.tokens[0],
            Some(&json!({"text": "x"})),
        )
        .await;
    assert_problem(res, StatusCode::FORBIDDEN, "not-a-player").await;
}

/// PUT premoves as player `who`.
async fn premove(app: &TestApp, t: &Trio, who: usize, id: &str, lines: Value) -> reqwest::Response {
    app.authed(
        Method::PUT,
        &format!("/api/v1/games/{id}/premoves"),
        &t.tokens[who],
        Some(&json!({ "lines": lines })),
    )
    .await
}

/// `who`'s premoves, or None when they have none (no lines left).
async fn premoves_of(app: &TestApp, t: &Trio, who: usize, id: &str) -> Option<Value> {
    let path = format!("/api/v1/games/{id}/premoves");
    let set = ok(app.authed(Method::GET, &path, &t.tokens[who], None).await).await;
    if set["lines"] == json!([]) {
        assert_eq!(set["from_ply"], Value::Null, "{set}");
        return None;
    }
    Some(set)
}

async fn a_premove_chain_across_two_players_resolves_at_once(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("chain").await;
    let id = app.started_game(&t, json!({})).await;
    // Middle answers 2g10k+ with 12l8d; Last answers that with 10d8d.
    let saved = ok(premove(
        &app,
        &t,
        1,
        &id,
        json!([
            ["2g10k+", "12l8d"],
            ["3d4d", "12l8d", "10d8d", "1d2e", "7k7j"]
        ]),
    )
    .await)
    .await;
    assert_eq!(saved["from_ply"], 1);
    assert_eq!(saved["lines"].as_array().unwrap().len(), 2);
    ok(premove(&app, &t, 2, &id, json!([["2g10k+", "12l8d", "10d8d"]])).await).await;
    // Private to their owner.
    assert_eq!(premoves_of(&app, &t, 0, &id).await, None);

    let game = app.play_all(&t, &id, &["2g10k+"]).await;
    assert_eq!(game["ply"], 4, "{game}");
    assert_eq!(game["to_move"], "first");
    assert_eq!(game["last_move"]["move"], "10d8d");
    let moves = app.move_list(&id).await;
    let played: Vec<(Value, Value, Value)> = moves
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["notation"].clone(),
                m["premove"].clone(),
                m["username"].clone(),
            )
        })
        .collect();
    assert_eq!(
        played,
        [
            (json!("2g10k+"), json!(false), json!(t.names[0])),
            (json!("12l8d"), json!(true), json!(t.names[1])),
            (json!("10d8d"), json!(true), json!(t.names[2])),
        ]
    );
    // Each hears of the premoves by game.move, its own included; nobody was
    // told it was their turn but First.
    for who in 0..3 {
        let premoved: Vec<Value> = heard(&app, &t, who, &id, "game.move")
            .await
            .into_iter()
            .filter(|m| m["premove"] == true)
            .map(|m| m["move"].clone())
            .collect();
        assert_eq!(premoved, [json!("12l8d"), json!("10d8d")], "player {who}");
    }
    let turns: Vec<Value> = heard(&app, &t, 0, &id, "game.your_turn")
        .await
        .into_iter()
        .map(|e| e["ply"].clone())
        .collect();
    assert_eq!(turns, [json!(1), json!(4)]);
    for who in [1, 2] {
        assert!(
            heard(&app, &t, who, &id, "game.your_turn").await.is_empty(),
            "player {who}"
        );
        assert_eq!(premoves_of(&app, &t, who, &id).await, None, "used up");
    }
}

async fn a_premove_is_dropped_when_the_reply_differs_and_checked_when_saved(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("drop").await;
    let id = app.started_game(&t, json!({})).await;
    ok(premove(
        &app,
        &t,
        1,
        &id,
        json!([
            ["2g10k+", "12l8d"],
            ["3d4d", "12l8d", "10d8d", "1d2e", "7k7j"]
        ]),
    )
    .await)
    .await;
    let game = app.play_all(&t, &id, &["1d2e"]).await;
    assert_eq!(
        game["to_move"], "middle",
        "nothing matched: Middle moves itself"
    );
    assert_eq!(premoves_of(&app, &t, 1, &id).await, None);
    assert_eq!(heard(&app, &t, 1, &id, "game.your_turn").await.len(), 1);

    // A line that still matches waits for the rest.
    let id = app.started_game(&t, json!({})).await;
    ok(premove(
        &app,
        &t,
        1,
        &id,
        json!([
            ["3d4d", "12l8d", "10d8d", "1d2e", "7k7j"],
            ["2g10k+", "12l8d"]
        ]),
    )
    .await)
    .await;
    let game = app.play_all(&t, &id, &["3d4d"]).await;
    assert_eq!(game["to_move"], "last");
    assert_eq!(game["last_move"]["move"], "12l8d");
    let left = premoves_of(&app, &t, 1, &id).await.unwrap();
    assert_eq!(left["lines"], json!([["10d8d", "1d2e", "7k7j"]]));
    assert_eq!(left["from_ply"], 3);
    let game = app.play_all(&t, &id, &["10d9d"]).await;
    assert_eq!(game["to_move"], "first", "Last played otherwise");
    assert_eq!(premoves_of(&app, &t, 1, &id).await, None);

    // Every move is checked when saved; the refusal names line and index.
    let id = app.started_game(&t, json!({})).await;
    let res = premove(
        &app,
        &t,
        1,
        &id,
        json!([["1d2e", "10m10l"], ["1d2e", "1c1d"]]),
    )
    .await;
    let p = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    let errors = p["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{p}");
    assert_eq!(errors[0]["field"], "lines[1][1]");
    assert_eq!(errors[0]["code"], "not-your-piece");
    let res = premove(&app, &t, 1, &id, json!([["1d2e"]])).await;
    let p = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    assert_eq!(p["errors"][0]["code"], "no-move-of-yours");
    let too_long = vec!["1d2e"; 13];
    let res = premove(&app, &t, 1, &id, json!([too_long])).await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    let res = premove(&app, &t, 1, &id, json!(vec![["1d2e", "10m10l"]; 101])).await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    let outsider = app.trio("dropout").await;
    let res = premove(&app, &outsider, 0, &id, json!([["1d2e"]])).await;
    assert_problem(res, StatusCode::FORBIDDEN, "not-a-player").await;
    // DELETE removes them.
    ok(premove(&app, &t, 1, &id, json!([["1d2e", "10m10l"]])).await).await;
    let res = app
        .authed(
            Method::DELETE,
            &format!("/api/v1/games/{id}/premoves"),
            &t.tokens[1],
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    assert_eq!(premoves_of(&app, &t, 1, &id).await, None);
}

async fn premoves_are_cleared_by_an_alliance_and_a_draw_offer(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("clr").await;
    let id = app.started_game(&t, json!({})).await;
    let lines = json!([["2g10k+", "12l8d"]]);
    ok(premove(&app, &t, 1, &id, lines.clone()).await).await;
    // A draw offer is no way to wipe the others' premoves: Middle's stands,
    // plays, and like any move declines the offer.
    ok(post(&app, &t, 0, &id, "draw/offer").await).await;
    assert!(
        premoves_of(&app, &t, 1, &id).await.is_some(),
        "the offer leaves them"
    );
    let game = app.play_all(&t, &id, &["2g10k+"]).await;
    assert_eq!(game["last_move"]["move"], "12l8d", "{}", game["last_move"]);
    assert_eq!(game["draw_offer"], Value::Null);
    for who in [0, 1, 2] {
        let declined = heard(&app, &t, who, &id, "game.draw_declined").await;
        assert_eq!(declined.len(), 1, "player {who}: {declined:?}");
        assert_eq!(declined[0]["reason"], "moved");
        assert_eq!(declined[0]["seat"], "middle");
    }
    app.play_all(&t, &id, &["10d8d"]).await;

    let lines = json!([["1d2e", "12k11j"]]);
    ok(premove(&app, &t, 1, &id, lines.clone()).await).await;
    ok(premove(&app, &t, 2, &id, json!([["1d2e", "12k11j", "10f9f"]])).await).await;
    let p: Value = app
        .authed(
            Method::POST,
            &format!("/api/v1/games/{id}/alliance/proposals"),
            &t.tokens[0],
            Some(&json!({"to": "last"})),
        )
        .await
        .json()
        .await
        .unwrap();
    let pid = p["id"].as_str().unwrap();
    ok(post(
        &app,
        &t,
        2,
        &id,
        &format!("alliance/proposals/{pid}/accept"),
    )
    .await)
    .await;
    for who in [1, 2] {
        assert_eq!(premoves_of(&app, &t, who, &id).await, None, "player {who}");
    }
    // Nothing is played for Middle after First's move.
    let game = app.play_all(&t, &id, &["1d2e"]).await;
    assert_eq!(game["to_move"], "middle");
}

/// Two server processes on one database race First's move: exactly one move
/// is stored, and Middle's premove for it is played once.
async fn racing_processes_play_a_premove_once(backend: Backend) {
    let app = spawn_app(backend).await;
    let second = app.restart().await;
    let t = app.trio("prace").await;
    for _ in 0..3 {
        let id = app.started_game(&t, json!({})).await;
        let lines = json!([["2g10k+", "12l8d"], ["3d4d", "12l8d"]]);
        ok(premove(&app, &t, 1, &id, lines).await).await;
        let (ra, rb) = tokio::join!(
            app.play_move(&t.tokens[0], &id, "2g10k+", 1),
            second.play_move(&t.tokens[0], &id, "3d4d", 1)
        );
        let codes = [ra.status(), rb.status()];
        assert_eq!(
            codes.iter().filter(|c| **c == StatusCode::CREATED).count(),
            1,
            "{codes:?}"
        );
        let moves = app.move_list(&id).await;
        let played: Vec<(Value, Value)> = moves
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m["ply"].clone(), m["premove"].clone()))
            .collect();
        assert_eq!(played, [(json!(1), json!(false)), (json!(2), json!(true))]);
        let game = app.game_json(&t.tokens[0], &id).await;
        assert_eq!(game["to_move"], "last");
    }
}

/// How many of the test database's sessions wait for a lock.
async fn waiting_for_locks(app: &TestApp) -> i64 {
    app.with_connection(|conn| {
        use diesel::RunQueryDsl as _;
        #[derive(diesel::QueryableByName)]
        struct Count {
            #[diesel(sql_type = diesel::sql_types::BigInt)]
            n: i64,
        }
        let c: Count = diesel::sql_query(
            "SELECT count(*) AS n FROM pg_stat_activity \
             WHERE datname = current_database() AND wait_event_type = 'Lock'",
        )
        .get_result(conn)
        .unwrap();
        c.n
    })
    .await
}

/// On PostgreSQL most moves are read outside a transaction and stored by
/// one statement if the game row is still as read. Premoves stored in
/// between change no column of the game, yet the move must not be stored
/// without them: here the premoves are saved after the move was read and
/// before it is written (both wait behind a lock on the game row, the
/// premoves first), and the move still plays them.
#[actix_web::test]
async fn premoves_saved_while_a_move_is_under_way_are_played() {
    let backend = Backend::Postgres;
    if !crate::helpers::available(
        backend,
        "premoves_saved_while_a_move_is_under_way_are_played",
    ) {
        return;
    }
    let app = spawn_app(backend).await;
    let t = app.trio("pflight").await;
    let id = app.started_game(&t, json!({})).await;

    // Another session holds the game row's lock until told.
    let (locked_tx, locked_rx) = std::sync::mpsc::channel();
    let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
    let (url, game) = (app.database_url(), id.clone());
    let holder = tokio::task::spawn_blocking(move || {
        use diesel::connection::SimpleConnection as _;
        use diesel::Connection as _;
        let mut conn = diesel::PgConnection::establish(&url).unwrap();
        conn.batch_execute(&format!(
            "BEGIN; SELECT 1 FROM games WHERE id = '{game}' FOR NO KEY UPDATE;"
        ))
        .unwrap();
        locked_tx.send(()).unwrap();
        let _ = release_rx.recv_timeout(std::time::Duration::from_secs(30));
        conn.batch_execute("ROLLBACK;").unwrap();
    });
    locked_rx.recv().unwrap();

    let lines = json!([["1d2e", "10m10l"]]);
    let saving = premove(&app, &t, 1, &id, lines);
    let moving = async {
        // The premoves wait for the lock first, then the move's write.
        crate::helpers::eventually("the premoves wait", || async {
            (waiting_for_locks(&app).await == 1).then_some(())
        })
        .await;
        let res = app.play_move(&t.tokens[0], &id, "1d2e", 1);
        let release = async {
            crate::helpers::eventually("the move waits", || async {
                (waiting_for_locks(&app).await == 2).then_some(())
            })
            .await;
            release_tx.send(()).unwrap();
        };
        tokio::join!(res, release).0
    };
    let (saved, moved) = tokio::join!(saving, moving);
    ok(saved).await;
    holder.await.unwrap();
    assert_eq!(moved.status(), StatusCode::CREATED);
    let game = moved.json::<Value>().await.unwrap();
    assert_eq!(game["to_move"], "last", "{}", game["last_move"]);
    assert_eq!(game["last_move"]["move"], "10m10l");
    assert_eq!(premoves_of(&app, &t, 1, &id).await, None);
}

on_both_backends!(
    racing_processes_play_a_premove_once,
    a_premove_chain_across_two_players_resolves_at_once,
    a_premove_is_dropped_when_the_reply_differs_and_checked_when_saved,
    premoves_are_cleared_by_an_alliance_and_a_draw_offer,
    notes_are_private_to_their_writer,
    private_chat_is_invisible_to_the_third_player,
    a_private_message_is_for_a_person_not_a_seat,
    chat_is_numbered_per_reader,
    chat_is_rate_limited_and_the_table_can_be_muted,
    r36_an_agreed_three_way_draw,
    offers_are_limited_to_one_per_own_move,
    r36_a_draw_declined_by_moving_withdrawn_and_lapsed,
);

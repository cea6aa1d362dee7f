//! The games lobby end to end: creating, joining, invitations, declining,
//! cancelling, listing and expiry, over HTTP on both backends.

use std::collections::HashSet;
use std::time::Duration;

use reqwest::{Method, Response, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{
    assert_problem, error_fields, eventually, spawn_app, spawn_app_with, Backend, TestApp,
};
use crate::on_both_backends;

fn types(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| e["type"].as_str().unwrap().to_owned())
        .collect()
}

/// Registers and logs in one more user, returning its access token.
async fn signed_in(app: &TestApp, username: &str) -> String {
    let user = app.register_user(username).await;
    app.tokens_for(&user).await.access
}

/// Creates a game, asserting 201, and returns its view.
async fn created(app: &TestApp, token: &str, body: Value) -> Value {
    let res = app.create_game(token, &body).await;
    let status = res.status();
    let game: Value = res.json().await.unwrap();
    assert_eq!(status, StatusCode::CREATED, "{body}: {game}");
    game
}

fn id_of(game: &Value) -> String {
    game["id"].as_str().unwrap().to_owned()
}

async fn join_seat(app: &TestApp, token: &str, id: &str, seat: &str) -> Response {
    app.authed(
        Method::POST,
        &format!("/api/v1/games/{id}/join?seat={seat}"),
        token,
        None,
    )
    .await
}

/// `POST /api/v1/games/{id}/{what}` with no body: `decline`, `cancel`.
async fn act(app: &TestApp, token: &str, id: &str, what: &str) -> Response {
    app.authed(
        Method::POST,
        &format!("/api/v1/games/{id}/{what}"),
        token,
        None,
    )
    .await
}

async fn ok_json(res: Response) -> Value {
    let status = res.status();
    let body: Value = res.json().await.unwrap();
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

/// All of a user's events, of every game.
async fn all_events(app: &TestApp, token: &str) -> Vec<Value> {
    ok_json(
        app.authed(Method::GET, "/api/v1/me/events?limit=500", token, None)
            .await,
    )
    .await
    .as_array()
    .unwrap()
    .clone()
}

async fn list(app: &TestApp, token: &str, query: &str) -> Response {
    app.authed(Method::GET, &format!("/api/v1/games{query}"), token, None)
        .await
}

/// The ids of one page of `GET /api/v1/games{query}`.
async fn listed_ids(app: &TestApp, token: &str, query: &str) -> Vec<String> {
    let page = ok_json(list(app, token, query).await).await;
    page["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(id_of)
        .collect()
}

fn set(ids: &[&String]) -> HashSet<String> {
    ids.iter().map(|s| (*s).clone()).collect()
}

fn as_set(ids: Vec<String>) -> HashSet<String> {
    ids.into_iter().collect()
}

async fn create_validation_names_the_field(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("val").await;
    let (alice, bob, carol) = (&t.names[0], &t.names[1], &t.names[2]);
    let cases: Vec<(Value, &str)> = vec![
        (json!({"seat": "north"}), "seat"),
        (json!({"seat": "f"}), "seat"),
        (
            json!({"invite": ["nobody-here"], "open_seats": 1}),
            "invite",
        ),
        (json!({"invite": [bob, "nobody-here"]}), "invite"),
        (json!({"invite": [alice], "open_seats": 1}), "invite"),
        (
            json!({"invite": [alice.to_uppercase()], "open_seats": 1}),
            "invite",
        ),
        (json!({"invite": [bob, bob.to_uppercase()]}), "invite[1]"),
        (json!({"invite": [bob, ""]}), "invite[1]"),
        (json!({"invite": [bob, carol, "dave"]}), "invite"),
        (json!({"open_seats": 1}), "open_seats"),
        (json!({"open_seats": 3}), "open_seats"),
        (json!({"invite": [bob], "open_seats": 0}), "open_seats"),
        (
            json!({"invite": [bob, carol], "open_seats": 1}),
            "open_seats",
        ),
        (json!({"open_seats": -1}), "open_seats"),
        (json!({"days_per_move": 4}), "days_per_move"),
        (json!({"days_per_move": 0}), "days_per_move"),
        (json!({"days_per_move": 30}), "days_per_move"),
        (json!({"days_per_move": "three"}), "days_per_move"),
        (
            json!({"options": {"stuck_piece": "drop"}}),
            "options.stuck_piece",
        ),
        (
            json!({"options": {"illumination": "none"}}),
            "options.illumination",
        ),
        (json!({"allies": ["first"]}), "allies"),
        (json!({"allies": ["first", "first"]}), "allies"),
        (json!({"allies": ["first", "west"]}), "allies"),
        (json!({"allies": ["first", "middle", "last"]}), "allies"),
    ];
    for (body, field) in cases {
        let res = app.create_game(&t.tokens[0], &body).await;
        let problem =
            assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
        assert!(
            error_fields(&problem).contains(&field.to_owned()),
            "{body} should name {field}: {problem}"
        );
    }

    // The reasons are told apart.
    let res = app
        .create_game(
            &t.tokens[0],
            &json!({"invite": ["nobody-here"], "open_seats": 1}),
        )
        .await;
    let problem = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    assert_eq!(problem["errors"][0]["code"], "unknown-user", "{problem}");
    let res = app
        .create_game(&t.tokens[0], &json!({"invite": [alice], "open_seats": 1}))
        .await;
    let problem = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    assert_eq!(problem["errors"][0]["code"], "self", "{problem}");
    let res = app
        .create_game(&t.tokens[0], &json!({"invite": [bob, bob]}))
        .await;
    let problem = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    assert_eq!(problem["errors"][0]["code"], "duplicate", "{problem}");

    // Several bad fields are reported together.
    let res = app
        .create_game(
            &t.tokens[0],
            &json!({"seat": "north", "days_per_move": 4, "allies": ["first"]}),
        )
        .await;
    let problem = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    let fields = error_fields(&problem);
    for f in ["seat", "days_per_move", "allies"] {
        assert!(fields.contains(&f.to_owned()), "{problem}");
    }

    // Unknown fields are refused, at the top and in `options`.
    let res = app
        .create_game(&t.tokens[0], &json!({"colour": "red"}))
        .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    let res = app
        .create_game(&t.tokens[0], &json!({"options": {"colour": "red"}}))
        .await;
    let problem = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    assert!(
        error_fields(&problem)[0].starts_with("options"),
        "{problem}"
    );

    // Nothing was created, and no one was invited by a refused request.
    assert_eq!(
        listed_ids(&app, &t.tokens[0], "").await,
        Vec::<String>::new()
    );
    assert_eq!(all_events(&app, &t.tokens[1]).await, Vec::<Value>::new());

    // Every accepted seat name and time control works.
    for seat in ["first", "middle", "last", "random"] {
        let game = created(&app, &t.tokens[0], json!({"seat": seat})).await;
        let mine = game["your_seat"].as_str().unwrap();
        if seat != "random" {
            assert_eq!(mine, seat);
        }
        assert!(["first", "middle", "last"].contains(&mine));
    }
    for days in [1, 2, 3, 5, 7, 10, 14] {
        let game = created(&app, &t.tokens[0], json!({"days_per_move": days})).await;
        assert_eq!(game["days_per_move"], days);
    }
    let game = created(&app, &t.tokens[0], json!({"days_per_move": null})).await;
    assert_eq!(game["days_per_move"], Value::Null);
}

async fn open_seats_fill_then_the_game_starts(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("open").await;
    let dave = signed_in(&app, "opendave").await;
    let res = app
        .create_game(&t.tokens[0], &json!({"seat": "first", "open_seats": 2}))
        .await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let game: Value = res.json().await.unwrap();
    let id = id_of(&game);
    assert_eq!(game["status"], "open");
    assert_eq!(game["to_move"], Value::Null);
    assert_eq!(game["your_seat"], "first");
    assert_eq!(game["created_by"], t.names[0].as_str());
    assert!(game["expires_at"].is_string());
    assert_eq!(game["started_at"], Value::Null);
    let states: Vec<&str> = game["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["state"].as_str().unwrap())
        .collect();
    assert_eq!(states, ["joined", "open", "open"]);

    // Bob takes the last seat by name; joining again changes nothing.
    let game = ok_json(join_seat(&app, &t.tokens[1], &id, "last").await).await;
    assert_eq!(game["status"], "open");
    assert_eq!(game["your_seat"], "last");
    assert_eq!(game["players"][2]["username"], t.names[1].as_str());
    assert_eq!(game["players"][2]["state"], "joined");
    assert_eq!(game["players"][1]["state"], "open");
    let again = ok_json(app.join_game(&t.tokens[1], &id).await).await;
    assert_eq!(again["your_seat"], "last");
    assert_eq!(again["status"], "open");
    assert_eq!(again["players"][1]["state"], "open");

    // A taken seat, or one that is not a seat, cannot be had.
    let res = join_seat(&app, &t.tokens[2], &id, "last").await;
    assert_problem(res, StatusCode::CONFLICT, "game-state").await;
    let res = join_seat(&app, &t.tokens[2], &id, "first").await;
    assert_problem(res, StatusCode::CONFLICT, "game-state").await;
    let res = join_seat(&app, &t.tokens[2], &id, "west").await;
    let p = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    assert_eq!(error_fields(&p), ["seat"]);
    let res = app.join_game(&t.tokens[2], "no-such-game").await;
    assert_problem(res, StatusCode::NOT_FOUND, "not-found").await;
    assert_eq!(app.game_json(&t.tokens[0], &id).await["status"], "open");

    // The third player starts the game.
    let game = ok_json(app.join_game(&t.tokens[2], &id).await).await;
    assert_eq!(game["status"], "active");
    assert_eq!(game["your_seat"], "middle");
    assert_eq!(game["to_move"], "first");
    assert_eq!(game["ply"], 1);
    assert!(game["started_at"].is_string());
    assert_eq!(game["expires_at"], Value::Null);
    for p in game["players"].as_array().unwrap() {
        assert_eq!(p["state"], "playing");
    }

    // A full, active game takes no one else; its players may join again harmlessly.
    let res = app.join_game(&dave, &id).await;
    assert_problem(res, StatusCode::CONFLICT, "game-state").await;
    let res = join_seat(&app, &dave, &id, "middle").await;
    assert_problem(res, StatusCode::CONFLICT, "game-state").await;
    for token in &t.tokens {
        let game = ok_json(app.join_game(token, &id).await).await;
        assert_eq!(game["status"], "active");
        assert_eq!(game["ply"], 1);
    }

    for token in &t.tokens {
        let heard = types(&app.events(token, &id).await);
        assert_eq!(
            heard.iter().filter(|e| *e == "game.started").count(),
            1,
            "{heard:?}"
        );
    }
    let alice = types(&app.events(&t.tokens[0], &id).await);
    assert!(alice.contains(&"game.your_turn".to_owned()), "{alice:?}");
    assert!(app.events(&dave, &id).await.is_empty());
}

async fn invitation_decline_opens_the_seat(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("inv").await;
    let dave = signed_in(&app, "invdave").await;
    // Alice takes the middle seat; Bob is invited to the first free one (first).
    let game = created(
        &app,
        &t.tokens[0],
        json!({"seat": "middle", "invite": [t.names[1].to_uppercase()]}),
    )
    .await;
    let id = id_of(&game);
    assert_eq!(game["players"][0]["username"], t.names[1].as_str());
    assert_eq!(game["players"][0]["state"], "invited");
    assert_eq!(game["players"][1]["state"], "joined");
    assert_eq!(game["players"][2]["state"], "open");

    let bob_heard = app.events(&t.tokens[1], &id).await;
    assert_eq!(types(&bob_heard), ["game.invited"]);
    let invited = &bob_heard[0];
    assert_eq!(invited["game_id"], id.as_str());
    assert_eq!(invited["data"]["seat"], "first");
    assert_eq!(invited["data"]["invited_by"], t.names[0].as_str());
    assert!(app.events(&t.tokens[0], &id).await.is_empty());

    // Only the invitee can decline.
    let res = act(&app, &dave, &id, "decline").await;
    assert_problem(res, StatusCode::FORBIDDEN, "not-a-player").await;
    let res = act(&app, &t.tokens[0], &id, "decline").await;
    assert_problem(res, StatusCode::CONFLICT, "game-state").await;
    let res = act(&app, &t.tokens[1], "no-such-game", "decline").await;
    assert_problem(res, StatusCode::NOT_FOUND, "not-found").await;

    let game = ok_json(act(&app, &t.tokens[1], &id, "decline").await).await;
    assert_eq!(game["status"], "open");
    assert_eq!(game["players"][0]["state"], "open");
    assert_eq!(game["players"][0]["username"], Value::Null);
    assert_eq!(game["your_seat"], Value::Null);
    let alice_heard = app.events(&t.tokens[0], &id).await;
    assert_eq!(types(&alice_heard), ["game.declined"]);
    assert_eq!(alice_heard[0]["data"]["seat"], "first");
    assert_eq!(alice_heard[0]["data"]["username"], t.names[1].as_str());
    // Having declined, Bob is no longer invited.
    let res = act(&app, &t.tokens[1], &id, "decline").await;
    assert_problem(res, StatusCode::FORBIDDEN, "not-a-player").await;

    // The freed seat is anyone's.
    let game = ok_json(join_seat(&app, &t.tokens[2], &id, "first").await).await;
    assert_eq!(game["players"][0]["username"], t.names[2].as_str());
    assert_eq!(game["status"], "open");
    let game = ok_json(app.join_game(&dave, &id).await).await;
    assert_eq!(game["status"], "active");
    assert_eq!(game["your_seat"], "last");
    let res = act(&app, &t.tokens[2], &id, "decline").await;
    assert_problem(res, StatusCode::CONFLICT, "game-state").await;

    // Two invitees: seats in turn order; an invitee keeps to its seat, and once
    // joined can no longer decline.
    let game = created(
        &app,
        &t.tokens[0],
        json!({"seat": "first", "invite": [t.names[1], t.names[2]], "days_per_move": 2}),
    )
    .await;
    let id = id_of(&game);
    assert_eq!(game["players"][1]["username"], t.names[1].as_str());
    assert_eq!(game["players"][2]["username"], t.names[2].as_str());
    assert_eq!(game["players"][2]["state"], "invited");
    let res = join_seat(&app, &t.tokens[1], &id, "last").await;
    let p = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    assert_eq!(error_fields(&p), ["seat"]);
    let res = app.join_game(&dave, &id).await;
    assert_problem(res, StatusCode::CONFLICT, "game-state").await;
    let game = ok_json(join_seat(&app, &t.tokens[1], &id, "middle").await).await;
    assert_eq!(game["players"][1]["state"], "joined");
    let res = act(&app, &t.tokens[1], &id, "decline").await;
    assert_problem(res, StatusCode::CONFLICT, "game-state").await;
    let carol_heard = app.events(&t.tokens[2], &id).await;
    assert_eq!(types(&carol_heard), ["game.invited"]);
    assert_eq!(carol_heard[0]["data"]["seat"], "last");
    assert_eq!(carol_heard[0]["data"]["days_per_move"], 2);
    let game = ok_json(app.join_game(&t.tokens[2], &id).await).await;
    assert_eq!(game["status"], "active");
    assert!(game["deadline"].is_string());
}

async fn only_the_creator_cancels_before_the_start(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("cnl").await;
    let dave = signed_in(&app, "cnldave").await;
    let game = created(
        &app,
        &t.tokens[0],
        json!({"seat": "last", "invite": [t.names[1], t.names[2]]}),
    )
    .await;
    let id = id_of(&game);
    ok_json(app.join_game(&t.tokens[1], &id).await).await;

    // Neither a seated player nor a stranger may cancel.
    for token in [&t.tokens[1], &t.tokens[2], &dave] {
        let res = act(&app, token, &id, "cancel").await;
        assert_problem(res, StatusCode::FORBIDDEN, "forbidden").await;
    }
    let res = act(&app, &t.tokens[0], "no-such-game", "cancel").await;
    assert_problem(res, StatusCode::NOT_FOUND, "not-found").await;
    assert_eq!(app.game_json(&t.tokens[0], &id).await["status"], "open");

    let game = ok_json(act(&app, &t.tokens[0], &id, "cancel").await).await;
    assert_eq!(game["status"], "cancelled");
    assert!(game["finished_at"].is_string());
    assert_eq!(game["expires_at"], Value::Null);
    assert_eq!(game["to_move"], Value::Null);
    assert_eq!(app.game_json(&dave, &id).await["status"], "cancelled");

    // The joined player and the unanswered invitee both hear of it; the creator does not.
    for token in &t.tokens[1..] {
        let heard = types(&app.events(token, &id).await);
        assert_eq!(heard.last().unwrap(), "game.cancelled", "{heard:?}");
        assert_eq!(heard.iter().filter(|e| *e == "game.cancelled").count(), 1);
    }
    let alice = types(&app.events(&t.tokens[0], &id).await);
    assert!(!alice.contains(&"game.cancelled".to_owned()), "{alice:?}");

    // A cancelled game takes no one and cannot be cancelled again or declined.
    let res = app.join_game(&t.tokens[2], &id).await;
    assert_problem(res, StatusCode::CONFLICT, "game-state").await;
    let res = act(&app, &t.tokens[2], &id, "decline").await;
    assert_problem(res, StatusCode::CONFLICT, "game-state").await;
    let res = act(&app, &t.tokens[0], &id, "cancel").await;
    assert_problem(res, StatusCode::CONFLICT, "game-state").await;

    // Once started, not even the creator can cancel.
    let id = app.started_game(&t, json!({})).await;
    let res = act(&app, &t.tokens[0], &id, "cancel").await;
    assert_problem(res, StatusCode::CONFLICT, "game-state").await;
    let res = act(&app, &t.tokens[1], &id, "cancel").await;
    assert_problem(res, StatusCode::FORBIDDEN, "forbidden").await;
    assert_eq!(app.game_json(&t.tokens[0], &id).await["status"], "active");
}

async fn allied_start_gives_last_the_first_move(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("alst").await;
    let game = created(
        &app,
        &t.tokens[0],
        json!({"seat": "first", "invite": [t.names[1], t.names[2]], "allies": ["first", "middle"]}),
    )
    .await;
    let id = id_of(&game);
    assert_eq!(game["allies"], json!(["first", "middle"]));
    assert_eq!(
        game["to_move"],
        Value::Null,
        "nobody moves before the start"
    );
    for token in &t.tokens[1..] {
        ok_json(app.join_game(token, &id).await).await;
    }

    let game = app.game_json(&t.tokens[2], &id).await;
    assert_eq!(game["status"], "active");
    assert_eq!(game["to_move"], "last");
    assert_eq!(game["your_turn"], true);
    assert!(!game["legal_moves"].as_array().unwrap().is_empty());
    let position = game["position"].as_str().unwrap();
    assert!(
        position.contains("+Kl"),
        "R11: Last's king promotes: {position}"
    );
    assert!(position.ends_with(" fm - 1"), "{position}");
    assert_eq!(game["castling"], json!([]));
    assert_eq!(game["alliance"]["seats"], json!(["first", "middle"]));
    assert_eq!(game["allies"], json!(["first", "middle"]));
    let alice = app.game_json(&t.tokens[0], &id).await;
    assert_eq!(alice["your_turn"], false);
    assert!(alice.get("legal_moves").is_none());

    let carol = types(&app.events(&t.tokens[2], &id).await);
    assert!(carol.contains(&"game.your_turn".to_owned()), "{carol:?}");
    let alice = types(&app.events(&t.tokens[0], &id).await);
    assert!(!alice.contains(&"game.your_turn".to_owned()), "{alice:?}");
    assert_eq!(
        listed_ids(&app, &t.tokens[2], "?my_turn=true").await,
        [id.as_str()]
    );
    assert!(listed_ids(&app, &t.tokens[0], "?my_turn=true")
        .await
        .is_empty());

    // Last plays first; First follows.
    let legal: Vec<String> = game["legal_moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_owned())
        .collect();
    let res = app.play_move(&t.tokens[2], &id, &legal[0], 1).await;
    let status = res.status();
    let after: Value = res.json().await.unwrap();
    assert_eq!(status, StatusCode::CREATED, "{after}");
    assert_eq!(after["to_move"], "first");
}

async fn options_show_in_the_game(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("opt").await;
    let game = created(
        &app,
        &t.tokens[0],
        json!({"open_seats": 2, "options": {"stuck_piece": "stay", "illumination": "all"}}),
    )
    .await;
    assert_eq!(
        game["options"],
        json!({"stuck_piece": "stay", "illumination": "all"})
    );
    let id = id_of(&game);
    let seen = app.game_json(&t.tokens[1], &id).await;
    assert_eq!(
        seen["options"],
        json!({"stuck_piece": "stay", "illumination": "all"})
    );
    let id = app
        .started_game(&t, json!({"options": {"illumination": "all"}}))
        .await;
    let started = app.game_json(&t.tokens[0], &id).await;
    assert_eq!(
        started["options"],
        json!({"stuck_piece": "promote", "illumination": "all"})
    );
    let plain = created(&app, &t.tokens[0], json!({"options": {}})).await;
    assert_eq!(
        plain["options"],
        json!({"stuck_piece": "promote", "illumination": "selective"})
    );
}

/// Follows `next_cursor` and the `Link` header from `first`, returning the ids in order.
async fn page_through(app: &TestApp, token: &str, first: &str, limit: usize) -> Vec<String> {
    let mut ids = Vec::new();
    let mut path = first.to_owned();
    for _ in 0..50 {
        let res = app.authed(Method::GET, &path, token, None).await;
        let link = res
            .headers()
            .get("link")
            .map(|v| v.to_str().unwrap().to_owned());
        let page = ok_json(res).await;
        let games = page["games"].as_array().unwrap();
        assert!(games.len() <= limit);
        ids.extend(games.iter().map(id_of));
        match (&page["next_cursor"], link) {
            (Value::Null, None) => return ids,
            (Value::String(cursor), Some(link)) => {
                assert_eq!(games.len(), limit, "only the last page is short");
                let (target, rel) = link.split_once(">; ").expect("Link: <…>; rel=\"next\"");
                assert_eq!(rel, "rel=\"next\"");
                let target = target.strip_prefix('<').unwrap();
                assert!(target.starts_with("/api/v1/games?"), "{target}");
                assert!(
                    target.contains(&format!("cursor={cursor}")),
                    "{target} {cursor}"
                );
                assert!(target.contains(&format!("limit={limit}")), "{target}");
                path = target.to_owned();
            }
            (cursor, link) => panic!("next_cursor {cursor} but Link {link:?}"),
        }
    }
    panic!("paging did not end");
}

/// Paging by key: games that do not change while a client pages are listed
/// once each, in order, and a game that changes (or is new) is never listed
/// twice, as it would be when pages were offsets.
async fn paging_neither_skips_nor_repeats_while_games_change(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("pgk").await;
    let alice = &t.tokens[0];
    let mut ids = Vec::new();
    for _ in 0..6 {
        ids.push(id_of(&created(&app, alice, json!({"open_seats": 2})).await));
    }
    // Newest change first: g5, g4 | g3, g2 | g1, g0.
    let first = ok_json(list(&app, alice, "?limit=2").await).await;
    let seen: Vec<String> = first["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(id_of)
        .collect();
    assert_eq!(seen, [ids[5].clone(), ids[4].clone()]);
    // Meanwhile g1 changes (it moves to the front) and a new game arrives.
    ok_json(act(&app, alice, &ids[1], "cancel").await).await;
    let newer = id_of(&created(&app, alice, json!({"open_seats": 2})).await);
    let cursor = first["next_cursor"].as_str().unwrap();
    let rest = page_through(
        &app,
        alice,
        &format!("/api/v1/games?limit=2&cursor={cursor}"),
        2,
    )
    .await;
    assert_eq!(rest, [ids[3].clone(), ids[2].clone(), ids[0].clone()]);
    let all: Vec<&String> = seen.iter().chain(&rest).collect();
    assert!(!all.contains(&&newer) && !all.contains(&&ids[1]));
}

async fn listing_filters_orders_and_pages(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("lst").await;
    let (alice, bob, carol) = (&t.tokens[0], &t.tokens[1], &t.tokens[2]);
    let dave = signed_in(&app, "lstdave").await;

    // Alice's games: one waiting for two players, one cancelled, one Dave invited
    // her to, one on her move, one on Bob's move (with a deadline).
    let open = id_of(&created(&app, alice, json!({"open_seats": 2})).await);
    let cancelled = id_of(&created(&app, alice, json!({"open_seats": 2})).await);
    ok_json(act(&app, alice, &cancelled, "cancel").await).await;
    let invited = id_of(
        &created(
            &app,
            &dave,
            json!({"seat": "last", "invite": [t.names[0]], "open_seats": 1}),
        )
        .await,
    );
    let bobs_turn = app.started_game(&t, json!({"days_per_move": 3})).await;
    app.play_all(&t, &bobs_turn, &["3d4d"]).await;
    let alices_turn = app.started_game(&t, json!({})).await;
    // A game Alice is not in: only Bob, Carol and Dave.
    let others = id_of(
        &created(
            &app,
            bob,
            json!({"seat": "first", "invite": [t.names[2], "lstdave"]}),
        )
        .await,
    );
    ok_json(app.join_game(carol, &others).await).await;
    ok_json(app.join_game(&dave, &others).await).await;
    // An open game with no open seat: only its invitees may take the seats.
    let private = id_of(
        &created(
            &app,
            &dave,
            json!({"seat": "first", "invite": [t.names[1], t.names[2]]}),
        )
        .await,
    );
    let all_of_alice = [&open, &cancelled, &invited, &bobs_turn, &alices_turn];

    // `mine` is the default; the caller's move comes first, then deadlines.
    let page = ok_json(list(&app, alice, "").await).await;
    assert_eq!(page["next_cursor"], Value::Null);
    let games = page["games"].as_array().unwrap();
    let ids: Vec<String> = games.iter().map(id_of).collect();
    assert_eq!(as_set(ids.clone()), set(&all_of_alice), "{page}");
    assert_eq!(ids[0], alices_turn);
    assert_eq!(games[0]["your_turn"], true);
    assert_eq!(games[0]["your_seat"], "first");
    assert_eq!(games[0]["to_move"], "first");
    assert_eq!(ids[1], bobs_turn, "a deadline comes before none");
    assert_eq!(games[1]["your_turn"], false);
    assert_eq!(games[1]["to_move"], "middle");
    assert!(games[1]["deadline"].is_string());
    assert_eq!(games[1]["days_per_move"], 3);
    let inv = games.iter().find(|g| g["id"] == invited.as_str()).unwrap();
    assert_eq!(inv["status"], "open");
    assert_eq!(inv["your_seat"], Value::Null, "invited, not yet seated");
    assert_eq!(inv["players"][0]["state"], "invited");
    assert_eq!(
        ok_json(list(&app, alice, "?mine=true").await).await,
        page,
        "mine=true is the default"
    );

    // Bob's list starts with the games on his move, the one with a deadline first.
    let bob_ids = listed_ids(&app, bob, "").await;
    assert_eq!(bob_ids[..2], [bobs_turn.as_str(), others.as_str()]);
    assert_eq!(
        as_set(bob_ids),
        set(&[&bobs_turn, &alices_turn, &others, &private])
    );

    // Filters.
    assert_eq!(
        as_set(listed_ids(&app, alice, "?status=open").await),
        set(&[&open, &invited])
    );
    assert_eq!(
        as_set(listed_ids(&app, alice, "?status=active").await),
        set(&[&bobs_turn, &alices_turn])
    );
    assert_eq!(
        listed_ids(&app, alice, "?status=cancelled").await,
        [cancelled.as_str()]
    );
    assert!(listed_ids(&app, alice, "?status=finished").await.is_empty());
    assert_eq!(
        listed_ids(&app, alice, "?my_turn=true").await,
        [alices_turn.as_str()]
    );
    // Bob moves in two games; the one with a deadline comes first.
    assert_eq!(
        listed_ids(&app, bob, "?my_turn=true").await,
        [bobs_turn.as_str(), others.as_str()]
    );
    assert!(listed_ids(&app, carol, "?my_turn=true").await.is_empty());
    assert!(listed_ids(&app, alice, "?my_turn=true&status=open")
        .await
        .is_empty());
    assert_eq!(
        listed_ids(&app, alice, "?player=lstdave").await,
        [invited.as_str()]
    );
    assert_eq!(
        as_set(
            listed_ids(
                &app,
                alice,
                &format!("?player={}", t.names[1].to_uppercase())
            )
            .await
        ),
        set(&[&bobs_turn, &alices_turn])
    );
    assert_eq!(
        listed_ids(&app, alice, &format!("?player={}&my_turn=true", t.names[1])).await,
        [alices_turn.as_str()]
    );
    assert!(listed_ids(&app, alice, "?player=nobody-here")
        .await
        .is_empty());

    // Paging: every game once, in the same order as one big page.
    for limit in [1, 2, 3] {
        let paged = page_through(&app, alice, &format!("/api/v1/games?limit={limit}"), limit).await;
        assert_eq!(paged, ids, "limit {limit}");
    }
    let paged = page_through(&app, alice, "/api/v1/games?limit=1&status=active", 1).await;
    assert_eq!(paged, [alices_turn.as_str(), bobs_turn.as_str()]);
    let res = list(&app, alice, "?limit=5").await;
    assert!(res.headers().get("link").is_none());
    assert_eq!(ok_json(res).await["next_cursor"], Value::Null);

    // Invalid queries.
    for (query, field) in [
        ("?limit=0", "limit"),
        ("?limit=101", "limit"),
        ("?limit=abc", "query"),
        ("?limit=-1", "query"),
        ("?cursor=not-a-cursor!", "cursor"),
        ("?cursor=eHl6", "cursor"),
        // An offset past what the database can take (`o:9223372036854775808`).
        ("?cursor=bzo5MjIzMzcyMDM2ODU0Nzc1ODA4", "cursor"),
        ("?status=won", "status"),
        ("?mine=maybe", "query"),
        ("?my_turn=2", "query"),
    ] {
        let res = list(&app, alice, query).await;
        let p = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
        assert_eq!(error_fields(&p), [field], "{query}: {p}");
    }

    // `mine=false`: the games anyone may join, whoever asks.
    for token in [alice, &dave] {
        let lobby = ok_json(list(&app, token, "?mine=false").await).await;
        let lobby_ids: Vec<String> = lobby["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(id_of)
            .collect();
        assert_eq!(as_set(lobby_ids), set(&[&open, &invited]), "{lobby}");
        for g in lobby["games"].as_array().unwrap() {
            assert_eq!(g["status"], "open");
            assert!(g["players"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p["state"] == "open"));
        }
    }
    let res = app.join_game(alice, &private).await;
    assert_problem(res, StatusCode::CONFLICT, "game-state").await;
    assert_eq!(
        as_set(listed_ids(&app, &dave, "?status=open").await),
        set(&[&private, &invited]),
        "its creator still sees it among its own games"
    );
    assert_eq!(
        as_set(listed_ids(&app, &dave, "?mine=false&status=active").await),
        set(&[&bobs_turn, &alices_turn, &others])
    );
    assert_eq!(
        listed_ids(&app, &dave, "?mine=false&status=cancelled").await,
        [cancelled.as_str()]
    );

    // Authentication and scope.
    let res = app.request(Method::GET, "/api/v1/games").await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthenticated").await;
    let res = list(&app, "not-a-token", "").await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthenticated").await;
    let (play_only, _) = app.personal_token(alice, &["games:play"]).await;
    let res = list(&app, &play_only, "").await;
    assert_problem(res, StatusCode::FORBIDDEN, "insufficient-scope").await;
    let (read_only, _) = app.personal_token(alice, &["games:read"]).await;
    assert_eq!(
        as_set(listed_ids(&app, &read_only, "").await),
        set(&all_of_alice)
    );
}

async fn unanswered_games_expire(backend: Backend) {
    let app = spawn_app_with(backend, |s| {
        s.games.invitation_days = 1;
        s.games.sweep_interval = Duration::from_millis(100);
    })
    .await;
    let t = app.trio("exp").await;
    // A started game without a time control is not touched by the sweep.
    let started = app.started_game(&t, json!({})).await;
    let game = created(
        &app,
        &t.tokens[0],
        json!({"seat": "first", "invite": [t.names[1]], "open_seats": 1}),
    )
    .await;
    let id = id_of(&game);
    assert!(game["expires_at"].is_string());

    assert_eq!(app.game_json(&t.tokens[0], &id).await["status"], "open");
    app.clock.advance(chrono::Duration::hours(25));
    let t = app.log_in_again(&t).await;
    let game = eventually("the unanswered game lapses", || async {
        let game = app.game_json(&t.tokens[0], &id).await;
        (game["status"] != "open").then_some(game)
    })
    .await;
    assert_eq!(game["status"], "expired", "{game}");
    assert!(game["finished_at"].is_string());

    // The creator and the invitee hear of it once; Carol, not seated, does not.
    for token in &t.tokens[..2] {
        let heard = types(&app.events(token, &id).await);
        assert_eq!(
            heard.iter().filter(|e| *e == "game.expired").count(),
            1,
            "{heard:?}"
        );
    }
    assert!(app.events(&t.tokens[2], &id).await.is_empty());

    let res = app.join_game(&t.tokens[1], &id).await;
    assert_problem(res, StatusCode::CONFLICT, "game-state").await;
    let res = app.join_game(&t.tokens[2], &id).await;
    assert_problem(res, StatusCode::CONFLICT, "game-state").await;
    let res = act(&app, &t.tokens[0], &id, "cancel").await;
    assert_problem(res, StatusCode::CONFLICT, "game-state").await;
    assert_eq!(
        listed_ids(&app, &t.tokens[0], "?status=expired").await,
        [id.as_str()]
    );
    assert!(!listed_ids(&app, &t.tokens[2], "?mine=false")
        .await
        .contains(&id));
    assert_eq!(
        app.game_json(&t.tokens[0], &started).await["status"],
        "active"
    );
}

async fn anyone_may_read_a_game(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("anon").await;
    let id = app.started_game(&t, json!({})).await;

    let res = app
        .request(Method::GET, &format!("/api/v1/games/{id}"))
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    assert!(res.headers().contains_key("etag"));
    let game: Value = res.json().await.unwrap();
    assert_eq!(game["status"], "active");
    assert_eq!(game["to_move"], "first");
    assert_eq!(game["your_seat"], Value::Null);
    assert_eq!(game["your_turn"], false);
    assert!(game.get("legal_moves").is_none(), "{game}");
    assert_eq!(game["players"][0]["username"], t.names[0].as_str());

    let mover = app.game_json(&t.tokens[0], &id).await;
    assert_eq!(mover["your_seat"], "first");
    assert!(mover["legal_moves"].is_array());

    let res = app.get_game("not-a-token", &id).await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthenticated").await;
    let res = app.request(Method::GET, "/api/v1/games/no-such-game").await;
    assert_problem(res, StatusCode::NOT_FOUND, "not-found").await;
    let (play_only, _) = app.personal_token(&t.tokens[0], &["games:play"]).await;
    let res = app.get_game(&play_only, &id).await;
    assert_problem(res, StatusCode::FORBIDDEN, "insufficient-scope").await;

    // An open game reads the same way.
    let open = id_of(&created(&app, &t.tokens[0], json!({"open_seats": 2})).await);
    let res = app
        .request(Method::GET, &format!("/api/v1/games/{open}"))
        .await;
    let game = ok_json(res).await;
    assert_eq!(game["status"], "open");
    assert_eq!(game["your_seat"], Value::Null);
}

/// Many games created at once while every background worker (mail, webhooks,
/// deadline sweep) writes too: no request may fail on a busy database (on
/// SQLite a transaction that reads before it writes once failed with
/// "database is locked" when a worker committed in between).
async fn creating_games_while_the_workers_write_never_fails(backend: Backend) {
    let app = spawn_app_with(backend, |s| {
        s.mail.poll_interval = Duration::from_millis(5);
        s.webhooks.poll_interval = Duration::from_millis(5);
        s.games.sweep_interval = Duration::from_millis(100);
        s.limits.games_created.max = 1_000;
    })
    .await;
    let t = app.trio("busy").await;
    let body = json!({"seat": "first", "invite": [t.names[1], t.names[2]], "days_per_move": 1});
    for _ in 0..10 {
        let batch = (0..12).map(|_| app.create_game(&t.tokens[0], &body));
        for res in futures_util::future::join_all(batch).await {
            assert_eq!(res.status(), StatusCode::CREATED, "{:?}", res.text().await);
        }
    }
}

on_both_backends!(
    paging_neither_skips_nor_repeats_while_games_change,
    creating_games_while_the_workers_write_never_fails,
    create_validation_names_the_field,
    open_seats_fill_then_the_game_starts,
    invitation_decline_opens_the_seat,
    only_the_creator_cancels_before_the_start,
    allied_start_gives_last_the_first_move,
    options_show_in_the_game,
    listing_filters_orders_and_pages,
    unanswered_games_expire,
    anyone_may_read_a_game,
);

//! Time end to end: Fischer clocks, weekends off in each player's zone,
//! vacations, and giving time (issue 14). Time moves by the injected clock
//! and the sweep's own passes; nothing sleeps.

use std::time::Duration as StdDuration;

use chrono::{DateTime, Datelike, Duration, TimeZone, Utc, Weekday};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{
    assert_problem, eventually, heard, ok, spawn_app_with, Backend, TestApp, Trio,
};
use crate::on_both_backends;

async fn fast(backend: Backend) -> TestApp {
    spawn_app_with(backend, |s| {
        s.games.sweep_interval = StdDuration::from_millis(100);
    })
    .await
}

fn at(v: &Value) -> DateTime<Utc> {
    v.as_str()
        .unwrap_or_else(|| panic!("not a time: {v}"))
        .parse()
        .unwrap()
}

/// Asserts `t` is within a few seconds after `expected` (requests take
/// real milliseconds on top of the injected clock).
fn about(t: DateTime<Utc>, expected: DateTime<Utc>) {
    assert!(
        t >= expected - Duration::seconds(1) && t <= expected + Duration::seconds(30),
        "{t} is not about {expected}"
    );
}

async fn create(app: &TestApp, t: &Trio, body: Value) -> reqwest::Response {
    let mut full = json!({"seat": "first", "invite": [t.names[1], t.names[2]]});
    full.as_object_mut()
        .unwrap()
        .extend(body.as_object().unwrap().clone());
    app.create_game(&t.tokens[0], &full).await
}

/// Moves the clock forward to the next `weekday` at `hour`:00 UTC at least
/// a day ahead.
fn advance_to(app: &TestApp, weekday: Weekday, hour: u32) -> DateTime<Utc> {
    let now = app.clock.now_utc();
    let mut day = (now + Duration::days(1)).date_naive();
    while day.weekday() != weekday {
        day = day.succ_opt().unwrap();
    }
    let target = Utc.from_utc_datetime(&day.and_hms_opt(hour, 0, 0).unwrap());
    app.clock.advance(target - now);
    target
}

async fn give(app: &TestApp, t: &Trio, who: usize, id: &str, body: Value) -> reqwest::Response {
    app.authed(
        Method::POST,
        &format!("/api/v1/games/{id}/time"),
        &t.tokens[who],
        Some(&body),
    )
    .await
}

async fn vacation(
    app: &TestApp,
    token: &str,
    method: Method,
    body: Option<Value>,
) -> reqwest::Response {
    app.authed(method, "/api/v1/me/vacation", token, body.as_ref())
        .await
}

async fn time_controls_are_checked(backend: Backend) {
    let app = fast(backend).await;
    let t = app.trio("tc").await;
    for (body, field) in [
        (json!({"kind": "per_move", "days": 0}), "time_control.days"),
        (json!({"kind": "per_move", "days": 31}), "time_control.days"),
        (
            json!({"kind": "fischer", "initial_days": 3, "increment_days": 5, "max_days": 4}),
            "time_control.increment_days",
        ),
        (
            json!({"kind": "fischer", "initial_days": 9, "increment_days": 1, "max_days": 4}),
            "time_control.initial_days",
        ),
    ] {
        let res = create(&app, &t, json!({"time_control": body})).await;
        let p = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
        assert!(p.to_string().contains(field), "{body}: {p}");
    }
    let both = json!({"days_per_move": 3, "time_control": {"kind": "none"}});
    let res = create(&app, &t, both).await;
    let p = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    assert!(p.to_string().contains("time_control"), "{p}");
    for body in [
        json!({"time_control": {"kind": "sudden_death", "days": 3}}),
        json!({"time_control": {"kind": "per_move", "days": 3, "hours": 2}}),
        json!({"time_control": {"kind": "per_move", "days": -1}}),
    ] {
        let res = create(&app, &t, body.clone()).await;
        assert!(res.status().is_client_error(), "{body}: {}", res.status());
    }
    // The shorthand still works, and shows as the control it stands for.
    let game = ok(create(&app, &t, json!({"days_per_move": 3})).await).await;
    assert_eq!(game["time_control"], json!({"kind": "per_move", "days": 3}));
    assert_eq!(game["days_per_move"], 3);
    assert_eq!(game["vacation"], true);
    assert_eq!(game["pause_on_weekends"], false);
    assert_eq!(game["clocks"], Value::Null, "not started");
}

async fn r35_a_fischer_bank_runs_out(backend: Backend) {
    let app = fast(backend).await;
    let t = app.trio("fis").await;
    let control = json!({"kind": "fischer", "initial_days": 2, "increment_days": 1, "max_days": 3});
    let id = app.started_game(&t, json!({"time_control": control})).await;
    let game = app.game_json(&t.tokens[0], &id).await;
    assert_eq!(game["time_control"], control);
    assert_eq!(game["days_per_move"], Value::Null);
    let clocks = game["clocks"].as_array().unwrap();
    assert_eq!(clocks.len(), 3);
    for (c, seat) in clocks.iter().zip(["first", "middle", "last"]) {
        assert_eq!(c["seat"], seat);
        assert_eq!(c["remaining_seconds"], 2 * 86_400);
    }
    assert_eq!(clocks[0]["running"], true);
    assert_eq!(clocks[1]["running"], false);
    let from = at(&clocks[0]["counting_from"]);
    about(at(&clocks[0]["deadline"]), from + Duration::days(2));
    assert_eq!(game["deadline"], clocks[0]["deadline"]);

    // First spends half a day and gains a day: 2.5 left (below the cap of 3).
    app.clock.advance(Duration::hours(12));
    let t = app.log_in_again(&t).await;
    let game = app.play_all(&t, &id, &["3d4d"]).await;
    let first = game["clocks"][0]["remaining_seconds"].as_i64().unwrap();
    assert!(
        (2 * 86_400 + 43_200 - 60..=2 * 86_400 + 43_200).contains(&first),
        "{first}"
    );
    assert_eq!(game["clocks"][0]["running"], false);
    assert_eq!(game["clocks"][1]["running"], true);
    let moved_at = at(&game["clocks"][1]["counting_from"]);
    about(at(&game["deadline"]), moved_at + Duration::days(2));

    // Middle's two days run out; the sweep ends its game (R35).
    app.clock.advance(Duration::days(2) + Duration::minutes(1));
    let t = app.log_in_again(&t).await;
    let game = eventually("Middle's bank runs out", || async {
        let game = app.game_json(&t.tokens[0], &id).await;
        (game["players"][1]["state"] == "eliminated").then_some(game)
    })
    .await;
    assert_eq!(game["players"][1]["elimination"]["reason"], "timed_out");
    assert_eq!(game["clocks"][1]["remaining_seconds"], 0);
    assert_eq!(game["clocks"][1]["running"], false);
    assert_eq!(game["to_move"], "last");
    assert_eq!(game["clocks"][2]["running"], true);
    assert_eq!(game["clocks"][2]["remaining_seconds"], 2 * 86_400);
    assert!(!heard(&app, &t, 2, &id, "game.player_eliminated")
        .await
        .is_empty());
}

/// A change of time zone takes effect from the player's next turn: it
/// cannot stretch the weekend of the turn under way, even when a gift
/// settles the clock after it.
async fn a_zone_change_waits_for_the_next_turn(backend: Backend) {
    let app = fast(backend).await;
    let t = app.trio("tzs").await;
    let tokyo = json!({"time_zone": "Asia/Tokyo"});
    ok(app
        .authed(Method::PATCH, "/api/v1/me", &t.tokens[1], Some(&tokyo))
        .await)
    .await;
    // Friday 20:00 UTC is Saturday 05:00 in Tokyo: Middle's turn starts in
    // a weekend, and counts from Monday 00:00 Tokyo (Sunday 15:00 UTC).
    let friday = advance_to(&app, Weekday::Fri, 20);
    let t = app.log_in_again(&t).await;
    let id = app
        .started_game(&t, json!({"days_per_move": 1, "pause_on_weekends": true}))
        .await;
    let game = app.play_all(&t, &id, &["3d4d"]).await;
    let monday_tokyo = friday + Duration::hours(43);
    about(at(&game["deadline"]), monday_tokyo + Duration::days(1));

    // An hour on, Middle moves to Los Angeles, where it is still Friday, and
    // an ally's one-hour gift settles the clock: the hour just passed still
    // does not count, and the deadline moves by the gift alone.
    app.clock.advance(Duration::hours(1));
    let t = app.log_in_again(&t).await;
    let la = json!({"time_zone": "America/Los_Angeles"});
    ok(app
        .authed(Method::PATCH, "/api/v1/me", &t.tokens[1], Some(&la))
        .await)
    .await;
    let game = ok(give(&app, &t, 2, &id, json!({"to": "middle", "hours": 1})).await).await;
    about(
        at(&game["deadline"]),
        monday_tokyo + Duration::days(1) + Duration::hours(1),
    );
    assert_eq!(
        game["clocks"][1]["remaining_seconds"],
        25 * 3600,
        "{}",
        game["clocks"]
    );
}

async fn weekends_pause_in_the_zone_of_the_player_to_move(backend: Backend) {
    let app = fast(backend).await;
    let t = app.trio("wk").await;
    // Middle keeps Tokyo's week (UTC+9, no daylight saving); Last keeps UTC's.
    let zone = json!({"time_zone": "Asia/Tokyo"});
    ok(app
        .authed(Method::PATCH, "/api/v1/me", &t.tokens[1], Some(&zone))
        .await)
    .await;
    // Friday 20:00 UTC is already Saturday 05:00 in Tokyo.
    let friday = advance_to(&app, Weekday::Fri, 20);
    let t = app.log_in_again(&t).await;
    let paused = app
        .started_game(&t, json!({"days_per_move": 1, "pause_on_weekends": true}))
        .await;
    let plain = app.started_game(&t, json!({"days_per_move": 1})).await;
    let game = app.play_all(&t, &paused, &["3d4d"]).await;
    assert_eq!(game["pause_on_weekends"], true);
    // Nothing counts until Monday 00:00 Tokyo (Sunday 15:00 UTC); a day from then.
    let monday_tokyo = friday + Duration::hours(43);
    about(at(&game["deadline"]), monday_tokyo + Duration::days(1));
    assert_eq!(game["clocks"][1]["deadline"], game["deadline"]);
    let plain_game = app.play_all(&t, &plain, &["3d4d"]).await;
    about(at(&plain_game["deadline"]), friday + Duration::days(1));

    // An hour later Middle moves; for Last (UTC) three hours of Friday count,
    // then nothing until Monday 00:00 UTC, and 21 hours from then.
    app.clock.advance(Duration::hours(1));
    let t = app.log_in_again(&t).await;
    let game = app.play_all(&t, &paused, &["12l8d"]).await;
    let due = friday + Duration::days(3) + Duration::hours(1);
    about(at(&game["deadline"]), due);
    app.play_all(&t, &plain, &["12l8d"]).await;

    // Monday 20:30 UTC: Last has had 23.5 hours in the paused game, and
    // more than a day in the other, where the sweep ends their game.
    app.clock.advance(Duration::days(3) - Duration::minutes(30));
    let t = app.log_in_again(&t).await;
    eventually("Last times out where weekends count", || async {
        let g = app.game_json(&t.tokens[0], &plain).await;
        (g["players"][2]["state"] == "eliminated").then_some(())
    })
    .await;
    let game = app.game_json(&t.tokens[0], &paused).await;
    assert_eq!(game["players"][2]["state"], "playing", "{game}");
    assert_eq!(game["to_move"], "last");
    // Past the deadline the weekend postponed, the paused game ends too.
    app.clock.advance(Duration::minutes(31));
    let t = app.log_in_again(&t).await;
    eventually("Last times out in the paused game", || async {
        let g = app.game_json(&t.tokens[0], &paused).await;
        (g["players"][2]["state"] == "eliminated").then_some(())
    })
    .await;
}

/// Registers a trio and lets `days` pass, so each holds a tenth of them.
async fn rested_trio(app: &TestApp, prefix: &str, days: i64) -> Trio {
    let t = app.trio(prefix).await;
    app.clock.advance(Duration::days(days));
    app.log_in_again(&t).await
}

async fn a_vacation_stops_the_clock_until_a_move_ends_it(backend: Backend) {
    let app = fast(backend).await;
    let t = rested_trio(&app, "vac", 41).await;
    let held = ok(vacation(&app, &t.tokens[1], Method::GET, None).await).await;
    assert_eq!(held["days_held"], 4, "{held}");
    assert_eq!(held["max_days"], 30);
    assert_eq!(held["current"], Value::Null);
    assert!(held["next_day_at"].is_string());

    let paused = app.started_game(&t, json!({"days_per_move": 1})).await;
    let strict = ok(create(&app, &t, json!({"days_per_move": 1, "vacation": false})).await).await;
    assert_eq!(strict["vacation"], false, "the create answer says so");
    let strict = strict["id"].as_str().unwrap().to_owned();
    for token in &t.tokens[1..] {
        assert_eq!(app.join_game(token, &strict).await.status(), StatusCode::OK);
    }
    app.play_all(&t, &paused, &["3d4d"]).await;
    app.play_all(&t, &strict, &["3d4d"]).await;

    let res = vacation(&app, &t.tokens[1], Method::POST, Some(json!({"days": 5}))).await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    let res = vacation(&app, &t.tokens[1], Method::POST, Some(json!({"days": 3}))).await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let away: Value = res.json().await.unwrap();
    assert_eq!(away["days_held"], 1);
    let until = at(&away["current"]["until"]);
    about(
        until,
        at(&away["current"]["started_at"]) + Duration::days(3),
    );
    let res = vacation(&app, &t.tokens[1], Method::POST, Some(json!({"days": 1}))).await;
    assert_problem(res, StatusCode::CONFLICT, "game-state").await;

    let game = app.game_json(&t.tokens[0], &paused).await;
    assert_eq!(at(&game["players"][1]["vacation_until"]), until);
    // Only the game's players learn that someone is away.
    let spectator: Value = app
        .request(Method::GET, &format!("/api/v1/games/{paused}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        spectator["players"][1]["vacation_until"],
        Value::Null,
        "{spectator}"
    );
    let outsider = app.trio("vacout").await;
    let seen = app.game_json(&outsider.tokens[0], &paused).await;
    assert_eq!(seen["players"][1]["vacation_until"], Value::Null);
    let listed = ok(app
        .authed(
            Method::GET,
            &format!(
                "/api/v1/games?mine=false&status=active&player={}",
                t.names[1]
            ),
            &outsider.tokens[0],
            None,
        )
        .await)
    .await;
    let mut listed_games = 0;
    for g in listed["games"].as_array().unwrap() {
        assert_eq!(g["players"][1]["vacation_until"], Value::Null, "{g}");
        listed_games += 1;
    }
    assert!(listed_games > 0, "{listed}");
    let mine = ok(app
        .authed(Method::GET, "/api/v1/games", &t.tokens[0], None)
        .await)
    .await;
    assert!(mine["games"]
        .as_array()
        .unwrap()
        .iter()
        .any(|g| g["players"][1]["vacation_until"].is_string()));
    assert_eq!(at(&game["clocks"][1]["counting_from"]), until);
    about(at(&game["deadline"]), until + Duration::days(1));
    let strict_game = app.game_json(&t.tokens[0], &strict).await;
    assert_eq!(strict_game["players"][1]["vacation_until"], Value::Null);
    for who in [0, 2] {
        let told = heard(&app, &t, who, &paused, "game.player_on_vacation").await;
        assert_eq!(told.len(), 1, "player {who}");
        assert_eq!(told[0]["seat"], "middle");
        assert_eq!(at(&told[0]["until"]), until);
        assert!(heard(&app, &t, who, &strict, "game.player_on_vacation")
            .await
            .is_empty());
    }
    assert!(heard(&app, &t, 1, &paused, "game.player_on_vacation")
        .await
        .is_empty());

    // A day and a bit: the strict game times Middle out; the other waits.
    app.clock.advance(Duration::days(1) + Duration::minutes(1));
    let t = app.log_in_again(&t).await;
    eventually(
        "the vacation does not pause a vacation: false game",
        || async {
            let g = app.game_json(&t.tokens[0], &strict).await;
            (g["players"][1]["state"] == "eliminated").then_some(())
        },
    )
    .await;
    let game = app.game_json(&t.tokens[0], &paused).await;
    assert_eq!(game["players"][1]["state"], "playing", "{game}");

    // Middle moves: the vacation ends, its day not yet begun comes back,
    // and Last's day starts now.
    let game = app.play_all(&t, &paused, &["12l8d"]).await;
    assert_eq!(game["players"][1]["vacation_until"], Value::Null);
    let back = ok(vacation(&app, &t.tokens[1], Method::GET, None).await).await;
    assert_eq!(back["current"], Value::Null);
    assert_eq!(back["days_held"], 2, "{back}");
    let moved_at = at(&game["clocks"][2]["counting_from"]);
    about(at(&game["deadline"]), moved_at + Duration::days(1));
    let told = heard(&app, &t, 0, &paused, "game.player_back").await;
    assert_eq!(told.len(), 1);
    assert_eq!(told[0]["reason"], "moved");
    let res = vacation(&app, &t.tokens[1], Method::DELETE, None).await;
    assert_problem(res, StatusCode::CONFLICT, "game-state").await;
}

/// A premove played for a player on vacation is a move: it ends the vacation
/// (`game.player_back`, reason `moved`), so no one plays on through premoves
/// while their clocks stand still.
async fn a_premove_played_ends_its_players_vacation(backend: Backend) {
    let app = fast(backend).await;
    let t = rested_trio(&app, "pmv", 41).await;
    let id = app.started_game(&t, json!({"days_per_move": 1})).await;
    let other = app.started_game(&t, json!({"days_per_move": 1})).await;
    // Bob (middle) answers 3d4d with 12l8d, then goes away.
    ok(app
        .authed(
            Method::PUT,
            &format!("/api/v1/games/{id}/premoves"),
            &t.tokens[1],
            Some(&json!({"lines": [["3d4d", "12l8d"]]})),
        )
        .await)
    .await;
    ok(vacation(&app, &t.tokens[1], Method::POST, Some(json!({"days": 3}))).await).await;
    let game = app.game_json(&t.tokens[0], &id).await;
    assert!(game["players"][1]["vacation_until"].is_string(), "{game}");

    let game = app.play_all(&t, &id, &["3d4d"]).await;
    assert_eq!(game["ply"], 3, "the premove played: {}", game["last_move"]);
    assert_eq!(game["players"][1]["vacation_until"], Value::Null, "{game}");
    let v = ok(vacation(&app, &t.tokens[1], Method::GET, None).await).await;
    assert_eq!(v["current"], Value::Null, "{v}");
    for game_id in [&id, &other] {
        let told = heard(&app, &t, 0, game_id, "game.player_back").await;
        assert_eq!(told.len(), 1, "{game_id}: {told:?}");
        assert_eq!(told[0]["reason"], "moved");
        assert_eq!(told[0]["seat"], "middle");
    }
    let elsewhere = app.game_json(&t.tokens[0], &other).await;
    assert_eq!(elsewhere["players"][1]["vacation_until"], Value::Null);
}

async fn a_vacation_ends_early_or_when_its_days_run_out(backend: Backend) {
    let app = fast(backend).await;
    let t = rested_trio(&app, "back", 30).await;
    let id = app.started_game(&t, json!({"days_per_move": 2})).await;
    let before = app.game_json(&t.tokens[0], &id).await;
    let deadline = at(&before["deadline"]);

    // First goes away for two days and comes straight back: the day begun
    // is spent, the other returns, and the clock counts again.
    let away = ok(vacation(&app, &t.tokens[0], Method::POST, Some(json!({"days": 2}))).await).await;
    assert_eq!(away["days_held"], 1);
    let game = app.game_json(&t.tokens[0], &id).await;
    assert!(
        at(&game["deadline"]) > deadline + Duration::days(1),
        "{game}"
    );
    let back = ok(vacation(&app, &t.tokens[0], Method::DELETE, None).await).await;
    assert_eq!(back["days_held"], 2, "{back}");
    assert_eq!(back["current"], Value::Null);
    let game = app.game_json(&t.tokens[0], &id).await;
    about(at(&game["deadline"]), deadline);
    let told = heard(&app, &t, 1, &id, "game.player_back").await;
    assert_eq!(told[0]["reason"], "ended");
    about(at(&told[0]["deadline"]), deadline);

    // A day's vacation that runs its course; the sweep closes it.
    ok(vacation(&app, &t.tokens[0], Method::POST, Some(json!({"days": 1}))).await).await;
    app.clock.advance(Duration::days(1) + Duration::minutes(1));
    let t = app.log_in_again(&t).await;
    let told = eventually("the vacation is over", || async {
        let told = heard(&app, &t, 2, &id, "game.player_back").await;
        (told.len() == 2).then_some(told)
    })
    .await;
    assert_eq!(told[1]["reason"], "over");
    let v = ok(vacation(&app, &t.tokens[0], Method::GET, None).await).await;
    assert_eq!(v["current"], Value::Null);
    assert_eq!(v["days_held"], 1);
    let game = app.game_json(&t.tokens[0], &id).await;
    assert_eq!(game["players"][0]["vacation_until"], Value::Null);
    assert_eq!(game["players"][0]["state"], "playing");
}

/// Gifts cannot pile up: with time per move, one turn holds the control's
/// own time plus at most 7 days of gifts in all, whoever gives and whenever
/// (gifts made before the turn began count toward it).
async fn gifts_to_one_turn_are_capped_at_seven_days(backend: Backend) {
    let app = fast(backend).await;
    let t = app.trio("pile").await;
    let id = app.started_game(&t, json!({"days_per_move": 1})).await;
    let week = json!({"to": "last", "hours": 168});
    let game = ok(give(&app, &t, 1, &id, week.clone()).await).await;
    assert_eq!(game["clocks"][2]["remaining_seconds"], 8 * 86_400);
    let res = give(&app, &t, 0, &id, week.clone()).await;
    let p = assert_problem(res, StatusCode::CONFLICT, "game-state").await;
    assert!(p["detail"].as_str().unwrap().contains("7 days"), "{p}");
    app.play_all(&t, &id, &["3d4d"]).await;
    let res = give(&app, &t, 0, &id, json!({"to": "last", "hours": 1})).await;
    assert_problem(res, StatusCode::CONFLICT, "game-state").await;
    let game = app.play_all(&t, &id, &["12l8d"]).await;
    let from = at(&game["clocks"][2]["counting_from"]);
    about(at(&game["deadline"]), from + Duration::days(8));
    // A gift that would pass the cap adds what fits: Carol's next turn.
    let game = app.play_all(&t, &id, &["10d8d"]).await;
    assert_eq!(
        game["clocks"][2]["remaining_seconds"], 86_400,
        "a new turn, its own time"
    );
    ok(give(&app, &t, 0, &id, json!({"to": "last", "hours": 100})).await).await;
    let game = ok(give(&app, &t, 1, &id, json!({"to": "last", "hours": 100})).await).await;
    assert_eq!(game["clocks"][2]["remaining_seconds"], 8 * 86_400);
    let told = heard(&app, &t, 2, &id, "game.time_given").await;
    assert_eq!(told.last().unwrap()["seconds"], 68 * 3600, "{told:?}");
}

async fn giving_time(backend: Backend) {
    let app = fast(backend).await;
    let t = app.trio("gift").await;
    let id = app.started_game(&t, json!({"days_per_move": 1})).await;
    let game = app.play_all(&t, &id, &["3d4d"]).await;
    let deadline = at(&game["deadline"]);

    let game = ok(give(&app, &t, 2, &id, json!({"to": "middle", "hours": 24})).await).await;
    about(at(&game["deadline"]), deadline + Duration::days(1));
    assert_eq!(game["clocks"][1]["deadline"], game["deadline"]);
    for who in 0..3 {
        let told = heard(&app, &t, who, &id, "game.time_given").await;
        assert_eq!(told.len(), 1, "player {who}");
        assert_eq!(told[0]["from"], "last");
        assert_eq!(told[0]["to"], "middle");
        assert_eq!(told[0]["seconds"], 86_400);
        assert_eq!(told[0]["hours"], 24);
    }
    let res = give(&app, &t, 2, &id, json!({"to": "middle", "hours": 1})).await;
    let p = assert_problem(res, StatusCode::CONFLICT, "game-state").await;
    assert!(
        p["detail"].as_str().unwrap().contains("once per turn"),
        "{p}"
    );
    for (who, body) in [
        (2, json!({"to": "last", "hours": 1})),
        (0, json!({"to": "middle", "hours": 0})),
        (0, json!({"to": "middle", "hours": 169})),
        (0, json!({"to": "north", "hours": 1})),
    ] {
        let res = give(&app, &t, who, &id, body).await;
        assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    }
    // Another player may give in the same turn, to a clock that waits.
    let game = ok(give(&app, &t, 0, &id, json!({"to": "last", "hours": 5})).await).await;
    assert_eq!(game["clocks"][2]["remaining_seconds"], 86_400 + 5 * 3600);
    assert_eq!(game["clocks"][2]["running"], false);
    let game = app.play_all(&t, &id, &["12l8d"]).await;
    let from = at(&game["clocks"][2]["counting_from"]);
    about(at(&game["deadline"]), from + Duration::hours(29));
    // The next turn, First may give again.
    ok(give(&app, &t, 0, &id, json!({"to": "last", "hours": 1})).await).await;

    let stranger = app.register_user("giftdave").await;
    let token = app.tokens_for(&stranger).await.access;
    let res = app
        .authed(
            Method::POST,
            &format!("/api/v1/games/{id}/time"),
            &token,
            Some(&json!({"to": "last", "hours": 1})),
        )
        .await;
    assert_problem(res, StatusCode::FORBIDDEN, "not-a-player").await;

    // No clock, nothing to give; a Fischer bank stops at its maximum.
    let none = app.started_game(&t, json!({})).await;
    let res = give(&app, &t, 0, &none, json!({"to": "middle", "hours": 1})).await;
    assert_problem(res, StatusCode::CONFLICT, "game-state").await;
    let control = json!({"kind": "fischer", "initial_days": 1, "increment_days": 1, "max_days": 2});
    let fischer = app.started_game(&t, json!({"time_control": control})).await;
    let game = ok(give(&app, &t, 1, &fischer, json!({"to": "first", "hours": 48})).await).await;
    let left = game["clocks"][0]["remaining_seconds"].as_i64().unwrap();
    assert!((2 * 86_400 - 60..=2 * 86_400).contains(&left), "{left}");
    let told = heard(&app, &t, 0, &fischer, "game.time_given").await;
    let added = told[0]["seconds"].as_i64().unwrap();
    assert!((86_400..86_400 + 60).contains(&added), "{added}");
}

on_both_backends!(
    time_controls_are_checked,
    a_premove_played_ends_its_players_vacation,
    gifts_to_one_turn_are_capped_at_seven_days,
    a_zone_change_waits_for_the_next_turn,
    r35_a_fischer_bank_runs_out,
    weekends_pause_in_the_zone_of_the_player_to_move,
    a_vacation_stops_the_clock_until_a_move_ends_it,
    a_vacation_ends_early_or_when_its_days_run_out,
    giving_time,
);

//! Computer players end to end: games with bots played to the finish, one
//! move per bot turn across processes, a dead claim taken again, alliance
//! answers, and ratings after a rated game.

use std::time::Duration;

use rand::seq::IndexedRandom as _;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{assert_problem, eventually, spawn_app_with, Backend, TestApp};
use crate::on_both_backends;

/// Bots think briefly and are looked for often, so tests run quickly.
fn quick_bots(s: &mut sannin::config::Settings) {
    s.games.bot_think = Duration::from_millis(50);
    s.games.bot_poll_interval = Duration::from_millis(10);
}

async fn signed_in(app: &TestApp, username: &str) -> String {
    let user = app.register_user(username).await;
    app.tokens_for(&user).await.access
}

async fn created(app: &TestApp, token: &str, body: Value) -> Value {
    let res = app.create_game(token, &body).await;
    let status = res.status();
    let game: Value = res.json().await.unwrap();
    assert_eq!(status, StatusCode::CREATED, "{body}: {game}");
    game
}

/// Waits until the game is over or `seat` is to move, and returns it.
async fn turn_of(app: &TestApp, token: &str, id: &str, seat: &str) -> Value {
    eventually(&format!("{seat} to move in {id}"), || async {
        let g = app.game_json(token, id).await;
        (g["status"] != "active" || g["to_move"] == seat).then_some(g)
    })
    .await
}

/// The bots' jobs of a game: (kind, ply, status, attempts).
async fn bot_jobs(app: &TestApp, id: &str) -> Vec<(String, i32, String, i32)> {
    let id = id.to_owned();
    app.with_connection(move |conn| {
        sannin::db::bots::of_game(conn, &id)
            .unwrap()
            .into_iter()
            .map(|j| {
                (
                    j.kind.as_str().to_owned(),
                    j.ply,
                    j.status.as_str().to_owned(),
                    j.attempts,
                )
            })
            .collect()
    })
    .await
}

/// The moves the bots played: (ply, notation).
async fn moves_by_bots(app: &TestApp, token: &str, id: &str) -> Vec<(i32, String)> {
    let moves: Value = app
        .authed(
            Method::GET,
            &format!("/api/v1/games/{id}/moves"),
            token,
            None,
        )
        .await
        .json()
        .await
        .unwrap();
    moves
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["kind"] == "move")
        .filter(|m| m["username"].as_str().unwrap().starts_with("sannin-bot-"))
        .map(|m| {
            let ply = m["ply"].as_i64().unwrap() as i32;
            (ply, m["notation"].as_str().unwrap().to_owned())
        })
        .collect()
}

/// What each of the game's bot jobs did, in their order.
async fn job_results(app: &TestApp, id: &str) -> Vec<String> {
    let id = id.to_owned();
    app.with_connection(move |conn| {
        sannin::db::bots::of_game(conn, &id)
            .unwrap()
            .into_iter()
            .map(|j| j.result.unwrap_or_default())
            .collect()
    })
    .await
}

/// A game with no human left in play ends at once: the computer players
/// agree a draw among themselves (R36) rather than play on, so no search is
/// spent on a game nobody watches.
async fn a_game_with_no_human_left_ends_at_once(backend: Backend) {
    let app = spawn_app_with(backend, quick_bots).await;
    let human = signed_in(&app, "nh_alice").await;
    let game = created(&app, &human, json!({"seat": "first", "bots": [5, 4]})).await;
    let id = game["id"].as_str().unwrap().to_owned();
    let res = app
        .authed(
            Method::POST,
            &format!("/api/v1/games/{id}/resign"),
            &human,
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let game: Value = res.json().await.unwrap();
    assert_eq!(game["status"], "finished", "{game}");
    assert_eq!(
        game["result"],
        json!({"winner": null, "draw": ["middle", "last"], "reason": "agreement"})
    );
    let moves: Value = app
        .authed(
            Method::GET,
            &format!("/api/v1/games/{id}/moves"),
            &human,
            None,
        )
        .await
        .json()
        .await
        .unwrap();
    let kinds: Vec<&str> = moves
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["resign", "draw_agreed"]);
    assert!(moves_by_bots(&app, &human, &id).await.is_empty());
}

/// One account may play in a bounded number of unfinished games with
/// computer players (`SANNIN_LIMIT_BOT_GAMES`), created or joined.
async fn games_with_bots_are_bounded_per_account(backend: Backend) {
    let app = spawn_app_with(backend, |s| {
        quick_bots(s);
        s.limits.bot_games.max = 1;
    })
    .await;
    let human = signed_in(&app, "bq_alice").await;
    let first = created(&app, &human, json!({"seat": "first", "bots": [1, 2]})).await;
    let res = app.create_game(&human, &json!({"bots": [3, 4]})).await;
    assert_problem(res, StatusCode::CONFLICT, "quota-exceeded").await;
    // Joining someone else's game with a computer player counts too.
    let bob = signed_in(&app, "bq_bob").await;
    let other = created(
        &app,
        &bob,
        json!({"seat": "first", "bots": [1], "open_seats": 1}),
    )
    .await;
    let res = app.join_game(&human, other["id"].as_str().unwrap()).await;
    assert_problem(res, StatusCode::CONFLICT, "quota-exceeded").await;
    // Games among people are not limited by it.
    let carol = signed_in(&app, "bq_carol").await;
    let people = created(&app, &carol, json!({"open_seats": 2})).await;
    assert_eq!(
        app.join_game(&human, people["id"].as_str().unwrap())
            .await
            .status(),
        StatusCode::OK
    );
    // Once the game is over, another may begin.
    let id = first["id"].as_str().unwrap();
    let res = app
        .authed(
            Method::POST,
            &format!("/api/v1/games/{id}/resign"),
            &human,
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    created(&app, &human, json!({"bots": [3, 4]})).await;
}

/// R11, R35, R30: a human allied with a level-2 bot against a level-1 bot
/// (which moves first) plays random legal moves; the bots answer every
/// turn; after 20 of its moves the human resigns, which ends the game (an
/// ally is gone: the non-allied player wins). The game is rated, and the
/// ratings match Weng-Lin's for the places.
async fn a_human_and_two_bots_finish_a_rated_game(backend: Backend) {
    let app = spawn_app_with(backend, quick_bots).await;
    let human = signed_in(&app, "hb_alice").await;
    let game = created(
        &app,
        &human,
        json!({"seat": "first", "bots": [2, 1], "allies": ["first", "middle"], "rated": true}),
    )
    .await;
    let id = game["id"].as_str().unwrap().to_owned();
    assert_eq!(game["status"], "active", "bots accept at once: {game}");
    assert_eq!(game["rated"], true);
    let names: Vec<&str> = game["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["username"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["hb_alice", "sannin-bot-2", "sannin-bot-1"]);
    let bots: Vec<bool> = game["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["bot"].as_bool().unwrap())
        .collect();
    assert_eq!(bots, [false, true, true]);
    // A bot's turn has no deadline.
    assert_eq!(game["to_move"], "last");
    assert!(game["deadline"].is_null());

    let mut rng = rand::rng();
    for _ in 0..20 {
        let g = turn_of(&app, &human, &id, "first").await;
        if g["status"] != "active" {
            break;
        }
        let legal: Vec<&str> = g["legal_moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        let mv = legal.choose(&mut rng).unwrap().to_string();
        let res = app
            .play_move(&human, &id, &mv, g["ply"].as_i64().unwrap())
            .await;
        assert_eq!(res.status(), StatusCode::CREATED, "{mv}");
    }
    let g = turn_of(&app, &human, &id, "first").await;
    if g["status"] == "active" {
        let res = app
            .authed(
                Method::POST,
                &format!("/api/v1/games/{id}/resign"),
                &human,
                None,
            )
            .await;
        assert_eq!(res.status(), StatusCode::OK);
    }
    let g = app.game_json(&human, &id).await;
    assert_eq!(g["status"], "finished", "{g}");
    // Every bot move was one job, done at the first attempt, and every
    // done job is a stored move.
    let bot_moves = moves_by_bots(&app, &human, &id).await;
    assert!(bot_moves.len() >= 2, "the bots moved: {bot_moves:?}");
    let jobs = bot_jobs(&app, &id).await;
    let done: Vec<(i32, String)> = jobs
        .iter()
        .map(|(kind, ply, status, attempts)| {
            assert_eq!(
                (kind.as_str(), status.as_str(), *attempts),
                ("move", "done", 1),
                "ply {ply}"
            );
            *ply
        })
        .zip(job_results(&app, &id).await)
        .collect();
    assert_eq!(done, bot_moves);

    // The ratings: places from the result, updated as Weng-Lin has it.
    let place = |seat: usize| g["players"][seat]["rating"]["place"].as_i64().unwrap() as usize;
    let places = [place(0), place(1), place(2)];
    let winner = ["first", "middle", "last"]
        .iter()
        .position(|s| g["result"]["winner"] == *s);
    if let Some(w) = winner {
        assert_eq!(places[w], 1, "{g}");
    }
    // A game in which a player made fewer than 3 moves (random play can
    // lose that fast) counts for nothing: the places stand, no rating moves.
    let moves = app.move_list(&id).await;
    let made = |seat: &str| {
        moves
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["kind"] == "move" && m["seat"] == seat)
            .count()
    };
    if ["first", "middle", "last"].iter().any(|s| made(s) < 3) {
        for seat in 0..3 {
            let r = &g["players"][seat]["rating"];
            assert_eq!(r["uncounted"], "too-short", "{r}");
            assert_eq!(r["before"], r["after"]);
        }
        return;
    }
    use skillratings::weng_lin::{weng_lin_multi_team, WengLinConfig, WengLinRating};
    use skillratings::MultiTeamOutcome;
    let fresh = [[WengLinRating::new()]; 3];
    let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> = fresh
        .iter()
        .zip(places)
        .map(|(t, p)| (&t[..], MultiTeamOutcome::new(p)))
        .collect();
    let expected = weng_lin_multi_team(&ranked, &WengLinConfig::new());
    for seat in 0..3 {
        let after = &g["players"][seat]["rating"]["after"];
        let close = |v: &Value, x: f64| (v.as_f64().unwrap() - x).abs() < 1e-9;
        assert!(
            close(&after["mu"], expected[seat][0].rating),
            "{seat}: {after}"
        );
        assert!(
            close(&after["sigma"], expected[seat][0].uncertainty),
            "{seat}: {after}"
        );
        let before = &g["players"][seat]["rating"]["before"];
        assert!(close(&before["mu"], 25.0) && close(&before["sigma"], 25.0 / 3.0));
    }
    let profile: Value = app.get_user("hb_alice").await.json().await.unwrap();
    assert_eq!(profile["bot"], false);
    assert_eq!(profile["rating"]["games"], 1);
    assert_eq!(profile["rating"]["provisional"], true);
    let bot: Value = app.get_user("sannin-bot-1").await.json().await.unwrap();
    assert_eq!(
        (bot["bot"].clone(), bot["level"].clone()),
        (json!(true), json!(1))
    );
    assert_eq!(bot["rating"]["games"], 1);
    let history: Value = app
        .request(Method::GET, "/api/v1/users/hb_alice/ratings")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(history.as_array().unwrap().len(), 1, "{history}");
    assert_eq!(history[0]["game_id"], id.as_str());
    assert_eq!(history[0]["seat"], "first");
    assert_eq!(history[0]["place"].as_u64().unwrap() as usize, places[0]);
}

/// With two server processes on one database, each bot turn is claimed,
/// thought about and played once. (The human is allied with one bot, so
/// that its elimination would end the game.)
async fn two_processes_never_both_move_for_a_bot(backend: Backend) {
    let a = spawn_app_with(backend, quick_bots).await;
    let b = a.restart_with(quick_bots).await;
    let human = signed_in(&a, "hp_alice").await;
    let game = created(
        &a,
        &human,
        json!({"seat": "first", "bots": [1, 2], "allies": ["first", "middle"]}),
    )
    .await;
    let id = game["id"].as_str().unwrap().to_owned();
    for round in 0..6 {
        let app = if round % 2 == 0 { &a } else { &b };
        let g = turn_of(app, &human, &id, "first").await;
        if g["status"] != "active" {
            break;
        }
        let mv = g["legal_moves"][0].as_str().unwrap().to_owned();
        let res = app
            .play_move(&human, &id, &mv, g["ply"].as_i64().unwrap())
            .await;
        assert_eq!(res.status(), StatusCode::CREATED);
    }
    turn_of(&a, &human, &id, "first").await;
    let jobs = bot_jobs(&a, &id).await;
    for (kind, ply, status, attempts) in &jobs {
        assert_eq!(
            (kind.as_str(), status.as_str(), *attempts),
            ("move", "done", 1),
            "ply {ply}"
        );
    }
    let played: Vec<(i32, String)> = jobs
        .iter()
        .map(|j| j.1)
        .zip(job_results(&a, &id).await)
        .collect();
    assert_eq!(played, moves_by_bots(&a, &human, &id).await);
    assert!(played.len() >= 2, "{played:?}");
    // Every ply has one move, by whoever was to move.
    let moves: Value = a
        .authed(
            Method::GET,
            &format!("/api/v1/games/{id}/moves"),
            &human,
            None,
        )
        .await
        .json()
        .await
        .unwrap();
    let plies: Vec<i64> = moves
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["ply"].as_i64())
        .collect();
    let expected: Vec<i64> = (1..=plies.len() as i64).collect();
    assert_eq!(plies, expected);
}

/// A process that claimed a bot's turn and went quiet (its claim's lease
/// ran out) does not hold the game up: another process takes the turn
/// again and plays it, and the first one's late answer changes nothing.
async fn a_claim_that_dies_is_taken_again(backend: Backend) {
    let slow = spawn_app_with(backend, |s| {
        s.games.bot_think = Duration::from_secs(3);
        s.games.bot_poll_interval = Duration::from_millis(10);
        // Stopping waits for the attempt in flight to end.
        s.http.shutdown_timeout = Duration::from_secs(30);
    })
    .await;
    let human = signed_in(&slow, "hd_alice").await;
    // Level 5 thinks for its whole budget.
    let game = created(&slow, &human, json!({"seat": "last", "bots": [5, 4]})).await;
    let id = game["id"].as_str().unwrap().to_owned();
    eventually("the slow process claims the first turn", || async {
        let jobs = bot_jobs(&slow, &id).await;
        (jobs.first().map(|j| j.3) == Some(1)).then_some(())
    })
    .await;
    // The claim's lease (the budget and a minute) runs out.
    slow.clock.advance(chrono::Duration::seconds(120));
    let quick = slow.restart_with(quick_bots).await;
    let g = turn_of(&quick, &human, &id, "last").await;
    assert_eq!(g["ply"], 3, "both bots moved once: {g}");
    let jobs = bot_jobs(&quick, &id).await;
    assert_eq!(jobs[0].2, "done");
    assert_eq!(jobs[0].3, 2, "the first turn was claimed twice: {jobs:?}");
    // The slow process's search ends, finds the turn played, and records
    // nothing (stopping it waits for that attempt to end).
    slow.stop().await;
    let g = quick.game_json(&human, &id).await;
    assert_eq!(g["ply"], 3, "{g}");
    assert_eq!(bot_jobs(&quick, &id).await[0].2, "done");
}

/// A bot answers an alliance proposal by its evaluation: at the start,
/// standing as well as anyone, it needs no ally and declines.
async fn a_bot_answers_alliance_proposals(backend: Backend) {
    let app = spawn_app_with(backend, quick_bots).await;
    let human = signed_in(&app, "ha_alice").await;
    let game = created(&app, &human, json!({"seat": "first", "bots": [3, 1]})).await;
    let id = game["id"].as_str().unwrap().to_owned();
    let res = app
        .authed(
            Method::POST,
            &format!("/api/v1/games/{id}/alliance/proposals"),
            &human,
            Some(&json!({"to": "middle"})),
        )
        .await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let proposal: Value = res.json().await.unwrap();
    let pid = proposal["id"].as_str().unwrap().to_owned();
    eventually("the bot answers", || async {
        let jobs = bot_jobs(&app, &id).await;
        jobs.iter()
            .any(|j| j.0 == "proposal" && j.2 == "done")
            .then_some(())
    })
    .await;
    let g = app.game_json(&human, &id).await;
    assert!(g["alliance"].is_null(), "{g}");
    assert!(
        g["alliance_proposals"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["id"] != pid.as_str()),
        "no longer pending: {g}"
    );
}

/// Bots answer a draw offer at once (R36): at the start nobody stands better,
/// so both accept and the game is drawn.
async fn bots_answer_draw_offers(backend: Backend) {
    let app = spawn_app_with(backend, quick_bots).await;
    let human = signed_in(&app, "hd_alice").await;
    let game = created(&app, &human, json!({"seat": "first", "bots": [2, 4]})).await;
    let id = game["id"].as_str().unwrap().to_owned();
    let res = app
        .authed(
            Method::POST,
            &format!("/api/v1/games/{id}/draw/offer"),
            &human,
            None,
        )
        .await;
    let status = res.status();
    let g: Value = res.json().await.unwrap();
    assert_eq!(status, StatusCode::OK, "{g}");
    assert_eq!(g["status"], "finished", "{g}");
    assert_eq!(g["result"]["reason"], "agreement");
    assert_eq!(g["result"]["draw"], json!(["first", "middle", "last"]));
}

/// Bots cannot log in, nobody can register a bot's name, and a bot level
/// outside 1–5 or given twice is refused.
async fn bots_are_the_servers_own(backend: Backend) {
    let app = spawn_app_with(backend, quick_bots).await;
    let res = app.login("sannin-bot-3", "!").await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    // Nor any spelling a person would take for one: case, `-`, `_`.
    for (i, name) in [
        "sannin-bot-6",
        "sannin_bot_1",
        "SanninBot",
        "sannin--bot-2",
        "sanninbot_3",
    ]
    .iter()
    .enumerate()
    {
        let res = app
            .register(&json!({"username": name, "email": format!("b{i}@example.com"), "password": "a-long-password-here"}))
            .await;
        assert_problem(res, StatusCode::CONFLICT, "username-taken").await;
    }
    let res = app
        .register(&json!({"username": "sannin-fan", "email": "fan@example.com", "password": "a-long-password-here"}))
        .await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let human = signed_in(&app, "hr_alice").await;
    for bots in [json!([0]), json!([6]), json!([2, 2]), json!([1, 2, 3])] {
        let res = app.create_game(&human, &json!({"bots": bots})).await;
        assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    }
    // By username, a bot also accepts at once.
    let g = created(
        &app,
        &human,
        json!({"seat": "first", "invite": ["sannin-bot-1"]}),
    )
    .await;
    assert_eq!(g["players"][1]["state"], "joined", "{g}");
    assert_eq!(g["status"], "open");
}

/// The leaderboard ranks players with ten rated games or more by their
/// conservative rating.
async fn the_leaderboard_ranks_established_players(backend: Backend) {
    let app = spawn_app_with(backend, quick_bots).await;
    for name in ["hl_ann", "hl_ben", "hl_cat", "hl_dan"] {
        app.register_user(name).await;
    }
    app.execute_sql(
        "INSERT INTO ratings (user_id, mu, sigma, display, games, updated_at, opponents) \
         SELECT id, CASE username WHEN 'hl_ann' THEN 30 WHEN 'hl_ben' THEN 35 ELSE 40 END, 2, \
                CASE username WHEN 'hl_ann' THEN 24 WHEN 'hl_ben' THEN 29 ELSE 34 END, \
                CASE username WHEN 'hl_cat' THEN 9 ELSE 12 END, CURRENT_TIMESTAMP, \
                CASE username WHEN 'hl_dan' THEN 2 ELSE 5 END \
         FROM users WHERE username LIKE 'hl_%'",
    )
    .await;
    let board: Value = app
        .request(Method::GET, "/api/v1/leaderboard")
        .await
        .json()
        .await
        .unwrap();
    let names: Vec<(&str, i64)> = board
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["username"].as_str().unwrap(), l["rank"].as_i64().unwrap()))
        .collect();
    // hl_cat's rating is still provisional; hl_dan, the best, has played
    // only two opponents.
    assert_eq!(names, [("hl_ben", 1), ("hl_ann", 2)]);
    let res = app
        .request(Method::GET, "/api/v1/leaderboard?limit=0")
        .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
}

on_both_backends!(
    a_human_and_two_bots_finish_a_rated_game,
    a_game_with_no_human_left_ends_at_once,
    games_with_bots_are_bounded_per_account,
    two_processes_never_both_move_for_a_bot,
    a_claim_that_dies_is_taken_again,
    a_bot_answers_alliance_proposals,
    bots_answer_draw_offers,
    bots_are_the_servers_own,
    the_leaderboard_ranks_established_players,
);

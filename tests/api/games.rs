//! Games end to end: three players over HTTP, on both backends.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{assert_problem, eventually, spawn_app, spawn_app_with, Backend};
use crate::on_both_backends;

/// First's bishop, then Last's castling capture, leave Middle mated by 10k9k.
const MATE_IN_FOUR: [&str; 4] = ["2g10k+", "12l8d", "10d8d", "10k9k"];
/// 7b3f+ and 10k8m+ put Middle in check from First and Last at once (R29a).
const GANG_UP: [&str; 4] = ["2g10k", "10m6l", "7b3f+", "10k8m+"];
/// An automatic alliance promotes Last's king, which walks into the Garden.
const GARDEN: [&str; 12] = [
    "1d2e", "10m10l", "10d10e", "2g6i", "12l8d+", "10e6i", "3d4d", "10l11l", "6i9i", "1c2c",
    "P*10j", "9i7g",
];

fn types(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| e["type"].as_str().unwrap().to_owned())
        .collect()
}

async fn checkmate_then_resignation(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("mate").await;
    let id = app.started_game(&t, json!({"days_per_move": 3})).await;
    let game = app.game_json(&t.tokens[0], &id).await;
    assert_eq!(game["status"], "active");
    assert_eq!(game["to_move"], "first");
    assert_eq!(game["your_turn"], true);
    assert_eq!(game["legal_moves"].as_array().unwrap().len(), 48);
    assert!(game["deadline"].is_string());
    let bob_view = app.game_json(&t.tokens[1], &id).await;
    assert!(
        bob_view.get("legal_moves").is_none(),
        "only the player to move sees legal moves"
    );

    let game = app.play_all(&t, &id, &MATE_IN_FOUR).await;
    assert_eq!(game["players"][1]["state"], "eliminated");
    assert_eq!(game["players"][1]["elimination"]["reason"], "checkmate");
    assert_eq!(game["players"][1]["elimination"]["by"], "first");
    assert_eq!(
        game["to_move"], "first",
        "R27: the mating player moves next"
    );
    assert_eq!(game["status"], "active");

    // Last resigns: First is the last player standing.
    let res = app
        .authed(
            Method::POST,
            &format!("/api/v1/games/{id}/resign"),
            &t.tokens[2],
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let game: Value = res.json().await.unwrap();
    assert_eq!(game["status"], "finished");
    assert_eq!(game["result"]["winner"], "first");
    assert_eq!(game["result"]["reason"], "last_player_standing");
    assert_eq!(game["players"][0]["state"], "won");
    assert_eq!(game["players"][2]["elimination"]["reason"], "resigned");

    let res = app
        .play_move(&t.tokens[0], &id, "1a2a", game["ply"].as_i64().unwrap())
        .await;
    assert_problem(res, StatusCode::GONE, "game-over").await;

    let moves = app.move_list(&id).await;
    let moves = moves.as_array().unwrap();
    assert_eq!(moves.len(), 5);
    assert_eq!(moves[0]["notation"], "2g10k+");
    assert_eq!(moves[0]["username"], t.names[0].as_str());
    assert_eq!(moves[3]["effects"][0]["type"], "player_eliminated");
    assert_eq!(moves[4]["kind"], "resign");

    // The outbox: each player heard what concerns it.
    let alice = types(&app.events(&t.tokens[0], &id).await);
    let bob = app.events(&t.tokens[1], &id).await;
    let carol = types(&app.events(&t.tokens[2], &id).await);
    assert_eq!(types(&bob)[0], "game.invited");
    assert!(types(&bob).contains(&"game.started".to_owned()));
    assert!(types(&bob).contains(&"game.your_turn".to_owned()));
    assert_eq!(
        alice.iter().filter(|t| *t == "game.your_turn").count(),
        3,
        "start, after mate, after Last's move"
    );
    assert_eq!(
        alice.iter().filter(|t| *t == "game.move").count(),
        2,
        "the others' moves"
    );
    for who in [&alice, &carol] {
        assert!(who.contains(&"game.player_eliminated".to_owned()));
        assert_eq!(who.last().unwrap(), "game.finished");
    }
    let elim = bob
        .iter()
        .find(|e| e["type"] == "game.player_eliminated")
        .unwrap();
    assert_eq!(elim["data"]["seat"], "middle");
    assert_eq!(elim["data"]["reason"], "checkmate");
    assert_eq!(elim["data"]["game_id"], id.as_str());
}

async fn automatic_alliance_and_garden_win(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("gdn").await;
    let id = app.started_game(&t, json!({})).await;
    let game = app.play_all(&t, &id, &GANG_UP).await;
    assert_eq!(game["alliance"]["seats"], json!(["first", "last"]));
    assert!(
        game["position"].as_str().unwrap().contains("+Km"),
        "R20: the third king promotes"
    );
    let events = types(&app.events(&t.tokens[1], &id).await);
    assert!(events.contains(&"game.alliance_formed".to_owned()));

    let id = app.started_game(&t, json!({})).await;
    let game = app.play_all(&t, &id, &GARDEN).await;
    assert_eq!(game["status"], "finished");
    assert_eq!(game["result"]["winner"], "last");
    assert_eq!(game["result"]["reason"], "garden");
    assert_eq!(game["to_move"], Value::Null);
}

async fn voluntary_alliance_by_proposal(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("ally").await;
    let id = app.started_game(&t, json!({})).await;
    let propose = |token: usize, to: &str| {
        let (app, t, id, to) = (&app, &t, id.clone(), to.to_owned());
        async move {
            app.authed(
                Method::POST,
                &format!("/api/v1/games/{id}/alliance/proposals"),
                &t.tokens[token],
                Some(&json!({"to": to})),
            )
            .await
        }
    };
    let answer = |token: usize, proposal: &Value, verb: &str| {
        let path = format!(
            "/api/v1/games/{id}/alliance/proposals/{}/{verb}",
            proposal["id"].as_str().unwrap()
        );
        let (app, t) = (&app, &t);
        async move {
            app.authed(Method::POST, &path, &t.tokens[token], None)
                .await
        }
    };
    // Withdrawn and declined proposals change nothing.
    let p: Value = propose(0, "middle").await.json().await.unwrap();
    assert_eq!(p["status"], "pending");
    let res = answer(2, &p, "accept").await;
    assert_problem(res, StatusCode::FORBIDDEN, "forbidden").await;
    let res = answer(0, &p, "withdraw").await;
    assert_eq!(res.status(), StatusCode::OK);
    let p: Value = propose(1, "last").await.json().await.unwrap();
    let bob_heard = types(&app.events(&t.tokens[2], &id).await);
    assert!(bob_heard.contains(&"game.alliance_proposed".to_owned()));
    let res = answer(2, &p, "decline").await;
    let answered: Value = res.json().await.unwrap();
    assert_eq!(answered["proposal"]["status"], "declined");
    assert_eq!(answered["game"]["alliance"], Value::Null);

    // Last proposes to Middle, Middle accepts: the alliance forms between
    // moves. (Middle may not propose to Last again before moving.)
    let res = propose(1, "last").await;
    assert_problem(res, StatusCode::TOO_MANY_REQUESTS, "rate-limited").await;
    let p: Value = propose(2, "middle").await.json().await.unwrap();
    let other: Value = propose(0, "last").await.json().await.unwrap();
    let game = app.game_json(&t.tokens[0], &id).await;
    assert_eq!(game["alliance_proposals"].as_array().unwrap().len(), 2);
    let res = answer(1, &p, "accept").await;
    assert_eq!(res.status(), StatusCode::OK);
    let answered: Value = res.json().await.unwrap();
    assert_eq!(answered["proposal"]["status"], "accepted");
    let game = &answered["game"];
    assert_eq!(game["alliance"]["seats"], json!(["middle", "last"]));
    assert_eq!(game["ply"], 1, "an alliance is not a move");
    assert_eq!(game["to_move"], "first");
    assert!(game["position"].as_str().unwrap().contains("+Kf"), "R20");
    assert_eq!(game["castling"], json!([]), "R21c");
    assert_eq!(
        game["alliance_proposals"],
        json!([]),
        "the other proposal lapsed"
    );
    let res = answer(2, &other, "accept").await;
    assert_problem(res, StatusCode::CONFLICT, "game-state").await;
    let res = propose(0, "middle").await;
    assert_problem(res, StatusCode::CONFLICT, "alliance-not-allowed").await;
    for token in &t.tokens {
        assert!(types(&app.events(token, &id).await).contains(&"game.alliance_formed".to_owned()));
    }
}

async fn illegal_stale_and_repeated_submissions(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("bad").await;
    let id = app.started_game(&t, json!({})).await;
    let res = app.play_move(&t.tokens[0], &id, "7k7j", 1).await;
    let p = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "not-your-piece").await;
    assert!(p["detail"].as_str().unwrap().contains("7k"));
    let res = app.play_move(&t.tokens[0], &id, "3d2d", 1).await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "unreachable").await;
    let res = app.play_move(&t.tokens[0], &id, "3d4d+", 1).await;
    assert_problem(
        res,
        StatusCode::UNPROCESSABLE_ENTITY,
        "promotion-not-possible",
    )
    .await;
    let res = app.play_move(&t.tokens[0], &id, "banana", 1).await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "malformed-move").await;
    let res = app.play_move(&t.tokens[1], &id, "7k7j", 1).await;
    assert_problem(res, StatusCode::FORBIDDEN, "not-your-turn").await;
    let stranger = app.register_user("stranger").await;
    let token = app.tokens_for(&stranger).await.access;
    let res = app.play_move(&token, &id, "3d4d", 1).await;
    assert_problem(res, StatusCode::FORBIDDEN, "not-a-player").await;
    let res = app.play_move(&t.tokens[0], &id, "3d4d", 7).await;
    assert_problem(res, StatusCode::CONFLICT, "stale-ply").await;
    let (read_only, _) = app.personal_token(&t.tokens[0], &["games:read"]).await;
    let res = app.play_move(&read_only, &id, "3d4d", 1).await;
    assert_problem(res, StatusCode::FORBIDDEN, "insufficient-scope").await;

    // The same move for the same ply twice: one stored, the same answer.
    let first = app.play_move(&t.tokens[0], &id, "3d4d", 1).await;
    assert_eq!(first.status(), StatusCode::CREATED);
    let again = app.play_move(&t.tokens[0], &id, "3d4d", 1).await;
    assert_eq!(again.status(), StatusCode::CREATED);
    let again: Value = again.json().await.unwrap();
    assert_eq!(again["ply"], 2);
    let moves = app.move_list(&id).await;
    assert_eq!(moves.as_array().unwrap().len(), 1);
    // A different move for a ply already played is stale.
    let res = app.play_move(&t.tokens[0], &id, "3c4c", 1).await;
    assert_problem(res, StatusCode::CONFLICT, "stale-ply").await;
}

async fn racing_submissions_store_one_move(backend: Backend) {
    let app = spawn_app(backend).await;
    let second = app.restart().await; // another server process on the same database
    let t = app.trio("race").await;
    let id = app.started_game(&t, json!({})).await;
    for round in 0..5 {
        let game = app.game_json(&t.tokens[0], &id).await;
        let seat = game["to_move"].as_str().unwrap();
        let who = ["first", "middle", "last"]
            .iter()
            .position(|s| *s == seat)
            .unwrap();
        let ply = game["ply"].as_i64().unwrap();
        let legal: Vec<String> = game_legal(&app, &t.tokens[who], &id).await;
        let (a, b) = (&legal[round], &legal[legal.len() - 1 - round]);
        let (ra, rb) = tokio::join!(
            app.play_move(&t.tokens[who], &id, a, ply),
            second.play_move(&t.tokens[who], &id, b, ply)
        );
        let codes = [ra.status(), rb.status()];
        assert_eq!(
            codes.iter().filter(|c| **c == StatusCode::CREATED).count(),
            1,
            "{codes:?}"
        );
        assert!(codes.contains(&StatusCode::CONFLICT), "{codes:?}");
        let moves = app.move_list(&id).await;
        assert_eq!(moves.as_array().unwrap().len(), round + 1);
    }
}

/// A process may keep a game as it last stored it (on PostgreSQL), to store
/// the next move without reading the game first. A change it was never told
/// of — written here behind the server's back, as by a process whose
/// wake-up was lost — is still seen: the move is judged against the game as
/// it stands, its row, its seats and their holders' accounts.
async fn a_game_changed_unannounced_is_read_again(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("kept").await;
    let id = app.started_game(&t, json!({})).await;
    // Three moves through the one process: each stores the game it keeps.
    app.play_all(&t, &id, &["3d4d", "10m10l"]).await;
    let mv = game_legal(&app, &t.tokens[2], &id).await.remove(0);
    let game = app.play_all(&t, &id, &[mv.as_str()]).await;
    assert_eq!(
        (game["ply"].as_i64(), game["to_move"].as_str()),
        (Some(4), Some("first"))
    );

    // A draw offer by Middle, standing, on the game's row (R36).
    let offer = json!({
        "by": "middle",
        "accepted": ["middle"],
        "ply": 4,
        "offered_at": app.clock.now().format("%Y-%m-%dT%H:%M:%S").to_string(),
    });
    app.execute_sql(&format!(
        "UPDATE games SET draw_offer = '{offer}' WHERE id = '{id}'"
    ))
    .await;
    // First moves instead of answering: that declines it (R36).
    let mv = game_legal(&app, &t.tokens[0], &id).await.remove(0);
    let game = app.play_all(&t, &id, &[mv.as_str()]).await;
    assert_eq!(game["draw_offer"], Value::Null);
    let declined = crate::helpers::heard(&app, &t, 1, &id, "game.draw_declined").await;
    assert_eq!(declined.len(), 1, "{declined:?}");
    assert_eq!(declined[0]["reason"], "moved");
    assert_eq!(declined[0]["seat"], "first");

    // Last's account renamed: Middle's move answers with the new name.
    app.execute_sql("UPDATE users SET username = 'keptcarol2' WHERE username = 'keptcarol'")
        .await;
    let mv = game_legal(&app, &t.tokens[1], &id).await.remove(0);
    let game = app.play_all(&t, &id, &[mv.as_str()]).await;
    assert_eq!(game["players"][2]["username"], "keptcarol2", "{game}");

    // Last's seat left by its account (as an operator might): Last's move is
    // no longer theirs to make.
    let ply = game["ply"].as_i64().unwrap();
    let mv = game_legal(&app, &t.tokens[2], &id).await.remove(0);
    app.execute_sql(&format!(
        "UPDATE game_seats SET user_id = NULL WHERE game_id = '{id}' AND seat = 'last'"
    ))
    .await;
    let res = app.play_move(&t.tokens[2], &id, &mv, ply).await;
    assert_problem(res, StatusCode::FORBIDDEN, "not-a-player").await;
    let moves = app.move_list(&id).await;
    assert_eq!(moves.as_array().unwrap().len(), 5);
}

async fn game_legal(app: &crate::helpers::TestApp, token: &str, id: &str) -> Vec<String> {
    let g = app.game_json(token, id).await;
    g["legal_moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_owned())
        .collect()
}

/// Reading a game's moves and record while moves are stored: the game's row
/// and its actions are read from one snapshot, so a move stored in between
/// is never half seen (which a replay check would take for damage, a 500).
async fn reads_during_moves_see_one_snapshot(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("snap").await;
    let id = app.started_game(&t, json!({})).await;
    let done = std::sync::atomic::AtomicBool::new(false);
    let reading = || async {
        let mut reads = 0;
        while !done.load(std::sync::atomic::Ordering::Relaxed) {
            for path in ["moves", "record"] {
                let res = app
                    .request(Method::GET, &format!("/api/v1/games/{id}/{path}"))
                    .await;
                let status = res.status();
                assert_eq!(
                    status,
                    StatusCode::OK,
                    "{path}: {}",
                    res.text().await.unwrap()
                );
                reads += 1;
            }
        }
        reads
    };
    let playing = async {
        for _ in 0..36 {
            let game = app.game_json(&t.tokens[0], &id).await;
            if game["status"] != "active" {
                break;
            }
            let who = ["first", "middle", "last"]
                .iter()
                .position(|s| game["to_move"] == *s)
                .unwrap();
            let legal = game_legal(&app, &t.tokens[who], &id).await;
            let ply = game["ply"].as_i64().unwrap();
            let res = app.play_move(&t.tokens[who], &id, &legal[0], ply).await;
            assert_eq!(res.status(), StatusCode::CREATED);
        }
        done.store(true, std::sync::atomic::Ordering::Relaxed);
    };
    let (a, b, ()) = tokio::join!(reading(), reading(), playing);
    assert!(a + b > 0);
}

/// Plays `plies` moves, each the first legal one of whoever is to move.
async fn play_first_legal(
    app: &crate::helpers::TestApp,
    t: &crate::helpers::Trio,
    id: &str,
    plies: usize,
) {
    for _ in 0..plies {
        let game = app.game_json(&t.tokens[0], id).await;
        assert_eq!(game["status"], "active", "{game}");
        let who = ["first", "middle", "last"]
            .iter()
            .position(|s| game["to_move"] == *s)
            .unwrap();
        let legal = game_legal(app, &t.tokens[who], id).await;
        let ply = game["ply"].as_i64().unwrap();
        let res = app.play_move(&t.tokens[who], id, &legal[0], ply).await;
        assert_eq!(res.status(), StatusCode::CREATED);
    }
}

/// The `uncounted` of each of `who`'s rated games, newest first, and their rating.
async fn rating_history(app: &crate::helpers::TestApp, name: &str) -> (Vec<Value>, Value) {
    let history: Value = app
        .request(Method::GET, &format!("/api/v1/users/{name}/ratings"))
        .await
        .json()
        .await
        .unwrap();
    let profile: Value = app.get_user(name).await.json().await.unwrap();
    let games = history
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["uncounted"].clone())
        .collect();
    (games, profile["rating"].clone())
}

/// Results that say nothing about skill count for nothing: a rated game
/// that ends before every player has moved three times, a draw all three
/// agree before ply 30, and a fourth rated game among the same three people
/// within 30 days. Their places are recorded; no rating moves.
async fn results_that_say_nothing_about_skill_count_for_nothing(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("farm").await;
    let resign = |who: usize, id: String| {
        let app = &app;
        let token = t.tokens[who].clone();
        async move {
            let res = app
                .authed(
                    Method::POST,
                    &format!("/api/v1/games/{id}/resign"),
                    &token,
                    None,
                )
                .await;
            assert_eq!(res.status(), StatusCode::OK);
        }
    };
    // Two sock puppets resign at once: nothing changes for anyone.
    let id = app.started_game(&t, json!({"rated": true})).await;
    play_first_legal(&app, &t, &id, 3).await;
    resign(1, id.clone()).await;
    resign(2, id.clone()).await;
    let (games, rating) = rating_history(&app, &t.names[0]).await;
    assert_eq!(games, [json!("too-short")]);
    assert_eq!(rating["games"], 0, "{rating}");
    assert_eq!(rating["display"], 0.0, "{rating}");

    // An early draw of all three.
    let id = app.started_game(&t, json!({"rated": true})).await;
    play_first_legal(&app, &t, &id, 9).await;
    for (who, what) in [(0, "offer"), (1, "accept"), (2, "accept")] {
        let res = app
            .authed(
                Method::POST,
                &format!("/api/v1/games/{id}/draw/{what}"),
                &t.tokens[who],
                None,
            )
            .await;
        assert_eq!(res.status(), StatusCode::OK, "{what}");
    }
    let (games, rating) = rating_history(&app, &t.names[1]).await;
    assert_eq!(games[0], "early-draw");
    assert_eq!(rating["games"], 0);

    // Three decisive games count; a fourth within 30 days does not.
    for n in 0..4 {
        let id = app.started_game(&t, json!({"rated": true})).await;
        play_first_legal(&app, &t, &id, 9).await;
        resign(1, id.clone()).await;
        resign(2, id.clone()).await;
        let (games, rating) = rating_history(&app, &t.names[0]).await;
        if n < 3 {
            assert_eq!(games[0], Value::Null, "game {n} counts");
            assert_eq!(rating["games"], n + 1);
        } else {
            assert_eq!(games[0], "repeated");
            assert_eq!(rating["games"], 3);
        }
    }
    // Not on the leaderboard: ten games against five opponents are needed.
    let board: Value = app
        .request(Method::GET, "/api/v1/leaderboard")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(board, json!([]));
}

async fn time_out_eliminates_and_play_goes_on(backend: Backend) {
    let fast = |s: &mut sannin::config::Settings| {
        s.games.sweep_interval = Duration::from_millis(100);
    };
    let app = spawn_app_with(backend, fast).await;
    // A second server process sweeping the same database just as often.
    let second = app.restart_with(fast).await;
    let t = app.trio("slow").await;
    let id = app.started_game(&t, json!({"days_per_move": 1})).await;
    app.play_all(&t, &id, &["3d4d"]).await;
    // Middle lets its day run low (the reminder comes with 12 hours left)…
    app.clock.advance(chrono::Duration::hours(13));
    let t = app.log_in_again(&t).await;
    eventually("Middle is reminded", || async {
        types(&app.events(&t.tokens[1], &id).await)
            .contains(&"game.deadline_approaching".to_owned())
            .then_some(())
    })
    .await;
    // …then run out.
    app.clock.advance(chrono::Duration::hours(12));
    let t = app.log_in_again(&t).await;
    let game = eventually("Middle times out", || async {
        let game = app.game_json(&t.tokens[0], &id).await;
        (game["players"][1]["state"] == "eliminated").then_some(game)
    })
    .await;
    assert_eq!(
        game["players"][1]["elimination"]["reason"], "timed_out",
        "{game}"
    );
    assert_eq!(game["to_move"], "last");
    let moves = second.move_list(&id).await;
    let timeouts = moves
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["kind"] == "timeout")
        .count();
    assert!(timeouts >= 1);
    let carol = types(&app.events(&t.tokens[2], &id).await);
    assert!(carol.contains(&"game.player_eliminated".to_owned()));
    let bob = types(&app.events(&t.tokens[1], &id).await);
    assert!(
        bob.contains(&"game.deadline_approaching".to_owned()),
        "{bob:?}"
    );
    // Each expiry acted once, however many sweepers: only Middle's deadline had passed
    // by the time it was eliminated, so exactly one time-out is recorded for it.
    let middle_timeouts = moves
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["notation"] == "timeout:m")
        .count();
    assert_eq!(middle_timeouts, 1);
}

/// Issue 12: a conditional read of an unchanged game answers from the game
/// row's version alone. Its snapshot and actions are damaged here, so any
/// read that loads them fails, yet the 304 still comes; each viewer has a
/// tag of its own; and a proposal, which changes the view but plays no move,
/// changes the tag.
async fn not_modified_reads_only_the_game_row(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("cheap").await;
    let id = app.started_game(&t, json!({})).await;
    app.play_all(&t, &id, &["3d4d"]).await;
    let tag = |res: &reqwest::Response| res.headers()["etag"].to_str().unwrap().to_owned();
    let conditional = |bearer: Option<String>, etag: String| {
        let mut req = app
            .client
            .get(app.url(&format!("/api/v1/games/{id}")))
            .header("If-None-Match", etag);
        if let Some(b) = bearer {
            req = req.bearer_auth(b);
        }
        req.send()
    };
    let anonymous = tag(&app
        .request(Method::GET, &format!("/api/v1/games/{id}"))
        .await);
    let first = tag(&app.get_game(&t.tokens[0], &id).await);
    let middle = tag(&app.get_game(&t.tokens[1], &id).await);
    assert!(anonymous != first && first != middle && anonymous != middle);

    app.execute_sql(&format!(
        "UPDATE game_actions SET notation = 'not a move' WHERE game_id = '{id}'"
    ))
    .await;
    app.execute_sql(&format!(
        "UPDATE games SET snapshot = '{{\"v\": 1}}' WHERE id = '{id}'"
    ))
    .await;
    let res = conditional(Some(t.tokens[0].clone()), first.clone())
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(tag(&res), first);
    let res = conditional(None, anonymous.clone()).await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_MODIFIED);
    // Another viewer's tag is not this viewer's.
    let res = conditional(None, first.clone()).await.unwrap();
    assert_eq!(
        res.status(),
        StatusCode::INTERNAL_SERVER_ERROR,
        "the full read loads the damaged snapshot"
    );
    // Without a snapshot (as stored before there were any), the full read
    // replays the actions, damaged still.
    app.execute_sql(&format!(
        "UPDATE games SET snapshot = NULL WHERE id = '{id}'"
    ))
    .await;
    let res = conditional(None, first.clone()).await.unwrap();
    assert_eq!(res.status(), StatusCode::INTERNAL_SERVER_ERROR);
    app.execute_sql(&format!(
        "UPDATE game_actions SET notation = '3d4d' WHERE game_id = '{id}' AND kind = 'move'"
    ))
    .await;
    let res = conditional(None, first.clone()).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK, "replayed");
    assert_eq!(tag(&res), anonymous);

    let res = app
        .authed(
            Method::POST,
            &format!("/api/v1/games/{id}/alliance/proposals"),
            &t.tokens[0],
            Some(&json!({"to": "last"})),
        )
        .await;
    assert_eq!(res.status(), StatusCode::CREATED, "{:?}", res.text().await);
    let res = conditional(Some(t.tokens[0].clone()), first.clone())
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_ne!(tag(&res), first);
}

async fn etag_and_not_modified(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("etag").await;
    let id = app.started_game(&t, json!({})).await;
    let res = app.get_game(&t.tokens[0], &id).await;
    let etag = res.headers()["etag"].to_str().unwrap().to_owned();
    let res = app
        .client
        .get(app.url(&format!("/api/v1/games/{id}")))
        .bearer_auth(&t.tokens[0])
        .header("If-None-Match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::NOT_MODIFIED);
    app.play_all(&t, &id, &["3d4d"]).await;
    let res = app
        .client
        .get(app.url(&format!("/api/v1/games/{id}")))
        .bearer_auth(&t.tokens[0])
        .header("If-None-Match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_ne!(res.headers()["etag"].to_str().unwrap(), etag);
}

async fn record_round_trip_and_board_picture(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("rec").await;
    let id = app.started_game(&t, json!({"days_per_move": 7})).await;
    app.play_all(&t, &id, &GARDEN).await;
    let record = app
        .request(Method::GET, &format!("/api/v1/games/{id}/record"))
        .await;
    assert_eq!(record.status(), StatusCode::OK);
    assert!(record.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/plain"));
    let text = record.text().await.unwrap();
    assert!(text.contains(&format!("[First \"{}\"]", t.names[0])));
    assert!(text.contains("[Result \"l\"]"));
    assert!(text.contains("12. 9i7g"));
    let res = app
        .authed(
            Method::POST,
            "/api/v1/games/import",
            &t.tokens[1],
            Some(&json!({"record": text})),
        )
        .await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let imported: Value = res.json().await.unwrap();
    let original = app.game_json(&t.tokens[0], &id).await;
    assert_eq!(imported["status"], "finished");
    // Issue 10: the record's names are labels, not the accounts they name.
    for (i, player) in imported["players"].as_array().unwrap().iter().enumerate() {
        assert!(player["username"].is_null(), "{player}");
        assert_eq!(player["label"], t.names[i].as_str(), "{player}");
    }
    let listed: Value = app
        .authed(
            Method::GET,
            "/api/v1/games?mine=false&status=finished",
            &t.tokens[1],
            None,
        )
        .await
        .json()
        .await
        .unwrap();
    let summary = listed["games"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["id"] == imported["id"])
        .expect("the imported game is listed");
    assert!(summary["players"][0]["username"].is_null());
    assert_eq!(summary["players"][0]["label"], t.names[0].as_str());
    assert_eq!(imported["position"], original["position"]);
    assert_eq!(imported["result"], original["result"]);
    let again = app
        .request(
            Method::GET,
            &format!("/api/v1/games/{}/record", imported["id"].as_str().unwrap()),
        )
        .await
        .text()
        .await
        .unwrap();
    let body = |s: &str| {
        s.lines()
            .filter(|l| !l.starts_with('['))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(body(&again), body(&text), "the moves and result round-trip");
    let bad = text.replace("12. 9i7g", "12. 9i8g");
    let res = app
        .authed(
            Method::POST,
            "/api/v1/games/import",
            &t.tokens[1],
            Some(&json!({"record": bad})),
        )
        .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;

    let svg = app
        .request(
            Method::GET,
            &format!("/api/v1/games/{id}/board.svg?ply=5&view=last"),
        )
        .await;
    assert_eq!(svg.status(), StatusCode::OK);
    assert_eq!(svg.headers()["content-type"], "image/svg+xml");
    let text = svg.text().await.unwrap();
    let doc = roxmltree::Document::parse(&text).expect("the picture is XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    assert_eq!(
        doc.descendants()
            .filter(|n| n
                .attribute("class")
                .is_some_and(|c| c.split(' ').any(|x| x == "cell")))
            .count(),
        127
    );
    assert!(text.contains(t.names[2].as_str()));
    let res = app
        .request(Method::GET, &format!("/api/v1/games/{id}/board.svg?ply=99"))
        .await;
    assert_problem(res, StatusCode::NOT_FOUND, "not-found").await;
    let res = app
        .request(
            Method::GET,
            &format!("/api/v1/games/{id}/board.svg?view=up"),
        )
        .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
}

/// A stored row that does not parse is an error naming the row, never a
/// default (an unknown status once read as `open`, a seat state as `open`).
async fn rows_that_do_not_parse_are_errors_not_defaults(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("bad").await;
    let id = app.started_game(&t, json!({})).await;
    let other = app.started_game(&t, json!({})).await;
    // The database refuses unknown words; lift that to store them anyway.
    for (table, column) in [("games", "status"), ("game_seats", "state")] {
        let refused = app
            .try_execute_sql(&format!("UPDATE {table} SET {column} = 'bogus'"))
            .await
            .expect_err("the database refuses a word it does not know");
        assert!(
            refused.contains(&format!("{table}_{column}_known")),
            "{refused}"
        );
        app.allow_unknown_words(table, column).await;
    }
    app.execute_sql(&format!(
        "UPDATE games SET status = 'bogus' WHERE id = '{id}'"
    ))
    .await;
    let res = app.get_game(&t.tokens[0], &id).await;
    assert_problem(res, StatusCode::INTERNAL_SERVER_ERROR, "internal-error").await;
    let res = app.play_move(&t.tokens[0], &id, "3d4d", 1).await;
    assert_problem(res, StatusCode::INTERNAL_SERVER_ERROR, "internal-error").await;

    app.execute_sql(&format!(
        "UPDATE game_seats SET state = 'seated' WHERE game_id = '{other}' AND seat = 'middle'"
    ))
    .await;
    let res = app.get_game(&t.tokens[0], &other).await;
    assert_problem(res, StatusCode::INTERNAL_SERVER_ERROR, "internal-error").await;
    let res = app
        .authed(Method::GET, "/api/v1/games", &t.tokens[0], None)
        .await;
    assert_problem(res, StatusCode::INTERNAL_SERVER_ERROR, "internal-error").await;
}

/// A stored event whose payload does not fit its type is an error naming
/// it, never an event made up from what could be read.
async fn a_damaged_event_is_an_error_not_a_guess(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("dmg").await;
    let id = app.started_game(&t, json!({})).await;
    assert!(!app.events(&t.tokens[1], &id).await.is_empty());
    app.execute_sql(&format!(
        "UPDATE game_events SET payload = '{{\"players\": 3}}' \
         WHERE game_id = '{id}' AND event_type = 'game.started'"
    ))
    .await;
    let res = app
        .authed(
            Method::GET,
            &format!("/api/v1/me/events?game_id={id}"),
            &t.tokens[1],
            None,
        )
        .await;
    assert_problem(res, StatusCode::INTERNAL_SERVER_ERROR, "internal-error").await;
}

/// The scope a route documents is the scope it checks: the record documents
/// `games:read` for tokens, and refuses a token without it.
async fn the_record_checks_the_scope_it_documents(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("rec").await;
    let id = app.started_game(&t, json!({})).await;
    let path = format!("/api/v1/games/{id}/record");
    assert_eq!(
        app.request(Method::GET, &path).await.status(),
        StatusCode::OK
    );
    let (reader, _) = app.personal_token(&t.tokens[0], &["games:read"]).await;
    let res = app.authed(Method::GET, &path, &reader, None).await;
    assert_eq!(res.status(), StatusCode::OK);
    let (account_only, _) = app.personal_token(&t.tokens[0], &["account:read"]).await;
    let res = app.authed(Method::GET, &path, &account_only, None).await;
    assert_problem(res, StatusCode::FORBIDDEN, "insufficient-scope").await;
}

on_both_backends!(
    reads_during_moves_see_one_snapshot,
    results_that_say_nothing_about_skill_count_for_nothing,
    not_modified_reads_only_the_game_row,
    a_damaged_event_is_an_error_not_a_guess,
    the_record_checks_the_scope_it_documents,
    rows_that_do_not_parse_are_errors_not_defaults,
    checkmate_then_resignation,
    automatic_alliance_and_garden_win,
    voluntary_alliance_by_proposal,
    illegal_stale_and_repeated_submissions,
    racing_submissions_store_one_move,
    a_game_changed_unannounced_is_read_again,
    time_out_eliminates_and_play_goes_on,
    etag_and_not_modified,
    record_round_trip_and_board_picture,
);

//! Issue 12: a game is taken up from its stored snapshot, not replayed; the
//! snapshot stays exact across requests and server processes, and a replay
//! of the actions checks it.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{eventually, spawn_app, Backend, TestApp};
use crate::on_both_backends;

/// First's silver, Middle's king and Last's king step out and back. The
/// kings' first steps cost their castling rights (R21), so the start never
/// comes back; the first position to come back every six plies is the one
/// after ply 3, when both kings have stepped: its fourth occurrence is at ply
/// 21.
const CYCLE: [&str; 6] = ["1b2c", "10m10l", "10d10e", "2c1b", "10l10m", "10e10d"];

async fn snapshot_of(app: &TestApp, id: &str) -> Option<String> {
    #[derive(diesel::QueryableByName)]
    struct Row {
        #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Text>)]
        snapshot: Option<String>,
    }
    let sql = format!("SELECT snapshot FROM games WHERE id = '{id}'");
    app.with_connection(move |conn| {
        let row: Row = diesel::RunQueryDsl::get_result(diesel::sql_query(sql), conn).unwrap();
        row.snapshot
    })
    .await
}

async fn moves_of(app: &TestApp, id: &str) -> reqwest::Response {
    app.request(Method::GET, &format!("/api/v1/games/{id}/moves"))
        .await
}

/// R31 across requests: every move is judged by a game taken up from what
/// the last request stored, and the fourth occurrence still draws.
async fn r31_repetition_draws_across_requests(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("again").await;
    let id = app.started_game(&t, json!({})).await;
    let twenty: Vec<&str> = CYCLE.iter().cycle().take(20).copied().collect();
    let game = app.play_all(&t, &id, &twenty).await;
    assert_eq!(game["status"], "active", "three occurrences");
    let game = app.play_all(&t, &id, &CYCLE[2..3]).await;
    assert_eq!(game["status"], "finished", "the fourth occurrence: {game}");
    assert_eq!(game["result"]["reason"], "repetition");
    assert_eq!(game["result"]["draw"], json!(["first", "middle", "last"]));
    let states: Vec<&str> = game["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["state"].as_str().unwrap())
        .collect();
    assert_eq!(states, ["drew", "drew", "drew"]);
    assert_eq!(game["last_move"]["move"], "10d10e");
    assert_eq!(game["last_move"]["ply"], 21);
    // The full replay agrees with what was stored.
    let res = moves_of(&app, &id).await;
    assert_eq!(res.status(), StatusCode::OK);
    let moves: Value = res.json().await.unwrap();
    assert_eq!(moves.as_array().unwrap().len(), 21);
    let read = app.game_json(&t.tokens[0], &id).await;
    assert_eq!(read["result"], game["result"]);
}

/// A game stored before snapshots (none stored) is read by replaying it, and
/// a server filling the missing snapshots at start stores the same one the
/// game's own moves did; a snapshot that disagrees with the actions fails
/// the replaying reads, naming nothing to the client but failing loudly.
async fn missing_snapshots_are_filled_and_checked(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("fill").await;
    let id = app.started_game(&t, json!({})).await;
    app.play_all(&t, &id, &CYCLE[..4]).await;
    let res = app
        .authed(
            Method::POST,
            &format!("/api/v1/games/{id}/resign"),
            &t.tokens[1],
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK, "{:?}", res.text().await);
    let before = app.game_json(&t.tokens[0], &id).await;
    assert_eq!(before["players"][1]["elimination"]["reason"], "resigned");
    assert_eq!(before["players"][1]["elimination"]["seq"], 5);
    assert_eq!(before["last_move"]["move"], "2c1b");
    let stored = snapshot_of(&app, &id)
        .await
        .expect("moves store a snapshot");

    app.execute_sql(&format!(
        "UPDATE games SET snapshot = NULL WHERE id = '{id}'"
    ))
    .await;
    assert_eq!(app.game_json(&t.tokens[0], &id).await, before, "replayed");
    let other = app.restart().await;
    let filled = eventually("the snapshot filled", || async {
        snapshot_of(&other, &id).await
    })
    .await;
    assert_eq!(filled, stored);
    assert_eq!(other.game_json(&t.tokens[0], &id).await, before);

    // The snapshot of another position: the view believes it, the replay
    // does not.
    let id2 = app.started_game(&t, json!({})).await;
    let wrong = snapshot_of(&app, &id2).await.unwrap_or_default();
    app.execute_sql(&format!(
        "UPDATE games SET snapshot = '{}' WHERE id = '{id}'",
        wrong.replace('\'', "''")
    ))
    .await;
    assert_eq!(
        moves_of(&app, &id).await.status(),
        StatusCode::INTERNAL_SERVER_ERROR
    );
}

on_both_backends!(
    r31_repetition_draws_across_requests,
    missing_snapshots_are_filled_and_checked,
);

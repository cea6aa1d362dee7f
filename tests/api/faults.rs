//! Failing well (issue 11): a database that falters makes the service
//! answer 503 with `Retry-After`, never 500, and never loses or garbles what
//! it acknowledged.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use reqwest::StatusCode;
use serde_json::json;

use sannin::rules::{Game, Move, Position};

use crate::helpers::{available, spawn_app, Backend, TestApp, Trio};

/// Plays `moves` moves of the game `id` (the first legal move each time),
/// retrying a 503 with the same move and ply until it is answered; every
/// status seen.
async fn play_through(app: &TestApp, t: &Trio, id: &str, moves: usize) -> (Vec<Move>, Vec<u16>) {
    let mut game = Game::new(Position::start());
    let (mut played, mut statuses) = (Vec::new(), Vec::new());
    while played.len() < moves {
        let pos = game.position();
        let Some(seat) = pos.to_move() else { break };
        let mv = pos.legal_moves()[0];
        loop {
            let res = app
                .play_move(
                    &t.tokens[seat.index()],
                    id,
                    &mv.to_string(),
                    pos.ply() as i64,
                )
                .await;
            let status = res.status();
            statuses.push(status.as_u16());
            if status == StatusCode::SERVICE_UNAVAILABLE {
                assert!(res.headers().contains_key("retry-after"));
                continue;
            }
            assert_eq!(status, StatusCode::CREATED, "{:?}", res.text().await);
            break;
        }
        game.play(mv).unwrap();
        played.push(mv);
    }
    (played, statuses)
}

/// Item 2: backends terminated again and again while three games are played.
/// Every move request answers 201 or 503, never 500; each 503 retried with
/// the same move and ply ends in a 201, and in the end each game holds
/// exactly the moves that were answered, once each.
#[actix_web::test]
async fn terminated_backends_answer_503_never_500() {
    if !available(
        Backend::Postgres,
        "terminated_backends_answer_503_never_500",
    ) {
        return;
    }
    let app = Arc::new(spawn_app(Backend::Postgres).await);
    let mut tables = Vec::new();
    for n in 0..3 {
        let t = app.trio(&format!("flt{n}")).await;
        let id = app.started_game(&t, json!({})).await;
        tables.push((t, id));
    }
    let stop = Arc::new(AtomicBool::new(false));
    // Stops the terminations however the test ends.
    struct Stop(Arc<AtomicBool>);
    impl Drop for Stop {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }
    let _stop_on_exit = Stop(stop.clone());
    let killer = {
        let (app, stop) = (app.clone(), stop.clone());
        tokio::task::spawn_blocking(move || {
            let mut killed = 0;
            while !stop.load(Ordering::SeqCst) {
                killed += app.terminate_backends();
                std::thread::sleep(std::time::Duration::from_millis(15));
            }
            killed
        })
    };
    let plays = tables.iter().map(|(t, id)| play_through(&app, t, id, 24));
    let results = futures_util::future::join_all(plays).await;
    stop.store(true, Ordering::SeqCst);
    let killed = killer.await.unwrap();
    assert!(killed > 0, "backends were terminated");

    let unavailable: usize = results
        .iter()
        .map(|(_, s)| s.iter().filter(|s| **s == 503).count())
        .sum();
    eprintln!("{killed} backends terminated; {unavailable} answers were 503");
    for ((t, id), (played, _)) in tables.iter().zip(&results) {
        let game = app.game_json(&t.tokens[0], id).await;
        let ply = Position::start().ply() as usize + played.len();
        assert_eq!(game["ply"], ply, "{id}");
        let res = app
            .authed(
                reqwest::Method::GET,
                &format!("/api/v1/games/{id}/moves"),
                &t.tokens[0],
                None,
            )
            .await;
        let actions: Vec<serde_json::Value> = res.json().await.unwrap();
        let stored: Vec<String> = actions
            .iter()
            .map(|a| a["notation"].as_str().unwrap().to_owned())
            .collect();
        let expected: Vec<String> = played.iter().map(Move::to_string).collect();
        assert_eq!(
            stored, expected,
            "{id}: each answered move stored once, as answered"
        );
    }
}

/// Items 4 and 3: with `games` locked by another session, a request for a game
/// answers 503 once the lock timeout fires, while the lock is still held
/// (without the timeout it would wait for the lock, and get 200 when the
/// holder gives up after 30 s); afterwards the same request is answered.
#[actix_web::test]
async fn a_request_stuck_behind_a_lock_answers_503_in_time() {
    if !available(
        Backend::Postgres,
        "a_request_stuck_behind_a_lock_answers_503_in_time",
    ) {
        return;
    }
    let app = crate::helpers::spawn_app_with(Backend::Postgres, |s| {
        s.database.lock_timeout = std::time::Duration::from_millis(300);
        s.database.statement_timeout = std::time::Duration::ZERO;
    })
    .await;
    let t = app.trio("lck").await;
    let id = app.started_game(&t, json!({})).await;

    // Another session holds an exclusive lock on the table until told.
    let (locked_tx, locked_rx) = std::sync::mpsc::channel();
    let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
    let url = app.database_url();
    let holder = tokio::task::spawn_blocking(move || {
        use diesel::connection::SimpleConnection as _;
        use diesel::Connection as _;
        let mut conn = diesel::PgConnection::establish(&url).unwrap();
        conn.batch_execute("BEGIN; LOCK TABLE games IN ACCESS EXCLUSIVE MODE;")
            .unwrap();
        locked_tx.send(()).unwrap();
        let _ = release_rx.recv_timeout(std::time::Duration::from_secs(30));
        conn.batch_execute("ROLLBACK;").unwrap();
    });
    locked_rx.recv().unwrap();

    let res = app.get_game(&t.tokens[0], &id).await;
    assert!(res.headers().contains_key("retry-after"));
    crate::helpers::assert_problem(res, StatusCode::SERVICE_UNAVAILABLE, "service-unavailable")
        .await;

    // Item 3: readiness tells, though its own query needs no lock.
    crate::helpers::assert_problem(
        app.readyz().await,
        StatusCode::SERVICE_UNAVAILABLE,
        "service-unavailable",
    )
    .await;

    release_tx.send(()).unwrap();
    holder.await.unwrap();
    assert_eq!(
        app.get_game(&t.tokens[0], &id).await.status(),
        StatusCode::OK
    );
    crate::helpers::eventually("ready again", || async {
        (app.readyz().await.status() == StatusCode::OK).then_some(())
    })
    .await;
}

/// Sends request headers declaring a body of `declared` bytes, then `sent`
/// of them, and keeps the connection open; the socket, to read from.
fn slow_body(app: &TestApp, declared: usize, sent: usize) -> std::net::TcpStream {
    use std::io::Write as _;
    let addr = app.address.trim_start_matches("http://");
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "POST /api/v1/accounts HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {declared}\r\n\r\n{}",
        "{".repeat(sent)
    )
    .unwrap();
    s.flush().unwrap();
    s
}

/// Reads what the server answers until it closes the connection (or 30 s
/// pass, which fails the test that expects an answer).
fn answer_and_close(mut s: std::net::TcpStream) -> String {
    use std::io::Read as _;
    s.set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .unwrap();
    let mut got = Vec::new();
    let _ = s.read_to_end(&mut got);
    String::from_utf8_lossy(&got).into_owned()
}

/// Item 5: a body sent too slowly is cut off with 408 and the connection
/// closed (without the body timeout the server would wait for it forever).
#[actix_web::test]
async fn a_body_sent_too_slowly_is_cut_off() {
    let app = crate::helpers::spawn_app_with(Backend::Sqlite, |s| {
        s.http.body_timeout = std::time::Duration::from_millis(300);
    })
    .await;
    let stream = slow_body(&app, 1000, 1);
    let got = tokio::task::spawn_blocking(move || answer_and_close(stream))
        .await
        .unwrap();
    assert!(got.starts_with("HTTP/1.1 408"), "{got}");
    assert!(got.contains("request-timeout"), "{got}");
}

/// Item 5: one client address may have only so many requests in flight; the
/// next is refused at once with 429 and `Retry-After`, and once the slow
/// ones are gone the client is served again.
#[actix_web::test]
async fn one_client_cannot_hold_every_connection() {
    let app = crate::helpers::spawn_app_with(Backend::Sqlite, |s| {
        s.http.max_requests_per_client = 3;
        s.http.body_timeout = std::time::Duration::from_secs(20);
    })
    .await;
    let held: Vec<_> = (0..3).map(|_| slow_body(&app, 1000, 1)).collect();
    let res = crate::helpers::eventually("the fourth request refused", || async {
        let res = app.healthz().await;
        (res.status() == StatusCode::TOO_MANY_REQUESTS).then_some(res)
    })
    .await;
    assert!(res.headers().contains_key("retry-after"));
    crate::helpers::assert_problem(res, StatusCode::TOO_MANY_REQUESTS, "too-many-in-flight").await;
    drop(held);
    crate::helpers::eventually("served again", || async {
        (app.healthz().await.status() == StatusCode::OK).then_some(())
    })
    .await;
}

/// Item 8: SQLite with a pool far larger than one writer needs, and 96
/// writers at once (48 games played move after move, 48 games created): every
/// write succeeds; the process's writers queue for the file instead of racing
/// for its lock until the busy timeout turns some into "database is locked".
#[actix_web::test]
async fn sqlite_writers_queue_instead_of_failing() {
    let app = crate::helpers::spawn_app_with(Backend::Sqlite, |s| {
        s.database.pool_size = 64;
        s.http.max_requests_per_client = 10_000;
        s.limits.games_created.max = 1_000;
    })
    .await;
    let t = app.trio("sqw").await;
    let mut ids = Vec::new();
    for _ in 0..48 {
        ids.push(app.started_game(&t, json!({})).await);
    }
    let (app, t) = (&app, &t);
    let creates = (0..48).map(|i| async move {
        let body = json!({"seat": "first"});
        app.create_game(&t.tokens[i % 3], &body)
            .await
            .status()
            .as_u16()
    });
    let plays = ids.iter().map(|id| async move {
        let (_, statuses) = play_through(app, t, id, 12).await;
        statuses
    });
    let (created, played) = futures_util::future::join(
        futures_util::future::join_all(creates),
        futures_util::future::join_all(plays),
    )
    .await;
    assert!(created.iter().all(|s| *s == 201), "{created:?}");
    let played: Vec<u16> = played.into_iter().flatten().collect();
    assert!(played.iter().all(|s| *s == 201), "{played:?}");
}

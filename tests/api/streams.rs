//! Live streams over real HTTP: a person's events and a game's changes, in
//! Server-Sent Events and NDJSON; resuming with nothing lost or repeated; the
//! limits on open streams; keep-alives, shutdown and a client that reads too
//! slowly; and, on PostgreSQL, two server processes on one database.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::helpers::{assert_problem, eventually, spawn_app, spawn_app_with, Backend, TestApp};
use crate::on_both_backends;

/// How long a stream may stay silent before a test gives up on it.
const PATIENCE: Duration = Duration::from_secs(20);

/// One message of an event stream.
#[derive(Debug, Clone)]
struct Message {
    id: Option<String>,
    event: Option<String>,
    data: Value,
}

/// A stream being read, in either framing.
struct Stream {
    res: reqwest::Response,
    buf: String,
}

impl Stream {
    async fn open(
        app: &TestApp,
        path: &str,
        bearer: Option<&str>,
        headers: &[(&str, &str)],
    ) -> Stream {
        let res = Self::request(app, path, bearer, headers).await;
        assert_eq!(res.status(), StatusCode::OK, "{path}");
        Stream {
            res,
            buf: String::new(),
        }
    }

    async fn request(
        app: &TestApp,
        path: &str,
        bearer: Option<&str>,
        headers: &[(&str, &str)],
    ) -> reqwest::Response {
        let mut req = app.client.get(app.url(path));
        if let Some(b) = bearer {
            req = req.bearer_auth(b);
        }
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        req.send().await.expect("stream request sent")
    }

    /// The next chunk of text, or `None` at the end of the stream.
    async fn more(&mut self) -> Option<()> {
        let chunk = tokio::time::timeout(PATIENCE, self.res.chunk())
            .await
            .expect("the stream said something in time")
            .expect("the stream reads");
        let chunk = chunk?;
        self.buf.push_str(std::str::from_utf8(&chunk).unwrap());
        Some(())
    }

    /// The next SSE block (up to a blank line), comments included.
    async fn block(&mut self) -> Option<String> {
        loop {
            if let Some(end) = self.buf.find("\n\n") {
                let block = self.buf[..end].to_owned();
                self.buf.drain(..end + 2);
                return Some(block);
            }
            self.more().await?;
        }
    }

    /// The next SSE message with data (comments and `retry:` skipped).
    async fn next(&mut self) -> Option<Message> {
        loop {
            let block = self.block().await?;
            if let Some(m) = parse_block(&block) {
                return Some(m);
            }
        }
    }

    /// The next NDJSON line (empty keep-alive lines skipped).
    async fn line(&mut self) -> Option<Value> {
        loop {
            if let Some(end) = self.buf.find('\n') {
                let line = self.buf[..end].to_owned();
                self.buf.drain(..=end);
                if line.is_empty() {
                    continue;
                }
                return Some(serde_json::from_str(&line).expect("each line is JSON"));
            }
            self.more().await?;
        }
    }
}

fn parse_block(block: &str) -> Option<Message> {
    let mut m = Message {
        id: None,
        event: None,
        data: Value::Null,
    };
    let mut data = None;
    for line in block.lines() {
        if let Some(v) = line.strip_prefix("id: ") {
            m.id = Some(v.to_owned());
        } else if let Some(v) = line.strip_prefix("event: ") {
            m.event = Some(v.to_owned());
        } else if let Some(v) = line.strip_prefix("data: ") {
            data = Some(v.to_owned());
        }
    }
    m.data = serde_json::from_str(&data?).expect("data is JSON");
    Some(m)
}

async fn all_events(app: &TestApp, bearer: &str) -> Vec<Value> {
    let res = app
        .authed(Method::GET, "/api/v1/me/events?limit=500", bearer, None)
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    res.json().await.unwrap()
}

async fn events_after(app: &TestApp, bearer: &str, after: &str) -> Vec<Value> {
    let res = app
        .authed(
            Method::GET,
            &format!("/api/v1/me/events?after={after}&limit=500"),
            bearer,
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    res.json().await.unwrap()
}

/// The next `n` messages of an SSE stream.
async fn take(stream: &mut Stream, n: usize) -> Vec<Message> {
    let mut got = Vec::new();
    while got.len() < n {
        got.push(stream.next().await.expect("the stream goes on"));
    }
    got
}

async fn events_arrive_as_they_happen_and_resume_exactly(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("live").await;
    let id = app.started_game(&t, json!({})).await;
    let bob = &t.tokens[1];
    let path = "/api/v1/me/events/stream";
    let mut stream = Stream::open(&app, path, Some(bob), &[]).await;
    assert_eq!(
        stream.res.headers()["content-type"],
        "text/event-stream",
        "SSE by default"
    );

    // First moves: Bob hears of it (a move, then his turn) at once.
    app.play_all(&t, &id, &["2g10k+"]).await;
    let got = take(&mut stream, 2).await;
    let listed = all_events(&app, bob).await;
    let tail: Vec<&Value> = listed.iter().rev().take(2).rev().collect();
    for (m, l) in got.iter().zip(&tail) {
        assert_eq!(m.id.as_deref(), l["id"].as_str(), "id: is the event id");
        assert_eq!(m.event.as_deref(), l["type"].as_str(), "event: is its type");
        assert_eq!(&m.data, *l, "data: is the listed object");
    }
    assert_eq!(got[0].event.as_deref(), Some("game.move"));
    assert_eq!(got[1].event.as_deref(), Some("game.your_turn"));

    // The connection drops; play goes on; a new stream resumes exactly.
    let last = got[1].id.clone().unwrap();
    drop(stream);
    app.play_all(&t, &id, &["12l8d", "10d8d"]).await;
    let missed = events_after(&app, bob, &last).await;
    assert!(!missed.is_empty(), "Carol's move");
    let mut resumed =
        Stream::open(&app, path, Some(bob), &[("Last-Event-ID", last.as_str())]).await;
    let again = take(&mut resumed, missed.len()).await;
    let ids = |ms: &[Message]| ms.iter().map(|m| m.id.clone().unwrap()).collect::<Vec<_>>();
    let missed_ids: Vec<String> = missed
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids(&again), missed_ids, "nothing lost, nothing repeated");

    // `?after=` does the same, in NDJSON on request.
    let mut lines = Stream::open(
        &app,
        &format!("{path}?after={last}"),
        Some(bob),
        &[("Accept", "application/x-ndjson")],
    )
    .await;
    assert_eq!(lines.res.headers()["content-type"], "application/x-ndjson");
    for e in &missed {
        assert_eq!(&lines.line().await.unwrap(), e);
    }

    // A move made now reaches both open streams, once.
    let seen = missed.last().unwrap()["id"].as_str().unwrap().to_owned();
    app.play_all(&t, &id, &["10k9k"]).await;
    let newest = events_after(&app, bob, &seen).await;
    assert_eq!(newest.len(), 2, "a move and an elimination: {newest:?}");
    for e in &newest {
        assert_eq!(&resumed.next().await.unwrap().data, e);
        assert_eq!(&lines.line().await.unwrap(), e);
    }
}

async fn a_resume_point_that_is_not_yours_is_refused(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("who").await;
    app.started_game(&t, json!({})).await;
    let bobs = all_events(&app, &t.tokens[1]).await;
    let bobs_event = bobs[0]["id"].as_str().unwrap();
    // Bob's event is no resume point for Carol, in the stream or the list.
    for path in [
        format!("/api/v1/me/events/stream?after={bobs_event}"),
        format!("/api/v1/me/events?after={bobs_event}"),
    ] {
        let res = app.authed(Method::GET, &path, &t.tokens[2], None).await;
        let problem =
            assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
        assert_eq!(problem["errors"][0]["field"], "after", "{problem}");
    }
    let res = Stream::request(
        &app,
        "/api/v1/me/events/stream",
        Some(&t.tokens[1]),
        &[("Last-Event-ID", "nonsense")],
    )
    .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    let res = Stream::request(&app, "/api/v1/me/events/stream", None, &[]).await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthenticated").await;
}

async fn spectators_follow_a_game(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("watch").await;
    let id = app.started_game(&t, json!({})).await;
    let path = format!("/api/v1/games/{id}/stream");

    // Anyone may watch; the first message is the game as it stands.
    let mut watcher = Stream::open(&app, &path, None, &[]).await;
    let now = watcher.next().await.unwrap();
    assert_eq!(now.event.as_deref(), Some("game.changed"));
    assert_eq!(now.data["status"], "active");
    assert_eq!(now.data["ply"], 1);
    assert_eq!(now.data["to_move"], "first");
    assert_eq!(now.data["last_move"], Value::Null);
    let version = now.data["version"].as_i64().unwrap();
    assert_eq!(now.id, Some(version.to_string()), "id: is the version");

    // Each move is one message with the new state.
    app.play_all(&t, &id, &["2g10k+"]).await;
    let moved = watcher.next().await.unwrap();
    let game = app.game_json(&t.tokens[0], &id).await;
    assert_eq!(moved.data["ply"], 2);
    assert_eq!(moved.data["to_move"], "middle");
    assert_eq!(moved.data["position"], game["position"]);
    assert_eq!(moved.data["last_move"]["move"], "2g10k+");
    assert_eq!(moved.data["last_move"]["seat"], "first");
    assert!(moved.data["version"].as_i64().unwrap() > version);

    // Resuming at the current version says nothing until the next change.
    let current = moved.id.clone().unwrap();
    let mut resumed = Stream::open(
        &app,
        &path,
        None,
        &[
            ("Last-Event-ID", current.as_str()),
            ("Accept", "application/x-ndjson"),
        ],
    )
    .await;
    app.play_all(&t, &id, &["12l8d"]).await;
    let next = resumed.line().await.unwrap();
    assert_eq!(next["ply"], 3);
    assert_eq!(next["last_move"]["move"], "12l8d");
    assert_eq!(watcher.next().await.unwrap().data, next);

    let res = Stream::request(&app, &format!("{path}?after=x"), None, &[]).await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    let res = Stream::request(
        &app,
        "/api/v1/games/0192f0c2-7d1e-7c41-9a55-3a7f0e8c9b21/stream",
        None,
        &[],
    )
    .await;
    assert_problem(res, StatusCode::NOT_FOUND, "not-found").await;
}

async fn open_streams_are_limited_per_account_and_client(backend: Backend) {
    let app = spawn_app_with(backend, |s| {
        s.streams.per_account = 2;
        s.streams.per_client = 3;
        // A client that goes away is noticed when its connection closes,
        // not at the next keep-alive, which would be a minute away.
        s.streams.keepalive = Duration::from_secs(60);
    })
    .await;
    let t = app.trio("many").await;
    let id = app.started_game(&t, json!({})).await;
    let path = "/api/v1/me/events/stream";
    let a = Stream::open(&app, path, Some(&t.tokens[0]), &[]).await;
    let _b = Stream::open(&app, path, Some(&t.tokens[0]), &[]).await;
    let res = Stream::request(&app, path, Some(&t.tokens[0]), &[]).await;
    assert_eq!(res.headers()["retry-after"], "10");
    let problem = assert_problem(res, StatusCode::TOO_MANY_REQUESTS, "too-many-streams").await;
    assert!(
        problem["detail"].as_str().unwrap().contains("account"),
        "{problem}"
    );

    // Another account from the same address may open one more: the address
    // then holds three.
    let _c = Stream::open(&app, path, Some(&t.tokens[1]), &[]).await;
    let game = format!("/api/v1/games/{id}/stream");
    let res = Stream::request(&app, &game, None, &[]).await;
    let problem = assert_problem(res, StatusCode::TOO_MANY_REQUESTS, "too-many-streams").await;
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("client address"),
        "{problem}"
    );

    // A stream that closes gives its place back.
    drop(a);
    eventually("a closed stream's place is free again", || async {
        let res = Stream::request(&app, path, Some(&t.tokens[0]), &[]).await;
        (res.status() == StatusCode::OK).then_some(())
    })
    .await;
}

async fn idle_streams_keep_alive_and_end_cleanly_when_the_server_stops(backend: Backend) {
    let app = spawn_app_with(backend, |s| s.streams.keepalive = Duration::from_secs(1)).await;
    let t = app.trio("idle").await;
    let mut sse = Stream::open(&app, "/api/v1/me/events/stream", Some(&t.tokens[0]), &[]).await;
    let mut ndjson = Stream::open(
        &app,
        "/api/v1/me/events/stream",
        Some(&t.tokens[1]),
        &[("Accept", "application/x-ndjson")],
    )
    .await;
    assert_eq!(
        sse.block().await.unwrap(),
        "retry: 3000",
        "SSE says how long to wait before reconnecting"
    );
    assert_eq!(sse.block().await.unwrap(), ": keep-alive");
    ndjson.more().await.unwrap();
    assert_eq!(ndjson.buf, "\n", "an empty line keeps NDJSON alive");
    ndjson.buf.clear();

    app.stop().await;
    let last = sse.next().await.expect("a last message");
    assert_eq!(last.event.as_deref(), Some("stream.end"));
    assert_eq!(last.id, None, "the last message moves no resume point");
    assert_eq!(last.data["reason"], "shutdown");
    assert_eq!(
        last.data["last_event_id"],
        Value::Null,
        "Alice has no events yet"
    );
    assert!(sse.next().await.is_none(), "then the stream ends");
    let last = ndjson.line().await.expect("a last line");
    assert_eq!(last["type"], "stream.end");
    assert_eq!(last["reason"], "shutdown");
    assert!(ndjson.line().await.is_none());
}

/// A client that stops reading: the stream holds its buffer for the lag
/// allowance, then ends with a last message naming the event to resume
/// after, and a resumed stream brings the rest.
async fn a_client_that_falls_behind_is_told_and_can_resume(backend: Backend) {
    let app = spawn_app_with(backend, |s| {
        s.streams.buffer = 2;
        s.streams.lag = Duration::from_secs(1);
        s.streams.per_account = 1;
        // Dropped probes are noticed at their first keep-alive.
        s.streams.keepalive = Duration::from_secs(1);
        s.http.send_buffer_bytes = Some(4096);
        s.limits.games_created.max = 1_000;
        s.limits.unfinished_games.max = 1_000;
    })
    .await;
    let t = app.trio("slow").await;
    let bob = &t.tokens[1];

    // A client with a small receive window that reads nothing yet.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let addr: std::net::SocketAddr = app
        .url("")
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .parse()
        .unwrap();
    let mut conn = socket.connect(addr).await.unwrap();
    let request = format!(
        "GET /api/v1/me/events/stream HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {bob}\r\nConnection: close\r\n\r\n"
    );
    conn.write_all(request.as_bytes()).await.unwrap();
    // The stream has started once its first bytes arrive.
    let mut raw = Vec::new();
    while !String::from_utf8_lossy(&raw).contains("retry: 3000") {
        let mut b = [0u8; 512];
        let n = tokio::time::timeout(PATIENCE, conn.read(&mut b))
            .await
            .unwrap()
            .unwrap();
        assert!(n > 0, "the stream starts");
        raw.extend_from_slice(&b[..n]);
    }

    // Invitations pile up faster than the client reads: ~300 bytes each,
    // far more than the buffers between the stream and the client hold.
    for _ in 0..200 {
        let res = app
            .create_game(
                &t.tokens[0],
                &json!({"seat": "first", "invite": [t.names[1], t.names[2]]}),
            )
            .await;
        assert_eq!(res.status(), StatusCode::CREATED);
    }
    let total = all_events(&app, bob).await;
    assert_eq!(total.len(), 200);

    // The stream gives up on the client (and its place: one per account here).
    let path = "/api/v1/me/events/stream";
    eventually("the stream gives up on its slow client", || async {
        let res = Stream::request(&app, path, Some(bob), &[]).await;
        (res.status() == StatusCode::OK).then_some(())
    })
    .await;

    // Now read it all: the events in order, then the last message, then the end.
    tokio::time::timeout(PATIENCE, conn.read_to_end(&mut raw))
        .await
        .expect("the server ends the stream")
        .unwrap();
    let text = String::from_utf8(raw).unwrap();
    let body = &text[text.find("\r\n\r\n").unwrap() + 4..];
    let body = dechunk(body);
    let messages: Vec<Message> = body.split("\n\n").filter_map(parse_block).collect();
    let (end, delivered) = messages.split_last().unwrap();
    assert_eq!(end.event.as_deref(), Some("stream.end"), "{body}");
    assert_eq!(end.data["reason"], "lagging");
    assert!(
        delivered.len() < total.len(),
        "the stream ended before the end"
    );
    for (m, e) in delivered.iter().zip(&total) {
        assert_eq!(m.id.as_deref(), e["id"].as_str(), "in order, none skipped");
    }
    let last = delivered.last().map(|m| m.id.clone().unwrap());
    assert_eq!(end.data["last_event_id"], json!(last), "where to resume");

    // Resuming brings exactly the rest.
    let last = last.expect("some events arrived before the stream gave up");
    let res = eventually("the probe's place is free again", || async {
        let res = Stream::request(&app, path, Some(bob), &[("Last-Event-ID", last.as_str())]).await;
        (res.status() == StatusCode::OK).then_some(res)
    })
    .await;
    let mut resumed = Stream {
        res,
        buf: String::new(),
    };
    let rest = take(&mut resumed, total.len() - delivered.len()).await;
    let mut seen: Vec<String> = delivered
        .iter()
        .chain(&rest)
        .map(|m| m.id.clone().unwrap())
        .collect();
    let all: Vec<String> = total
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(seen, all);
    seen.dedup();
    assert_eq!(seen.len(), all.len());
}

/// The body of a chunked HTTP/1.1 response.
fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    loop {
        let Some((size, rest)) = s.split_once("\r\n") else {
            return out;
        };
        let n = usize::from_str_radix(size.trim(), 16).expect("a chunk size");
        if n == 0 {
            return out;
        }
        out.push_str(&rest[..n]);
        s = &rest[n + 2..];
    }
}

/// A `sannin serve` process of its own, killed when dropped.
struct Process {
    child: std::process::Child,
    address: String,
}

impl Process {
    fn serve(database_url: &str) -> Process {
        use std::io::BufRead as _;
        let dir = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_sannin"))
            .arg("serve")
            .current_dir(dir.path())
            .env("DATABASE_URL", database_url)
            .env("SANNIN_BIND", "127.0.0.1:0")
            .env("SANNIN_LOG_FORMAT", "json")
            .env("SANNIN_LOG", "info")
            .env("SANNIN_WORKERS", "1")
            .env("SANNIN_MAIL_DIR", dir.path())
            .env_remove("SANNIN_JWT_SECRET")
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
        let port: u16 = loop {
            let line = lines
                .next()
                .expect("the server logs that it listens")
                .unwrap();
            let json: Value = serde_json::from_str(&line).unwrap();
            let message = json["fields"]["message"].as_str().unwrap_or_default();
            if let Some(rest) = message.strip_prefix("listening on http://127.0.0.1:") {
                break rest.split_whitespace().next().unwrap().parse().unwrap();
            }
        };
        // Keep reading the log, so the server never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        std::mem::forget(dir);
        Process {
            child,
            address: format!("http://127.0.0.1:{port}"),
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.address)
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn post(client: &reqwest::Client, url: String, bearer: Option<&str>, body: Value) -> Value {
    let mut req = client.post(url).json(&body);
    if let Some(b) = bearer {
        req = req.bearer_auth(b);
    }
    let res = req.send().await.unwrap();
    assert!(res.status().is_success(), "{}", res.status());
    res.json().await.unwrap_or(Value::Null)
}

/// Two server processes on one database: streams opened on one hear of
/// moves made through the other within moments (woken by PostgreSQL's
/// NOTIFY, or on SQLite by their short poll), with the events the list shows.
async fn streams_hear_of_changes_made_through_another_process(backend: Backend) {
    let db = crate::helpers::EmptyDatabase::new(backend);
    let a = Process::serve(&db.url());
    let b = Process::serve(&db.url());
    let client = reqwest::Client::new();
    let mut tokens = Vec::new();
    for who in ["pa_alice", "pa_bob", "pa_carol"] {
        let password = format!("{who}-long-password");
        post(
            &client,
            b.url("/api/v1/accounts"),
            None,
            json!({"username": who, "email": format!("{who}@example.com"), "password": password}),
        )
        .await;
        let t = post(
            &client,
            b.url("/api/v1/auth/token"),
            None,
            json!({"username": who, "password": password}),
        )
        .await;
        tokens.push(t["access_token"].as_str().unwrap().to_owned());
    }
    let game = post(
        &client,
        b.url("/api/v1/games"),
        Some(&tokens[0]),
        json!({"seat": "first", "invite": ["pa_bob", "pa_carol"]}),
    )
    .await;
    let id = game["id"].as_str().unwrap().to_owned();
    for t in &tokens[1..] {
        post(
            &client,
            b.url(&format!("/api/v1/games/{id}/join")),
            Some(t),
            json!({}),
        )
        .await;
    }

    // Bob's events and a spectator's view of the game, on process A.
    let open = |url: String, bearer: Option<String>| {
        let client = client.clone();
        async move {
            let mut req = client.get(url);
            if let Some(b) = bearer {
                req = req.bearer_auth(b);
            }
            let res = req.send().await.unwrap();
            assert_eq!(res.status(), StatusCode::OK);
            Stream {
                res,
                buf: String::new(),
            }
        }
    };
    let mut events = open(a.url("/api/v1/me/events/stream"), Some(tokens[1].clone())).await;
    let mut watcher = open(a.url(&format!("/api/v1/games/{id}/stream")), None).await;
    let before = watcher.next().await.unwrap();
    assert_eq!(before.data["ply"], 1);

    // Alice moves through process B.
    let started = std::time::Instant::now();
    post(
        &client,
        b.url(&format!("/api/v1/games/{id}/moves")),
        Some(&tokens[0]),
        json!({"move": "2g10k+", "ply": 1}),
    )
    .await;
    let heard = events.next().await.unwrap();
    let after_event = started.elapsed();
    let changed = watcher.next().await.unwrap();
    let after_change = started.elapsed();
    eprintln!(
        "{backend:?}: heard through the other process after {} ms (event), {} ms (game)",
        after_event.as_millis(),
        after_change.as_millis()
    );
    assert_eq!(heard.event.as_deref(), Some("game.move"));
    assert_eq!(changed.data["ply"], 2);
    assert_eq!(changed.data["last_move"]["move"], "2g10k+");
    let listed: Vec<Value> = client
        .get(b.url("/api/v1/me/events"))
        .bearer_auth(&tokens[1])
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let move_event = listed.iter().find(|e| e["type"] == "game.move").unwrap();
    assert_eq!(
        &heard.data, move_event,
        "the stream shows what the list shows"
    );
    let turn = events.next().await.unwrap();
    assert_eq!(turn.event.as_deref(), Some("game.your_turn"));
}

/// A process may remember that a session was live (on PostgreSQL, to spare
/// a request its round trip); a log-out or a password change through
/// another process must still reach it within moments, and the process
/// that revoked refuses the token at once.
async fn revoked_sessions_are_refused_by_every_process(backend: Backend) {
    let db = crate::helpers::EmptyDatabase::new(backend);
    let a = Process::serve(&db.url());
    let b = Process::serve(&db.url());
    let client = reqwest::Client::new();
    let me = |process: &Process, bearer: &str| {
        let req = client.get(process.url("/api/v1/me")).bearer_auth(bearer);
        async move { req.send().await.unwrap().status() }
    };
    let password = "rv_dora-long-password";
    post(
        &client,
        a.url("/api/v1/accounts"),
        None,
        json!({"username": "rv_dora", "email": "rv_dora@example.com", "password": password}),
    )
    .await;
    let log_in = || {
        post(
            &client,
            a.url("/api/v1/auth/token"),
            None,
            json!({"username": "rv_dora", "password": password}),
        )
    };
    let first = log_in().await;
    let second = log_in().await;
    let third = log_in().await;
    let access = |t: &Value| t["access_token"].as_str().unwrap().to_owned();
    for t in [&first, &second, &third] {
        for process in [&a, &b] {
            // Twice: the second may be answered from what the first read.
            assert_eq!(me(process, &access(t)).await, StatusCode::OK);
            assert_eq!(me(process, &access(t)).await, StatusCode::OK);
        }
    }

    // A log-out through A.
    let res = client
        .post(a.url("/api/v1/auth/logout"))
        .json(&json!({"refresh_token": first["refresh_token"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    assert_eq!(me(&a, &access(&first)).await, StatusCode::UNAUTHORIZED);
    let started = std::time::Instant::now();
    eventually(
        "the other process refuses the logged-out session",
        || async { (me(&b, &access(&first)).await == StatusCode::UNAUTHORIZED).then_some(()) },
    )
    .await;
    eprintln!(
        "{backend:?}: refused by the other process after {} ms",
        started.elapsed().as_millis()
    );
    assert_eq!(me(&b, &access(&second)).await, StatusCode::OK);

    // A password change through B ends every other session, on A too.
    let res = client
        .patch(b.url("/api/v1/me"))
        .bearer_auth(access(&second))
        .json(&json!({"current_password": password, "new_password": "rv_dora-new-password"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(me(&b, &access(&third)).await, StatusCode::UNAUTHORIZED);
    eventually("the other process refuses the ended session", || async {
        (me(&a, &access(&third)).await == StatusCode::UNAUTHORIZED).then_some(())
    })
    .await;
    assert_eq!(me(&a, &access(&second)).await, StatusCode::OK);
}

on_both_backends!(
    revoked_sessions_are_refused_by_every_process,
    events_arrive_as_they_happen_and_resume_exactly,
    a_resume_point_that_is_not_yours_is_refused,
    spectators_follow_a_game,
    open_streams_are_limited_per_account_and_client,
    idle_streams_keep_alive_and_end_cleanly_when_the_server_stops,
    a_client_that_falls_behind_is_told_and_can_resume,
    streams_hear_of_changes_made_through_another_process,
);

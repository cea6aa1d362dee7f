//! The binary as an operator runs it: JSON logs carrying request ids, and a
//! graceful stop on SIGTERM.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};

use diesel::prelude::*;
use sannin::db::schema::server_secrets;
use serde_json::Value;

use crate::helpers::{Backend, EmptyDatabase};

#[test]
fn json_logs_carry_request_ids_and_sigterm_stops_gracefully() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_sannin"))
        .arg("serve")
        .current_dir(dir.path())
        .env("SANNIN_BIND", "127.0.0.1:0")
        .env("SANNIN_LOG_FORMAT", "json")
        .env("SANNIN_LOG", "info")
        .env("SANNIN_WORKERS", "1")
        .env_remove("DATABASE_URL")
        .env_remove("SANNIN_JWT_SECRET")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();

    let (lines_tx, lines) = mpsc::channel::<Value>();
    let log = Arc::new(Mutex::new(Vec::<String>::new()));
    let stderr = child.stderr.take().unwrap();
    let log_writer = log.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let line = line.unwrap();
            log_writer.lock().unwrap().push(line.clone());
            let json: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("log line is not JSON ({e}): {line}"));
            if lines_tx.send(json).is_err() {
                break;
            }
        }
    });
    let message = |v: &Value| {
        v["fields"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };

    // The port comes from the "listening on http://127.0.0.1:PORT" line.
    let port: u16 = loop {
        let line = lines.recv().expect("the server logs that it listens");
        let msg = message(&line);
        if let Some(rest) = msg.strip_prefix("listening on http://127.0.0.1:") {
            break rest.split_whitespace().next().unwrap().parse().unwrap();
        }
    };

    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nx-request-id: ops-trace-42\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(response
        .to_lowercase()
        .contains("x-request-id: ops-trace-42"));

    let finished = loop {
        let line = lines.recv().expect("the request is logged");
        if message(&line) == "request finished" {
            break line;
        }
    };
    assert_eq!(finished["span"]["request_id"], "ops-trace-42");
    assert_eq!(finished["fields"]["status"], 200);

    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let mut stopped = false;
    while let Ok(line) = lines.recv() {
        if message(&line) == "stopped" {
            stopped = true;
        }
    }
    assert!(stopped, "the server logs a graceful stop");
    assert!(child.wait().unwrap().success());

    // The JWT key was generated and kept, and is not in the log.
    let mut conn =
        SqliteConnection::establish(&dir.path().join("sannin.db").to_string_lossy()).unwrap();
    let key: Vec<String> = server_secrets::table
        .select(server_secrets::value)
        .load(&mut conn)
        .unwrap();
    assert_eq!(key.len(), 1);
    let log = log.lock().unwrap();
    assert!(log.len() > 5);
    assert!(log.iter().all(|line| !line.contains(&key[0])));
}

/// Issue 11: processes started together on an empty database (a rolling
/// deploy onto a new schema) take turns with the migrations: every one
/// succeeds, and the schema is applied once.
async fn processes_migrating_together_take_turns(backend: Backend) {
    let db = EmptyDatabase::new(backend);
    let dir = tempfile::tempdir().unwrap();
    let children: Vec<_> = (0..3)
        .map(|_| {
            Command::new(env!("CARGO_BIN_EXE_sannin"))
                .arg("migrate")
                .current_dir(dir.path())
                .env("DATABASE_URL", db.url())
                .env("SANNIN_LOG", "warn")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut applied = Vec::new();
    for child in children {
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let n: usize = stdout
            .strip_prefix("applied ")
            .and_then(|r| r.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("unexpected output: {stdout}"));
        applied.push(n);
    }
    applied.sort();
    let total =
        std::fs::read_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("migrations/postgres"))
            .unwrap()
            .count();
    assert_eq!(
        applied,
        [0, 0, total],
        "one process applies everything, the others nothing"
    );
}

crate::on_both_backends!(processes_migrating_together_take_turns);

/// `sannin seed` makes players and games through the use cases: the games
/// are started and played, `seed-0` sits in as many as asked, and the
/// players can log in with the shared password.
#[test]
fn seed_fills_a_database_with_played_games() {
    use sannin::db::schema::{game_actions, game_seats, games, users};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("seed.db");
    let out = Command::new(env!("CARGO_BIN_EXE_sannin"))
        .args([
            "seed", "--users", "5", "--games", "6", "--moves", "3", "--mine", "4",
        ])
        .current_dir(dir.path())
        .env("DATABASE_URL", format!("sqlite://{}", db.display()))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut conn = SqliteConnection::establish(&db.to_string_lossy()).unwrap();
    let n_users: i64 = users::table
        .filter(users::bot_level.is_null())
        .count()
        .get_result(&mut conn)
        .unwrap();
    assert_eq!(n_users, 5);
    let statuses: Vec<String> = games::table.select(games::status).load(&mut conn).unwrap();
    assert_eq!(statuses, vec!["active"; 6]);
    let moves: i64 = game_actions::table.count().get_result(&mut conn).unwrap();
    assert_eq!(moves, 18);
    let seed0: String = users::table
        .filter(users::username.eq("seed-0"))
        .select(users::id)
        .first(&mut conn)
        .unwrap();
    let mine: i64 = game_seats::table
        .filter(game_seats::user_id.eq(&seed0))
        .count()
        .get_result(&mut conn)
        .unwrap();
    assert_eq!(mine, 4);
    let hash: String = users::table
        .filter(users::id.eq(&seed0))
        .select(users::password_hash)
        .first(&mut conn)
        .unwrap();
    let parsed = argon2::PasswordHash::new(&hash).unwrap();
    use argon2::PasswordVerifier as _;
    assert!(argon2::Argon2::default()
        .verify_password(sannin::cli::seed::PASSWORD.as_bytes(), &parsed)
        .is_ok());
}

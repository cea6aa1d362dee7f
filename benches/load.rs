//! Move submission and reads under load, over HTTP: `cargo bench --bench load`.
//!
//! Registers three players per game, starts the games by invitation, then
//! has `--clients` concurrent clients submit moves (each a legal move chosen
//! by a seeded generator, by whoever is to move) until every game has had
//! `--moves` moves or ended. Prints moves per second and latency
//! percentiles of the move requests alone, and (on Linux) the whole
//! machine's CPU time per move over the middle three fifths of the moves:
//! a figure that, unlike a rate, does not move with the machine's other
//! load or its disk, for comparing builds run back to back. Then, for `--read-seconds` each,
//! the same clients read: `GET /healthz` (the anchor), a game with a
//! matching `If-None-Match` (304), and the full game (200), anonymously and
//! as a player, and the game list (`my_turn=true` and the default order,
//! as a player); it prints each rate and its ratio to `/healthz`, and the
//! list's latency. With `--pgbench URL` (a scratch PostgreSQL database) it
//! first runs pgbench's built-in simple-update transaction there
//! (`pgbench -i -s 10`, then `pgbench -N -c 8 -j 2 -T 20`) and prints the
//! move rate as a ratio to it.
//!
//! Without `--url` it starts a server of its own in this process, on a fresh
//! SQLite file (or on `DATABASE_URL` if that is set: use an empty
//! database). With `--url` it loads a server that is already running: give
//! that server `SANNIN_AUTH_RATE_LIMIT_PER_MINUTE=100000` so that setting up
//! the players is not rate limited. Compare figures from the same run or
//! back-to-back runs on the same machine, as ratios: absolute numbers depend
//! on the machine and its load.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use clap::Parser;
use rand::{Rng as _, SeedableRng as _};
use serde_json::{json, Value};

use sannin::rules::{Game, Position};

#[derive(Parser, Debug)]
struct Args {
    /// A running server's base URL (default: start one in this process).
    #[arg(long)]
    url: Option<String>,
    /// Games played at once.
    #[arg(long, default_value_t = 24)]
    games: usize,
    /// Concurrent clients.
    #[arg(long, default_value_t = 8)]
    clients: usize,
    /// Moves per game (fewer if a game ends first).
    #[arg(long, default_value_t = 40)]
    moves: usize,
    /// Seed of the move choice.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Seconds each kind of read runs (0: no reads).
    #[arg(long, default_value_t = 5)]
    read_seconds: u64,
    /// A scratch PostgreSQL database for the pgbench anchor (it is
    /// overwritten): `postgres://user@host:port/db`.
    #[arg(long)]
    pgbench: Option<String>,
    /// Seconds pgbench runs.
    #[arg(long, default_value_t = 20)]
    pgbench_seconds: u64,
    /// `USERNAME:PASSWORD` of an existing player (e.g. `sannin seed`'s
    /// `seed-0`) whose game list's latency to measure, one request at a
    /// time, at the database's real size.
    #[arg(long)]
    list_as: Option<String>,
    // `cargo bench` passes `--bench`.
    #[arg(long, hide = true)]
    bench: bool,
}

struct Client {
    http: reqwest::Client,
    base: String,
}

impl Client {
    async fn post(&self, path: &str, bearer: Option<&str>, body: &Value) -> (u16, Value) {
        let (status, text) = self.post_text(path, bearer, body).await;
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    /// POSTs `body`; the status and the answer's text, which is left for
    /// the caller to parse if it needs to (a move's answer is only looked
    /// at when it failed: parsing it would count against the server).
    async fn post_text(&self, path: &str, bearer: Option<&str>, body: &Value) -> (u16, String) {
        let mut req = self.http.post(format!("{}{path}", self.base)).json(body);
        if let Some(b) = bearer {
            req = req.bearer_auth(b);
        }
        let res = req.send().await.expect("the server answers");
        let status = res.status().as_u16();
        (status, res.text().await.expect("the answer is read"))
    }

    async fn player(&self, name: &str) -> String {
        let password = format!("{name}-load-test-password");
        let body =
            json!({"username": name, "email": format!("{name}@example.com"), "password": password});
        let (status, answer) = self.post("/api/v1/accounts", None, &body).await;
        assert_eq!(status, 201, "registering {name}: {answer}");
        let body = json!({"username": name, "password": password});
        let (status, answer) = self.post("/api/v1/auth/token", None, &body).await;
        assert_eq!(status, 200, "logging {name} in: {answer}");
        answer["access_token"].as_str().unwrap().to_owned()
    }
}

/// One game in play: its id, the tokens by seat, and a replica of its rules
/// state to choose legal moves from.
struct Table {
    id: String,
    tokens: [String; 3],
    game: Game,
    played: usize,
}

async fn set_up(client: &Client, run: &str, n: usize) -> Table {
    let names: Vec<String> = ["a", "b", "c"]
        .iter()
        .map(|s| format!("ld{run}g{n}{s}"))
        .collect();
    let mut tokens = Vec::new();
    for name in &names {
        tokens.push(client.player(name).await);
    }
    let body = json!({"seat": "first", "invite": [names[1], names[2]]});
    let (status, game) = client.post("/api/v1/games", Some(&tokens[0]), &body).await;
    assert_eq!(status, 201, "creating a game: {game}");
    let id = game["id"].as_str().unwrap().to_owned();
    for t in &tokens[1..] {
        let (status, answer) = client
            .post(&format!("/api/v1/games/{id}/join"), Some(t), &Value::Null)
            .await;
        assert_eq!(status, 200, "joining: {answer}");
    }
    Table {
        id,
        tokens: tokens.try_into().unwrap(),
        game: Game::new(Position::start()),
        played: 0,
    }
}

/// Moves stored so far, by every client.
static MOVES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The whole machine's CPU time so far, busy and idle, in clock ticks, and
/// its number of processors (Linux's `/proc/stat`; `None` elsewhere).
fn machine_ticks() -> Option<(u64, u64, usize)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let mut lines = stat.lines();
    let total: Vec<u64> = lines
        .next()?
        .split_whitespace()
        .skip(1)
        .map(|n| n.parse().unwrap_or(0))
        .collect();
    let cpus = lines.filter(|l| l.starts_with("cpu")).count();
    // user nice system idle iowait irq softirq steal
    let at = |i: usize| total.get(i).copied().unwrap_or(0);
    let busy = at(0) + at(1) + at(2) + at(5) + at(6) + at(7);
    Some((busy, at(3) + at(4), cpus))
}

/// Samples the moves stored and the machine's CPU time every 50 ms until
/// `stop`; then the machine's CPU time per move (every process: server,
/// database, this load) over the middle three fifths of the moves, away
/// from the start and the stragglers at the end, in µs.
fn cpu_per_move(stop: std::sync::Arc<std::sync::atomic::AtomicBool>) -> Option<f64> {
    let mut samples = Vec::new();
    let started = Instant::now();
    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
        let moves = MOVES.load(std::sync::atomic::Ordering::Relaxed);
        samples.push((started.elapsed(), moves, machine_ticks()?));
        std::thread::sleep(Duration::from_millis(50));
    }
    let total = MOVES.load(std::sync::atomic::Ordering::Relaxed);
    let middle: Vec<_> = samples
        .iter()
        .filter(|(_, m, _)| *m * 5 >= total && *m * 5 <= total * 4)
        .collect();
    let (first, last) = (middle.first()?, middle.last()?);
    let (moves, wall) = (last.1 - first.1, (last.0 - first.0).as_secs_f64());
    let (busy, idle) = (last.2 .0 - first.2 .0, last.2 .1 - first.2 .1);
    if moves == 0 || busy + idle == 0 {
        return None;
    }
    let busy_seconds = wall * first.2 .2 as f64 * busy as f64 / (busy + idle) as f64;
    Some(busy_seconds * 1e6 / moves as f64)
}

/// Plays one move in each of `tables` in turn until each is done; the
/// latency of every move request.
async fn play(client: &Client, mut tables: Vec<Table>, moves: usize, seed: u64) -> Vec<Duration> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut latencies = Vec::new();
    loop {
        let mut moved = false;
        for t in &mut tables {
            let pos = t.game.position();
            let Some(seat) = pos.to_move() else { continue };
            if t.played >= moves {
                continue;
            }
            let legal = pos.legal_moves();
            let mv = legal[rng.random_range(0..legal.len())];
            let body = json!({"move": mv.to_string(), "ply": pos.ply()});
            let started = Instant::now();
            let (status, answer) = client
                .post_text(
                    &format!("/api/v1/games/{}/moves", t.id),
                    Some(&t.tokens[seat.index()]),
                    &body,
                )
                .await;
            latencies.push(started.elapsed());
            MOVES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            assert_eq!(status, 201, "move {mv} in {}: {answer}", t.id);
            t.game.play(mv).expect("a legal move");
            t.played += 1;
            moved = true;
        }
        if !moved {
            return latencies;
        }
    }
}

/// pgbench's simple-update transactions per second on the scratch database
/// `url` (initialized first at scale 10), with 8 clients on 2 threads.
fn pgbench(url: &str, seconds: u64) -> f64 {
    let run = |args: &[&str]| {
        let out = std::process::Command::new("pgbench")
            .args(args)
            .arg(url)
            .output()
            .expect("pgbench runs (install PostgreSQL's client tools)");
        assert!(
            out.status.success(),
            "pgbench failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    run(&["-i", "-s", "10", "-q"]);
    let out = run(&["-N", "-c", "8", "-j", "2", "-T", &seconds.to_string()]);
    out.lines()
        .find_map(|l| l.strip_prefix("tps = "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no tps in pgbench's output: {out}"))
}

/// One kind of read, repeated by `clients` clients for `seconds`: how many
/// answered per second, each checked to have `status`.
async fn reads(
    client: &std::sync::Arc<Client>,
    clients: usize,
    seconds: u64,
    paths: &[(String, Option<String>, Option<String>)],
    status: u16,
) -> f64 {
    timed_reads(client, clients, seconds, paths, status).await.0
}

/// As `reads`, with every request's latency, sorted.
async fn timed_reads(
    client: &std::sync::Arc<Client>,
    clients: usize,
    seconds: u64,
    paths: &[(String, Option<String>, Option<String>)],
    status: u16,
) -> (f64, Vec<Duration>) {
    let until = Instant::now() + Duration::from_secs(seconds);
    let started = Instant::now();
    let tasks: Vec<_> = (0..clients)
        .map(|i| {
            let client = client.clone();
            let paths = paths.to_vec();
            tokio::spawn(async move {
                let mut done = Vec::new();
                let mut n = i;
                while Instant::now() < until {
                    let sent = Instant::now();
                    let (path, bearer, etag) = &paths[n % paths.len()];
                    n += 1;
                    let mut req = client.http.get(format!("{}{path}", client.base));
                    if let Some(b) = bearer {
                        req = req.bearer_auth(b);
                    }
                    if let Some(e) = etag {
                        req = req.header("If-None-Match", e);
                    }
                    let res = req.send().await.expect("the server answers");
                    assert_eq!(res.status().as_u16(), status, "{path}");
                    res.bytes().await.expect("a body");
                    done.push(sent.elapsed());
                }
                done
            })
        })
        .collect();
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    all.sort();
    (all.len() as f64 / started.elapsed().as_secs_f64(), all)
}

/// The current `ETag` of `path` for `bearer`.
async fn etag_of(client: &Client, path: &str, bearer: Option<&str>) -> String {
    let mut req = client.http.get(format!("{}{path}", client.base));
    if let Some(b) = bearer {
        req = req.bearer_auth(b);
    }
    let res = req.send().await.expect("the server answers");
    res.headers()["etag"].to_str().unwrap().to_owned()
}

/// A server of this process's own; its base URL.
fn own_server() -> String {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let url = std::env::var("DATABASE_URL")
        .unwrap_or_else(|_| format!("sqlite://{}", dir.path().join("load.db").display()));
    let vars: HashMap<&str, String> = HashMap::from([
        ("SANNIN_BIND", "127.0.0.1:0".to_owned()),
        ("DATABASE_URL", url),
        ("SANNIN_AUTH_RATE_LIMIT_PER_MINUTE", "100000".to_owned()),
        ("SANNIN_LOG", "warn".to_owned()),
    ]);
    let settings =
        sannin::config::Settings::from_lookup(|k| vars.get(k).cloned()).expect("valid settings");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _dir = dir;
        actix_web::rt::System::new().block_on(async move {
            let app = sannin::startup::Application::build(settings)
                .await
                .expect("the server starts");
            tx.send(app.port()).unwrap();
            app.run_until_stopped().await.unwrap();
        });
    });
    format!("http://127.0.0.1:{}", rx.recv().unwrap())
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1000.0
}

fn main() {
    let args = Args::parse();
    let anchor_tps = args.pgbench.as_deref().map(|url| {
        let tps = pgbench(url, args.pgbench_seconds);
        println!(
            "pgbench -N -c 8 -j 2 -T {}: {tps:.0} transactions/s",
            args.pgbench_seconds
        );
        tps
    });
    let base = args.url.clone().unwrap_or_else(own_server);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async move {
        let client = Client {
            http: reqwest::Client::new(),
            base: base.trim_end_matches('/').to_owned(),
        };
        let run = format!("{:x}", rand::rng().random::<u32>());
        let mut tables = Vec::new();
        for n in 0..args.games {
            tables.push(set_up(&client, &run, n).await);
        }
        let games: Vec<(String, String)> = tables
            .iter()
            .map(|t| (format!("/api/v1/games/{}", t.id), t.tokens[0].clone()))
            .collect();
        let mut shares: Vec<Vec<Table>> = (0..args.clients).map(|_| Vec::new()).collect();
        for (i, t) in tables.into_iter().enumerate() {
            shares[i % args.clients].push(t);
        }
        let client = std::sync::Arc::new(client);
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let sampler = std::thread::spawn({
            let stop = stop.clone();
            move || cpu_per_move(stop)
        });
        let started = Instant::now();
        let tasks: Vec<_> = shares
            .into_iter()
            .enumerate()
            .map(|(i, share)| {
                let client = client.clone();
                let (moves, seed) = (args.moves, args.seed + i as u64);
                tokio::spawn(async move { play(&client, share, moves, seed).await })
            })
            .collect();
        let mut latencies = Vec::new();
        for t in tasks {
            latencies.extend(t.await.unwrap());
        }
        let elapsed = started.elapsed();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let cpu = sampler.join().unwrap();
        latencies.sort();
        if latencies.is_empty() {
            list_as(&client, args.list_as.as_deref(), args.read_seconds).await;
            return;
        }
        println!(
            "{} moves by {} clients in {:.2} s: {:.0} moves/s; latency ms p50 {:.1}, p90 {:.1}, p99 {:.1}, max {:.1}",
            latencies.len(),
            args.clients,
            elapsed.as_secs_f64(),
            latencies.len() as f64 / elapsed.as_secs_f64(),
            percentile(&latencies, 0.5),
            percentile(&latencies, 0.9),
            percentile(&latencies, 0.99),
            percentile(&latencies, 1.0),
        );
        if let Some(us) = cpu {
            println!(
                "  the machine's CPU time per move (all processes, middle three fifths): {us:.0} µs"
            );
        }
        if let Some(tps) = anchor_tps {
            let rate = latencies.len() as f64 / elapsed.as_secs_f64();
            println!("  moves/s of pgbench's transactions/s: {:.3}", rate / tps);
        }
        if args.read_seconds == 0 {
            return;
        }
        let secs = args.read_seconds;
        let healthz = [("/healthz".to_owned(), None, None)];
        let mut anonymous = Vec::new();
        let mut players = Vec::new();
        for (path, token) in &games {
            let anon_tag = etag_of(&client, path, None).await;
            let player_tag = etag_of(&client, path, Some(token)).await;
            anonymous.push((path.clone(), None, Some(anon_tag)));
            players.push((path.clone(), Some(token.clone()), Some(player_tag)));
        }
        let full: Vec<_> = anonymous.iter().map(|(p, _, _)| (p.clone(), None, None)).collect();
        let full_players: Vec<_> = players.iter().map(|(p, b, _)| (p.clone(), b.clone(), None)).collect();
        let anchor = reads(&client, args.clients, secs, &healthz, 200).await;
        println!("reads by {} clients, {secs} s each:", args.clients);
        println!("  GET /healthz                  {anchor:>9.0}/s   1.000");
        for (what, paths, status) in [
            ("304, anonymous", &anonymous, 304),
            ("304, as a player", &players, 304),
            ("200, anonymous", &full, 200),
            ("200, as a player", &full_players, 200),
        ] {
            let rate = reads(&client, args.clients, secs, paths, status).await;
            println!("  GET game {what:<20} {rate:>9.0}/s   {:.3}", rate / anchor);
        }
        for (what, query) in [("my_turn=true", "?my_turn=true"), ("default order", "")] {
            let lists: Vec<_> = players
                .iter()
                .map(|(_, b, _)| (format!("/api/v1/games{query}"), b.clone(), None))
                .collect();
            let (rate, latencies) = timed_reads(&client, args.clients, secs, &lists, 200).await;
            println!(
                "  GET list, {what:<19} {rate:>9.0}/s   {:.3}   latency ms p50 {:.1}, p99 {:.1}",
                rate / anchor,
                percentile(&latencies, 0.5),
                percentile(&latencies, 0.99),
            );
        }
        list_as(&client, args.list_as.as_deref(), secs).await;
    });
}

/// The game list's latency for an existing player, one request at a time.
async fn list_as(client: &std::sync::Arc<Client>, who: Option<&str>, seconds: u64) {
    let Some((name, password)) = who.and_then(|w| w.split_once(':')) else {
        return;
    };
    let body = json!({"username": name, "password": password});
    let (status, answer) = client.post("/api/v1/auth/token", None, &body).await;
    assert_eq!(status, 200, "logging {name} in: {answer}");
    let token = answer["access_token"].as_str().unwrap().to_owned();
    println!("the game list of {name}, one request at a time, {seconds} s each:");
    for (what, query) in [("my_turn=true", "?my_turn=true"), ("default order", "")] {
        let lists = [(format!("/api/v1/games{query}"), Some(token.clone()), None)];
        let (rate, latencies) = timed_reads(client, 1, seconds, &lists, 200).await;
        println!(
            "  GET list, {what:<19} {rate:>9.0}/s   latency ms p50 {:.1}, p99 {:.1}",
            percentile(&latencies, 0.5),
            percentile(&latencies, 0.99),
        );
    }
}

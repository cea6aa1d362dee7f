//! `sannin seed`: fills a database with players and games, each game made
//! through the same use cases as the API's (created, joined, then played
//! with legal moves chosen by a seeded generator), for measuring the service
//! at a realistic size. Players are named `seed-<n>` and share one password,
//! `seed players share this password` (hashed once: hashing is slow on
//! purpose).

use std::time::Instant;

use anyhow::Context as _;
use clap::Args;
use rand::{Rng as _, SeedableRng as _};

use crate::db;
use crate::domain::{limits::Limits, UserId};
use crate::games::lobby::{self, GameRequest, NewGame};
use crate::games::moves::{self, MoveSubmission};
use crate::games::{Games, Settings};
use crate::rules::{Game, Position};

/// The password of every seeded player.
pub const PASSWORD: &str = "seed players share this password";

/// `sannin seed`: reads `DATABASE_URL` (and `.env`) like the server.
pub fn command(args: SeedArgs) -> std::process::ExitCode {
    let _ = dotenvy::dotenv();
    let settings = match crate::config::Settings::from_env() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("sannin: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    match runtime.block_on(run(&settings.database.url, args)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sannin seed: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// What to create.
#[derive(Args, Debug, Clone)]
pub struct SeedArgs {
    /// Players to create (at least 3).
    #[arg(long, default_value_t = 300)]
    pub users: usize,
    /// Games to create.
    #[arg(long, default_value_t = 1_000)]
    pub games: usize,
    /// Moves to play in each game (fewer if it ends first).
    #[arg(long, default_value_t = 10)]
    pub moves: usize,
    /// How many of the games `seed-0` sits in (the rest are among the others).
    #[arg(long, default_value_t = 100)]
    pub mine: usize,
    /// Games made at once.
    #[arg(long, default_value_t = 4)]
    pub concurrency: usize,
    /// Seed of the choice of players and moves.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Runs `sannin seed` against `DATABASE_URL`.
pub async fn run(url: &crate::config::DatabaseUrl, args: SeedArgs) -> anyhow::Result<()> {
    anyhow::ensure!(args.users >= 3, "--users: a game needs three players");
    let pool = db::connect(
        url,
        (args.concurrency as u32).max(1) + 1,
        std::time::Duration::from_secs(30),
    )?;
    {
        let pool = pool.clone();
        tokio::task::spawn_blocking(move || {
            let mut conn = pool.get().context("no database connection")?;
            db::run_migrations(&mut conn)
        })
        .await??;
    }
    let started = Instant::now();
    let users = create_users(&pool, args.users).await?;
    println!(
        "{} players in {:.1} s",
        users.len(),
        started.elapsed().as_secs_f64()
    );

    let unlimited = 100_000_000;
    let games = Games {
        pool,
        settings: Settings {
            day: chrono::Duration::days(1),
            open_for: chrono::Duration::days(14),
            vacation: Default::default(),
            limits: Limits::new(
                unlimited, unlimited, unlimited, unlimited, unlimited, unlimited,
            ),
        },
    };
    let started = Instant::now();
    let next = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let tasks: Vec<_> = (0..args.concurrency.max(1))
        .map(|_| {
            let (games, users, args, next) =
                (games.clone(), users.clone(), args.clone(), next.clone());
            tokio::spawn(async move {
                let mut moves = 0usize;
                loop {
                    let n = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if n >= args.games {
                        return anyhow::Ok(moves);
                    }
                    moves += one_game(&games, &users, &args, n).await?;
                    if (n + 1) % 1_000 == 0 {
                        println!("{} games", n + 1);
                    }
                }
            })
        })
        .collect();
    let mut moves = 0;
    for t in tasks {
        moves += t.await??;
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{} games, {moves} moves in {secs:.1} s ({:.0} games/s)",
        args.games,
        args.games as f64 / secs
    );
    Ok(())
}

/// The players `seed-0` … (those already there are kept).
async fn create_users(pool: &db::Pool, n: usize) -> anyhow::Result<Vec<(UserId, String)>> {
    let password = crate::domain::Password::parse(PASSWORD.to_owned(), &[])
        .map_err(|e| anyhow::anyhow!("the seed password is refused: {e:?}"))?;
    let hash = crate::auth::password::hash(&password)?;
    let pool = pool.clone();
    tokio::task::spawn_blocking(move || {
        let mut conn = pool.get().context("no database connection")?;
        let now = chrono::Utc::now().naive_utc();
        let mut users = Vec::new();
        for i in 0..n {
            let username = format!("seed-{i}");
            let user = match db::users::find_by_username(&mut conn, &username)? {
                Some(u) => u,
                None => {
                    let user = db::models::User {
                        id: UserId::generate(),
                        username: username.clone(),
                        email: format!("{username}@seed.invalid"),
                        email_verified: true,
                        password_hash: hash.clone(),
                        created_at: now,
                        updated_at: now,
                        claimed_email: None,
                        bot_level: None,
                        time_zone: "UTC".into(),
                        vacation_credit: 0,
                        vacation_credit_at: None,
                        vacation_started_at: None,
                        vacation_until: None,
                    };
                    db::users::insert(&mut conn, &user)?;
                    user
                }
            };
            users.push((user.id, user.username));
        }
        anyhow::Ok(users)
    })
    .await?
}

/// Game `n`: three players (`seed-0` first in the first `--mine`), created,
/// joined, then played; how many moves were played.
async fn one_game(
    games: &Games,
    users: &[(UserId, String)],
    args: &SeedArgs,
    n: usize,
) -> anyhow::Result<usize> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(args.seed.wrapping_mul(1_000_003) + n as u64);
    let mut seated: Vec<usize> = Vec::new();
    if n < args.mine {
        seated.push(0);
    }
    while seated.len() < 3 {
        let lowest = if args.mine > 0 { 1 } else { 0 };
        let i = rng.random_range(lowest..users.len());
        if !seated.contains(&i) {
            seated.push(i);
        }
    }
    let rotate = rng.random_range(0..3);
    seated.rotate_left(rotate);
    let now = || chrono::Utc::now().naive_utc();
    let invite = [users[seated[1]].1.clone(), users[seated[2]].1.clone()];
    let new = NewGame::new(GameRequest {
        seat: Some("first"),
        invite: &invite,
        open_seats: None,
        days_per_move: Some(3),
        time_control: None,
        pause_on_weekends: false,
        vacation: true,
        stuck_piece: None,
        illumination: None,
        allies: None,
        bots: &[],
        rated: false,
    })
    .map_err(|e| anyhow::anyhow!("{e:?}"))?;
    let state = lobby::create_game(games, &users[seated[0]].0, new, now())
        .await
        .map_err(|e| anyhow::anyhow!("creating game {n}: {e:?}"))?;
    let id = state.game.row.id.clone();
    for &i in &seated[1..] {
        lobby::join_game(games, &users[i].0, &id, None, now())
            .await
            .map_err(|e| anyhow::anyhow!("joining game {n}: {e:?}"))?;
    }
    let mut game = Game::new(Position::start());
    let mut played = 0;
    while played < args.moves {
        let pos = game.position();
        let Some(seat) = pos.to_move() else { break };
        let legal = pos.legal_moves();
        let mv = legal[rng.random_range(0..legal.len())];
        let submission = MoveSubmission {
            notation: mv.to_string(),
            ply: pos.ply() as i64,
            offer_draw: false,
        };
        moves::play_move(
            games,
            &users[seated[seat.index()]].0,
            &id,
            submission,
            now(),
        )
        .await
        .map_err(|e| anyhow::anyhow!("a move in game {n}: {e:?}"))?;
        game.play(mv).map_err(|e| anyhow::anyhow!("{e}"))?;
        played += 1;
    }
    Ok(played)
}

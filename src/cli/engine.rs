//! `sannin engine …`: the computer player from a shell.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Args, Subcommand};

use super::rules::{position, RuleOpts};
use crate::engine::{search, Level, Limits};
use crate::rules::{Game, Outcome, Player, PlayerSet, Position};

/// Subcommands of `sannin engine`.
#[derive(Subcommand, Debug)]
pub enum EngineCommand {
    /// Choose a move for the player to move; the move is the last line, each
    /// finished depth (nodes, score) is a line before it.
    Bestmove(BestmoveArgs),
    /// Play complete games between two levels, A and B, in every seat
    /// arrangement of one A against two Bs and one B against two As; prints
    /// A's share of the points (a win is 1, a draw is shared by the drawn).
    Match(MatchArgs),
}

#[derive(Args, Debug)]
pub struct MatchArgs {
    /// How many games (a multiple of 6 plays each arrangement equally).
    #[arg(long, default_value_t = 6)]
    pub games: u32,
    /// Level A (0: a random mover, a uniformly random legal move).
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=5))]
    pub a: u8,
    /// Level B (0: a random mover).
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=5))]
    pub b: u8,
    /// Time per move, on top of each level's own limits.
    #[arg(long, value_name = "MS", default_value_t = 100)]
    pub movetime: u64,
    /// A searches best-reply instead of paranoid.
    #[arg(long)]
    pub a_best_reply: bool,
    /// B searches best-reply instead of paranoid.
    #[arg(long)]
    pub b_best_reply: bool,
    /// A game still running after this many plies is drawn among the living.
    #[arg(long, default_value_t = 300)]
    pub max_plies: u32,
}

#[derive(Args, Debug)]
pub struct BestmoveArgs {
    #[command(flatten)]
    pub opts: RuleOpts,
    /// Think for at most this many milliseconds.
    #[arg(long, value_name = "MS", conflicts_with_all = ["depth", "nodes"])]
    pub movetime: Option<u64>,
    /// Search this many plies deep.
    #[arg(long, value_name = "PLIES", conflicts_with = "nodes")]
    pub depth: Option<u32>,
    /// Search at most this many positions.
    #[arg(long, value_name = "N")]
    pub nodes: Option<u64>,
    /// A playing level, 1 (plays at once) to 5; limits given as well narrow it.
    #[arg(long, value_name = "1-5", value_parser = clap::value_parser!(u8).range(1..=5))]
    pub level: Option<u8>,
    /// Seed of the level's randomness.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Search best-reply instead of paranoid.
    #[arg(long)]
    pub best_reply: bool,
}

pub fn run(cmd: EngineCommand) -> ExitCode {
    match cmd {
        EngineCommand::Bestmove(args) => match bestmove(&args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("sannin engine: {e}");
                ExitCode::from(2)
            }
        },
        EngineCommand::Match(args) => {
            play_match(&args);
            ExitCode::SUCCESS
        }
    }
}

/// A player of a match: a level, or (0) a random mover.
type Side = u8;

/// Whether A sits at each seat (first, middle, last) in game `n`: the
/// three seats of a lone A, then the three of a lone B.
fn arrangement(n: u32) -> [bool; 3] {
    let lone_a = n % 6 < 3;
    let mut seats = [!lone_a; 3];
    seats[(n % 3) as usize] = lone_a;
    seats
}

fn play_match(args: &MatchArgs) {
    use rand::{Rng as _, SeedableRng as _};
    let (a, b) = (args.a, args.b);
    let (mut points, mut fair) = (0.0, 0.0);
    for n in 0..args.games {
        let is_a = arrangement(n);
        let seats: [Side; 3] = is_a.map(|x| if x { a } else { b });
        let mut game = Game::new(Position::start());
        while game.outcome().is_none() && game.position().ply() <= args.max_plies {
            let pos = *game.position();
            let Some(to_move) = pos.to_move() else { break };
            let seed = u64::from(n) << 16 | u64::from(pos.ply());
            let best = match Level::new(seats[to_move.index()]) {
                Some(level) => {
                    let deadline = Instant::now() + Duration::from_millis(args.movetime);
                    let stop = move || Instant::now() >= deadline;
                    let mut limits = level.limits(seed);
                    limits.stop = Some(&stop);
                    limits.best_reply = if is_a[to_move.index()] {
                        args.a_best_reply
                    } else {
                        args.b_best_reply
                    };
                    let Some(result) = search(&pos, &limits) else {
                        break;
                    };
                    result.best
                }
                None => {
                    let legal = pos.legal_moves();
                    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
                    legal[rng.random_range(0..legal.len())]
                }
            };
            game.play(best).expect("the engine plays legal moves");
        }
        let pos = *game.position();
        let shares: [f64; 3] = match game.outcome() {
            Some(Outcome::Win(w, _)) => {
                std::array::from_fn(|i| f64::from(u8::from(i == w.index())))
            }
            Some(Outcome::Draw(drawn, _)) => share(drawn),
            None => share(pos.living()),
        };
        let is_a = |i: usize| is_a[i];
        let game_points: f64 = (0..3).filter(|&i| is_a(i)).map(|i| shares[i]).sum();
        points += game_points;
        fair += (0..3).filter(|&i| is_a(i)).count() as f64 / 3.0;
        let outcome = game
            .outcome()
            .map_or_else(|| "unfinished: draw".to_owned(), |o| o.to_string());
        println!(
            "game {} seats {}/{}/{} plies {} {} A {:.2}",
            n + 1,
            seats[0],
            seats[1],
            seats[2],
            pos.ply() - 1,
            outcome,
            game_points
        );
    }
    println!(
        "A (level {}) scored {points:.2} of {} points; its fair share is {fair:.2} ({:.0}%)",
        a,
        args.games,
        if fair > 0.0 {
            100.0 * points / fair
        } else {
            0.0
        }
    );
}

/// A draw's point, shared equally by the drawn players.
fn share(drawn: PlayerSet) -> [f64; 3] {
    let n = drawn.len().max(1) as f64;
    std::array::from_fn(|i| {
        if drawn.contains(Player::from_index(i)) {
            1.0 / n
        } else {
            0.0
        }
    })
}

fn bestmove(args: &BestmoveArgs) -> Result<(), String> {
    let pos = position(&args.opts)?;
    let started = Instant::now();
    let deadline = args.movetime.map(|ms| started + Duration::from_millis(ms));
    let stop = move || deadline.is_some_and(|d| Instant::now() >= d);
    let mut limits = match args.level {
        Some(l) => Level::new(l)
            .expect("clap checks the range")
            .limits(args.seed),
        None => Limits {
            seed: args.seed,
            ..Limits::default()
        },
    };
    if args.depth.is_some() {
        limits.depth = args.depth;
    }
    limits.nodes = args.nodes.or(limits.nodes);
    limits.best_reply = args.best_reply;
    if deadline.is_some() {
        limits.stop = Some(&stop);
        if args.level.is_none() {
            limits.depth = None;
        }
    } else if args.level.is_none() && args.depth.is_none() && args.nodes.is_none() {
        limits.depth = Some(3);
    }
    let result = search(&pos, &limits).ok_or("the game is over: there is no move to choose")?;
    for r in &result.iterations {
        println!(
            "depth {} nodes {} score {} move {}",
            r.depth, r.nodes, r.score, r.best
        );
    }
    let seconds = started.elapsed().as_secs_f64().max(1e-9);
    println!(
        "nodes {} time {:.3}s nps {:.0}",
        result.nodes,
        seconds,
        result.nodes as f64 / seconds
    );
    println!("{}", result.best);
    Ok(())
}

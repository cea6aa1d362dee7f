//! `sannin engine …`: the computer player from a shell.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Args, Subcommand};

use super::rules::{position, RuleOpts};
use crate::engine::{search, Level, Limits};

/// Subcommands of `sannin engine`.
#[derive(Subcommand, Debug)]
pub enum EngineCommand {
    /// Choose a move for the player to move; the move is the last line, each
    /// finished depth (nodes, score) is a line before it.
    Bestmove(BestmoveArgs),
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
    }
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

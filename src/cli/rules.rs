//! `sannin rules …`: the rules engine from a shell.

use crate::render::SvgOptions;
use crate::rules::{
    perft, perft_divide, Alliance, Game, Illumination, Move, Options, Outcome, Position,
    StuckPiece, WinReason, START,
};
use crate::rules::{Action, Event, Player};
use clap::{Args, Subcommand};
use std::io::{BufRead, Write};
use std::process::ExitCode;

/// Rule options shared by the subcommands.
#[derive(Args, Debug, Clone)]
pub struct RuleOpts {
    /// Position string (R32); the start position if omitted.
    #[arg(long = "pos", value_name = "POSITION")]
    pub pos: Option<String>,
    /// Illumination option (R24).
    #[arg(long, value_name = "selective|all", default_value = "selective")]
    pub illumination: String,
    /// Stuck-piece option (R19).
    #[arg(long, value_name = "promote|stay", default_value = "promote")]
    pub stuck: String,
}

/// Subcommands of `sannin rules`.
#[derive(Subcommand, Debug)]
pub enum RulesCommand {
    /// Count leaf nodes to a depth (R34); the count is the last line.
    Perft {
        /// Depth in plies.
        depth: u32,
        /// Print `move count` per root move first.
        #[arg(long)]
        divide: bool,
        #[command(flatten)]
        opts: RuleOpts,
    },
    /// List legal moves, one per line (or, with --batch, one line per input position).
    Legal {
        /// Read position strings from standard input, one per line.
        #[arg(long)]
        batch: bool,
        #[command(flatten)]
        opts: RuleOpts,
    },
    /// Play moves (and `ally:fm`-style alliances) and print the resulting position.
    Play {
        #[command(flatten)]
        opts: RuleOpts,
        /// Moves in R33 notation, or `ally:fm`, `ally:fl`, `ally:ml`.
        #[arg(value_name = "MOVE")]
        moves: Vec<String>,
    },
    /// Draw the position after the given moves as an SVG picture on standard output.
    Svg {
        #[command(flatten)]
        opts: RuleOpts,
        /// The seat shown at the bottom: first, middle or last.
        #[arg(long, default_value = "middle")]
        view: String,
        /// Moves in R33 notation, or `ally:fm`, `ally:fl`, `ally:ml`.
        #[arg(value_name = "MOVE")]
        moves: Vec<String>,
    },
}

/// Plays command-line tokens into a game; returns the last move played, or the
/// offending token and the refusal.
fn play_tokens(game: &mut Game, tokens: &[String]) -> Result<Option<Move>, String> {
    let mut last = None;
    for token in tokens {
        let action = if let Some(a) = token.strip_prefix("ally:") {
            Action::Alliance(Alliance::parse(a).ok_or_else(|| {
                format!("`{token}`: an alliance is written ally:fm, ally:fl or ally:ml")
            })?)
        } else {
            Action::Move(Move::parse(token).map_err(|e| format!("`{token}`: {e}"))?)
        };
        game.act(action)
            .map_err(|e| format!("illegal `{token}` ({}): {}", e.code(), e.message))?;
        if let Action::Move(m) = action {
            last = Some(m);
        }
    }
    Ok(last)
}

fn options(o: &RuleOpts) -> Result<Options, String> {
    Ok(Options {
        stuck_piece: o.stuck.parse::<StuckPiece>()?,
        illumination: o.illumination.parse::<Illumination>()?,
    })
}

pub fn position(o: &RuleOpts) -> Result<Position, String> {
    let opts = options(o)?;
    let s = o.pos.as_deref().unwrap_or(START);
    Position::parse(s)
        .map(|p| p.with_options(opts))
        .map_err(|e| e.to_string())
}

fn sorted_moves(pos: &Position) -> Vec<String> {
    let mut v: Vec<String> = pos.legal_moves().iter().map(Move::to_string).collect();
    v.sort();
    v
}

/// Runs one `sannin rules` subcommand.
pub fn run(cmd: RulesCommand) -> ExitCode {
    match run_inner(cmd) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run_inner(cmd: RulesCommand) -> Result<ExitCode, String> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let w = |e: std::io::Error| e.to_string();
    match cmd {
        RulesCommand::Perft {
            depth,
            divide,
            opts,
        } => {
            let pos = position(&opts)?;
            if divide {
                let mut rows: Vec<(String, u64)> = perft_divide(&pos, depth)
                    .into_iter()
                    .map(|(m, n)| (m.to_string(), n))
                    .collect();
                rows.sort();
                let mut total = 0;
                for (m, n) in rows {
                    writeln!(out, "{m} {n}").map_err(w)?;
                    total += n;
                }
                writeln!(out, "{}", if depth == 0 { 1 } else { total }).map_err(w)?;
            } else {
                writeln!(out, "{}", perft(&pos, depth)).map_err(w)?;
            }
        }
        RulesCommand::Legal { batch: false, opts } => {
            let pos = position(&opts)?;
            for m in sorted_moves(&pos) {
                writeln!(out, "{m}").map_err(w)?;
            }
        }
        RulesCommand::Legal { batch: true, opts } => {
            if opts.pos.is_some() {
                return Err(
                    "--batch reads positions from standard input; --pos cannot be given too".into(),
                );
            }
            let o = options(&opts)?;
            for line in std::io::stdin().lock().lines() {
                let line = line.map_err(w)?;
                match Position::parse(line.trim_end_matches('\r')) {
                    Ok(p) => writeln!(out, "{}", sorted_moves(&p.with_options(o)).join(" "))
                        .map_err(w)?,
                    Err(e) => writeln!(out, "error: {e}").map_err(w)?,
                }
            }
        }
        RulesCommand::Play { opts, moves } => {
            let mut game = Game::new(position(&opts)?);
            let result = play_tokens(&mut game, &moves);
            for entry in game.entries() {
                for ev in &entry.events {
                    writeln!(out, "# {}", describe(ev)).map_err(w)?;
                }
            }
            let pos = game.position();
            if let Err(e) = result {
                writeln!(out, "{pos}").map_err(w)?;
                out.flush().map_err(w)?;
                eprintln!("{e}");
                return Ok(ExitCode::FAILURE);
            }
            writeln!(out, "{pos}").map_err(w)?;
            writeln!(out, "{}", status(pos)).map_err(w)?;
        }
        RulesCommand::Svg { opts, view, moves } => {
            let view = match view.as_str() {
                "first" => Player::First,
                "middle" => Player::Middle,
                "last" => Player::Last,
                _ => {
                    return Err(format!(
                        "--view must be first, middle or last, not `{view}`"
                    ))
                }
            };
            let mut game = Game::new(position(&opts)?);
            let last_move = play_tokens(&mut game, &moves)?;
            let svg = crate::render::board_svg(
                game.position(),
                &SvgOptions {
                    last_move,
                    view,
                    ..SvgOptions::default()
                },
            );
            out.write_all(svg.as_bytes()).map_err(w)?;
        }
    }
    out.flush().map_err(w)?;
    Ok(ExitCode::SUCCESS)
}

fn describe(ev: &Event) -> String {
    match ev {
        Event::AllianceFormed {
            alliance,
            automatic,
        } => format!(
            "alliance {alliance} formed{}",
            if *automatic {
                " automatically (R29a)"
            } else {
                ""
            }
        ),
        Event::Eliminated { player, reason, by } => match by {
            Some(b) => format!("{player} eliminated ({}) by {b}", reason.code()),
            None => format!("{player} eliminated ({})", reason.code()),
        },
        Event::AllianceDissolved { alliance } => format!("alliance {alliance} dissolved"),
        Event::Finished(o) => format!("game over: {}", outcome(o)),
    }
}

fn outcome(o: &Outcome) -> String {
    match o {
        Outcome::Win(p, r) => format!(
            "{p} wins ({})",
            match r {
                WinReason::Garden => "garden",
                WinReason::LastPlayerStanding => "last player standing",
                WinReason::AllyEliminated => "an ally against it was eliminated",
            }
        ),
        Outcome::Draw(set, r) => format!("draw among {} ({})", set.letters(), r.code()),
    }
}

/// One status line: who moves, or how it ended.
pub fn status(pos: &Position) -> String {
    match (pos.to_move(), pos.outcome()) {
        (Some(p), _) => format!(
            "status: ongoing; to move: {p}; alliance: {}; living: {}",
            pos.alliance().map_or("-".into(), |a| a.to_string()),
            pos.living().letters()
        ),
        (None, Some(o)) => format!("status: over; {}", outcome(&o)),
        (None, None) => "status: over".to_string(),
    }
}

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Sannin: the reference server for sannin shogi.
#[derive(Parser)]
#[command(name = "sannin", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Check positions and moves with the embedded rules engine.
    #[command(subcommand)]
    Rules(sannin::rules::cli::RulesCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Rules(cmd)) => sannin::rules::cli::run(cmd),
        None => {
            use clap::CommandFactory;
            let _ = Cli::command().print_help();
            ExitCode::SUCCESS
        }
    }
}

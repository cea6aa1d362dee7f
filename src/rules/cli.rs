//! `sannin rules …`: the rules engine from a shell.

use clap::Subcommand;
use std::process::ExitCode;

/// Subcommands of `sannin rules`.
#[derive(Subcommand, Debug)]
pub enum RulesCommand {
    /// Count leaf nodes to a depth (R34).
    Perft {
        /// Depth in plies.
        depth: u32,
    },
}

/// Runs one `sannin rules` subcommand.
pub fn run(cmd: RulesCommand) -> ExitCode {
    eprintln!("{cmd:?}: the rules engine is being built");
    ExitCode::FAILURE
}

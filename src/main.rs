use clap::{Parser, Subcommand};
use std::process::ExitCode;

// The server allocates and frees many small buffers per request on many
// threads; mimalloc does that with less contention than the system's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    Rules(sannin::cli::rules::RulesCommand),
    /// Let the computer player choose moves.
    #[command(subcommand)]
    Engine(sannin::cli::engine::EngineCommand),
    /// Run the HTTP server (the default when no subcommand is given).
    Serve,
    /// Apply pending database migrations and exit.
    Migrate,
    /// Print the OpenAPI document.
    Openapi,
    /// Fill the database with players and played games (for measuring).
    Seed(sannin::cli::seed::SeedArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Rules(cmd)) => sannin::cli::rules::run(cmd),
        Some(Command::Engine(cmd)) => sannin::cli::engine::run(cmd),
        Some(Command::Serve) | None => sannin::startup::serve(),
        Some(Command::Migrate) => sannin::startup::migrate(),
        Some(Command::Seed(args)) => sannin::cli::seed::command(args),
        Some(Command::Openapi) => {
            print!("{}", sannin::routes::openapi::spec_json());
            ExitCode::SUCCESS
        }
    }
}

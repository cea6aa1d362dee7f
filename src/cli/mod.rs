//! The command line beyond the server: `sannin rules …` checks positions and
//! moves offline with the rules engine; `sannin engine …` chooses moves; `sannin seed` fills a database with
//! players and games through the use cases, for measuring. It lives outside `src/rules/` so the
//! rules core stays pure (no clap, no rendering).

pub mod engine;
pub mod rules;
pub mod seed;

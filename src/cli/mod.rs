//! The command line beyond the server: `sannin rules …` checks positions and
//! moves offline with the rules engine. It lives outside `src/rules/` so the
//! rules core stays pure (no clap, no rendering).

pub mod rules;

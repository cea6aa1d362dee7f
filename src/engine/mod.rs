//! A computer player for sannin shogi, pure like `crate::rules`: no I/O and no
//! clock (a time limit is the caller's `stop` test).
//!
//! The search is *paranoid* alpha-beta: the player to move at the root
//! maximises its own evaluation, and both others are taken to minimise it
//! together, which turns the three-player tree into a two-sided one that
//! alpha-beta can prune. Once the root player is allied (R29), its ally
//! maximises with it: the game is then two sides in earnest. Best-reply
//! search (Schadd & Winands, 2011; `Limits::best_reply`) is the
//! alternative: at the opponents' layer only one of them moves, whichever
//! answer hurts most, while the other passes (`Position::with_turn`), so
//! the root player sees deeper into its own plans; `engine match
//! --a-best-reply` plays the two against each other. Iterative deepening
//! keeps the best move of the last finished depth; a transposition table
//! keyed by the rules' Zobrist key (`Position::key`, kept up incrementally
//! as moves are played) returns what a position's earlier search proved and
//! names its best move; moves are ordered by that
//! move, then captures by the value of the piece taken, promotions, two
//! killer moves per ply, then the rest by their history (how often each cut
//! the search off). The table and the move buffers are allocated once per
//! search, so the inner loop does not touch the heap.

mod eval;
mod search;

pub use eval::{accepts_alliance, accepts_draw, evaluate, piece_value, MATE};
pub use search::{search, Level, Limits, Report, SearchResult};

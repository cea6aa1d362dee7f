//! Sannin: the reference server for sannin shogi.

pub mod record;
pub mod render;
pub mod rules;

//! Sannin: the reference server for sannin shogi.

pub mod render;
pub mod rules;

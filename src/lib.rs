//! Sannin: the reference server for sannin shogi.

pub mod rules;

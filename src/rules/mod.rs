//! The rules of sannin shogi (see `RULES.md` ids R1–R35): pure, no I/O.

pub mod cli;

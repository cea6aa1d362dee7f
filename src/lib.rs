//! Sannin: the reference server for sannin shogi.

pub mod accounts;
pub mod auth;
pub mod cli;
pub mod clock;
pub mod config;
pub mod db;
pub mod domain;
pub mod engine;
pub mod error;
pub mod games;
pub mod jobs;
pub mod notify;
pub mod record;
pub mod render;
pub mod routes;
pub mod rules;
pub mod startup;
pub mod state;
pub mod telemetry;

//! End-to-end tests: a real server on port 0, over HTTP, against a fresh
//! SQLite database and (with `TEST_DATABASE_URL`) a fresh PostgreSQL one.

mod helpers;

mod account_limits;
mod accounts;
mod auth;
mod bots;
mod contract;
mod errors;
mod faults;
mod games;
mod games_lobby;
mod headers;
mod health;
mod mail;
mod openapi;
mod password_limits;
mod process;
mod rate_limits;
mod smtp;
mod snapshots;
mod streams;
mod table_talk;
mod time;
mod tokens;
mod web_client;
mod webhook_queue;
mod webhooks;

//! Test helpers, by job: `database` provisions a fresh database per test,
//! `app` spawns the real server on port 0 against it, `client` has one
//! method per endpoint, `fixtures` builds games; `eventually` is the one way
//! to wait for something asynchronous.

mod app;
mod client;
mod database;
mod fixtures;

pub use app::{spawn_app, spawn_app_using, spawn_app_with, TestApp};
pub use client::{assert_problem, error_fields, TestUser};
pub use database::{available, Backend, EmptyDatabase};
pub use fixtures::{heard, ok, Trio};

/// Polls `check` until it gives a value, and returns that value; fails the
/// test after 20 s, saying what never happened. The one way tests wait for
/// something asynchronous (a delivery, a sweep, a mail).
pub async fn eventually<T, F, Fut>(what: &str, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let started = std::time::Instant::now();
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "gave up waiting: {what}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
}

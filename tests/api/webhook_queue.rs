//! Webhook deliveries on the job queue (issue 11, items 6 and 7; issue 9):
//! no endpoint holds up another, an unreachable endpoint is backed off as a
//! whole, the log shows every attempt a receiver may have seen, a stopping
//! process gives its attempts back, and finished deliveries are pruned.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use sannin::db::webhooks::{INTERRUPTED, UNFINISHED};

use crate::helpers::{spawn_app_with, Backend, TestApp};
use crate::on_both_backends;
use crate::webhooks::{
    app, create, deliveries, get_json, move_hook, ping, verified, wait_deliveries, Receiver,
};

/// A receiver that accepts connections (the kernel's backlog does) and never
/// answers; the URL of its hook.
fn dead_receiver() -> (std::net::TcpListener, String) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    (listener, url)
}

fn attempts(delivery: &Value) -> &Vec<Value> {
    delivery["attempts"].as_array().unwrap()
}

async fn hook_to(app: &TestApp, bearer: &str, url: &str) -> String {
    let hook = create(app, bearer, json!({"url": url, "events": ["game.move"]})).await;
    hook["id"].as_str().unwrap().to_owned()
}

/// Item 6: a receiver that accepts and never answers holds up only its own
/// deliveries. Another user's endpoint gets its ping while the dead one's
/// attempt is still in flight.
async fn a_dead_receiver_does_not_delay_another_endpoint(backend: Backend) {
    let app = app(backend, "1").await;
    let t = app.trio("whd").await;
    let (_dead, dead_url) = dead_receiver();
    let stuck = hook_to(&app, &t.tokens[0], &dead_url).await;
    ping(&app, &t.tokens[0], &stuck).await;
    let stuck_since = Instant::now();
    wait_deliveries(&app, &t.tokens[0], &stuck, |l| {
        attempts(&l[0]).len() == 1 && attempts(&l[0])[0]["error"] == UNFINISHED
    })
    .await;

    let rx = Receiver::start();
    let healthy = move_hook(&app, &t.tokens[1], &rx).await;
    let pinged = Instant::now();
    ping(&app, &t.tokens[1], healthy["id"].as_str().unwrap()).await;
    let got = rx.wait_for(1).await;
    let healthy_latency = pinged.elapsed();
    verified(healthy["secret"].as_str().unwrap(), &got[0]);

    let list = deliveries(&app, &t.tokens[0], &stuck).await;
    assert_eq!(
        attempts(&list[0])[0]["error"],
        UNFINISHED,
        "the healthy endpoint was served in {healthy_latency:?}, while the dead one's \
         attempt, {:?} old, is still in flight",
        stuck_since.elapsed()
    );
    assert!(healthy_latency < stuck_since.elapsed());
}

/// Item 6: an endpoint that times out is backed off as a whole: once its
/// first attempts have timed out, its other deliveries wait for the back-off
/// (shown on the webhook) instead of each timing out in turn; then they go.
async fn an_unreachable_endpoint_is_backed_off_as_a_whole(backend: Backend) {
    let app = spawn_app_with(backend, |s| {
        s.webhooks.allow_private = true;
        s.webhooks.poll_interval = Duration::from_millis(50);
        s.webhooks.timeout = Duration::from_millis(300);
    })
    .await;
    let t = app.trio("whb").await;
    let (_dead, url) = dead_receiver();
    let id = hook_to(&app, &t.tokens[0], &url).await;
    for _ in 0..3 {
        ping(&app, &t.tokens[0], &id).await;
    }
    let timed_out = |d: &Value| {
        attempts(d)
            .first()
            .is_some_and(|a| a["error"] == "timed out")
    };
    let list = wait_deliveries(&app, &t.tokens[0], &id, |l| {
        l.len() == 3 && l.iter().filter(|d| timed_out(d)).count() == 2
    })
    .await;
    let waiting: Vec<&Value> = list.iter().filter(|d| attempts(d).is_empty()).collect();
    assert_eq!(waiting.len(), 1, "one delivery never tried: {list:?}");
    assert_eq!(waiting[0]["status"], "pending");
    let shown = get_json(&app, &t.tokens[0], &format!("/api/v1/webhooks/{id}")).await;
    let until: chrono::DateTime<chrono::Utc> = shown["backoff_until"]
        .as_str()
        .expect("the webhook shows its back-off")
        .parse()
        .unwrap();
    assert!(until > app.clock.now().and_utc(), "{shown}");
    // Both timed-out attempts happened before the wait was set and the third
    // delivery was the oldest due: past the back-off, it goes first.
    app.clock.advance(chrono::Duration::minutes(10));
    wait_deliveries(&app, &t.tokens[0], &id, |l| {
        l.iter().all(|d| timed_out(d) || attempts(d).len() > 1)
    })
    .await;
}

/// Item 7: a process that claims a delivery, starts sending and dies: the
/// log keeps that attempt (marked interrupted), and the survivor's attempt
/// after the lease follows it, so the log shows both requests the receiver
/// may have seen.
async fn an_attempt_cut_short_by_a_crash_stays_in_the_log(backend: Backend) {
    let app = spawn_app_with(backend, |s| {
        s.webhooks.allow_private = true;
        s.webhooks.poll_interval = Duration::from_secs(3600);
    })
    .await;
    let t = app.trio("whi").await;
    let rx = Receiver::start();
    let hook = move_hook(&app, &t.tokens[0], &rx).await;
    let id = hook["id"].as_str().unwrap();
    ping(&app, &t.tokens[0], id).await;

    // The crashed process: claims, logs the start of its attempt, and dies.
    let now = app.clock.now();
    app.with_connection(move |conn| {
        let lease = now + chrono::Duration::minutes(1);
        let claimed = sannin::db::webhooks::claim_due(conn, now, lease, 10, &[]).unwrap();
        assert_eq!(claimed.len(), 1);
        let attempt = sannin::db::webhooks::AttemptRow {
            id: "crashed-attempt".into(),
            delivery_id: claimed[0].0.id.clone(),
            attempted_at: now,
            status_code: None,
            duration_ms: 0,
            error: Some(UNFINISHED.into()),
            finished: false,
        };
        sannin::db::webhooks::begin_attempt(conn, &attempt).unwrap();
    })
    .await;

    let _survivor = app
        .restart_with(|s| {
            s.webhooks.allow_private = true;
            s.webhooks.poll_interval = Duration::from_millis(50);
        })
        .await;
    app.clock.advance(chrono::Duration::minutes(2));
    rx.wait_for(1).await;
    let list = wait_deliveries(&app, &t.tokens[0], id, |l| l[0]["status"] == "delivered").await;
    let log = attempts(&list[0]);
    assert_eq!(log.len(), 2, "{log:?}");
    assert_eq!(log[0]["error"], INTERRUPTED);
    assert!(log[0]["status_code"].is_null());
    assert_eq!(log[1]["status_code"], 200);
    assert!(log[1]["error"].is_null());
}

/// A process that is stopped mid-attempt gives the delivery back when its
/// grace period ends: the next process takes it at once, without waiting out
/// the lease (the clock does not move here), and the log shows both attempts.
async fn a_stopping_process_gives_its_attempts_back(backend: Backend) {
    let app = spawn_app_with(backend, |s| {
        s.webhooks.allow_private = true;
        s.webhooks.poll_interval = Duration::from_millis(50);
        s.http.shutdown_timeout = Duration::from_secs(1);
    })
    .await;
    let t = app.trio("whg").await;
    let (_dead, url) = dead_receiver();
    let id = hook_to(&app, &t.tokens[0], &url).await;
    ping(&app, &t.tokens[0], &id).await;
    wait_deliveries(&app, &t.tokens[0], &id, |l| {
        attempts(&l[0]).len() == 1 && attempts(&l[0])[0]["error"] == UNFINISHED
    })
    .await;
    app.stop().await;

    let next = app
        .restart_with(|s| {
            s.webhooks.allow_private = true;
            s.webhooks.poll_interval = Duration::from_millis(50);
        })
        .await;
    let list = wait_deliveries(&next, &t.tokens[0], &id, |l| attempts(&l[0]).len() == 2).await;
    let log = attempts(&list[0]);
    assert_eq!(log[0]["error"], INTERRUPTED, "{log:?}");
    assert_eq!(log[1]["error"], UNFINISHED, "{log:?}");
}

/// Finished deliveries and their attempts go after 30 days, as mail does.
async fn finished_deliveries_are_pruned(backend: Backend) {
    let app = app(backend, "1").await;
    let t = app.trio("whp").await;
    let rx = Receiver::start();
    let hook = move_hook(&app, &t.tokens[0], &rx).await;
    let id = hook["id"].as_str().unwrap();
    ping(&app, &t.tokens[0], id).await;
    wait_deliveries(&app, &t.tokens[0], id, |l| l[0]["status"] == "delivered").await;
    app.clock.advance(chrono::Duration::days(29));
    // A process's first pass prunes.
    let _later = app.restart_with(|s| s.webhooks.allow_private = true).await;
    let t = app.log_in_again(&t).await;
    ping(&app, &t.tokens[0], id).await;
    wait_deliveries(&app, &t.tokens[0], id, |l| {
        l.len() == 2 && l.iter().all(|d| d["status"] == "delivered")
    })
    .await;
    app.clock.advance(chrono::Duration::days(2));
    let _pruning = app.restart_with(|s| s.webhooks.allow_private = true).await;
    let t = app.log_in_again(&t).await;
    let list = wait_deliveries(&app, &t.tokens[0], id, |l| l.len() == 1).await;
    assert_eq!(attempts(&list[0]).len(), 1);
}

on_both_backends!(
    a_dead_receiver_does_not_delay_another_endpoint,
    an_unreachable_endpoint_is_backed_off_as_a_whole,
    an_attempt_cut_short_by_a_crash_stays_in_the_log,
    a_stopping_process_gives_its_attempts_back,
    finished_deliveries_are_pruned,
);

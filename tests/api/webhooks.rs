//! Webhooks end to end: a receiver on loopback records what it is sent and its
//! signatures are checked with the `standardwebhooks` crate.

use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{assert_problem, error_fields, spawn_app_with, Backend, TestApp};
use crate::on_both_backends;

/// One request the receiver got.
#[derive(Clone, Debug)]
struct Received {
    headers: reqwest::header::HeaderMap,
    body: Vec<u8>,
}

/// An HTTP receiver on loopback that answers with `status`.
pub(crate) struct Receiver {
    pub(crate) url: String,
    got: Arc<Mutex<Vec<Received>>>,
    pub(crate) status: Arc<AtomicU16>,
}

impl Receiver {
    pub(crate) fn start() -> Receiver {
        let got: Arc<Mutex<Vec<Received>>> = Arc::default();
        let status = Arc::new(AtomicU16::new(200));
        let (g, s) = (got.clone(), status.clone());
        let server = HttpServer::new(move || {
            let (g, s) = (g.clone(), s.clone());
            App::new().default_service(web::to(move |req: HttpRequest, body: web::Bytes| {
                let (g, s) = (g.clone(), s.clone());
                async move {
                    let mut headers = reqwest::header::HeaderMap::new();
                    for (k, v) in req.headers() {
                        headers.insert(
                            reqwest::header::HeaderName::from_bytes(k.as_str().as_bytes()).unwrap(),
                            reqwest::header::HeaderValue::from_bytes(v.as_bytes()).unwrap(),
                        );
                    }
                    g.lock().unwrap().push(Received {
                        headers,
                        body: body.to_vec(),
                    });
                    let code = s.load(Ordering::SeqCst);
                    HttpResponse::build(actix_web::http::StatusCode::from_u16(code).unwrap())
                        .finish()
                }
            }))
        })
        .workers(1)
        .bind("127.0.0.1:0")
        .unwrap();
        let port = server.addrs()[0].port();
        actix_web::rt::spawn(server.run());
        Receiver {
            url: format!("http://127.0.0.1:{port}/hook"),
            got,
            status,
        }
    }

    fn received(&self) -> Vec<Received> {
        self.got.lock().unwrap().clone()
    }

    /// Waits until at least `n` requests arrived.
    async fn wait_for(&self, n: usize) -> Vec<Received> {
        for _ in 0..200 {
            let got = self.received();
            if got.len() >= n {
                return got;
            }
            actix_web::rt::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("expected {n} requests, got {:?}", self.received().len());
    }
}

/// Checks the signature with an independent implementation; the body's JSON.
fn verified(secret: &str, r: &Received) -> Value {
    standardwebhooks::Webhook::new(secret)
        .unwrap()
        .verify(&r.body, &r.headers)
        .expect("a valid Standard Webhooks signature");
    serde_json::from_slice(&r.body).unwrap()
}

async fn app(backend: Backend, scale: &str) -> TestApp {
    let scale: f64 = scale.parse().unwrap();
    spawn_app_with(backend, |s| {
        s.webhook_allow_private = true;
        s.webhook_retry_scale = scale;
        s.webhook_poll_interval = Duration::from_millis(50);
    })
    .await
}

async fn create(app: &TestApp, bearer: &str, body: Value) -> Value {
    let res = app
        .authed(Method::POST, "/api/v1/webhooks", bearer, Some(&body))
        .await;
    assert_eq!(res.status(), StatusCode::CREATED);
    res.json().await.unwrap()
}

/// A webhook of `bearer`'s for `game.move` events, pointing at `rx`.
async fn move_hook(app: &TestApp, bearer: &str, rx: &Receiver) -> Value {
    create(app, bearer, json!({"url": rx.url, "events": ["game.move"]})).await
}

/// Asks for a `webhook.ping` to webhook `id`.
async fn ping(app: &TestApp, bearer: &str, id: &str) -> reqwest::Response {
    app.authed(
        Method::POST,
        &format!("/api/v1/webhooks/{id}/ping"),
        bearer,
        None,
    )
    .await
}

async fn get_json(app: &TestApp, bearer: &str, path: &str) -> Value {
    let res = app.authed(Method::GET, path, bearer, None).await;
    assert_eq!(res.status(), StatusCode::OK);
    res.json().await.unwrap()
}

async fn deliveries(app: &TestApp, bearer: &str, id: &str) -> Vec<Value> {
    let v = get_json(app, bearer, &format!("/api/v1/webhooks/{id}/deliveries")).await;
    v.as_array().unwrap().clone()
}

/// Waits until the webhook's deliveries satisfy `done`.
async fn wait_deliveries(
    app: &TestApp,
    bearer: &str,
    id: &str,
    done: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    for _ in 0..200 {
        let list = deliveries(app, bearer, id).await;
        if done(&list) {
            return list;
        }
        actix_web::rt::time::sleep(Duration::from_millis(50)).await;
    }
    panic!(
        "deliveries never settled: {:?}",
        deliveries(app, bearer, id).await
    );
}

async fn crud_and_validation(backend: Backend) {
    let strict = spawn_app_with(backend, |_| {}).await;
    let t = strict.trio("whc").await;
    let res = strict
        .authed(
            Method::POST,
            "/api/v1/webhooks",
            &t.tokens[0],
            Some(&json!({"url": "http://127.0.0.1:9/x", "events": ["game.your_turn"]})),
        )
        .await;
    let problem = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    assert_eq!(error_fields(&problem), ["url"]);
    drop(strict);

    let app = app(backend, "1").await;
    let t = app.trio("whd").await;
    for body in [
        json!({"url": "ftp://127.0.0.1/x", "events": ["game.move"]}),
        json!({"url": "http://127.0.0.1:9/x", "events": ["game.nonsense"]}),
        json!({"url": "http://127.0.0.1:9/x", "events": []}),
    ] {
        let res = app
            .authed(Method::POST, "/api/v1/webhooks", &t.tokens[0], Some(&body))
            .await;
        assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    }
    let hook = create(
        &app,
        &t.tokens[0],
        json!({"url": "http://127.0.0.1:9/x", "events": ["game.move"]}),
    )
    .await;
    let id = hook["id"].as_str().unwrap();
    assert!(hook["secret"].as_str().unwrap().starts_with("whsec_"));
    assert_eq!(hook["active"], true);
    let path = format!("/api/v1/webhooks/{id}");
    let shown = get_json(&app, &t.tokens[0], &path).await;
    assert!(shown.get("secret").is_none(), "the secret is shown once");
    let list = get_json(&app, &t.tokens[0], "/api/v1/webhooks").await;
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert!(list[0].get("secret").is_none());
    // Someone else's webhook does not exist for you.
    let res = app.authed(Method::GET, &path, &t.tokens[1], None).await;
    assert_problem(res, StatusCode::NOT_FOUND, "not-found").await;

    let res = app
        .authed(
            Method::PATCH,
            &path,
            &t.tokens[0],
            Some(&json!({"events": ["game.your_turn", "game.finished"], "active": false})),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let patched: Value = res.json().await.unwrap();
    assert_eq!(
        patched["events"],
        json!(["game.your_turn", "game.finished"])
    );
    assert_eq!(patched["active"], false);

    let res = app.authed(Method::DELETE, &path, &t.tokens[0], None).await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    let res = app.authed(Method::GET, &path, &t.tokens[0], None).await;
    assert_problem(res, StatusCode::NOT_FOUND, "not-found").await;
}

async fn ping_is_signed_logged_and_redelivered(backend: Backend) {
    let app = app(backend, "1").await;
    let t = app.trio("whp").await;
    let rx = Receiver::start();
    let hook = move_hook(&app, &t.tokens[0], &rx).await;
    let (id, secret) = (
        hook["id"].as_str().unwrap(),
        hook["secret"].as_str().unwrap(),
    );
    let res = ping(&app, &t.tokens[0], id).await;
    assert_eq!(res.status(), StatusCode::ACCEPTED);
    let got = rx.wait_for(1).await;
    let body = verified(secret, &got[0]);
    assert_eq!(body["type"], "webhook.ping");
    assert_eq!(body["data"]["webhook_id"], id);

    let list = wait_deliveries(&app, &t.tokens[0], id, |l| l[0]["status"] == "delivered").await;
    assert_eq!(list.len(), 1);
    let delivery = &list[0];
    assert_eq!(
        got[0].headers["webhook-id"],
        delivery["id"].as_str().unwrap()
    );
    assert_eq!(delivery["attempts"][0]["status_code"], 200);
    assert!(delivery["attempts"][0]["duration_ms"].is_number());

    let res = app
        .authed(
            Method::POST,
            &format!(
                "/api/v1/webhooks/{id}/deliveries/{}/redeliver",
                delivery["id"].as_str().unwrap()
            ),
            &t.tokens[0],
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::ACCEPTED);
    let got = rx.wait_for(2).await;
    verified(secret, &got[1]);
    assert_eq!(got[1].headers["webhook-id"], got[0].headers["webhook-id"]);
    assert_eq!(got[1].body, got[0].body);
    wait_deliveries(&app, &t.tokens[0], id, |l| {
        l[0]["attempts"].as_array().unwrap().len() == 2
    })
    .await;
}

async fn game_events_reach_the_recipients_webhook_only(backend: Backend) {
    let app = app(backend, "1").await;
    let t = app.trio("whg").await;
    let rx_first = Receiver::start();
    let rx_middle = Receiver::start();
    let first = create(
        &app,
        &t.tokens[0],
        json!({"url": rx_first.url, "events": ["game.your_turn", "game.move"]}),
    )
    .await;
    create(
        &app,
        &t.tokens[1],
        json!({"url": rx_middle.url, "events": ["game.finished"]}),
    )
    .await;
    let id = app.started_game(&t, json!({})).await;
    // First moves; First's webhook hears nothing of its own move but the
    // others'; Middle asked only for the end of games.
    app.play_all(&t, &id, &["2g10k+", "12l8d"]).await;
    let secret = first["secret"].as_str().unwrap();
    let types_of = |got: &[Received]| -> Vec<String> {
        got.iter()
            .map(|r| {
                let body = verified(secret, r);
                assert_eq!(body["data"]["game_id"], id.as_str());
                body["type"].as_str().unwrap().to_owned()
            })
            .collect()
    };
    let mut types = Vec::new();
    for _ in 0..200 {
        types = types_of(&rx_first.received());
        if types.iter().any(|t| t == "game.move") {
            break;
        }
        actix_web::rt::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(types.iter().any(|t| t == "game.move"), "{types:?}");
    assert!(
        types
            .iter()
            .all(|t| t == "game.your_turn" || t == "game.move"),
        "{types:?}"
    );
    actix_web::rt::time::sleep(Duration::from_millis(300)).await;
    assert!(rx_middle.received().is_empty(), "the game has not finished");
}

async fn retries_deliver_once_the_receiver_is_back(backend: Backend) {
    let app = app(backend, "0.001").await;
    let t = app.trio("whr").await;
    let rx = Receiver::start();
    rx.status.store(503, Ordering::SeqCst);
    let hook = move_hook(&app, &t.tokens[0], &rx).await;
    let id = hook["id"].as_str().unwrap();
    ping(&app, &t.tokens[0], id).await;
    rx.wait_for(2).await;
    rx.status.store(200, Ordering::SeqCst);
    let list = wait_deliveries(&app, &t.tokens[0], id, |l| l[0]["status"] == "delivered").await;
    let attempts = list[0]["attempts"].as_array().unwrap();
    assert!(attempts.len() >= 3, "{attempts:?}");
    assert_eq!(attempts[0]["status_code"], 503);
    assert!(attempts[0]["error"].is_string());
    assert_eq!(attempts.last().unwrap()["status_code"], 200);
    let got = rx.received();
    assert!(got
        .iter()
        .all(|r| r.headers["webhook-id"] == got[0].headers["webhook-id"]));
}

async fn gone_disables_the_webhook(backend: Backend) {
    let app = app(backend, "1").await;
    let t = app.trio("whx").await;
    let rx = Receiver::start();
    rx.status.store(410, Ordering::SeqCst);
    let hook = move_hook(&app, &t.tokens[0], &rx).await;
    let id = hook["id"].as_str().unwrap();
    ping(&app, &t.tokens[0], id).await;
    let list = wait_deliveries(&app, &t.tokens[0], id, |l| l[0]["status"] == "failed").await;
    assert_eq!(list[0]["attempts"].as_array().unwrap().len(), 1);
    let shown = get_json(&app, &t.tokens[0], &format!("/api/v1/webhooks/{id}")).await;
    assert_eq!(shown["active"], false);
    assert_eq!(shown["disabled_reason"], "gone");
}

async fn exhausted_retries_fail_and_disable(backend: Backend) {
    let app = app(backend, "0.00001").await;
    let t = app.trio("whf").await;
    let rx = Receiver::start();
    rx.status.store(500, Ordering::SeqCst);
    let hook = move_hook(&app, &t.tokens[0], &rx).await;
    let id = hook["id"].as_str().unwrap();
    ping(&app, &t.tokens[0], id).await;
    let list = wait_deliveries(&app, &t.tokens[0], id, |l| l[0]["status"] == "failed").await;
    assert_eq!(list[0]["attempts"].as_array().unwrap().len(), 10);
    let shown = get_json(&app, &t.tokens[0], &format!("/api/v1/webhooks/{id}")).await;
    assert_eq!(shown["active"], false);
    assert_eq!(shown["disabled_reason"], "failing");
}

/// Two server processes on one database: every ping reaches the receiver
/// exactly once (on SQLite the second process is a second worker too).
async fn two_workers_deliver_each_event_once(backend: Backend) {
    let app = app(backend, "1").await;
    let other = app
        .restart_with(|s| {
            s.webhook_allow_private = true;
            s.webhook_poll_interval = Duration::from_millis(50);
        })
        .await;
    let t = app.trio("wh2").await;
    let rx = Receiver::start();
    let hook = move_hook(&app, &t.tokens[0], &rx).await;
    let id = hook["id"].as_str().unwrap();
    const PINGS: usize = 20;
    for _ in 0..PINGS {
        let res = ping(&other, &t.tokens[0], id).await;
        assert_eq!(res.status(), StatusCode::ACCEPTED);
    }
    wait_deliveries(&app, &t.tokens[0], id, |l| {
        l.len() == PINGS && l.iter().all(|d| d["status"] == "delivered")
    })
    .await;
    let mut ids: Vec<String> = rx
        .received()
        .iter()
        .map(|r| r.headers["webhook-id"].to_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), PINGS);
    assert_eq!(rx.received().len(), PINGS, "no delivery was sent twice");
}

/// A process that claims a delivery and dies before sending it: the claim's
/// lease runs out and another process delivers it.
async fn a_claim_lost_in_a_crash_is_delivered_later(backend: Backend) {
    // This process's worker makes one pass at start-up, then sleeps.
    let app = spawn_app_with(backend, |s| {
        s.webhook_allow_private = true;
        s.webhook_poll_interval = Duration::from_secs(3600);
    })
    .await;
    let t = app.trio("whk").await;
    let rx = Receiver::start();
    let hook = move_hook(&app, &t.tokens[0], &rx).await;
    let id = hook["id"].as_str().unwrap();
    ping(&app, &t.tokens[0], id).await;

    // The crashed process: claims with a one-second lease and never sends.
    let url = sannin::config::DatabaseUrl::parse(&app.database_url()).unwrap();
    let claimed = actix_web::rt::task::spawn_blocking(move || {
        let pool = sannin::db::connect(&url, 1, Duration::from_secs(5)).unwrap();
        let mut conn = pool.get().unwrap();
        let now = chrono::Utc::now().naive_utc();
        sannin::db::webhooks::claim_due(&mut conn, now, now + chrono::Duration::seconds(1), 10)
            .unwrap()
            .len()
    })
    .await
    .unwrap();
    assert_eq!(claimed, 1);

    let _survivor = app
        .restart_with(|s| {
            s.webhook_allow_private = true;
            s.webhook_poll_interval = Duration::from_millis(50);
        })
        .await;
    actix_web::rt::time::sleep(Duration::from_millis(400)).await;
    assert!(rx.received().is_empty(), "the lease is still held");
    let got = rx.wait_for(1).await;
    verified(hook["secret"].as_str().unwrap(), &got[0]);
    wait_deliveries(&app, &t.tokens[0], id, |l| l[0]["status"] == "delivered").await;
    assert_eq!(rx.received().len(), 1);
}

/// A target that is private by the time of sending is refused then too.
async fn private_targets_are_refused_at_delivery(backend: Backend) {
    let app = spawn_app_with(backend, |s| {
        s.webhook_allow_private = true;
        s.webhook_poll_interval = Duration::from_secs(3600);
    })
    .await;
    let t = app.trio("whv").await;
    let rx = Receiver::start();
    let hook = move_hook(&app, &t.tokens[0], &rx).await;
    let id = hook["id"].as_str().unwrap();
    ping(&app, &t.tokens[0], id).await;
    let _strict = app
        .restart_with(|s| s.webhook_poll_interval = Duration::from_millis(50))
        .await;
    let list = wait_deliveries(&app, &t.tokens[0], id, |l| {
        !l[0]["attempts"].as_array().unwrap().is_empty()
    })
    .await;
    let attempt = &list[0]["attempts"][0];
    assert!(attempt["status_code"].is_null());
    assert!(attempt["error"]
        .as_str()
        .unwrap()
        .starts_with("URL refused"));
    assert!(rx.received().is_empty());
}

on_both_backends!(
    private_targets_are_refused_at_delivery,
    a_claim_lost_in_a_crash_is_delivered_later,
    two_workers_deliver_each_event_once,
    crud_and_validation,
    ping_is_signed_logged_and_redelivered,
    game_events_reach_the_recipients_webhook_only,
    retries_deliver_once_the_receiver_is_back,
    gone_disables_the_webhook,
    exhausted_retries_fail_and_disable,
);

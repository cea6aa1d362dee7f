//! Webhooks end to end: a receiver on loopback records what it is sent and its
//! signatures are checked with the `standardwebhooks` crate.

use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{
    assert_problem, error_fields, eventually, spawn_app_using, spawn_app_with, Backend, TestApp,
};
use crate::on_both_backends;

/// One request the receiver got.
#[derive(Clone, Debug)]
pub(crate) struct Received {
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

    pub(crate) fn received(&self) -> Vec<Received> {
        self.got.lock().unwrap().clone()
    }

    /// Waits until at least `n` requests arrived.
    pub(crate) async fn wait_for(&self, n: usize) -> Vec<Received> {
        eventually(&format!("{n} requests at the receiver"), || async {
            Some(self.received()).filter(|got| got.len() >= n)
        })
        .await
    }
}

/// Checks the signature with an independent implementation; the body's JSON.
pub(crate) fn verified(secret: &str, r: &Received) -> Value {
    standardwebhooks::Webhook::new(secret)
        .unwrap()
        .verify(&r.body, &r.headers)
        .expect("a valid Standard Webhooks signature");
    serde_json::from_slice(&r.body).unwrap()
}

pub(crate) async fn app(backend: Backend, scale: &str) -> TestApp {
    let scale: f64 = scale.parse().unwrap();
    spawn_app_with(backend, |s| {
        s.webhooks.allow_private = true;
        s.webhooks.retry_scale = scale;
        s.webhooks.poll_interval = Duration::from_millis(50);
    })
    .await
}

pub(crate) async fn create(app: &TestApp, bearer: &str, body: Value) -> Value {
    let res = app
        .authed(Method::POST, "/api/v1/webhooks", bearer, Some(&body))
        .await;
    assert_eq!(res.status(), StatusCode::CREATED);
    res.json().await.unwrap()
}

/// A webhook of `bearer`'s for `game.move` events, pointing at `rx`.
pub(crate) async fn move_hook(app: &TestApp, bearer: &str, rx: &Receiver) -> Value {
    create(app, bearer, json!({"url": rx.url, "events": ["game.move"]})).await
}

/// Asks for a `webhook.ping` to webhook `id`.
pub(crate) async fn ping(app: &TestApp, bearer: &str, id: &str) -> reqwest::Response {
    app.authed(
        Method::POST,
        &format!("/api/v1/webhooks/{id}/ping"),
        bearer,
        None,
    )
    .await
}

pub(crate) async fn get_json(app: &TestApp, bearer: &str, path: &str) -> Value {
    let res = app.authed(Method::GET, path, bearer, None).await;
    assert_eq!(res.status(), StatusCode::OK);
    res.json().await.unwrap()
}

pub(crate) async fn deliveries(app: &TestApp, bearer: &str, id: &str) -> Vec<Value> {
    let v = get_json(app, bearer, &format!("/api/v1/webhooks/{id}/deliveries")).await;
    v.as_array().unwrap().clone()
}

/// Waits until the webhook's deliveries satisfy `done`.
pub(crate) async fn wait_deliveries(
    app: &TestApp,
    bearer: &str,
    id: &str,
    done: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    eventually("the deliveries to settle", || async {
        Some(deliveries(app, bearer, id).await).filter(|list| done(list))
    })
    .await
}

async fn crud_and_validation(backend: Backend) {
    let strict = spawn_app_with(backend, |_| {}).await;
    let t = strict.trio("whc").await;
    let res = strict
        .authed(
            Method::POST,
            "/api/v1/webhooks",
            &t.tokens[0],
            Some(&json!({"url": "http://127.0.0.1:9999/x", "events": ["game.your_turn"]})),
        )
        .await;
    let problem = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    assert_eq!(error_fields(&problem), ["url"]);
    drop(strict);

    let app = app(backend, "1").await;
    let t = app.trio("whd").await;
    for body in [
        json!({"url": "ftp://127.0.0.1/x", "events": ["game.move"]}),
        json!({"url": "http://127.0.0.1:9999/x", "events": ["game.nonsense"]}),
        json!({"url": "http://127.0.0.1:9999/x", "events": []}),
    ] {
        let res = app
            .authed(Method::POST, "/api/v1/webhooks", &t.tokens[0], Some(&body))
            .await;
        assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    }
    let hook = create(
        &app,
        &t.tokens[0],
        json!({"url": "http://127.0.0.1:9999/x", "events": ["game.move"]}),
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
    let middle = create(
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
    let types = eventually("a game.move at the first receiver", || async {
        Some(types_of(&rx_first.received())).filter(|types| types.iter().any(|t| t == "game.move"))
    })
    .await;
    assert!(
        types
            .iter()
            .all(|t| t == "game.your_turn" || t == "game.move"),
        "{types:?}"
    );
    // Middle's own ping, asked for after the moves, goes out in a pass that
    // first fanned out every earlier event: once it is delivered, the
    // delivery log shows all Middle's webhook was ever sent.
    let middle_id = middle["id"].as_str().unwrap();
    ping(&app, &t.tokens[1], middle_id).await;
    let log = wait_deliveries(&app, &t.tokens[1], middle_id, |l| {
        !l.is_empty() && l.iter().all(|d| d["status"] == "delivered")
    })
    .await;
    assert_eq!(log.len(), 1, "the game has not finished: {log:?}");
    assert_eq!(log[0]["event_type"], "webhook.ping", "{log:?}");
    let got = rx_middle.received();
    assert_eq!(got.len(), 1);
    assert_eq!(
        verified(middle["secret"].as_str().unwrap(), &got[0])["type"],
        "webhook.ping"
    );
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
            s.webhooks.allow_private = true;
            s.webhooks.poll_interval = Duration::from_millis(50);
            s.limits.pings.max = 100;
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
        s.webhooks.allow_private = true;
        s.webhooks.poll_interval = Duration::from_secs(3600);
    })
    .await;
    let t = app.trio("whk").await;
    let rx = Receiver::start();
    let hook = move_hook(&app, &t.tokens[0], &rx).await;
    let id = hook["id"].as_str().unwrap();
    ping(&app, &t.tokens[0], id).await;

    // The crashed process: claims with a one-minute lease and never sends.
    let now = app.clock.now();
    let claimed = app
        .with_connection(move |conn| {
            sannin::db::webhooks::claim_due(conn, now, now + chrono::Duration::minutes(1), 10, &[])
                .unwrap()
                .len()
        })
        .await;
    assert_eq!(claimed, 1);

    let _survivor = app
        .restart_with(|s| {
            s.webhooks.allow_private = true;
            s.webhooks.poll_interval = Duration::from_millis(50);
        })
        .await;
    // A ping of another webhook arriving shows the survivor delivering while
    // the lease is held: the lost delivery stays unsent.
    let marker_rx = Receiver::start();
    let marker = move_hook(&app, &t.tokens[0], &marker_rx).await;
    ping(&app, &t.tokens[0], marker["id"].as_str().unwrap()).await;
    marker_rx.wait_for(1).await;
    assert!(rx.received().is_empty(), "the lease is still held");
    app.clock.advance(chrono::Duration::minutes(2));
    let got = rx.wait_for(1).await;
    verified(hook["secret"].as_str().unwrap(), &got[0]);
    wait_deliveries(&app, &t.tokens[0], id, |l| l[0]["status"] == "delivered").await;
    assert_eq!(rx.received().len(), 1);
}

/// A target that is private by the time of sending is refused then too.
async fn private_targets_are_refused_at_delivery(backend: Backend) {
    let app = spawn_app_with(backend, |s| {
        s.webhooks.allow_private = true;
        s.webhooks.poll_interval = Duration::from_secs(3600);
    })
    .await;
    let t = app.trio("whv").await;
    let rx = Receiver::start();
    let hook = move_hook(&app, &t.tokens[0], &rx).await;
    let id = hook["id"].as_str().unwrap();
    ping(&app, &t.tokens[0], id).await;
    let _strict = app
        .restart_with(|s| s.webhooks.poll_interval = Duration::from_millis(50))
        .await;
    let list = wait_deliveries(&app, &t.tokens[0], id, |l| {
        // Attempts are logged as they start: wait for one that finished.
        l[0]["attempts"]
            .as_array()
            .unwrap()
            .first()
            .is_some_and(|a| a["error"] != sannin::db::webhooks::UNFINISHED)
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

/// A resolver of the test's own: the n-th query of any name gets the n-th
/// answer, and every query after the last gets the last. Only loopback
/// addresses, so nothing leaves the machine.
struct Scripted {
    answers: Vec<std::net::IpAddr>,
    queries: std::sync::atomic::AtomicUsize,
}

impl Scripted {
    fn new(answers: &[&str]) -> Arc<Scripted> {
        Arc::new(Scripted {
            answers: answers.iter().map(|a| a.parse().unwrap()).collect(),
            queries: Default::default(),
        })
    }

    fn queries(&self) -> usize {
        self.queries.load(Ordering::SeqCst)
    }
}

impl reqwest::dns::Resolve for Scripted {
    fn resolve(&self, _: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let n = self.queries.fetch_add(1, Ordering::SeqCst);
        let ip = self.answers[n.min(self.answers.len() - 1)];
        Box::pin(async move {
            Ok(Box::new(std::iter::once(std::net::SocketAddr::new(ip, 0))) as reqwest::dns::Addrs)
        })
    }
}

/// A server whose webhook hosts resolve through `resolver`, with only the
/// stand-in "public" network 127.0.0.2/32 allowed besides global addresses.
async fn app_resolving_with(backend: Backend, resolver: Arc<Scripted>) -> TestApp {
    spawn_app_using(
        backend,
        |s| {
            s.webhooks.allow_networks = vec!["127.0.0.2/32".parse().unwrap()];
            s.webhooks.retry_scale = 0.001;
            s.webhooks.poll_interval = Duration::from_millis(50);
        },
        sannin::startup::Dependencies {
            webhook_resolver: Some(resolver),
            ..Default::default()
        },
    )
    .await
}

/// Issue 10, DNS rebinding: the host answers an allowed address to the check
/// when the webhook is saved and to the first delivery, then loopback, where
/// the receiver listens. Deliveries connect only to addresses the policy let
/// through, so the receiver never hears a thing: the first attempt finds
/// nothing listening at 127.0.0.2, the retries find every address refused.
async fn a_rebinding_host_never_reaches_loopback(backend: Backend) {
    let resolver = Scripted::new(&["127.0.0.2", "127.0.0.2", "127.0.0.1"]);
    let app = app_resolving_with(backend, resolver.clone()).await;
    let t = app.trio("whr").await;
    let rx = Receiver::start();
    let url = rx.url.replace("127.0.0.1", "rebind.test");
    let hook = create(
        &app,
        &t.tokens[0],
        json!({"url": url, "events": ["game.move"]}),
    )
    .await;
    let id = hook["id"].as_str().unwrap();
    assert_eq!(
        ping(&app, &t.tokens[0], id).await.status(),
        StatusCode::ACCEPTED
    );
    // Attempts are logged as they start: wait for three that finished.
    let list = wait_deliveries(&app, &t.tokens[0], id, |l| {
        l[0]["attempts"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|a| a["error"] != sannin::db::webhooks::UNFINISHED)
            .count()
            >= 3
    })
    .await;
    let attempts: Vec<&Value> = list[0]["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["error"] != sannin::db::webhooks::UNFINISHED)
        .collect();
    assert!(
        resolver.queries() >= 4,
        "each attempt resolved the host anew"
    );
    for attempt in &attempts {
        assert!(attempt["status_code"].is_null(), "{attempt}");
    }
    let refused = attempts
        .iter()
        .filter(|a| a["error"].as_str().unwrap().starts_with("URL refused"))
        .count();
    assert!(refused >= 2, "{attempts:?}");
    assert!(rx.received().is_empty(), "nothing reached loopback");
}

/// The delivery client connects through the configured resolver: a name only
/// it knows reaches the receiver when the policy allows the address.
async fn deliveries_connect_through_the_resolver(backend: Backend) {
    let resolver = Scripted::new(&["127.0.0.1"]);
    let app = spawn_app_using(
        backend,
        |s| {
            s.webhooks.allow_private = true;
            s.webhooks.poll_interval = Duration::from_millis(50);
        },
        sannin::startup::Dependencies {
            webhook_resolver: Some(resolver.clone()),
            ..Default::default()
        },
    )
    .await;
    let t = app.trio("whn").await;
    let rx = Receiver::start();
    let url = rx.url.replace("127.0.0.1", "receiver.test");
    let hook = create(
        &app,
        &t.tokens[0],
        json!({"url": url, "events": ["game.move"]}),
    )
    .await;
    ping(&app, &t.tokens[0], hook["id"].as_str().unwrap()).await;
    let got = rx.wait_for(1).await;
    verified(hook["secret"].as_str().unwrap(), &got[0]);
    assert!(resolver.queries() >= 2);
}

/// Issue 10, address filter gaps: special-purpose ranges and ports outside
/// the allowed ones are refused.
async fn special_addresses_and_ports_are_refused(backend: Backend) {
    let app = spawn_app_with(backend, |_| {}).await;
    let t = app.trio("whs").await;
    for (url, reason) in [
        ("http://[::127.0.0.1]:8080/", "private-address"),
        ("http://[64:ff9b::7f00:1]:8080/", "private-address"),
        ("http://[2002:7f00:1::1]:8080/", "private-address"),
        ("http://[fec0::1]:8080/", "private-address"),
        ("http://[100::1]:8080/", "private-address"),
        ("http://[2001:db8::1]:8080/", "private-address"),
        ("http://198.18.0.1:8080/", "private-address"),
        ("http://240.0.0.1:8080/", "private-address"),
        ("http://192.0.0.8:8080/", "private-address"),
        ("http://93.184.216.34:25/", "port"),
        ("http://93.184.216.34:22/", "port"),
    ] {
        let res = app
            .authed(
                Method::POST,
                "/api/v1/webhooks",
                &t.tokens[0],
                Some(&json!({"url": url, "events": ["game.move"]})),
            )
            .await;
        let problem =
            assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
        assert_eq!(problem["errors"][0]["code"], reason, "{url}: {problem}");
    }
}

/// The operator's own public ranges can be denied outright.
async fn denied_networks_are_refused(backend: Backend) {
    let app = spawn_app_with(backend, |s| {
        s.webhooks.deny_networks = vec!["93.184.216.0/24".parse().unwrap()];
    })
    .await;
    let t = app.trio("whd").await;
    let create = |url: &str| {
        let body = json!({"url": url, "events": ["game.move"]});
        let (app, token) = (&app, t.tokens[0].clone());
        async move {
            app.authed(Method::POST, "/api/v1/webhooks", &token, Some(&body))
                .await
        }
    };
    let res = create("http://93.184.216.34:8080/").await;
    let problem = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    assert_eq!(problem["errors"][0]["code"], "private-address", "{problem}");
    let res = create("http://93.184.217.34:8080/").await;
    assert_eq!(res.status(), StatusCode::CREATED);
}

on_both_backends!(
    denied_networks_are_refused,
    a_rebinding_host_never_reaches_loopback,
    deliveries_connect_through_the_resolver,
    special_addresses_and_ports_are_refused,
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

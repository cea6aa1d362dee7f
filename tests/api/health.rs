use reqwest::StatusCode;
use serde_json::Value;

use crate::helpers::{spawn_app, Backend};

async fn healthz_and_readyz_answer(backend: Backend) {
    let app = spawn_app(backend).await;
    for res in [app.healthz().await, app.readyz().await] {
        assert_eq!(res.status(), StatusCode::OK);
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["status"], "ok");
    }
}

async fn request_ids_are_generated_or_echoed(backend: Backend) {
    let app = spawn_app(backend).await;
    let first = app.healthz().await;
    let second = app.healthz().await;
    let id = |r: &reqwest::Response| r.headers()["x-request-id"].to_str().unwrap().to_owned();
    assert!(!id(&first).is_empty());
    assert_ne!(id(&first), id(&second));

    let echoed = app
        .client
        .get(app.url("/healthz"))
        .header("x-request-id", "trace-abc-123")
        .send()
        .await
        .unwrap();
    assert_eq!(id(&echoed), "trace-abc-123");
}

async fn the_signing_key_survives_a_restart(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = app.register_user("restarter").await;
    let tokens = app.tokens_for(&user).await;
    let restarted = app.restart().await;
    assert_eq!(
        restarted.get_me(&tokens.access).await.status(),
        StatusCode::OK
    );
}

/// Readiness follows the database: with it gone, 503 as a problem.
#[actix_web::test]
async fn readyz_reports_a_lost_postgres_database() {
    if !crate::helpers::available(Backend::Postgres, "readyz_reports_a_lost_postgres_database") {
        return;
    }
    let app = crate::helpers::spawn_app_with(Backend::Postgres, |s| {
        s.database.timeout = std::time::Duration::from_secs(1);
    })
    .await;
    assert_eq!(app.readyz().await.status(), StatusCode::OK);
    app.drop_database();
    crate::helpers::assert_problem(
        app.readyz().await,
        StatusCode::SERVICE_UNAVAILABLE,
        "service-unavailable",
    )
    .await;
    assert_eq!(app.healthz().await.status(), StatusCode::OK);
}

crate::on_both_backends!(
    healthz_and_readyz_answer,
    request_ids_are_generated_or_echoed,
    the_signing_key_survives_a_restart,
);

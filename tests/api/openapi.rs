use std::path::PathBuf;
use std::process::Command;

use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::helpers::{spawn_app, Backend};

fn committed_spec() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("openapi/openapi.json");
    std::fs::read_to_string(path).unwrap_or_default()
}

#[test]
fn committed_spec_matches_the_code() {
    assert!(
        committed_spec() == sannin::routes::openapi::spec_json(),
        "openapi/openapi.json is out of date; regenerate it with\n\n    cargo run -- openapi > openapi/openapi.json\n"
    );
}

/// Every `$ref` names a schema the document holds: a dangling one stops
/// generators and validators at once.
#[test]
fn every_reference_resolves() {
    fn walk(v: &Value, refs: &mut Vec<String>) {
        match v {
            Value::Object(map) => {
                if let Some(Value::String(r)) = map.get("$ref") {
                    refs.push(r.clone());
                }
                map.values().for_each(|v| walk(v, refs));
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, refs)),
            _ => {}
        }
    }
    let spec: Value = serde_json::from_str(sannin::routes::openapi::spec_json()).unwrap();
    let mut refs = Vec::new();
    walk(&spec, &mut refs);
    assert!(refs.len() > 50, "{refs:?}");
    let dangling: Vec<&String> = refs
        .iter()
        .filter(|r| {
            let pointer = r.strip_prefix('#').expect("local references only");
            spec.pointer(pointer).is_none()
        })
        .collect();
    assert!(dangling.is_empty(), "dangling references: {dangling:?}");
}

/// Generated clients name their functions after operation ids: each is
/// unique and says what it does (verb and object), never a bare method.
#[test]
fn operation_ids_are_unique_and_descriptive() {
    let spec: Value = serde_json::from_str(sannin::routes::openapi::spec_json()).unwrap();
    let mut seen = std::collections::HashSet::new();
    for (path, ops) in spec["paths"].as_object().unwrap() {
        for (method, op) in ops.as_object().unwrap() {
            let id = op["operationId"]
                .as_str()
                .unwrap_or_else(|| panic!("{method} {path}"));
            assert!(seen.insert(id.to_owned()), "{id} twice");
            let probe = ["healthz", "readyz"].contains(&id);
            assert!(
                probe || id.contains('_'),
                "{method} {path}: `{id}` says too little"
            );
        }
    }
}

/// Issue 13: the answers the edge gives any request are documented on every
/// operation (clients generated from the document must expect them), and
/// the board picture is bytes.
#[test]
fn every_operation_documents_the_edges_answers() {
    let spec: Value = serde_json::from_str(sannin::routes::openapi::spec_json()).unwrap();
    for (path, ops) in spec["paths"].as_object().unwrap() {
        for (method, op) in ops.as_object().unwrap() {
            let r = &op["responses"];
            let what = format!("{method} {path}");
            for status in ["429", "500"] {
                assert!(r.get(status).is_some(), "{what} lacks {status}");
            }
            // Liveness never touches the database; readiness's 503 means
            // "not ready", documented there.
            if !["/healthz", "/readyz"].contains(&path.as_str()) {
                assert!(
                    r["503"]["headers"].get("Retry-After").is_some(),
                    "{what}: 503"
                );
            }
            if op.get("requestBody").is_some() {
                assert!(r.get("408").is_some(), "{what} lacks 408");
            }
        }
    }
    let svg = &spec["paths"]["/api/v1/games/{id}/board.svg"]["get"]["responses"]["200"];
    assert_eq!(
        svg["content"]["image/svg+xml"]["schema"]["format"],
        "binary"
    );
}

/// Issue 13: the answers that create something link to the operations that
/// take its id, and every link names an operation and its path parameters.
#[test]
fn created_things_link_to_the_operations_that_take_them() {
    let spec: Value = serde_json::from_str(sannin::routes::openapi::spec_json()).unwrap();
    let mut operations = std::collections::HashMap::new();
    for ops in spec["paths"].as_object().unwrap().values() {
        for op in ops.as_object().unwrap().values() {
            operations.insert(op["operationId"].as_str().unwrap().to_owned(), op.clone());
        }
    }
    let mut linked = 0;
    for (id, op) in &operations {
        for response in op["responses"].as_object().unwrap().values() {
            let Some(links) = response.get("links").and_then(Value::as_object) else {
                continue;
            };
            for (name, link) in links {
                let target = &operations[link["operationId"].as_str().unwrap()];
                let mut path_params: Vec<&str> = target["parameters"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|p| p["in"] == "path")
                    .map(|p| p["name"].as_str().unwrap())
                    .collect();
                path_params.sort();
                let given: Vec<&str> = link["parameters"]
                    .as_object()
                    .unwrap()
                    .keys()
                    .map(String::as_str)
                    .collect();
                assert_eq!(given, path_params, "{id} -> {name}");
                linked += 1;
            }
        }
    }
    assert!(linked >= 20, "{linked} links");
    let text = sannin::routes::openapi::spec_json();
    assert!(!text.contains("\"operation_id\"") && !text.contains("\"request_body\""));
    let game = &operations["create_game"]["responses"]["201"]["links"]["get_game"];
    assert_eq!(game["parameters"]["id"], "$response.body#/id");
}

#[test]
fn the_cli_prints_the_spec() {
    let out = Command::new(env!("CARGO_BIN_EXE_sannin"))
        .arg("openapi")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        sannin::routes::openapi::spec_json()
    );
}

#[test]
fn invalid_configuration_stops_start_up_naming_the_variable() {
    let dir = tempfile::tempdir().unwrap();
    for (var, value) in [
        ("SANNIN_BIND", "nowhere"),
        ("DATABASE_URL", "host=localhost dbname=sannin"),
        ("SANNIN_AUTH_RATE_LIMIT_PER_MINUTE", "many"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_sannin"))
            .current_dir(dir.path())
            .env(var, value)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{var}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(var), "{stderr}");
    }
    // No SQLite file was created for the libpq-style string.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);

    let out = Command::new(env!("CARGO_BIN_EXE_sannin"))
        .current_dir(dir.path())
        .env("SANNIN_ENV", "production")
        .env_remove("SANNIN_JWT_SECRET")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("SANNIN_JWT_SECRET"));
}

async fn the_server_serves_the_spec_and_every_operation_is_routed(backend: Backend) {
    let app = spawn_app(backend).await;
    let res = app.openapi_json().await;
    assert_eq!(res.status(), StatusCode::OK);
    let served = res.text().await.unwrap();
    assert_eq!(served, sannin::routes::openapi::spec_json());

    let spec: Value = serde_json::from_str(&served).unwrap();
    let schemes = &spec["components"]["securitySchemes"];
    assert_eq!(schemes["bearer_jwt"]["scheme"], "bearer");
    assert_eq!(schemes["personal_access_token"]["scheme"], "bearer");

    let mut operations = 0;
    for (path, item) in spec["paths"].as_object().unwrap() {
        let concrete = path
            .replace("{username}", "someone")
            .replace("{id}", "some-id")
            .replace("{pid}", "some-proposal");
        for method in item.as_object().unwrap().keys() {
            let method: Method = method.to_uppercase().parse().unwrap();
            let res = app.request(method.clone(), &concrete).await;
            let status = res.status();
            let body: Value = res.json().await.unwrap_or(Value::Null);
            let unrouted = status == StatusCode::METHOD_NOT_ALLOWED
                || (status == StatusCode::NOT_FOUND && body["code"] == "route-not-found");
            assert!(!unrouted, "{method} {path} is documented but not routed");
            // A route without an access rule answers 500.
            assert_ne!(
                status,
                StatusCode::INTERNAL_SERVER_ERROR,
                "{method} {path}: {body}"
            );
            operations += 1;
        }
        // Every documented operation documents its error answers: problems,
        // or HTML pages for the links people open from mail.
        for (method, op) in item.as_object().unwrap() {
            let responses = op["responses"].as_object().unwrap();
            for (status, response) in responses {
                if status.starts_with('4') || status.starts_with('5') {
                    let content = &response["content"];
                    assert!(
                        content["application/problem+json"].is_object()
                            || content["text/html"].is_object(),
                        "{method} {path} {status} is not documented as a problem"
                    );
                }
            }
        }
    }
    assert_eq!(operations, 64);
}

async fn swagger_ui_is_served_offline(backend: Backend) {
    let app = spawn_app(backend).await;
    let res = app.request(Method::GET, "/docs").await;
    assert_eq!(res.status(), StatusCode::PERMANENT_REDIRECT);
    let res = app.request(Method::GET, "/docs/").await;
    assert_eq!(res.status(), StatusCode::OK);
    assert!(res.text().await.unwrap().contains("swagger-ui"));
    let res = app
        .request(Method::GET, "/docs/swagger-initializer.js")
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    assert!(res.text().await.unwrap().contains("/api/v1/openapi.json"));
}

crate::on_both_backends!(
    the_server_serves_the_spec_and_every_operation_is_routed,
    swagger_ui_is_served_offline,
);

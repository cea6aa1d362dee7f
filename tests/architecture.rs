//! The shape of the code (ARCHITECTURE.md), checked so it cannot drift: HTTP
//! only at the edge, a pure rules core, nothing below the routes reaching up
//! into them, files and handlers small enough to read.

use std::path::{Path, PathBuf};

fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

fn src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Each source file as (path relative to `src/`, text).
fn files() -> Vec<(String, String)> {
    let root = src();
    sources(&root)
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (rel, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

fn is_edge(rel: &str) -> bool {
    rel.starts_with("routes/")
        || matches!(rel, "startup.rs" | "telemetry.rs" | "error.rs" | "main.rs")
}

#[test]
fn http_types_live_only_at_the_edge() {
    let offenders: Vec<String> = files()
        .into_iter()
        .filter(|(rel, text)| !is_edge(rel) && text.contains("actix"))
        .map(|(rel, _)| rel)
        .collect();
    assert!(
        offenders.is_empty(),
        "actix below the edge in {offenders:?}"
    );
}

#[test]
fn nothing_below_the_routes_uses_them() {
    let offenders: Vec<String> = files()
        .into_iter()
        .filter(|(rel, text)| !is_edge(rel) && text.contains("crate::routes"))
        .map(|(rel, _)| rel)
        .collect();
    assert!(
        offenders.is_empty(),
        "crate::routes used from {offenders:?}"
    );
}

/// The crates named in `[dependencies]`, as Rust paths spell them.
fn dependencies() -> Vec<String> {
    let manifest =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
            .unwrap();
    let section = manifest
        .split("[dependencies]")
        .nth(1)
        .unwrap()
        .split("\n[")
        .next()
        .unwrap();
    section
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(name, _)| name.trim().replace('-', "_"))
        .filter(|name| !name.is_empty() && !name.starts_with('#'))
        .collect()
}

/// Checks that the files under `dir` use no crate but `pure` ones and
/// reach nothing in the crate outside `within`, naming the offence.
fn assert_pure(dir: &str, what: &str, pure: &[&str], within: &[&str]) {
    let crates = dependencies();
    assert!(crates.contains(&"diesel".to_owned()), "{crates:?}");
    let files: Vec<_> = files()
        .into_iter()
        .filter(|(rel, _)| rel.starts_with(dir))
        .collect();
    assert!(!files.is_empty(), "no files under src/{dir}");
    for (rel, text) in files {
        for line in text.lines().map(str::trim).filter(|l| !l.starts_with("//")) {
            for name in crates.iter().filter(|c| !pure.contains(&c.as_str())) {
                assert!(
                    !line.contains(&format!("{name}::")),
                    "src/{rel}: `{line}` uses the crate {name}; {what} is pure"
                );
            }
            assert!(
                !line.contains("crate::") || within.iter().any(|w| line.contains(w)),
                "src/{rel}: `{line}` reaches outside {what}"
            );
            assert!(
                !line.contains("std::time"),
                "src/{rel}: {what} has no clock"
            );
        }
    }
}

#[test]
fn the_rules_core_imports_nothing_outside_itself() {
    // Pure crates the core may use: a digest of positions for R31.
    assert_pure("rules/", "the rules core", &["sha2"], &["crate::rules"]);
}

/// The engine is pure as the rules are: it may use them, and a seeded
/// random source for its levels' noise, nothing else (a time limit is the
/// caller's `stop`).
#[test]
fn the_engine_uses_only_the_rules() {
    assert_pure(
        "engine/",
        "the engine",
        &["rand"],
        &["crate::rules", "crate::engine"],
    );
}

#[test]
fn handlers_leave_storage_to_the_use_cases() {
    for (rel, text) in files()
        .into_iter()
        .filter(|(rel, _)| rel.starts_with("routes/"))
    {
        assert!(
            !text.contains("db::run(") && !text.contains("load(conn"),
            "src/{rel} does storage work; call a use case instead"
        );
    }
}

#[test]
fn source_files_stay_readable() {
    for (rel, text) in files() {
        if rel.ends_with("tables.rs") || rel.ends_with("schema.rs") {
            continue;
        }
        let lines = text.lines().count();
        assert!(
            lines <= 650,
            "src/{rel} has {lines} lines; split it by capability"
        );
    }
}

#[test]
fn handlers_stay_thin() {
    for (rel, text) in files()
        .into_iter()
        .filter(|(rel, _)| rel.starts_with("routes/"))
    {
        let mut start: Option<(usize, &str)> = None;
        for (i, line) in text.lines().enumerate() {
            if line.starts_with("pub async fn ") || line.starts_with("async fn ") {
                start = Some((i, line));
            } else if line == "}" {
                if let Some((s, name)) = start.take() {
                    let len = i - s + 1;
                    assert!(len <= 40, "src/{rel}: `{name}` is {len} lines long");
                }
            }
        }
    }
}

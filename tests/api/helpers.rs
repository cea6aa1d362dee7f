//! `spawn_app()` starts the real server on port 0 against a fresh database;
//! `TestApp` has one method per endpoint.
//!
//! SQLite databases are files in a temporary directory. PostgreSQL databases
//! are created on the server named by `TEST_DATABASE_URL`, each from a
//! template database that is migrated once and then reused (its name carries
//! a digest of the migrations, so a changed migration gets a new template).

use std::collections::HashMap;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use diesel::connection::SimpleConnection;
use diesel::{Connection, PgConnection, RunQueryDsl};
use reqwest::{Method, Response, StatusCode};
use sannin::clock::Clock;
use sannin::config::Settings;
use sannin::startup::Dependencies;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// Whether tests on `backend` can run here. PostgreSQL needs
/// `TEST_DATABASE_URL`; without it the tests are skipped, unless `CI=true`,
/// where a missing database is a failure.
pub fn available(backend: Backend, test: &str) -> bool {
    match backend {
        Backend::Sqlite => true,
        Backend::Postgres => {
            if std::env::var("TEST_DATABASE_URL").is_ok_and(|v| !v.is_empty()) {
                return true;
            }
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("CI=true but TEST_DATABASE_URL is not set: PostgreSQL tests cannot run");
            }
            // Written to stderr directly, past the test harness's capture,
            // so the skip shows in a plain `cargo test` run (once).
            static ANNOUNCED: OnceLock<()> = OnceLock::new();
            ANNOUNCED.get_or_init(|| {
                let _ = writeln!(
                    std::io::stderr(),
                    "PostgreSQL tests skipped: TEST_DATABASE_URL is not set \
                     (e.g. TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test)"
                );
            });
            eprintln!("skipped on PostgreSQL: {test}");
            false
        }
    }
}

/// Defines each listed `async fn name(backend: Backend)` as two tests,
/// `sqlite::name` and `postgres::name`.
#[macro_export]
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[actix_web::test]
                async fn $name() {
                    super::$name($crate::helpers::Backend::Sqlite).await;
                }
            )*
        }
        mod postgres {
            $(
                #[actix_web::test]
                async fn $name() {
                    if $crate::helpers::available($crate::helpers::Backend::Postgres, stringify!($name)) {
                        super::$name($crate::helpers::Backend::Postgres).await;
                    }
                }
            )*
        }
    };
}

/// A database that lives as long as the test (and any restarted app on it).
enum TestDb {
    Sqlite {
        _dir: tempfile::TempDir,
        path: PathBuf,
    },
    Postgres {
        admin_url: String,
        name: String,
        url: String,
    },
}

impl TestDb {
    fn url(&self) -> String {
        match self {
            TestDb::Sqlite { path, .. } => format!("sqlite://{}", path.display()),
            TestDb::Postgres { url, .. } => url.clone(),
        }
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if let TestDb::Postgres {
            admin_url, name, ..
        } = self
        {
            // FORCE ends the stopped server's pooled connections.
            if let Ok(mut conn) = PgConnection::establish(admin_url) {
                let _ =
                    conn.batch_execute(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"));
            }
        }
    }
}

/// `url` with its database name replaced by `name`.
fn with_database(url: &str, name: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (url, None),
    };
    let authority_start = base.find("://").map_or(0, |i| i + 3);
    let path_start = base[authority_start..]
        .find('/')
        .map_or(base.len(), |i| authority_start + i);
    let mut out = format!("{}/{}", &base[..path_start], name);
    if let Some(query) = query {
        out.push('?');
        out.push_str(query);
    }
    out
}

fn migrations_digest() -> String {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("migrations/postgres");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("migrations/postgres exists")
        .flat_map(|entry| {
            let path = entry.expect("readable migration directory").path();
            std::fs::read_dir(path)
                .expect("migration is a directory")
                .map(|f| f.expect("readable migration file").path())
                .collect::<Vec<_>>()
        })
        .collect();
    files.sort();
    let mut hasher = Sha256::new();
    for file in files {
        hasher.update(
            file.strip_prefix(&dir)
                .unwrap()
                .to_string_lossy()
                .as_bytes(),
        );
        hasher.update(std::fs::read(&file).expect("readable migration file"));
    }
    hex::encode(&hasher.finalize()[..8])
}

#[derive(diesel::QueryableByName)]
struct Exists {
    #[diesel(sql_type = diesel::sql_types::Bool)]
    exists: bool,
}

/// The migrated template database, made once per migration set. An advisory
/// lock keeps concurrent test processes from building it twice.
fn postgres_template(admin_url: &str) -> &'static str {
    static TEMPLATE: OnceLock<String> = OnceLock::new();
    TEMPLATE.get_or_init(|| {
        let name = format!("sannin_tpl_{}", migrations_digest());
        let mut admin = PgConnection::establish(admin_url)
            .unwrap_or_else(|e| panic!("TEST_DATABASE_URL is set but unreachable: {e}"));
        admin
            .batch_execute("SELECT pg_advisory_lock(7311930)")
            .expect("advisory lock");
        let exists = diesel::sql_query(format!(
            "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = '{name}') AS exists"
        ))
        .get_result::<Exists>(&mut admin)
        .expect("query pg_database")
        .exists;
        if !exists {
            let building = format!("{name}_building");
            // One statement per call: DROP/CREATE DATABASE refuse to run in
            // the implicit transaction of a multi-statement batch.
            admin
                .batch_execute(&format!(
                    "DROP DATABASE IF EXISTS \"{building}\" WITH (FORCE)"
                ))
                .expect("drop a half-built template");
            admin
                .batch_execute(&format!("CREATE DATABASE \"{building}\""))
                .expect("create template database");
            {
                let mut conn = sannin::db::DbConnection::Postgres(
                    PgConnection::establish(&with_database(admin_url, &building))
                        .expect("connect to the new template"),
                );
                sannin::db::run_migrations(&mut conn).expect("migrate the template");
            }
            admin
                .batch_execute(&format!(
                    "ALTER DATABASE \"{building}\" RENAME TO \"{name}\""
                ))
                .expect("publish the template");
        }
        admin
            .batch_execute("SELECT pg_advisory_unlock(7311930)")
            .expect("advisory unlock");
        name
    })
}

fn fresh_database(backend: Backend) -> TestDb {
    match backend {
        Backend::Sqlite => {
            let dir = tempfile::tempdir().expect("temporary directory");
            let path = dir.path().join("sannin-test.db");
            TestDb::Sqlite { _dir: dir, path }
        }
        Backend::Postgres => {
            let admin_url = std::env::var("TEST_DATABASE_URL").expect("TEST_DATABASE_URL");
            let template = postgres_template(&admin_url);
            let name = format!("sannin_test_{}", uuid::Uuid::new_v4().simple());
            let mut admin =
                PgConnection::establish(&admin_url).expect("connect to TEST_DATABASE_URL");
            admin
                .batch_execute(&format!(
                    "CREATE DATABASE \"{name}\" TEMPLATE \"{template}\""
                ))
                .expect("create test database from template");
            let url = with_database(&admin_url, &name);
            TestDb::Postgres {
                admin_url,
                name,
                url,
            }
        }
    }
}

/// Settings for a test server: port 0, one worker, the given database.
pub fn test_settings(database_url: &str) -> Settings {
    let vars: HashMap<&str, String> = HashMap::from([
        ("SANNIN_BIND", "127.0.0.1:0".to_owned()),
        ("DATABASE_URL", database_url.to_owned()),
        ("SANNIN_WORKERS", "1".to_owned()),
        ("SANNIN_DATABASE_POOL_SIZE", "4".to_owned()),
        ("SANNIN_SHUTDOWN_TIMEOUT_SECONDS", "0".to_owned()),
    ]);
    Settings::from_lookup(|k| vars.get(k).cloned()).expect("valid test settings")
}

fn init_logging() {
    static INIT: OnceLock<()> = OnceLock::new();
    INIT.get_or_init(|| {
        if std::env::var("TEST_LOG").is_ok() {
            let mut settings = test_settings("sqlite://unused.db");
            settings.log_filter = std::env::var("TEST_LOG").unwrap_or_default();
            sannin::telemetry::init(&settings);
        }
    });
}

pub struct TestApp {
    pub address: String,
    pub client: reqwest::Client,
    pub backend: Backend,
    db: Arc<TestDb>,
    /// Where mail goes unless a test points it at an SMTP server.
    pub mail_dir: Arc<tempfile::TempDir>,
    /// The server's time; `advance` it instead of waiting.
    pub clock: Clock,
}

/// A server on a fresh database with default settings.
pub async fn spawn_app(backend: Backend) -> TestApp {
    spawn_app_with(backend, |_| {}).await
}

/// A server on a fresh database, with settings adjusted by `configure`.
pub async fn spawn_app_with(backend: Backend, configure: impl FnOnce(&mut Settings)) -> TestApp {
    spawn_app_using(backend, configure, Dependencies::default()).await
}

/// A server on a fresh database, with adjusted settings and some of its parts
/// replaced.
pub async fn spawn_app_using(
    backend: Backend,
    configure: impl FnOnce(&mut Settings),
    dependencies: Dependencies,
) -> TestApp {
    let db = Arc::new(fresh_database(backend));
    start(backend, db, configure, dependencies).await
}

/// Starts a server. Unless the test brings its own, the server gets an
/// adjustable clock, shared with every server restarted from it, so a test
/// moves time for all of them with `app.clock.advance(…)`.
async fn start(
    backend: Backend,
    db: Arc<TestDb>,
    configure: impl FnOnce(&mut Settings),
    mut dependencies: Dependencies,
) -> TestApp {
    let clock = dependencies
        .clock
        .get_or_insert_with(Clock::adjustable)
        .clone();
    init_logging();
    let mut settings = test_settings(&db.url());
    let mail_dir = Arc::new(tempfile::tempdir().expect("a temporary mail folder"));
    settings.mail.transport = sannin::config::MailTransport::Dir(mail_dir.path().to_owned());
    configure(&mut settings);
    let app = sannin::startup::Application::build_with(settings, dependencies)
        .await
        .expect("the application starts");
    let address = format!("http://127.0.0.1:{}", app.port());
    actix_web::rt::spawn(app.run_until_stopped());
    TestApp {
        address,
        client: reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap(),
        backend,
        db,
        mail_dir,
        clock,
    }
}

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

/// A registered account.
#[derive(Debug, Clone)]
pub struct TestUser {
    pub username: String,
    pub email: String,
    pub password: String,
}

/// A log-in's tokens.
#[derive(Debug, Clone)]
pub struct Tokens {
    pub access: String,
    pub refresh: String,
}

impl TestApp {
    /// A second server on this app's database, as after a restart.
    pub async fn restart(&self) -> TestApp {
        start(
            self.backend,
            self.db.clone(),
            |_| {},
            Dependencies::default(),
        )
        .await
    }

    /// Another server process on this app's database, with adjusted settings.
    pub async fn restart_with(&self, configure: impl FnOnce(&mut Settings)) -> TestApp {
        start(self.backend, self.db.clone(), configure, self.same_clock()).await
    }

    /// Parts for another server process of this test: the same clock.
    fn same_clock(&self) -> Dependencies {
        Dependencies {
            clock: Some(self.clock.clone()),
            ..Default::default()
        }
    }

    /// PostgreSQL only: drops the app's database under it, as when the
    /// database server loses it.
    pub fn drop_database(&self) {
        let TestDb::Postgres {
            admin_url, name, ..
        } = self.db.as_ref()
        else {
            panic!("only a PostgreSQL database can be dropped under a running app");
        };
        let mut conn = PgConnection::establish(admin_url).expect("connect to TEST_DATABASE_URL");
        conn.batch_execute(&format!("DROP DATABASE \"{name}\" WITH (FORCE)"))
            .expect("drop the test database");
    }

    /// Runs `sql` on the app's database directly, as an operator (or a bug)
    /// might: for tests of what the server does with rows it did not write.
    pub async fn execute_sql(&self, sql: &str) {
        let url = sannin::config::DatabaseUrl::parse(&self.database_url()).unwrap();
        let sql = sql.to_owned();
        tokio::task::spawn_blocking(move || {
            let pool = sannin::db::connect(&url, 1, std::time::Duration::from_secs(5)).unwrap();
            let mut conn = pool.get().unwrap();
            diesel::RunQueryDsl::execute(diesel::sql_query(sql), &mut *conn).unwrap();
        })
        .await
        .unwrap();
    }

    /// The `DATABASE_URL` of the app's database, to reach it directly.
    pub fn database_url(&self) -> String {
        self.db.url()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.address, path)
    }

    pub async fn request(&self, method: Method, path: &str) -> Response {
        self.client
            .request(method, self.url(path))
            .send()
            .await
            .expect("request sent")
    }

    async fn post_json(&self, path: &str, body: &Value) -> Response {
        self.client
            .post(self.url(path))
            .json(body)
            .send()
            .await
            .expect("request sent")
    }

    pub async fn healthz(&self) -> Response {
        self.request(Method::GET, "/healthz").await
    }

    pub async fn readyz(&self) -> Response {
        self.request(Method::GET, "/readyz").await
    }

    pub async fn openapi_json(&self) -> Response {
        self.request(Method::GET, "/api/v1/openapi.json").await
    }

    pub async fn register(&self, body: &Value) -> Response {
        self.post_json("/api/v1/accounts", body).await
    }

    pub async fn login(&self, username: &str, password: &str) -> Response {
        self.post_json(
            "/api/v1/auth/token",
            &json!({"username": username, "password": password}),
        )
        .await
    }

    pub async fn refresh(&self, refresh_token: &str) -> Response {
        self.post_json(
            "/api/v1/auth/refresh",
            &json!({"refresh_token": refresh_token}),
        )
        .await
    }

    pub async fn logout(&self, refresh_token: &str) -> Response {
        self.post_json(
            "/api/v1/auth/logout",
            &json!({"refresh_token": refresh_token}),
        )
        .await
    }

    pub async fn get_me(&self, bearer: &str) -> Response {
        self.client
            .get(self.url("/api/v1/me"))
            .bearer_auth(bearer)
            .send()
            .await
            .expect("request sent")
    }

    pub async fn patch_me(&self, bearer: &str, body: &Value) -> Response {
        self.client
            .patch(self.url("/api/v1/me"))
            .bearer_auth(bearer)
            .json(body)
            .send()
            .await
            .expect("request sent")
    }

    pub async fn create_token(&self, bearer: &str, body: &Value) -> Response {
        self.client
            .post(self.url("/api/v1/me/tokens"))
            .bearer_auth(bearer)
            .json(body)
            .send()
            .await
            .expect("request sent")
    }

    pub async fn list_tokens(&self, bearer: &str) -> Response {
        self.client
            .get(self.url("/api/v1/me/tokens"))
            .bearer_auth(bearer)
            .send()
            .await
            .expect("request sent")
    }

    pub async fn delete_token(&self, bearer: &str, id: &str) -> Response {
        self.client
            .delete(self.url(&format!("/api/v1/me/tokens/{id}")))
            .bearer_auth(bearer)
            .send()
            .await
            .expect("request sent")
    }

    pub async fn get_user(&self, username: &str) -> Response {
        self.request(Method::GET, &format!("/api/v1/users/{username}"))
            .await
    }

    /// Registers `username` (with a derived email and password), asserting 201.
    pub async fn register_user(&self, username: &str) -> TestUser {
        let user = TestUser {
            username: username.to_owned(),
            email: format!("{username}@example.com"),
            password: format!("{username}-long-password"),
        };
        let res = self
            .register(&json!({
                "username": user.username,
                "email": user.email,
                "password": user.password,
            }))
            .await;
        assert_eq!(res.status(), StatusCode::CREATED, "{:?}", res.text().await);
        user
    }

    /// Logs `user` in, asserting 200.
    pub async fn tokens_for(&self, user: &TestUser) -> Tokens {
        let res = self.login(&user.username, &user.password).await;
        assert_eq!(res.status(), StatusCode::OK);
        let body: Value = res.json().await.unwrap();
        Tokens {
            access: body["access_token"].as_str().unwrap().to_owned(),
            refresh: body["refresh_token"].as_str().unwrap().to_owned(),
        }
    }

    /// Creates a personal access token with `scopes`, returning its secret and id.
    pub async fn personal_token(&self, bearer: &str, scopes: &[&str]) -> (String, String) {
        let res = self
            .create_token(bearer, &json!({"name": "test", "scopes": scopes}))
            .await;
        assert_eq!(res.status(), StatusCode::CREATED);
        let body: Value = res.json().await.unwrap();
        (
            body["token"].as_str().unwrap().to_owned(),
            body["id"].as_str().unwrap().to_owned(),
        )
    }
}

/// Asserts `res` is a problem document with `status` and `code`, and returns it.
pub async fn assert_problem(res: Response, status: StatusCode, code: &str) -> Value {
    assert_eq!(res.status(), status);
    assert!(
        res.headers().contains_key("x-request-id"),
        "every response carries a request id"
    );
    let content_type = res
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert_eq!(content_type, "application/problem+json");
    let body: Value = res.json().await.expect("a JSON problem body");
    assert_eq!(body["code"], code, "{body}");
    assert_eq!(body["type"], format!("/problems/{code}"));
    assert_eq!(body["status"], status.as_u16());
    assert!(body["title"].as_str().is_some_and(|t| !t.is_empty()));
    assert!(body["detail"].as_str().is_some_and(|d| !d.is_empty()));
    body
}

/// The fields named in a validation problem.
pub fn error_fields(problem: &Value) -> Vec<String> {
    problem["errors"]
        .as_array()
        .expect("validation problems list their fields")
        .iter()
        .map(|e| e["field"].as_str().unwrap().to_owned())
        .collect()
}

/// Three signed-in players, for games.
pub struct Trio {
    pub names: [String; 3],
    pub tokens: [String; 3],
}

impl TestApp {
    pub async fn trio(&self, prefix: &str) -> Trio {
        let mut names = Vec::new();
        let mut tokens = Vec::new();
        for who in ["alice", "bob", "carol"] {
            let user = self.register_user(&format!("{prefix}{who}")).await;
            tokens.push(self.tokens_for(&user).await.access);
            names.push(user.username);
        }
        Trio {
            names: names.try_into().unwrap(),
            tokens: tokens.try_into().unwrap(),
        }
    }

    /// The trio logged in anew, as after the clock moved past their access
    /// tokens' lifetime.
    pub async fn log_in_again(&self, t: &Trio) -> Trio {
        let mut tokens = Vec::new();
        for name in &t.names {
            let res = self.login(name, &format!("{name}-long-password")).await;
            assert_eq!(res.status(), StatusCode::OK);
            let body: Value = res.json().await.unwrap();
            tokens.push(body["access_token"].as_str().unwrap().to_owned());
        }
        Trio {
            names: t.names.clone(),
            tokens: tokens.try_into().unwrap(),
        }
    }

    pub async fn authed(
        &self,
        method: Method,
        path: &str,
        bearer: &str,
        body: Option<&Value>,
    ) -> Response {
        let mut req = self
            .client
            .request(method, self.url(path))
            .bearer_auth(bearer);
        if let Some(b) = body {
            req = req.json(b);
        }
        req.send().await.expect("request sent")
    }

    pub async fn create_game(&self, bearer: &str, body: &Value) -> Response {
        self.authed(Method::POST, "/api/v1/games", bearer, Some(body))
            .await
    }

    pub async fn join_game(&self, bearer: &str, id: &str) -> Response {
        self.authed(
            Method::POST,
            &format!("/api/v1/games/{id}/join"),
            bearer,
            None,
        )
        .await
    }

    pub async fn get_game(&self, bearer: &str, id: &str) -> Response {
        self.authed(Method::GET, &format!("/api/v1/games/{id}"), bearer, None)
            .await
    }

    pub async fn game_json(&self, bearer: &str, id: &str) -> Value {
        let res = self.get_game(bearer, id).await;
        assert_eq!(res.status(), StatusCode::OK);
        res.json().await.unwrap()
    }

    pub async fn play_move(&self, bearer: &str, id: &str, mv: &str, ply: i64) -> Response {
        self.authed(
            Method::POST,
            &format!("/api/v1/games/{id}/moves"),
            bearer,
            Some(&json!({"move": mv, "ply": ply})),
        )
        .await
    }

    pub async fn events(&self, bearer: &str, game_id: &str) -> Vec<Value> {
        let res = self
            .authed(
                Method::GET,
                &format!("/api/v1/me/events?game_id={game_id}&limit=500"),
                bearer,
                None,
            )
            .await;
        assert_eq!(res.status(), StatusCode::OK);
        res.json().await.unwrap()
    }

    /// A started game: trio.names[0] first, [1] middle, [2] last, by invitation.
    pub async fn started_game(&self, trio: &Trio, extra: Value) -> String {
        let mut body = json!({"seat": "first", "invite": [trio.names[1], trio.names[2]]});
        if let (Some(b), Value::Object(extra)) = (body.as_object_mut(), extra) {
            b.extend(extra);
        }
        let res = self.create_game(&trio.tokens[0], &body).await;
        assert_eq!(res.status(), StatusCode::CREATED);
        let game: Value = res.json().await.unwrap();
        let id = game["id"].as_str().unwrap().to_owned();
        for t in &trio.tokens[1..] {
            assert_eq!(self.join_game(t, &id).await.status(), StatusCode::OK);
        }
        id
    }

    /// Plays moves in turn: each by whoever is to move, at the current ply.
    pub async fn play_all(&self, trio: &Trio, id: &str, moves: &[&str]) -> Value {
        let mut game = self.game_json(&trio.tokens[0], id).await;
        for mv in moves {
            let seat = game["to_move"].as_str().expect("someone to move");
            let who = ["first", "middle", "last"]
                .iter()
                .position(|s| *s == seat)
                .unwrap();
            let ply = game["ply"].as_i64().unwrap();
            let res = self.play_move(&trio.tokens[who], id, mv, ply).await;
            let status = res.status();
            let body: Value = res.json().await.unwrap();
            assert_eq!(status, StatusCode::CREATED, "{mv}: {body}");
            game = body;
        }
        game
    }
}

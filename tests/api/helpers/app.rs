//! Spawning the real server on port 0, restarting it, and reaching its
//! database directly.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use diesel::connection::SimpleConnection;
use diesel::{Connection, PgConnection};
use sannin::clock::Clock;
use sannin::config::Settings;
use sannin::startup::Dependencies;

use super::database::{fresh_database, Backend, TestDb};

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
            settings.log.filter = std::env::var("TEST_LOG").unwrap_or_default();
            sannin::telemetry::init(&settings);
        }
    });
}

pub struct TestApp {
    pub address: String,
    pub client: reqwest::Client,
    pub backend: Backend,
    pub(super) db: Arc<TestDb>,
    /// Where mail goes unless a test points it at an SMTP server.
    pub mail_dir: Arc<tempfile::TempDir>,
    /// The server's time; `advance` it instead of waiting.
    pub clock: Clock,
    server: sannin::startup::Stopper,
    running: Arc<std::sync::Mutex<Option<tokio::task::JoinHandle<std::io::Result<()>>>>>,
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
    let server = app.stopper();
    let running = actix_web::rt::spawn(app.run_until_stopped());
    TestApp {
        server,
        running: Arc::new(std::sync::Mutex::new(Some(running))),
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

impl TestApp {
    /// Stops this server as SIGTERM would, and waits until it has finished
    /// (its requests and background jobs drained or given back).
    pub async fn stop(&self) {
        self.server.stop(true).await;
        let running = self.running.lock().unwrap().take();
        if let Some(running) = running {
            running.await.unwrap().unwrap();
        }
    }

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

    /// PostgreSQL only: terminates every backend serving the app's database,
    /// as a database restart or an operator's `pg_terminate_backend` would;
    /// how many.
    pub fn terminate_backends(&self) -> i64 {
        let TestDb::Postgres {
            admin_url, name, ..
        } = self.db.as_ref()
        else {
            panic!("only PostgreSQL backends can be terminated");
        };
        #[derive(diesel::QueryableByName)]
        struct Count {
            #[diesel(sql_type = diesel::sql_types::BigInt)]
            n: i64,
        }
        let mut conn = PgConnection::establish(admin_url).expect("connect to TEST_DATABASE_URL");
        let counted: Count = diesel::RunQueryDsl::get_result(
            diesel::sql_query(format!(
                "SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity \
                 WHERE datname = '{name}' AND pid <> pg_backend_pid()"
            )),
            &mut conn,
        )
        .expect("terminate the backends");
        counted.n
    }

    /// Runs `sql` on the app's database directly, as an operator (or a bug)
    /// might: for tests of what the server does with rows it did not write.
    pub async fn execute_sql(&self, sql: &str) {
        self.try_execute_sql(sql).await.unwrap();
    }

    /// As `execute_sql`, giving the database's refusal back.
    pub async fn try_execute_sql(&self, sql: &str) -> Result<(), String> {
        let sql = sql.to_owned();
        self.with_connection(move |conn| {
            diesel::RunQueryDsl::execute(diesel::sql_query(sql), conn)
                .map(drop)
                .map_err(|e| e.to_string())
        })
        .await
    }

    /// Runs `f` on a connection of its own to the app's database, as another
    /// process (or an operator) would.
    pub async fn with_connection<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut sannin::db::DbConnection) -> T + Send + 'static,
    ) -> T {
        let url = sannin::config::DatabaseUrl::parse(&self.database_url()).unwrap();
        tokio::task::spawn_blocking(move || {
            let pool = sannin::db::connect(&url, 1, std::time::Duration::from_secs(5)).unwrap();
            let mut conn = pool.get().unwrap();
            f(&mut conn)
        })
        .await
        .unwrap()
    }

    /// Lifts the check that `table.column` holds only known words, so a test
    /// can store one that is not (as a bug, or an operator's hand, might).
    pub async fn allow_unknown_words(&self, table: &str, column: &str) {
        let name = format!("{table}_{column}_known");
        match self.backend {
            Backend::Postgres => {
                self.execute_sql(&format!("ALTER TABLE {table} DROP CONSTRAINT {name}"))
                    .await
            }
            Backend::Sqlite => {
                self.execute_sql(&format!("DROP TRIGGER {name}_update"))
                    .await
            }
        }
    }

    /// The `DATABASE_URL` of the app's database, to reach it directly.
    pub fn database_url(&self) -> String {
        self.db.url()
    }
}

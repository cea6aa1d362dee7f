//! Databases for tests: a temporary SQLite file, or a PostgreSQL database
//! cloned from a migrated template (`sannin_tpl_<digest of the migrations>`),
//! dropped with the test; and the macro that runs a test on both.

use std::io::Write as _;
use std::path::PathBuf;
use std::sync::OnceLock;

use diesel::connection::SimpleConnection;
use diesel::{Connection, PgConnection, RunQueryDsl};
use sha2::{Digest, Sha256};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    /// The folder of its migrations under `migrations/`.
    pub fn dir(self) -> &'static str {
        match self {
            Backend::Sqlite => "sqlite",
            Backend::Postgres => "postgres",
        }
    }
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
pub(super) enum TestDb {
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
    pub(super) fn url(&self) -> String {
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

/// A database with no tables at all, as a first deploy finds it; dropped
/// with the value.
pub struct EmptyDatabase(TestDb);

impl EmptyDatabase {
    pub fn new(backend: Backend) -> Self {
        EmptyDatabase(match backend {
            Backend::Sqlite => fresh_database(backend),
            Backend::Postgres => {
                let admin_url = std::env::var("TEST_DATABASE_URL").expect("TEST_DATABASE_URL");
                let name = format!("sannin_test_{}", uuid::Uuid::new_v4().simple());
                PgConnection::establish(&admin_url)
                    .expect("connect to TEST_DATABASE_URL")
                    .batch_execute(&format!("CREATE DATABASE \"{name}\""))
                    .expect("create an empty database");
                let url = with_database(&admin_url, &name);
                TestDb::Postgres {
                    admin_url,
                    name,
                    url,
                }
            }
        })
    }

    pub fn url(&self) -> String {
        self.0.url()
    }
}

pub(super) fn fresh_database(backend: Backend) -> TestDb {
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

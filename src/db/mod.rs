//! Storage: one connection type over PostgreSQL and SQLite, a pool, embedded
//! migrations, and the queries. Backend-specific SQL stays in this module.

pub mod bots;
pub mod chat;
pub mod clocks;
pub mod game_load;
pub mod games;
pub mod guards;
pub mod journal;
pub mod live;
pub mod mail;
pub mod models;
pub mod offers;
pub mod outbox;
pub mod premoves;
pub mod prepared;
pub mod ratings;
pub mod schema;
pub mod secrets;
pub mod session_cache;
pub mod sessions;
pub mod text;
pub mod tokens;
pub mod users;
pub mod webhooks;

use std::time::Duration;

use diesel::connection::SimpleConnection;
use diesel::r2d2::{self, R2D2Connection};
use diesel::{Connection, PgConnection, SqliteConnection};
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};

use crate::config::DatabaseUrl;

const POSTGRES_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations/postgres");
const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations/sqlite");

/// A transaction for work that writes. On SQLite it takes the database's
/// write lock first (a write that changes nothing), so that work which reads
/// before it writes waits its turn under the busy timeout, instead of failing
/// with "database is locked" when another writer commits in between; and
/// before that it queues, fairly, behind this process's other writers to the
/// same file, so that however large the pool only one of them at a time
/// contends for the file lock (with other processes' writers). On PostgreSQL
/// row locks and MVCC do that job, and it is a plain transaction.
pub fn write_transaction<T, E, F>(conn: &mut DbConnection, f: F) -> Result<T, E>
where
    F: FnOnce(&mut DbConnection) -> Result<T, E>,
    E: From<diesel::result::Error>,
{
    use diesel::RunQueryDsl as _;
    let outermost = !in_transaction(conn)?;
    if outermost {
        // Whatever an earlier transaction on this thread left (it panicked)
        // is not this one's.
        live::forget();
    }
    let _turn = match conn {
        DbConnection::Sqlite(c) => sqlite_writer_turn(c)?,
        DbConnection::Postgres(_) => None,
    };
    let result = conn.transaction(|conn| {
        if let DbConnection::Sqlite(c) = conn {
            diesel::sql_query("UPDATE server_secrets SET name = name WHERE 0").execute(c)?;
        }
        f(conn)
    });
    if outermost {
        live::after_transaction(conn, result.is_ok());
    }
    result
}

/// Runs `f` outside any transaction: work whose one write is a single
/// statement, which commits by itself (see `db::journal`). As after a
/// [`write_transaction`], streams hear of what it announced if it returns
/// `Ok` (a spurious wake-up costs a stream a read, never an event).
pub fn outside_transaction<T, E, F>(conn: &mut DbConnection, f: F) -> Result<T, E>
where
    F: FnOnce(&mut DbConnection) -> Result<T, E>,
    E: From<diesel::result::Error>,
{
    if in_transaction(conn)? {
        return Err(diesel::result::Error::AlreadyInTransaction.into());
    }
    live::forget();
    let result = f(conn);
    live::after_transaction(conn, result.is_ok());
    result
}

/// Whether `conn` is inside a transaction.
/// Reads that must agree with each other (a game's row and its actions):
/// one snapshot for them all, so a write committed between two of the reads
/// is not half seen. On PostgreSQL a read-only repeatable-read transaction;
/// on SQLite a deferred transaction, whose first read fixes the snapshot.
/// Inside a transaction already, `f` runs in it.
pub fn consistent_read<T, E, F>(conn: &mut DbConnection, f: F) -> Result<T, E>
where
    F: FnOnce(&mut DbConnection) -> Result<T, E>,
    E: From<diesel::result::Error>,
{
    use diesel::RunQueryDsl as _;
    if in_transaction(conn)? {
        return f(conn);
    }
    conn.transaction(|conn| {
        if let DbConnection::Postgres(_) = conn {
            diesel::sql_query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                .execute(conn)?;
        }
        f(conn)
    })
}

fn in_transaction(conn: &mut DbConnection) -> diesel::QueryResult<bool> {
    use diesel::connection::{AnsiTransactionManager, TransactionManager as _};
    let depth = match conn {
        DbConnection::Postgres(c) => {
            AnsiTransactionManager::transaction_manager_status_mut(c).transaction_depth()?
        }
        DbConnection::Sqlite(c) => {
            AnsiTransactionManager::transaction_manager_status_mut(c).transaction_depth()?
        }
    };
    Ok(depth.is_some())
}

/// One fair queue of writers per SQLite file in this process.
static SQLITE_WRITERS: std::sync::LazyLock<
    parking_lot::Mutex<
        std::collections::HashMap<String, std::sync::Arc<parking_lot::FairMutex<()>>>,
    >,
> = std::sync::LazyLock::new(Default::default);

/// Waits for this connection's turn to write to its SQLite file; `None` when
/// it is inside a transaction already (the outer one holds the turn).
fn sqlite_writer_turn(
    c: &mut SqliteConnection,
) -> diesel::QueryResult<Option<parking_lot::lock_api::ArcMutexGuard<parking_lot::RawFairMutex, ()>>>
{
    use diesel::connection::{AnsiTransactionManager, TransactionManager as _};
    use diesel::RunQueryDsl as _;
    if AnsiTransactionManager::transaction_manager_status_mut(c)
        .transaction_depth()?
        .is_some()
    {
        return Ok(None);
    }
    #[derive(diesel::QueryableByName)]
    struct File {
        #[diesel(sql_type = diesel::sql_types::Text)]
        file: String,
    }
    let file = diesel::sql_query("SELECT file FROM pragma_database_list WHERE name = 'main'")
        .get_result::<File>(c)?
        .file;
    let queue = SQLITE_WRITERS.lock().entry(file).or_default().clone();
    Ok(Some(queue.lock_arc()))
}

/// A connection to whichever backend `DATABASE_URL` names.
#[derive(diesel::MultiConnection)]
pub enum DbConnection {
    Postgres(PgConnection),
    Sqlite(SqliteConnection),
}

/// Opens connections for the pool. Unlike the derived
/// `MultiConnection::establish`, which tries each backend in turn, the backend
/// comes from the URL scheme and a failure is reported as it is.
#[derive(Debug, Clone)]
pub struct ConnectionManager {
    url: DatabaseUrl,
    limits: QueryLimits,
}

impl ConnectionManager {
    pub fn new(url: DatabaseUrl) -> Self {
        Self {
            url,
            limits: QueryLimits::default(),
        }
    }
}

/// Bounds on every statement of a PostgreSQL connection, so that nothing
/// hangs behind a lock or a runaway query: when one fires the statement fails
/// and the request answers 503. Zero means no bound. (SQLite's writers wait
/// at most its busy timeout.)
#[derive(Debug, Clone, Copy, Default)]
pub struct QueryLimits {
    pub statement_timeout: Duration,
    pub lock_timeout: Duration,
}

/// Why a connection could not be opened or checked.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("could not connect to the database")]
    Connection(#[from] diesel::ConnectionError),
    #[error("database query failed")]
    Query(#[from] diesel::result::Error),
}

/// SQLite runs with write-ahead logging (readers never block the writer),
/// enforced foreign keys, and a busy timeout so concurrent writers wait instead
/// of failing at once.
/// The busy timeout comes first: switching a new file to WAL takes a lock
/// that another process opening it at the same moment must wait for.
const SQLITE_PRAGMAS: &str = "PRAGMA busy_timeout = 5000; \
     PRAGMA journal_mode = WAL; \
     PRAGMA synchronous = NORMAL; \
     PRAGMA foreign_keys = ON;";

/// Applies [`SQLITE_PRAGMAS`] to a new connection. Switching a file to WAL
/// needs it to itself for a moment, and SQLite answers "database is locked"
/// at once, without its busy handler, when another process holds it (say,
/// several processes opening a new database together). That is retried
/// for as long as the busy timeout would have waited.
fn sqlite_pragmas(conn: &mut SqliteConnection) -> diesel::QueryResult<()> {
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        match conn.batch_execute(SQLITE_PRAGMAS) {
            Err(diesel::result::Error::DatabaseError(_, info))
                if info.message().contains("database is locked")
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(10));
            }
            other => return other,
        }
    }
}

impl r2d2::ManageConnection for ConnectionManager {
    type Connection = DbConnection;
    type Error = ConnectError;

    fn connect(&self) -> Result<DbConnection, ConnectError> {
        let mut conn = self.open()?;
        let database = match &self.url {
            DatabaseUrl::Postgres(url) => Some(std::sync::Arc::from(url.as_str())),
            DatabaseUrl::Sqlite(_) => None,
        };
        conn.set_instrumentation(Usage::new(database));
        Ok(conn)
    }

    /// Checks a connection before it is handed out again. A PostgreSQL
    /// connection back within [`FRESH`] is checked without a round trip:
    /// what the server sent meanwhile is read without waiting, and a
    /// server that ended the connection has sent its reason and closed it
    /// (the second read finds the end). Any other gets a round trip. One
    /// that a statement failed on was checked as it came back
    /// ([`Self::has_broken`]).
    fn is_valid(&self, conn: &mut DbConnection) -> Result<(), ConnectError> {
        let fresh = Usage::of(conn).is_some_and(|u| u.returned.elapsed() < FRESH);
        match conn {
            DbConnection::Postgres(c) if fresh => {
                // Pooled connections do not listen: nothing else arrives.
                for _ in 0..2 {
                    if let Some(Err(e)) = c.notifications_iter().next() {
                        return Err(e.into());
                    }
                }
                Ok(())
            }
            _ => Ok(conn.ping()?),
        }
    }

    /// A connection coming back is kept unless its transaction state is
    /// broken or, after a statement failed on it, it no longer answers.
    fn has_broken(&self, conn: &mut DbConnection) -> bool {
        let failed = Usage::of(conn).is_some_and(|u| {
            u.returned = std::time::Instant::now();
            std::mem::take(&mut u.failed)
        });
        conn.is_broken() || (failed && conn.ping().is_err())
    }
}

/// The URL of the PostgreSQL database `conn` is a pooled connection to (none
/// on SQLite, or for a connection outside the pool).
pub fn database_url(conn: &mut DbConnection) -> Option<std::sync::Arc<str>> {
    Usage::database_of(conn)
}

/// How long a connection back in the pool is taken to still be open.
const FRESH: Duration = Duration::from_secs(1);

/// What the pool knows of a connection's use, kept as its instrumentation
/// (which sees every statement).
struct Usage {
    /// A statement failed since it was last handed out.
    failed: bool,
    /// When it last came back to the pool.
    returned: std::time::Instant,
    /// The PostgreSQL database's URL (whose other processes a change on
    /// this connection wakes).
    database: Option<std::sync::Arc<str>>,
}

impl Usage {
    fn new(database: Option<std::sync::Arc<str>>) -> Self {
        Self {
            failed: false,
            // Just opened: as good as just checked.
            returned: std::time::Instant::now(),
            database,
        }
    }

    fn of(conn: &mut DbConnection) -> Option<&mut Usage> {
        conn.instrumentation().downcast_mut::<Usage>()
    }

    /// The URL of the PostgreSQL database `conn` is a pooled connection to.
    fn database_of(conn: &mut DbConnection) -> Option<std::sync::Arc<str>> {
        Self::of(conn).and_then(|u| u.database.clone())
    }
}

impl diesel::connection::Instrumentation for Usage {
    fn on_connection_event(&mut self, event: diesel::connection::InstrumentationEvent<'_>) {
        if let diesel::connection::InstrumentationEvent::FinishQuery { error: Some(_), .. } = event
        {
            self.failed = true;
        }
    }
}

impl ConnectionManager {
    fn open(&self) -> Result<DbConnection, ConnectError> {
        match &self.url {
            DatabaseUrl::Postgres(url) => {
                let mut conn = PgConnection::establish(url)?;
                conn.batch_execute(&format!(
                    "SET statement_timeout = {}; SET lock_timeout = {};",
                    self.limits.statement_timeout.as_millis(),
                    self.limits.lock_timeout.as_millis()
                ))?;
                Ok(DbConnection::Postgres(conn))
            }
            DatabaseUrl::Sqlite(path) => {
                let mut conn = SqliteConnection::establish(&path.to_string_lossy())?;
                sqlite_pragmas(&mut conn)?;
                Ok(DbConnection::Sqlite(conn))
            }
        }
    }
}

pub type Pool = r2d2::Pool<ConnectionManager>;
pub type PooledConnection = r2d2::PooledConnection<ConnectionManager>;

/// The database is out of reach: no pooled connection in time, or the
/// blocking task was cancelled.
#[derive(Debug, thiserror::Error)]
#[error("database unavailable")]
pub struct DbUnavailable(#[source] pub anyhow::Error);

/// Builds the pool and checks that one connection can be made, so a wrong
/// `DATABASE_URL` fails start-up with the driver's message.
/// `timeout` bounds how long a request waits for a connection before the
/// database counts as unavailable.
pub fn connect(url: &DatabaseUrl, max_size: u32, timeout: Duration) -> anyhow::Result<Pool> {
    connect_with(url, max_size, timeout, QueryLimits::default())
}

/// As [`connect`], with every statement bounded by `limits`.
pub fn connect_with(
    url: &DatabaseUrl,
    max_size: u32,
    timeout: Duration,
    limits: QueryLimits,
) -> anyhow::Result<Pool> {
    use anyhow::Context as _;
    let manager = ConnectionManager {
        url: url.clone(),
        limits,
    };
    // Fail loudly on the first connection rather than after the pool's timeout.
    r2d2::ManageConnection::connect(&manager)
        .with_context(|| format!("could not open the database {url}"))?;
    r2d2::Pool::builder()
        .max_size(max_size)
        .connection_timeout(timeout)
        .build(manager)
        .with_context(|| format!("could not build the connection pool for {url}"))
}

/// Applies pending migrations for the connection's backend; returns how many ran.
///
/// Processes starting together (a rolling deploy onto a new schema) take
/// turns: on PostgreSQL behind a session advisory lock, on SQLite inside one
/// exclusive transaction. The first applies what is pending; the others then
/// find nothing left to do.
pub fn run_migrations(conn: &mut DbConnection) -> anyhow::Result<usize> {
    let applied = match conn {
        DbConnection::Postgres(c) => {
            diesel::RunQueryDsl::execute(
                diesel::sql_query(format!("SELECT pg_advisory_lock({MIGRATION_LOCK})")),
                c,
            )
            .map_err(|e| anyhow::anyhow!("waiting for the migration lock failed: {e}"))?;
            let applied = c
                .run_pending_migrations(POSTGRES_MIGRATIONS)
                .map(|v| v.len())
                .map_err(|e| anyhow::anyhow!("applying migrations failed: {e}"));
            let unlocked = diesel::RunQueryDsl::execute(
                diesel::sql_query(format!("SELECT pg_advisory_unlock({MIGRATION_LOCK})")),
                c,
            );
            let applied = applied?;
            unlocked.map_err(|e| anyhow::anyhow!("releasing the migration lock failed: {e}"))?;
            applied
        }
        DbConnection::Sqlite(c) => c
            .exclusive_transaction(|c| {
                c.run_pending_migrations(SQLITE_MIGRATIONS)
                    .map(|v| v.len())
                    .map_err(diesel::result::Error::QueryBuilderError)
            })
            .map_err(|e| anyhow::anyhow!("applying migrations failed: {e}"))?,
    };
    Ok(applied)
}

/// The PostgreSQL advisory lock key that serialises migrations ("sannin"
/// in ASCII, as a number).
const MIGRATION_LOCK: i64 = 0x73_61_6e_6e_69_6e;

/// Refreshes the query planner's statistics. SQLite keeps none until asked
/// (and then plans, say, the game list by scanning every active game rather
/// than a player's seats); `analysis_limit` keeps it quick on large tables.
/// PostgreSQL's autovacuum keeps its own.
pub fn refresh_statistics(conn: &mut DbConnection) -> diesel::QueryResult<()> {
    match conn {
        DbConnection::Sqlite(c) => c.batch_execute("PRAGMA analysis_limit = 1000; ANALYZE;"),
        DbConnection::Postgres(_) => Ok(()),
    }
}

/// A cheap round trip to check the database answers.
pub fn ping(conn: &mut DbConnection) -> diesel::QueryResult<()> {
    conn.ping()
}

/// Whether the database answers now, through the pool, within `within`.
pub async fn check(pool: &Pool, within: Duration) -> Result<(), DbUnavailable> {
    let answered = tokio::time::timeout(
        within,
        run(pool, |conn| {
            ping(conn).map_err(|e| DbUnavailable(anyhow::Error::new(e)))
        }),
    )
    .await;
    match answered {
        Ok(result) => result,
        Err(_) => Err(DbUnavailable(anyhow::anyhow!(
            "the database did not answer within {within:?}"
        ))),
    }
}

/// Runs `f` with a pooled connection on the blocking thread pool, so database
/// work never stalls the async executor. The caller's tracing span (and so its
/// request id) follows the work onto that thread.
pub async fn run<T, E, F>(pool: &Pool, f: F) -> Result<T, E>
where
    F: FnOnce(&mut DbConnection) -> Result<T, E> + Send + 'static,
    T: Send + 'static,
    E: From<DbUnavailable> + Send + 'static,
{
    let pool = pool.clone();
    let span = tracing::Span::current();
    tokio::task::spawn_blocking(move || {
        let _entered = span.enter();
        let mut conn = pool
            .get()
            .map_err(|e| DbUnavailable(anyhow::Error::new(e)))?;
        f(&mut conn)
    })
    .await
    .map_err(|e| DbUnavailable(anyhow::anyhow!("database task failed: {e}")))?
}

impl DbUnavailable {
    /// The error of a query, as unavailability if it is one (see
    /// [`is_unavailability`]), else as it is.
    pub fn classify(e: diesel::result::Error) -> Result<DbUnavailable, diesel::result::Error> {
        if is_unavailability(&e) {
            Ok(DbUnavailable(
                anyhow::Error::new(e).context("database query failed"),
            ))
        } else {
            Err(e)
        }
    }
}

/// True when a query failed because the database is unavailable for now,
/// not because of the query: the connection broke or was closed, the
/// transaction lost a serialization or deadlock conflict, a statement or lock
/// timeout fired, or SQLite's file stayed locked past the busy timeout. Such
/// a request may be retried; a repeated move for the same ply is idempotent.
pub fn is_unavailability(err: &diesel::result::Error) -> bool {
    use diesel::result::{DatabaseErrorKind as Kind, Error};
    match err {
        Error::DatabaseError(Kind::ClosedConnection, _)
        | Error::DatabaseError(Kind::SerializationFailure, _)
        | Error::DatabaseError(Kind::UnableToSendCommand, _)
        | Error::BrokenTransactionManager => true,
        Error::DatabaseError(_, info) => {
            let message = info.message().to_ascii_lowercase();
            [
                // SQLite: SQLITE_BUSY / SQLITE_LOCKED past the busy timeout.
                "database is locked",
                "database table is locked",
                // PostgreSQL: a backend terminated, a server going away.
                "terminating connection",
                "server closed the connection",
                "connection to server",
                "the database system is shutting down",
                "the database system is starting up",
                "no connection to the server",
                "could not receive data from server",
                "ssl connection has been closed",
                // statement_timeout, lock_timeout, deadlocks.
                "canceling statement due to statement timeout",
                "canceling statement due to lock timeout",
                "deadlock detected",
            ]
            .iter()
            .any(|m| message.contains(m))
        }
        _ => false,
    }
}

/// True when a diesel error is a unique-constraint violation.
pub fn is_unique_violation(err: &diesel::result::Error) -> bool {
    matches!(
        err,
        diesel::result::Error::DatabaseError(diesel::result::DatabaseErrorKind::UniqueViolation, _)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use diesel::sql_types::BigInt;
    use diesel::RunQueryDsl;

    #[derive(diesel::QueryableByName)]
    struct Value {
        #[diesel(sql_type = BigInt)]
        value: i64,
    }

    #[test]
    fn sqlite_connections_get_their_pragmas() {
        let dir = tempfile::tempdir().unwrap();
        let url = DatabaseUrl::Sqlite(dir.path().join("p.db"));
        let manager = ConnectionManager::new(url);
        let DbConnection::Sqlite(mut conn) = r2d2::ManageConnection::connect(&manager).unwrap()
        else {
            panic!("a SQLite path gives a SQLite connection");
        };
        let pragma = |conn: &mut SqliteConnection, sql: &str| {
            diesel::sql_query(sql)
                .get_result::<Value>(conn)
                .unwrap()
                .value
        };
        assert_eq!(
            pragma(
                &mut conn,
                "SELECT foreign_keys AS value FROM pragma_foreign_keys"
            ),
            1
        );
        assert_eq!(
            pragma(
                &mut conn,
                "SELECT timeout AS value FROM pragma_busy_timeout"
            ),
            5000
        );
        let mode: Vec<String> = diesel::sql_query("PRAGMA journal_mode")
            .load::<JournalMode>(&mut conn)
            .unwrap()
            .into_iter()
            .map(|m| m.journal_mode)
            .collect();
        assert_eq!(mode, ["wal"]);
    }

    #[derive(diesel::QueryableByName)]
    struct JournalMode {
        #[diesel(sql_type = diesel::sql_types::Text)]
        journal_mode: String,
    }

    #[test]
    fn an_unreachable_postgres_fails_loudly() {
        let url = DatabaseUrl::Postgres("postgres://nobody@127.0.0.1:1/none".into());
        let err = connect(&url, 1, Duration::from_secs(1)).unwrap_err();
        assert!(format!("{err:#}").contains("could not open the database"));
    }
}

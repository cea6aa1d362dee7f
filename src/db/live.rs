//! Wake-ups for live streams, and the order streams read events in.
//!
//! A change that a stream may show announces its topic while its transaction
//! runs ([`announce`]). When the transaction has committed, this process's
//! streams of that topic wake at once, and on PostgreSQL a `NOTIFY` wakes the
//! streams of every other process (each process listens with [`Listener`]). A wake-up carries no data: a woken stream reads
//! the rows, so a lost wake-up costs a short delay (the streams also read on
//! a timer) and a spurious one a query, never an event.
//!
//! Each recipient's events carry a `stream_order` that follows the order of
//! commits. SQLite has one writer at a time, and a trigger numbers the rows.
//! On PostgreSQL a sequence numbers them, and a transaction first takes one
//! lock per recipient (an advisory lock held to the end of the transaction,
//! taken in one fixed order, for every player of the game at once), so two
//! transactions writing events for the same person draw their numbers one
//! after the other. A reader that has seen event `n` has therefore seen every
//! event of that person numbered below `n`.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::sync::LazyLock;

use diesel::prelude::*;
use diesel::sql_types::Text;
use diesel::PgConnection;
use tokio::sync::broadcast;

use super::games::EventRow;
use super::schema::game_events;
use super::DbConnection;

/// What a stream follows.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Topic {
    /// A person's events.
    User(String),
    /// A game's state.
    Game(String),
    /// A person's sessions: one was revoked (no stream follows this; each
    /// process forgets what it cached, see `db::session_cache`).
    Sessions(String),
    /// Everything (after wake-ups may have been lost).
    All,
}

impl Topic {
    fn encode(&self) -> String {
        match self {
            Topic::User(id) => format!("u:{id}"),
            Topic::Game(id) => format!("g:{id}"),
            Topic::Sessions(id) => format!("s:{id}"),
            Topic::All => "*".into(),
        }
    }

    fn decode(s: &str) -> Option<Topic> {
        match s.split_once(':') {
            Some(("u", id)) => Some(Topic::User(id.to_owned())),
            Some(("g", id)) => Some(Topic::Game(id.to_owned())),
            Some(("s", id)) => Some(Topic::Sessions(id.to_owned())),
            _ if s == "*" => Some(Topic::All),
            _ => None,
        }
    }

    /// Whether a wake-up of `self` concerns a stream of `other`.
    pub fn wakes(&self, other: &Topic) -> bool {
        *self == Topic::All || self == other
    }
}

/// The PostgreSQL channel every process listens on.
const CHANNEL: &str = "sannin_live";
/// Payloads stay well below PostgreSQL's limit of 8000 bytes.
const MAX_PAYLOAD: usize = 7_000;

/// Tells this process's notifications from others' (they are also delivered
/// to the process that sent them).
static PROCESS: LazyLock<String> = LazyLock::new(|| format!("{:016x}", rand::random::<u64>()));

/// This process's wake-ups.
static HUB: LazyLock<broadcast::Sender<Topic>> = LazyLock::new(|| broadcast::channel(4096).0);

/// Wake-ups in this process from now on. A receiver that lags behind gets
/// `Lagged`: it must then treat everything as woken.
pub fn subscribe() -> broadcast::Receiver<Topic> {
    HUB.subscribe()
}

fn wake(topic: Topic) {
    // No receiver means no stream is open: nothing to wake.
    let _ = HUB.send(topic);
}

/// Acts on news of `topic` in `database`: forgets revoked sessions and
/// games kept as last stored (`games::cache`), wakes streams.
fn hear(database: Option<&str>, topic: Topic) {
    match (&topic, database) {
        (Topic::Sessions(user), Some(db)) => super::session_cache::forget_user(db, user),
        (Topic::Sessions(_), None) => {}
        (Topic::All, Some(db)) => {
            super::session_cache::forget_all(db);
            crate::games::cache::forget_all(db);
            wake(topic);
        }
        (Topic::Game(game), Some(db)) => {
            crate::games::cache::forget(db, game);
            wake(topic);
        }
        _ => wake(topic),
    }
}

/// Announces `topic` as [`announce`] does, and on PostgreSQL also tells the
/// other processes in the running transaction itself: PostgreSQL delivers
/// the notification when, and only if, the transaction commits, so it
/// cannot be lost with this process or its relay's connection. For the rare
/// change that others must hear of even then (a revoked session: see
/// `db::session_cache`); PostgreSQL serializes the commits of transactions
/// that notify, which is why the frequent ones go through the relay.
pub fn announce_surely(conn: &mut DbConnection, topic: Topic) -> QueryResult<()> {
    if let DbConnection::Postgres(c) = conn {
        diesel::sql_query("SELECT pg_notify($1, $2)::text")
            .bind::<Text, _>(CHANNEL)
            .bind::<Text, _>(payloads(&BTreeSet::from([topic.clone()])).swap_remove(0))
            .execute(c)?;
        PENDING.with(|p| p.borrow_mut().notified.insert(topic.clone()));
    }
    announce(topic);
    Ok(())
}

/// What the transaction running on this thread has announced, and which
/// recipients' locks it holds (PostgreSQL).
#[derive(Default)]
struct Pending {
    topics: BTreeSet<Topic>,
    /// Those of `topics` already notified to other processes in the
    /// transaction ([`announce_surely`]).
    notified: BTreeSet<Topic>,
    /// The people whose event lock is held, with its key.
    locked: std::collections::BTreeMap<String, i64>,
}

thread_local! {
    static PENDING: RefCell<Pending> = RefCell::default();
}

/// Announces a change of `topic`, to be told when the running transaction
/// commits.
pub fn announce(topic: Topic) {
    PENDING.with(|p| p.borrow_mut().topics.insert(topic));
}

/// Called after the outermost write transaction ends: if it committed,
/// wakes this process's streams and, on PostgreSQL, queues a wake-up of the
/// other processes with what it announced; either way forgets it.
///
/// The relay thread ([`spawn_relay`]) sends what is queued for its
/// database every few milliseconds, in one statement, on its own
/// connection: not in the transaction (PostgreSQL serializes the commits of
/// transactions that notify), nor as another round trip of the request.
/// Should the process die first, the other processes' streams still read on
/// their timer.
pub(super) fn after_transaction(conn: &mut DbConnection, committed: bool) {
    let pending = PENDING.with(|p| std::mem::take(&mut *p.borrow_mut()));
    if !committed || pending.topics.is_empty() {
        return;
    }
    let database = super::Usage::database_of(conn);
    if let Some(database) = &database {
        let mut outgoing = OUTGOING.lock();
        let queued = outgoing.entry(database.to_string()).or_default();
        queued.extend(pending.topics.difference(&pending.notified).cloned());
        if queued.len() > MAX_QUEUED {
            // Nobody sends them (no relay runs) or they pile up: one
            // wake-up of everything says as much.
            queued.clear();
            queued.insert(Topic::All);
        }
    }
    pending
        .topics
        .into_iter()
        .for_each(|t| hear(database.as_deref(), t));
}

/// Wake-ups of other processes waiting to be sent, by database URL.
static OUTGOING: LazyLock<parking_lot::Mutex<std::collections::HashMap<String, BTreeSet<Topic>>>> =
    LazyLock::new(Default::default);

/// More topics than this waiting become one wake-up of everything.
const MAX_QUEUED: usize = 10_000;

/// The notifications that tell other processes of `topics`, each payload
/// within PostgreSQL's limit.
fn payloads(topics: &BTreeSet<Topic>) -> Vec<String> {
    if topics.contains(&Topic::All) {
        return vec![format!("{} *", *PROCESS)];
    }
    let mut out: Vec<String> = Vec::new();
    let mut current = PROCESS.clone();
    for topic in topics {
        let word = topic.encode();
        if current.len() + 1 + word.len() > MAX_PAYLOAD && current.len() > PROCESS.len() {
            out.push(std::mem::replace(&mut current, PROCESS.clone()));
        }
        current.push(' ');
        current.push_str(&word);
    }
    if current.len() > PROCESS.len() {
        out.push(current);
    }
    out
}

/// Forgets what an earlier transaction on this thread announced and locked
/// (it panicked before it could).
pub(super) fn forget() {
    PENDING.with(|p| *p.borrow_mut() = Pending::default());
}

/// The event locks a write of events must take first (PostgreSQL; see the
/// module comment): every player of the game (the first time in the
/// transaction) and each recipient not locked yet. `db::outbox::record`
/// takes them in the statement that writes the events, in ascending order
/// of their keys, and tells [`EventLocks::taken`] which it took.
pub struct EventLocks {
    /// Whether the game's players are to be locked (nothing is held yet).
    pub players: bool,
    /// Recipients to lock, unless they are players of the game.
    pub wanted: Vec<String>,
    /// The people whose lock the transaction holds already.
    pub held: Vec<String>,
    highest_held: Option<i64>,
}

impl EventLocks {
    /// What to lock before writing events for `recipients` of a game.
    pub fn wanted<'a>(recipients: impl IntoIterator<Item = &'a str>) -> EventLocks {
        PENDING.with(|p| {
            let p = p.borrow();
            EventLocks {
                players: p.locked.is_empty(),
                wanted: recipients
                    .into_iter()
                    .filter(|u| !p.locked.contains_key(*u))
                    .map(str::to_owned)
                    .collect(),
                held: p.locked.keys().cloned().collect(),
                highest_held: p.locked.values().max().copied(),
            }
        })
    }

    /// The locks taken, in the order taken: `(person, key)`.
    pub fn taken(self, game_id: &str, locked: Vec<(String, i64)>) {
        if let (Some(lowest), Some(highest)) = (locked.first().map(|l| l.1), self.highest_held) {
            // Only someone not seated in the game can come after its players:
            // their lock, taken out of order, could make two transactions wait
            // for each other (PostgreSQL would then fail one of them).
            if lowest < highest {
                tracing::warn!(game_id, "event locks taken out of order");
                debug_assert!(false, "event locks taken out of order in game {game_id}");
            }
        }
        PENDING.with(|p| p.borrow_mut().locked.extend(locked));
    }
}

/// Where a stream of a person's events stands: the `stream_order` of the last
/// event it has passed.
pub type Cursor = i64;

/// The cursor just after event `event_id` of `user_id`, if it is theirs.
pub fn cursor_of(
    conn: &mut DbConnection,
    user_id: &str,
    event_id: &str,
) -> QueryResult<Option<Cursor>> {
    game_events::table
        .filter(game_events::id.eq(event_id))
        .filter(game_events::user_id.eq(user_id))
        .select(game_events::stream_order)
        .first(conn)
        .optional()
}

/// The cursor after everything `user_id` has so far, and the id of their
/// last event (none when they have none).
pub fn latest_cursor(
    conn: &mut DbConnection,
    user_id: &str,
) -> QueryResult<(Cursor, Option<String>)> {
    let last: Option<(i64, String)> = game_events::table
        .filter(game_events::user_id.eq(user_id))
        .order(game_events::stream_order.desc())
        .select((game_events::stream_order, game_events::id))
        .first(conn)
        .optional()?;
    Ok(match last {
        Some((cursor, id)) => (cursor, Some(id)),
        None => (0, None),
    })
}

/// `user_id`'s events after `cursor`, in stream order, each with its cursor.
pub fn events_after(
    conn: &mut DbConnection,
    user_id: &str,
    cursor: Cursor,
    game_id: Option<&str>,
    limit: i64,
) -> QueryResult<Vec<(Cursor, EventRow)>> {
    let mut q = game_events::table
        .filter(game_events::user_id.eq(user_id))
        .filter(game_events::stream_order.gt(cursor))
        .into_boxed();
    if let Some(g) = game_id {
        q = q.filter(game_events::game_id.eq(g.to_owned()));
    }
    q.order(game_events::stream_order.asc())
        .limit(limit)
        .select((game_events::stream_order, EventRow::as_select()))
        .load(conn)
}

/// One process's connection listening for other processes' wake-ups
/// (PostgreSQL only).
pub struct Listener {
    conn: PgConnection,
}

impl Listener {
    /// Connects and starts listening.
    pub fn connect(url: &str) -> anyhow::Result<Self> {
        use diesel::connection::SimpleConnection as _;
        let mut conn = PgConnection::establish(url)?;
        conn.batch_execute(&format!("LISTEN {CHANNEL}"))?;
        Ok(Self { conn })
    }

    /// Acts on every notification that has arrived from another process
    /// sharing `database` (wakes this process's streams, forgets revoked
    /// sessions); returns how many arrived. Does not wait. An error means the
    /// connection is lost (wake-ups may have been missed).
    pub fn relay(&mut self, database: &str) -> QueryResult<usize> {
        let mut n = 0;
        for notification in self.conn.notifications_iter() {
            let notification = notification?;
            n += 1;
            let mut words = notification.payload.split(' ');
            if words.next() == Some(PROCESS.as_str()) {
                continue;
            }
            words
                .filter_map(Topic::decode)
                .for_each(|t| hear(Some(database), t));
        }
        Ok(n)
    }

    /// Sends the wake-ups this process has queued for `database`, in one
    /// statement; on failure they stay queued for the next connection.
    pub fn send(&mut self, database: &str) -> QueryResult<()> {
        let Some(topics) = OUTGOING.lock().remove(database) else {
            return Ok(());
        };
        let sent = diesel::sql_query("SELECT pg_notify($1, p)::text FROM unnest($2::text[]) AS p")
            .bind::<Text, _>(CHANNEL)
            .bind::<diesel::sql_types::Array<Text>, _>(payloads(&topics))
            .execute(&mut self.conn);
        if sent.is_err() {
            OUTGOING
                .lock()
                .entry(database.to_owned())
                .or_default()
                .extend(topics);
        }
        sent.map(drop)
    }

    /// Checks that the connection still works (a silent loss of the
    /// connection would otherwise go unnoticed).
    pub fn check(&mut self) -> QueryResult<()> {
        use diesel::connection::SimpleConnection as _;
        self.conn.batch_execute("SELECT 1")
    }

    /// After the connection was lost and found again: wakes every stream, as
    /// wake-ups may have been missed.
    pub fn wake_all() {
        wake(Topic::All);
    }
}

/// Relays other processes' wake-ups to this process's streams, and this
/// process's to theirs, on a thread of its own, until `stop` turns true or its sender is dropped. A lost
/// connection is found again (every stream is woken then, as wake-ups may
/// have been missed meanwhile).
pub fn spawn_relay(url: String, stop: tokio::sync::watch::Receiver<bool>) {
    const EVERY: std::time::Duration = std::time::Duration::from_millis(20);
    const CHECK: std::time::Duration = std::time::Duration::from_secs(10);
    let stopped = move || stop.has_changed().is_err() || *stop.borrow();
    let spawned = std::thread::Builder::new()
        .name("sannin-live".into())
        .spawn(move || {
            let mut backoff = std::time::Duration::from_millis(250);
            let mut lost = false;
            while !stopped() {
                let mut listener = match Listener::connect(&url) {
                    Ok(l) => l,
                    Err(e) => {
                        tracing::warn!(error = %e, "cannot listen for other processes' changes");
                        std::thread::sleep(backoff);
                        backoff = (backoff * 2).min(std::time::Duration::from_secs(10));
                        lost = true;
                        continue;
                    }
                };
                backoff = std::time::Duration::from_millis(250);
                if lost {
                    tracing::info!("listening for other processes' changes again");
                    Listener::wake_all();
                }
                // Sessions are cached only while revocations can be heard.
                super::session_cache::listening(&url, true);
                let mut checked = std::time::Instant::now();
                while !stopped() {
                    let step = listener
                        .relay(&url)
                        .and_then(|_| listener.send(&url))
                        .and_then(|_| {
                            if checked.elapsed() >= CHECK {
                                checked = std::time::Instant::now();
                                listener.check()
                            } else {
                                Ok(())
                            }
                        });
                    if let Err(e) = step {
                        tracing::warn!(error = %e, "lost the connection that listens for changes");
                        lost = true;
                        break;
                    }
                    std::thread::sleep(EVERY);
                }
                super::session_cache::listening(&url, false);
                // Other processes' changes go unheard until it listens again.
                crate::games::cache::forget_all(&url);
            }
        });
    if let Err(e) = spawned {
        tracing::error!(error = %e, "cannot start the thread that listens for changes");
    }
}

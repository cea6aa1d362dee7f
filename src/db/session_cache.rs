//! The live sessions this process checked lately, so that a request bearing a
//! session's access token learns without a round trip that its session still
//! stands.
//!
//! Only on PostgreSQL, and only while this process listens for other
//! processes' changes ([`super::live::spawn_relay`]). A revocation notifies
//! [`Topic::Sessions`](super::live::Topic::Sessions) of the session's owner
//! in its own transaction ([`super::sessions::revoke`], with
//! [`super::live::announce_surely`]), so PostgreSQL delivers it with the
//! commit however the revoking process fares. Once it commits, the process
//! that revoked forgets the owner's sessions before it answers, and every
//! other process when its relay reads the notification (every 20 ms). While
//! the listening connection is lost nothing is cached, and what was is
//! forgotten, since revocations may have been missed; an entry is trusted
//! for [`MAX_AGE`] at most in any case. SQLite has no
//! such channel between processes sharing its file, so there every request
//! reads the session.
//!
//! A check that read a session as live may race a revocation that this
//! process hears of while the read is under way: what was read is kept only
//! if no revocation arrived since the read began (a generation count), so a
//! revocation is never undone by a stale read.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};

use chrono::NaiveDateTime;
use parking_lot::Mutex;

use crate::config::DatabaseUrl;

/// How long an entry is trusted without news.
pub const MAX_AGE: Duration = Duration::from_secs(30);
/// More entries than this and the oldest half go.
const CAPACITY: usize = 20_000;

/// What a live session's check yields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveSession {
    pub user_id: String,
    pub username: String,
    /// When the session began.
    pub authenticated_at: NaiveDateTime,
}

struct Entry {
    session: LiveSession,
    at: Instant,
}

#[derive(Default)]
struct Store {
    /// How many of this process's relays for the database are listening.
    listening: usize,
    /// Counts the revocations heard of (and losses of the channel).
    generation: u64,
    entries: HashMap<String, Entry>,
}

impl Store {
    fn forget(&mut self, user_id: Option<&str>) {
        self.generation += 1;
        match user_id {
            Some(u) => self.entries.retain(|_, e| e.session.user_id != u),
            None => self.entries.clear(),
        }
    }
}

/// One store per database this process talks to, found by its URL (as the
/// relay and the connections name it).
static STORES: LazyLock<Mutex<HashMap<String, Arc<Mutex<Store>>>>> =
    LazyLock::new(Default::default);

fn store(database: &str) -> Arc<Mutex<Store>> {
    STORES
        .lock()
        .entry(database.to_owned())
        .or_default()
        .clone()
}

/// This process's cache of one database's live sessions.
#[derive(Clone)]
pub struct SessionCache {
    /// None on SQLite: nothing is cached.
    store: Option<Arc<Mutex<Store>>>,
}

/// Where a read of a session began, to tell whether a revocation arrived
/// while it ran.
#[derive(Debug, Clone, Copy)]
pub struct ReadStart(Option<u64>);

impl SessionCache {
    pub fn for_database(url: &DatabaseUrl) -> Self {
        Self {
            store: match url {
                DatabaseUrl::Postgres(url) => Some(store(url.as_str())),
                DatabaseUrl::Sqlite(_) => None,
            },
        }
    }

    /// Session `session_id` of `user_id`, if it was read as live lately and
    /// nothing since says otherwise.
    pub fn get(&self, session_id: &str, user_id: &str) -> Option<LiveSession> {
        let store = self.store.as_ref()?.lock();
        if store.listening == 0 {
            return None;
        }
        store
            .entries
            .get(session_id)
            .filter(|e| e.at.elapsed() < MAX_AGE && e.session.user_id == user_id)
            .map(|e| e.session.clone())
    }

    /// Call before reading a session from the database.
    pub fn begin_read(&self) -> ReadStart {
        ReadStart(self.store.as_ref().and_then(|s| {
            let store = s.lock();
            (store.listening > 0).then_some(store.generation)
        }))
    }

    /// Keeps what a read begun at `start` found live, unless a revocation
    /// (or a loss of the channel) arrived meanwhile.
    pub fn keep(&self, start: ReadStart, session_id: &str, session: LiveSession) {
        let (Some(store), ReadStart(Some(generation))) = (&self.store, start) else {
            return;
        };
        let mut store = store.lock();
        if store.generation != generation || store.listening == 0 {
            return;
        }
        if store.entries.len() >= CAPACITY {
            let mut ages: Vec<Instant> = store.entries.values().map(|e| e.at).collect();
            let middle = ages.len() / 2;
            let (_, cut, _) = ages.select_nth_unstable(middle);
            let cut = *cut;
            store.entries.retain(|_, e| e.at > cut);
        }
        store.entries.insert(
            session_id.to_owned(),
            Entry {
                session,
                at: Instant::now(),
            },
        );
    }
}

/// Forgets `user_id`'s sessions (they, or some of them, were revoked).
pub(super) fn forget_user(database: &str, user_id: &str) {
    store(database).lock().forget(Some(user_id));
}

/// Forgets every session (revocations may have been missed).
pub(super) fn forget_all(database: &str) {
    store(database).lock().forget(None);
}

/// A relay for `database` started (`true`) or stopped listening. Either
/// way what was cached is forgotten: what happened while nobody listened is
/// unknown.
pub(super) fn listening(database: &str, on: bool) {
    let store = store(database);
    let mut store = store.lock();
    if on {
        store.listening += 1;
    } else {
        store.listening = store.listening.saturating_sub(1);
    }
    store.forget(None);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache(name: &str) -> (SessionCache, String) {
        let url = format!("postgres://cache-test/{name}");
        let cache = SessionCache::for_database(&DatabaseUrl::Postgres(url.clone()));
        (cache, url)
    }

    fn session(user: &str) -> LiveSession {
        LiveSession {
            user_id: user.into(),
            username: format!("{user}-name"),
            authenticated_at: NaiveDateTime::default(),
        }
    }

    #[test]
    fn nothing_is_kept_until_a_relay_listens() {
        let (cache, url) = cache("unheard");
        let start = cache.begin_read();
        cache.keep(start, "s1", session("u1"));
        assert_eq!(cache.get("s1", "u1"), None);
        listening(&url, true);
        let start = cache.begin_read();
        cache.keep(start, "s1", session("u1"));
        assert_eq!(cache.get("s1", "u1"), Some(session("u1")));
        // Another user's claim to the session finds nothing.
        assert_eq!(cache.get("s1", "u2"), None);
        listening(&url, false);
        assert_eq!(cache.get("s1", "u1"), None);
    }

    #[test]
    fn a_revocation_heard_during_a_read_wins() {
        let (cache, url) = cache("race");
        listening(&url, true);
        let start = cache.begin_read();
        forget_user(&url, "u1");
        cache.keep(start, "s1", session("u1"));
        assert_eq!(cache.get("s1", "u1"), None);
        let start = cache.begin_read();
        cache.keep(start, "s1", session("u1"));
        cache.keep(cache.begin_read(), "s2", session("u2"));
        forget_user(&url, "u1");
        assert_eq!(cache.get("s1", "u1"), None);
        assert_eq!(cache.get("s2", "u2"), Some(session("u2")));
        forget_all(&url);
        assert_eq!(cache.get("s2", "u2"), None);
    }

    #[test]
    fn sqlite_keeps_nothing() {
        let cache = SessionCache::for_database(&DatabaseUrl::Sqlite("x.db".into()));
        cache.keep(cache.begin_read(), "s1", session("u1"));
        assert_eq!(cache.get("s1", "u1"), None);
    }
}

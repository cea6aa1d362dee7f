//! The games this process stored last, as it stored them, so that the next
//! move of a game played through this process is stored without reading the
//! game first: one round trip instead of two (PostgreSQL).
//!
//! An entry is only ever a guess. The move is written by the statement that
//! `journal::append_alone` writes for a game just read, guarded by the
//! game's stamp as kept here (`db::game_load::StoredGame::stamp`: the
//! `xmin` of the game's row, its seats' rows and their holders' accounts,
//! and no premoves or pending proposals), so a game that anything else has
//! written since (another process, a transaction of this one, a player's
//! new time zone) stores nothing: the entry is dropped and the game read.
//! Entries are dropped sooner when this process hears of a change of the
//! game (`db::live`: its own transactions, other processes through the
//! relay), when they are older than [`MAX_AGE`], or when there are too
//! many.
//!
//! Only games stored by a statement that committed by itself are kept: only
//! they carry the stamp the write returned (none on SQLite, whose moves are
//! always read in their transaction).

use std::collections::HashMap;
use std::sync::LazyLock;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use super::model::Loaded;

/// How long an entry is kept. A game played by correspondence moves again
/// days later, when its entry would be of no use; a game played quickly, or
/// by a computer player, moves again within seconds.
pub const MAX_AGE: Duration = Duration::from_secs(120);
/// More entries than this and the oldest half go.
const CAPACITY: usize = 2_048;

struct Entry {
    game: Loaded,
    at: Instant,
}

/// By database URL, then by game id.
static STORE: LazyLock<Mutex<HashMap<String, HashMap<String, Entry>>>> =
    LazyLock::new(Default::default);

/// The game `id` of `database` as this process stored it last, if kept and
/// not too old; it is no longer kept (whoever takes it writes the game, and
/// keeps what they store).
pub fn take(database: &str, id: &str) -> Option<Loaded> {
    let mut store = STORE.lock();
    let entry = store.get_mut(database)?.remove(id)?;
    (entry.at.elapsed() < MAX_AGE).then_some(entry.game)
}

/// Keeps `game` of `database` as just stored, unless it has no stamp or a
/// later version of it is kept already.
pub fn keep(database: &str, mut game: Loaded) {
    if game.row_stamp.is_none() {
        return;
    }
    game.game = game.game.taken_up_here();
    let mut store = STORE.lock();
    let games = store.entry(database.to_owned()).or_default();
    if games.len() >= CAPACITY {
        let mut ages: Vec<Instant> = games.values().map(|e| e.at).collect();
        ages.sort_unstable();
        let cut = ages[ages.len() / 2];
        games.retain(|_, e| e.at > cut && e.at.elapsed() < MAX_AGE);
    }
    let id = game.row.id.to_string();
    if games
        .get(&id)
        .is_some_and(|kept| kept.game.row.version >= game.row.version)
    {
        return;
    }
    games.insert(
        id,
        Entry {
            game,
            at: Instant::now(),
        },
    );
}

/// Game `id` of `database` changed: its entry goes.
pub fn forget(database: &str, id: &str) {
    if let Some(games) = STORE.lock().get_mut(database) {
        games.remove(id);
    }
}

/// Anything in `database` may have changed: every entry for it goes.
pub fn forget_all(database: &str) {
    STORE.lock().remove(database);
}

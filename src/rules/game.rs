//! A game: start position, the actions taken, and repetition (R31).

use super::apply::{Elimination, Event};
use super::error::Illegal;
use super::moves::Move;
use super::player::{Alliance, Player};
use super::position::{DrawReason, Outcome, Position};
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// One thing that happened in a game, in order.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Action {
    /// A move by the player to move.
    Move(Move),
    /// A voluntary alliance (R29).
    Alliance(Alliance),
    /// A resignation (R35).
    Resign(Player),
    /// A time-out (R35).
    TimeOut(Player),
    /// A draw every living player agreed to (R36).
    DrawAgreed,
}

/// An action with who took it, the events it caused and the position after it.
#[derive(Clone, Debug)]
pub struct GameRecordEntry {
    /// What was done.
    pub action: Action,
    /// The player who moved, for moves.
    pub player: Option<Player>,
    /// What the rules did as a consequence.
    pub events: Vec<Event>,
    /// The position afterwards.
    pub position: Position,
}

/// Positions that occurred in a game and how often (R31). A position is
/// known by a 128-bit digest of what R31 compares: everything but the ply
/// (board, hands, player to move, alliance, castling rights). The digest is
/// stable, so the table can be stored with a game and a game resumed from it
/// without replaying its history.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Repetitions(HashMap<[u8; 16], u8>);

impl Repetitions {
    /// How many bytes one position takes in [`Repetitions::to_bytes`].
    const ENTRY: usize = 17;

    fn digest(p: &Position) -> [u8; 16] {
        let mut h = Sha256::new();
        h.update(p.board);
        for hand in &p.hands {
            h.update(hand);
        }
        h.update([
            p.to_move.map_or(3, |m| m.index() as u8),
            p.alliance.map_or(0, |a| a.members().0 + 1),
            p.castling.0,
        ]);
        let full = h.finalize();
        let mut d = [0; 16];
        d.copy_from_slice(&full[..16]);
        d
    }

    /// Counts one more occurrence of `p`; answers how many there have been.
    fn occur(&mut self, p: &Position) -> u8 {
        let n = self.0.entry(Self::digest(p)).or_insert(0);
        *n = n.saturating_add(1);
        *n
    }

    /// How many times `p` has occurred.
    pub fn count(&self, p: &Position) -> u8 {
        self.0.get(&Self::digest(p)).copied().unwrap_or(0)
    }

    /// How many different positions occurred.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The table as bytes: per position its digest and its count, in digest order.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut entries: Vec<_> = self.0.iter().collect();
        entries.sort_unstable();
        let mut out = Vec::with_capacity(entries.len() * Self::ENTRY);
        for (d, n) in entries {
            out.extend_from_slice(d);
            out.push(*n);
        }
        out
    }

    /// The table from [`Repetitions::to_bytes`]; `None` if the bytes are not one
    /// (a length that is not a whole number of entries, a count outside 1–4,
    /// a position twice).
    pub fn from_bytes(bytes: &[u8]) -> Option<Repetitions> {
        if bytes.len() % Self::ENTRY != 0 {
            return None;
        }
        let mut map = HashMap::with_capacity(bytes.len() / Self::ENTRY);
        for e in bytes.chunks_exact(Self::ENTRY) {
            let n = e[16];
            let d: [u8; 16] = e[..16].try_into().ok()?;
            if !(1..=4).contains(&n) || map.insert(d, n).is_some() {
                return None;
            }
        }
        Some(Repetitions(map))
    }
}

/// A game from a start position, with its history.
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    current: Position,
    entries: Vec<GameRecordEntry>,
    seen: Repetitions,
}

impl Game {
    /// A game from a position (its options included).
    pub fn new(start: Position) -> Game {
        let mut seen = Repetitions::default();
        seen.occur(&start);
        Game {
            start,
            current: start,
            entries: Vec::new(),
            seen,
        }
    }

    /// A game taken up at `current`, as stored after an earlier replay: its
    /// outcome if it has ended (a position string has no field for it), and
    /// the positions that occurred (`seen`, which counts `current` too). It
    /// plays on exactly as the replayed game would, but its [`Game::entries`]
    /// hold only what happens from here on.
    pub fn resume(
        start: Position,
        mut current: Position,
        outcome: Option<Outcome>,
        seen: Repetitions,
    ) -> Game {
        if outcome.is_some() {
            current.outcome = outcome;
            current.to_move = None;
        }
        Game {
            start,
            current,
            entries: Vec::new(),
            seen,
        }
    }

    /// The same game taken up where it stands, as [`Game::resume`] would
    /// take it up from what it stores: its [`Game::entries`] emptied.
    pub fn taken_up_here(mut self) -> Game {
        self.entries.clear();
        self
    }

    /// The positions that occurred, with their counts (R31).
    pub fn repetitions(&self) -> &Repetitions {
        &self.seen
    }

    /// The start position.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.current
    }

    /// Everything that happened, in order (since the resumption, for a
    /// resumed game).
    pub fn entries(&self) -> &[GameRecordEntry] {
        &self.entries
    }

    /// How the game ended, if it has.
    pub fn outcome(&self) -> Option<Outcome> {
        self.position().outcome()
    }

    /// Plays a move for the player to move.
    pub fn play(&mut self, mv: Move) -> Result<&GameRecordEntry, Illegal> {
        self.act(Action::Move(mv))
    }

    /// Takes any action; refused actions change nothing.
    pub fn act(&mut self, action: Action) -> Result<&GameRecordEntry, Illegal> {
        let pos = *self.position();
        let (player, (next, events)) = match action {
            Action::Move(mv) => (pos.to_move(), pos.play_with_events(mv)?),
            Action::Alliance(a) => (None, pos.form_alliance(a)?),
            Action::Resign(p) => (Some(p), pos.eliminate(p, Elimination::Resigned)?),
            Action::TimeOut(p) => (Some(p), pos.eliminate(p, Elimination::TimedOut)?),
            Action::DrawAgreed => (None, pos.agree_draw()?),
        };
        let mut next = next;
        let mut events = events;
        // R31: the fourth occurrence of a position draws the game among the living.
        // A voluntary alliance is an occurrence too.
        let counted =
            next.outcome().is_none() && matches!(action, Action::Move(_) | Action::Alliance(_));
        if counted && self.seen.occur(&next) >= 4 {
            let outcome = Outcome::Draw(next.living(), DrawReason::Repetition);
            next.outcome = Some(outcome);
            next.to_move = None;
            events.push(Event::Finished(outcome));
        }
        self.current = next;
        self.entries.push(GameRecordEntry {
            action,
            player,
            events,
            position: next,
        });
        Ok(self.entries.last().expect("just pushed"))
    }
}

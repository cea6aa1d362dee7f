//! A game: start position, the actions taken, and repetition (R31).

use super::apply::{Elimination, Event};
use super::error::Illegal;
use super::moves::Move;
use super::player::{Alliance, Player};
use super::position::{Outcome, Position};
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

/// The part of a position that R31 compares: everything but the ply.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct Key {
    board: [u8; 127],
    hands: [[u8; 7]; 3],
    to_move: Option<Player>,
    alliance: Option<Alliance>,
    castling: u8,
}

impl Key {
    fn of(p: &Position) -> Key {
        Key {
            board: p.board,
            hands: p.hands,
            to_move: p.to_move,
            alliance: p.alliance,
            castling: p.castling.0,
        }
    }
}

/// A game from a start position, with its history.
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    entries: Vec<GameRecordEntry>,
    seen: HashMap<Key, u8>,
}

impl Game {
    /// A game from a position (its options included).
    pub fn new(start: Position) -> Game {
        let mut seen = HashMap::new();
        seen.insert(Key::of(&start), 1);
        Game {
            start,
            entries: Vec::new(),
            seen,
        }
    }

    /// The start position.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        self.entries.last().map_or(&self.start, |e| &e.position)
    }

    /// Everything that happened, in order.
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
        };
        let mut next = next;
        let mut events = events;
        // R31: the fourth occurrence of a position draws the game among the living.
        // A voluntary alliance is an occurrence too.
        if next.outcome().is_none() && matches!(action, Action::Move(_) | Action::Alliance(_)) {
            let n = self.seen.entry(Key::of(&next)).or_insert(0);
            *n += 1;
            if *n >= 4 {
                let outcome = Outcome::Draw(next.living());
                next.outcome = Some(outcome);
                next.to_move = None;
                events.push(Event::Finished(outcome));
            }
        }
        self.entries.push(GameRecordEntry {
            action,
            player,
            events,
            position: next,
        });
        Ok(self.entries.last().expect("just pushed"))
    }
}

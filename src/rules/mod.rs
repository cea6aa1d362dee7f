//! The rules of sannin shogi, as `RULES.md` gives them (ids R1–R35): pure, no I/O.
//!
//! [`Position`] is one position with its rule [`Options`]; [`Game`] adds the history
//! that repetition (R31) needs. Moves are checked by [`Position::play`] (or
//! [`Game::play`]) and refused with an [`Illegal`] that has a stable code and a reason in
//! words. Notation: [`Position`]'s `Display`/`parse` (R32) and [`Move`]'s (R33).
//!
#![doc = include_str!("README.md")]

mod apply;
mod bitboard;
mod cell;
mod diagnose;
mod error;
mod game;
mod movegen;
mod moves;
mod notation;
mod options;
mod perft;
mod piece;
mod player;
mod position;
mod tables;
mod zobrist;

pub use apply::{Elimination, Event};
pub use bitboard::Bitboard;
pub use cell::{Cell, Dir, CELL_COUNT, GARDEN};
pub use error::{Illegal, IllegalKind, MoveParseError, PositionError, PositionField};
pub use game::{Action, Game, GameRecordEntry, Repetitions};
pub use moves::{Move, Targets};
pub use options::{Illumination, Options, StuckPiece};
pub use perft::{perft, perft_divide};
pub use piece::{Kind, Piece};
pub use player::{Alliance, Player, PlayerSet};
pub use position::{DrawReason, Outcome, Position, WinReason, START};

use movegen::{generate, Counter, Each};

impl Position {
    /// Every legal move of the player to move (none when the game is over).
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut out = Vec::with_capacity(64);
        if let Some(us) = self.to_move {
            generate(self, us, &mut Each(|m| out.push(m)));
        }
        out
    }

    /// Calls `f` with each legal move of the player to move, without allocating.
    pub fn for_each_legal_move(&self, f: impl FnMut(Move)) {
        if let Some(us) = self.to_move {
            generate(self, us, &mut Each(f));
        }
    }

    /// The number of legal moves of the player to move.
    pub fn count_legal_moves(&self) -> u64 {
        let mut c = Counter(0);
        if let Some(us) = self.to_move {
            generate(self, us, &mut c);
        }
        c.0
    }

    /// Whether `mv` is legal for the player to move.
    pub fn is_legal(&self, mv: Move) -> bool {
        let mut found = false;
        self.for_each_legal_move(|m| found |= m == mv);
        found
    }

    /// Plays a legal move with all its effects (R26–R30), without checking it: for
    /// moves taken from [`Position::legal_moves`]. An illegal move corrupts nothing
    /// memory-wise but yields a position the rules would not reach.
    pub fn play_unchecked(&mut self, mv: Move) {
        self.apply(mv, &mut ());
    }

    /// Plays a move for the player to move, or says why it is illegal.
    pub fn play(&self, mv: Move) -> Result<Position, Illegal> {
        self.play_with_events(mv).map(|(p, _)| p)
    }

    /// Like [`Position::play`], also returning what happened besides the move.
    pub fn play_with_events(&self, mv: Move) -> Result<(Position, Vec<Event>), Illegal> {
        let Some(us) = self.to_move else {
            return Err(Illegal::new(IllegalKind::GameOver, "the game is over"));
        };
        if !self.is_legal(mv) {
            return Err(diagnose::why_illegal(self, us, mv));
        }
        let mut next = *self;
        let mut events = Vec::new();
        next.apply(mv, &mut events);
        Ok((next, events))
    }

    /// Plays a move for a given player: refuses it if it is not that player's turn.
    pub fn play_as(&self, player: Player, mv: Move) -> Result<(Position, Vec<Event>), Illegal> {
        match self.to_move {
            None => Err(Illegal::new(IllegalKind::GameOver, "the game is over")),
            Some(p) if p != player => Err(Illegal::new(
                IllegalKind::NotYourTurn,
                format!("it is {p}'s turn, not {player}'s"),
            )),
            Some(_) => self.play_with_events(mv),
        }
    }

    /// Forms a voluntary alliance (R29) between moves, or says why it cannot be formed.
    pub fn form_alliance(&self, alliance: Alliance) -> Result<(Position, Vec<Event>), Illegal> {
        let no = |m: String| Err(Illegal::new(IllegalKind::AllianceNotAllowed, m));
        if self.is_over() {
            return Err(Illegal::new(IllegalKind::GameOver, "the game is over"));
        }
        if let Some(a) = self.alliance {
            return no(format!(
                "an alliance already exists ({a}); there is only one per game"
            ));
        }
        if self.living().len() < 3 {
            return no("alliances are formed only while all three players are in the game".into());
        }
        let mut next = *self;
        let mut events = Vec::new();
        next.apply_alliance(alliance, &mut events);
        Ok((next, events))
    }

    /// The living players agree to a draw (R36): the game ends drawn among them.
    pub fn agree_draw(&self) -> Result<(Position, Vec<Event>), Illegal> {
        if self.is_over() {
            return Err(Illegal::new(IllegalKind::GameOver, "the game is over"));
        }
        let mut next = *self;
        let outcome = Outcome::Draw(self.living(), DrawReason::Agreement);
        next.outcome = Some(outcome);
        next.to_move = None;
        Ok((next, vec![Event::Finished(outcome)]))
    }

    /// A player resigns (R35) or runs out of time: it is eliminated (R28, R30).
    pub fn eliminate(
        &self,
        player: Player,
        reason: Elimination,
    ) -> Result<(Position, Vec<Event>), Illegal> {
        if self.is_over() {
            return Err(Illegal::new(IllegalKind::GameOver, "the game is over"));
        }
        if !self.is_alive(player) {
            return Err(Illegal::new(
                IllegalKind::NotPlaying,
                format!("{player} is no longer in the game"),
            ));
        }
        let mut next = *self;
        let mut events = Vec::new();
        next.apply_elimination(player, reason, &mut events);
        Ok((next, events))
    }
}

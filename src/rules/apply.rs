//! Playing a move and everything that follows it (R26–R31, R35), and alliances (R29).

use super::cell::GARDEN;
use super::movegen::{generate, make_raw, AnyMove};
use super::moves::Move;
use super::player::{Alliance, Player, PlayerSet};
use super::position::{others, Outcome, Position, WinReason};

/// Something the rules did besides moving a piece.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Event {
    /// Two players allied (R29); the third's king promoted (R20).
    AllianceFormed {
        /// The allies.
        alliance: Alliance,
        /// True when formed by R29a (gang-up), false when proposed and accepted.
        automatic: bool,
    },
    /// A player left the game (R27, R30, R35).
    Eliminated {
        /// Who.
        player: Player,
        /// Why.
        reason: Elimination,
        /// The mating player, for checkmates.
        by: Option<Player>,
    },
    /// The alliance ended because the player it was against was eliminated (R28).
    AllianceDissolved {
        /// The former allies.
        alliance: Alliance,
    },
    /// The game ended.
    Finished(Outcome),
}

/// Why a player was eliminated.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Elimination {
    /// In check with no legal move (R27, or R30 in check).
    Checkmate,
    /// Not in check but no legal move when its turn came (R30).
    NoLegalMove,
    /// It resigned (R35).
    Resigned,
    /// Its time ran out (R35).
    TimedOut,
}

impl Elimination {
    /// Stable machine-readable name.
    pub const fn code(self) -> &'static str {
        match self {
            Elimination::Checkmate => "checkmate",
            Elimination::NoLegalMove => "no_legal_move",
            Elimination::Resigned => "resigned",
            Elimination::TimedOut => "timed_out",
        }
    }
}

/// Receives events; `()` ignores them (perft).
pub(crate) trait EventLog {
    fn push(&mut self, e: Event);
}

impl EventLog for () {
    #[inline]
    fn push(&mut self, _: Event) {}
}

impl EventLog for Vec<Event> {
    fn push(&mut self, e: Event) {
        Vec::push(self, e)
    }
}

impl Position {
    /// Whether `p` has at least one legal move, judged as if it were to move now.
    pub(crate) fn has_legal_move(&self, p: Player) -> bool {
        let mut any = AnyMove(false);
        generate(self, p, &mut any);
        any.0
    }

    /// For each player, the cells of other players' pieces attacking its king.
    fn king_attackers(&self) -> [u128; 3] {
        let occ = self.occ();
        let mut att = [0u128; 3];
        for p in Player::ALL {
            if let Some(k) = self.king(p) {
                att[p.index()] = self.attackers(k, occ, others(p));
            }
        }
        att
    }

    fn finish(&mut self, outcome: Outcome, log: &mut impl EventLog) {
        self.outcome = Some(outcome);
        self.to_move = None;
        log.push(Event::Finished(outcome));
    }

    /// Forms an alliance: the third's king promotes (R20) and castling ends (R21c).
    fn ally(&mut self, alliance: Alliance, automatic: bool, log: &mut impl EventLog) {
        self.alliance = Some(alliance);
        self.castling = PlayerSet::EMPTY;
        self.promote_king(alliance.third());
        log.push(Event::AllianceFormed {
            alliance,
            automatic,
        });
    }

    /// R28 after the players in `gone` left the game. Returns true if the game ended.
    fn after_eliminations(&mut self, gone: PlayerSet, log: &mut impl EventLog) -> bool {
        let living = self.living();
        if living.len() == 1 {
            let winner = living.iter().next().expect("one player");
            self.finish(Outcome::Win(winner, WinReason::LastPlayerStanding), log);
            return true;
        }
        if let Some(a) = self.alliance {
            if a.members().iter().any(|p| gone.contains(p)) {
                self.finish(Outcome::Win(a.third(), WinReason::AllyEliminated), log);
                return true;
            }
            if gone.contains(a.third()) {
                self.alliance = None;
                log.push(Event::AllianceDissolved { alliance: a });
            }
        }
        false
    }

    /// Takes one player out of the game and applies R28. Returns true if the game ended.
    fn eliminate_one(
        &mut self,
        p: Player,
        reason: Elimination,
        by: Option<Player>,
        log: &mut impl EventLog,
    ) -> bool {
        self.remove_player(p);
        log.push(Event::Eliminated {
            player: p,
            reason,
            by,
        });
        let mut gone = PlayerSet::EMPTY;
        gone.insert(p);
        self.after_eliminations(gone, log)
    }

    /// Gives the turn to `next`, eliminating in turn every player that has no legal move
    /// when its turn comes (R30).
    fn settle_turn(&mut self, mut next: Player, log: &mut impl EventLog) {
        loop {
            if !self.is_alive(next) {
                match self.next_living_after(next) {
                    Some(p) => next = p,
                    None => return,
                }
            }
            if self.has_legal_move(next) {
                self.to_move = Some(next);
                return;
            }
            let checkers = self.checkers(next);
            // The mating player: the owner of an attacking piece; of two, the first in turn
            // order after the eliminated player.
            let mater = [next.next(), next.next().next()]
                .into_iter()
                .find(|q| (checkers & self.pieces_of(*q)).any());
            let reason = if mater.is_some() {
                Elimination::Checkmate
            } else {
                Elimination::NoLegalMove
            };
            if self.eliminate_one(next, reason, mater, log) {
                return;
            }
            next = match mater {
                Some(m) => m,
                None => match self.next_living_after(next) {
                    Some(p) => p,
                    None => return,
                },
            };
        }
    }

    /// Plays a move known to be legal for the player to move, with all after-move
    /// effects (R26–R30). Repetition (R31) needs the game's history: see `Game`.
    pub(crate) fn apply(&mut self, mv: Move, log: &mut impl EventLog) {
        let Some(x) = self.to_move else { return };
        let king_to_garden = match mv {
            Move::Board { from, to, .. } => {
                to == GARDEN && self.piece_at(from).is_some_and(|p| p.kind.is_king())
            }
            _ => false,
        };
        make_raw::<true>(self, x, mv);
        self.ply = self.ply.saturating_add(1);

        // R26: the Garden.
        if king_to_garden && !self.alliance.is_some_and(|a| a.contains(x)) {
            self.finish(Outcome::Win(x, WinReason::Garden), log);
            return;
        }

        // Attackers of each king, computed once and reused below (R21b, R29a, R27).
        let mut att = self.king_attackers();
        // R21b: remember who has been in check.
        for p in Player::ALL {
            if att[p.index()] != 0 {
                self.castling.remove(p);
            }
        }

        // R29a: gang-up.
        if self.alliance.is_none() && self.living().len() == 3 {
            let caught = |p: Player| {
                let a = att[p.index()];
                a & self.by_player[p.next().index()] != 0
                    && a & self.by_player[p.next().next().index()] != 0
            };
            let (a, b) = (x.next(), x.next().next());
            let alliance = match (caught(a), caught(b)) {
                (true, false) => Some(Alliance::against(a)),
                (false, true) => Some(Alliance::against(b)),
                // Both caught: the first of them after the mover decides. R32/R33 have no
                // way to record that choice, so our ruling is that it allies with the
                // mover (see the notation guide).
                (true, true) => Alliance::new(a, x),
                (false, false) => None,
            };
            if let Some(alliance) = alliance {
                self.ally(alliance, true, log);
                // The third king now ranges (R20): its attacks changed.
                att = self.king_attackers();
            }
        }

        // R27: checkmate of every other living player, judged together on one board.
        let mut mated = PlayerSet::EMPTY;
        let mut mater = x;
        for y in [x.next(), x.next().next()] {
            if !self.is_alive(y) {
                continue;
            }
            let checkers = att[y.index()];
            if checkers == 0 || self.has_legal_move(y) {
                continue;
            }
            mated.insert(y);
            // The mating player: X if one of its pieces attacks, else the other attacker.
            mater = if checkers & self.by_player[x.index()] != 0 {
                x
            } else {
                PlayerSet(others(y).0 & !x.bit())
                    .iter()
                    .next()
                    .expect("a third player")
            };
            log.push(Event::Eliminated {
                player: y,
                reason: Elimination::Checkmate,
                by: Some(mater),
            });
        }
        if !mated.is_empty() {
            for y in mated.iter() {
                self.remove_player(y);
            }
            if self.after_eliminations(mated, log) {
                return;
            }
        }

        // Who moves next, then R30.
        let next = if mated.is_empty() {
            match self.next_living_after(x) {
                Some(p) => p,
                None => return,
            }
        } else {
            mater
        };
        let before = self.living();
        self.settle_turn(next, log);
        // A check revealed by an elimination also counts as having been in check (R21b).
        if self.outcome.is_none() && (self.living() != before || !mated.is_empty()) {
            for p in Player::ALL {
                if self.castling.contains(p) && self.in_check(p) {
                    self.castling.remove(p);
                }
            }
        }
    }

    /// Forms a voluntary alliance between moves (R29), then R30 for the player to move.
    pub(crate) fn apply_alliance(&mut self, alliance: Alliance, log: &mut impl EventLog) {
        self.ally(alliance, false, log);
        if let Some(p) = self.to_move {
            self.settle_turn(p, log);
        }
    }

    /// Eliminates a player that resigned or ran out of time (R35, R28, then R30).
    pub(crate) fn apply_elimination(
        &mut self,
        p: Player,
        reason: Elimination,
        log: &mut impl EventLog,
    ) {
        let was_to_move = self.to_move == Some(p);
        if self.eliminate_one(p, reason, None, log) {
            return;
        }
        let next = if was_to_move {
            self.next_living_after(p)
        } else {
            self.to_move
        };
        if let Some(n) = next {
            self.settle_turn(n, log);
        }
    }
}

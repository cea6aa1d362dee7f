//! Paranoid alpha-beta with iterative deepening (see the module above).

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::eval::{evaluate, piece_value, MATE};
use crate::rules::{Move, Piece, Player, Position};

/// Deepest search, in plies.
const MAX_DEPTH: usize = 32;
/// Room for the moves of every ply of one line.
const BUFFER: usize = 512 * MAX_DEPTH;
/// Transposition table entries (a power of two): 2^18 of 24 bytes, 6 MiB.
const TT_ENTRIES: usize = 1 << 18;
/// History slots: a move's origin (a cell, or a drop's kind) by its target.
const HISTORY: usize = (127 + 14) * 127;

/// What a finished search of a position found, kept by its Zobrist key.
#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    best: Option<Move>,
    score: i32,
    /// Plies searched below it.
    depth: u8,
    bound: Bound,
}

/// How `Entry::score` relates to the position's value.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum Bound {
    #[default]
    Exact,
    /// The value is at least the score (the search failed high).
    Lower,
    /// The value is at most the score (it failed low).
    Upper,
}

/// When to stop: after `depth` plies, `nodes` positions, or when `stop`
/// says so (a time limit; asked every 1,024 nodes). The deepest finished
/// iteration's move is the answer.
#[derive(Default)]
pub struct Limits<'a> {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub stop: Option<&'a dyn Fn() -> bool>,
    /// Up to this much (in hundredths of a pawn) is added at random to each
    /// root move's score, from `seed`: weaker and varied play, reproducible.
    pub noise: i32,
    pub seed: u64,
    /// Best-reply search (Schadd & Winands, 2011) instead of paranoid: at
    /// the opponents' layer only one of them moves, whichever hurts most,
    /// and the other passes.
    pub best_reply: bool,
}

/// A level, 1 (a sensible legal move at once) to 5 (its whole budget).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Level(u8);

impl Level {
    pub const ALL: [Level; 5] = [Level(1), Level(2), Level(3), Level(4), Level(5)];

    pub fn new(level: u8) -> Option<Level> {
        (1..=5).contains(&level).then_some(Level(level))
    }

    pub fn number(self) -> u8 {
        self.0
    }

    /// The level's depth and noise; a time limit, if any, comes on top:
    /// 1 looks one ply ahead with a pawn of noise, 2 two plies with less, 3
    /// and 4 three and four plies, 5 as deep as its time allows.
    pub fn limits<'a>(self, seed: u64) -> Limits<'a> {
        let (depth, noise) = match self.0 {
            1 => (1, 100),
            2 => (2, 40),
            3 => (3, 0),
            4 => (4, 0),
            _ => (MAX_DEPTH as u32, 0),
        };
        Limits {
            depth: Some(depth),
            noise,
            seed,
            ..Limits::default()
        }
    }
}

/// One finished iteration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    pub depth: u32,
    pub nodes: u64,
    /// The root player's evaluation of the best line (see `evaluate`).
    pub score: i32,
    pub best: Move,
}

/// The search's answer: the best move of the deepest finished iteration,
/// and each iteration's report. `None` when the game is over.
#[derive(Clone, Debug)]
pub struct SearchResult {
    pub best: Move,
    pub iterations: Vec<Report>,
    pub nodes: u64,
}

struct Searcher<'a> {
    root: Player,
    limits: &'a Limits<'a>,
    nodes: u64,
    stopped: bool,
    /// Moves with their ordering scores and mover's index, one slice per ply.
    buffer: Vec<(i32, Move, u8)>,
    killers: [[Option<Move>; 2]; MAX_DEPTH],
    /// Positions already searched, by key (replace always).
    table: Vec<Entry>,
    /// How often a quiet move cut the search off, weighted by depth².
    history: Vec<i32>,
}

/// Searches `pos` for its player to move.
pub fn search(pos: &Position, limits: &Limits) -> Option<SearchResult> {
    let root = pos.to_move()?;
    let mut roots: Vec<(i32, Move)> = Vec::with_capacity(256);
    pos.for_each_legal_move(|m| roots.push((0, m)));
    if roots.is_empty() {
        return None;
    }
    let mut rng = StdRng::seed_from_u64(limits.seed);
    let noise: Vec<i32> = roots
        .iter()
        .map(|_| {
            if limits.noise > 0 {
                rng.random_range(0..=limits.noise)
            } else {
                0
            }
        })
        .collect();
    let mut s = Searcher {
        root,
        limits,
        nodes: 0,
        stopped: false,
        buffer: Vec::with_capacity(BUFFER),
        killers: [[None; 2]; MAX_DEPTH],
        table: vec![Entry::default(); TT_ENTRIES],
        history: vec![0; HISTORY],
    };
    let max_depth = limits
        .depth
        .unwrap_or(MAX_DEPTH as u32)
        .clamp(1, MAX_DEPTH as u32);
    let mut best = roots[0].1;
    let mut iterations = Vec::new();
    let mut order: Vec<usize> = (0..roots.len()).collect();
    for depth in 1..=max_depth {
        let mut alpha = -MATE - 1;
        let mut iteration_best = None;
        let mut scores = vec![-MATE - 1; roots.len()];
        for &i in &order {
            let mut child = *pos;
            child.play_unchecked(roots[i].1);
            let value = s.value(&child, depth - 1, 1, alpha, MATE + 1);
            if s.stopped {
                break;
            }
            let value = value.saturating_add(noise[i]);
            scores[i] = value;
            if value > alpha {
                alpha = value;
                iteration_best = Some(i);
            }
        }
        if s.stopped {
            // An unfinished iteration still improves on the last one if its
            // first move (the last best) was searched and beaten.
            if let Some(i) = iteration_best.filter(|&i| i != order[0]) {
                best = roots[i].1;
            }
            break;
        }
        let Some(i) = iteration_best else { break };
        best = roots[i].1;
        iterations.push(Report {
            depth,
            nodes: s.nodes,
            score: alpha,
            best,
        });
        // The next iteration tries the best moves first.
        order.sort_by_key(|&j| std::cmp::Reverse(scores[j]));
        if alpha.abs() >= MATE - MAX_DEPTH as i32 * 1000 {
            break;
        }
    }
    Some(SearchResult {
        best,
        iterations,
        nodes: s.nodes,
    })
}

impl Searcher<'_> {
    fn out_of_budget(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if self.limits.nodes.is_some_and(|n| self.nodes >= n) {
            self.stopped = true;
        } else if self.nodes % 1024 == 0 {
            if let Some(stop) = self.limits.stop {
                self.stopped = stop();
            }
        }
        self.stopped
    }

    /// The root player's value of `pos`, `depth` plies deeper, `ply` from the root.
    fn value(
        &mut self,
        pos: &Position,
        depth: u32,
        ply: usize,
        mut alpha: i32,
        mut beta: i32,
    ) -> i32 {
        self.nodes += 1;
        let Some(to_move) = pos.to_move() else {
            return evaluate(pos, self.root);
        };
        if depth == 0 || ply >= MAX_DEPTH || !pos.is_alive(self.root) || self.out_of_budget() {
            return evaluate(pos, self.root);
        }
        let key = pos.key();
        let slot = (key as usize) & (TT_ENTRIES - 1);
        let entry = self.table[slot];
        let hit = entry.key == key;
        if hit && u32::from(entry.depth) >= depth {
            let usable = match entry.bound {
                Bound::Exact => true,
                Bound::Lower => entry.score >= beta,
                Bound::Upper => entry.score <= alpha,
            };
            if usable {
                return entry.score;
            }
        }
        let hinted = if hit { entry.best } else { None };
        let (alpha0, beta0) = (alpha, beta);
        // The root player and its ally (R29) play for the same side.
        let maximising = to_move == self.root
            || pos
                .alliance()
                .is_some_and(|a| a.ally_of(self.root) == Some(to_move));
        let root = self.root;
        let ally = pos.alliance().and_then(|a| a.ally_of(root));
        // Who moves at this layer: the player to move, or in best-reply
        // search at the opponents' layer either living opponent.
        let best_reply = self.limits.best_reply && !maximising;
        let mut movers = [Some(to_move), None];
        if best_reply {
            let mut them = Player::ALL
                .into_iter()
                .filter(|p| *p != root && Some(*p) != ally && pos.is_alive(*p));
            movers = [them.next(), them.next()];
        }
        let start = self.buffer.len();
        let killers = self.killers[ply];
        let (buffer, history) = (&mut self.buffer, &self.history);
        for mover in movers.into_iter().flatten() {
            let base = pos.with_turn(mover);
            base.for_each_legal_move(|m| {
                let score = if Some(m) == hinted {
                    i32::MAX
                } else {
                    order_score(&base, m, &killers, history)
                };
                buffer.push((score, m, mover.index() as u8))
            });
        }
        let end = self.buffer.len();
        if end == start {
            return evaluate(pos, root);
        }
        self.buffer[start..end].sort_unstable_by_key(|(score, ..)| std::cmp::Reverse(*score));
        let mut best = if maximising { -MATE - 1 } else { MATE + 1 };
        let mut best_move = None;
        for i in start..end {
            let (_, mv, mover) = self.buffer[i];
            let mut child = pos.with_turn(Player::from_index(mover as usize));
            child.play_unchecked(mv);
            if best_reply {
                // The other opponent passes: the root player moves next.
                if child
                    .to_move()
                    .is_some_and(|next| next != root && Some(next) != ally)
                {
                    child = child.with_turn(root);
                }
            }
            let value = self.value(&child, depth - 1, ply + 1, alpha, beta);
            if self.stopped {
                break;
            }
            let better = if maximising {
                value > best
            } else {
                value < best
            };
            if better {
                best = value;
                best_move = Some(mv);
            }
            if maximising {
                alpha = alpha.max(value);
            } else {
                beta = beta.min(value);
            }
            if alpha >= beta {
                if captured(pos, mv).is_none() {
                    let k = &mut self.killers[ply];
                    if k[0] != Some(mv) {
                        k[1] = k[0];
                        k[0] = Some(mv);
                    }
                    let h = &mut self.history[history_slot(mv)];
                    *h = h.saturating_add((depth * depth) as i32);
                }
                break;
            }
        }
        self.buffer.truncate(start);
        if !self.stopped {
            let bound = if best <= alpha0 {
                Bound::Upper
            } else if best >= beta0 {
                Bound::Lower
            } else {
                Bound::Exact
            };
            self.table[slot] = Entry {
                key,
                best: best_move,
                score: best,
                depth: depth.min(u8::MAX as u32) as u8,
                bound,
            };
        }
        best
    }
}

/// Where a move's history is counted: its origin (a cell, or a drop's
/// kind) by its target.
fn history_slot(mv: Move) -> usize {
    let (from, to) = match mv {
        Move::Board { from, to, .. } => (from.index(), to.index()),
        Move::Drop { kind, to } => (127 + kind.index(), to.index()),
        Move::Illuminate { king, .. } => (king.index(), king.index()),
    };
    from * 127 + to
}

/// Captures first, by the value taken; then promotions, killers, the rest
/// by their history.
fn order_score(pos: &Position, mv: Move, killers: &[Option<Move>; 2], history: &[i32]) -> i32 {
    let mut score = 0;
    if let Some(victim) = captured(pos, mv) {
        score += 10_000 + piece_value(victim.kind);
    }
    if let Move::Illuminate { targets, .. } = mv {
        score += 10_000 + 300 * targets.cells().len() as i32;
    }
    if matches!(mv, Move::Board { promote: true, .. }) {
        score += 5_000;
    }
    if killers.contains(&Some(mv)) {
        score += 1_000;
    } else {
        score += history[history_slot(mv)].min(999);
    }
    score
}

/// What a board move takes (an illumination's captures are its targets).
fn captured(pos: &Position, mv: Move) -> Option<Piece> {
    match mv {
        Move::Board { to, .. } => pos.piece_at(to).filter(|p| Some(p.owner) != pos.to_move()),
        _ => None,
    }
}

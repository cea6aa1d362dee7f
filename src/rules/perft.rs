//! Perft (R34): counting the leaves of the move tree, to check the generator.

use super::movegen::{generate, Counter, Each};
use super::moves::Move;
use super::position::Position;

/// The number of leaf nodes `depth` plies below `pos` (R34), counting the last ply in
/// bulk. A finished game has no moves.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    let mut buf = Vec::with_capacity(4096);
    inner(pos, depth, &mut buf)
}

/// Perft below each legal root move, in generation order.
pub fn perft_divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    let depth = depth.max(1);
    let mut buf = Vec::with_capacity(4096);
    pos.legal_moves()
        .into_iter()
        .map(|m| {
            let mut child = *pos;
            child.play_unchecked(m);
            (m, inner(&child, depth - 1, &mut buf))
        })
        .collect()
}

fn inner(pos: &Position, depth: u32, buf: &mut Vec<Move>) -> u64 {
    if depth == 0 {
        return 1;
    }
    let Some(us) = pos.to_move else { return 0 };
    if depth == 1 {
        let mut c = Counter(0);
        generate(pos, us, &mut c);
        return c.0;
    }
    // Moves of all plies share one buffer, so the generator itself never allocates.
    let start = buf.len();
    generate(pos, us, &mut Each(|m| buf.push(m)));
    let end = buf.len();
    let mut n = 0;
    for i in start..end {
        let mut child = *pos;
        child.play_unchecked(buf[i]);
        n += inner(&child, depth - 1, buf);
    }
    buf.truncate(start);
    n
}

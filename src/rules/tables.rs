//! Attack and region tables, all built at compile time.

use super::bitboard::Bitboard;
use super::cell::{Cell, Dir, CELL_COUNT};
use super::piece::{Kind, Piece, KIND_COUNT};
use super::player::Player;

/// Step patterns in owner hours (§4). Index into [`STEPS`].
pub(crate) const ORTHO: usize = 0;
pub(crate) const GOLD: usize = 1;
pub(crate) const SILVER: usize = 2;
pub(crate) const KNIGHT: usize = 3;
pub(crate) const PAWN: usize = 4;
const PATTERN_COUNT: usize = 5;

/// Owner hours of each step pattern, as a bit mask over `hour % 12`.
const PATTERN_HOURS: [u16; PATTERN_COUNT] = [
    hours(&[1, 3, 5, 7, 9, 11]),  // K, and the steps of +B
    hours(&[9, 11, 1, 3, 12, 6]), // G, +P
    hours(&[11, 1, 5, 7, 10, 2]), // S, and the steps of +S
    hours(&[3, 9, 2, 4, 8, 10]),  // N
    hours(&[11, 1]),              // P
];

const fn hours(hs: &[i32]) -> u16 {
    let mut m = 0u16;
    let mut i = 0;
    while i < hs.len() {
        m |= 1 << (hs[i] % 12);
        i += 1;
    }
    m
}

/// Rotates an owner-hour mask into board hours for `p` (R7).
const fn to_board(mask: u16, p: Player) -> u16 {
    let mut out = 0u16;
    let mut h = 0;
    while h < 12 {
        if mask & (1 << h) != 0 {
            out |= 1 << ((h + p.hour_offset()) % 12);
        }
        h += 1;
    }
    out
}

/// The step pattern of a kind, if it has steps.
pub(crate) const fn step_pattern(kind: Kind) -> Option<usize> {
    match kind {
        Kind::King | Kind::PBishop => Some(ORTHO),
        Kind::Gold | Kind::PPawn => Some(GOLD),
        Kind::Silver | Kind::PSilver => Some(SILVER),
        Kind::Knight => Some(KNIGHT),
        Kind::Pawn => Some(PAWN),
        _ => None,
    }
}

/// Owner hours a kind ranges in (§4, R13).
const fn range_hours(kind: Kind) -> u16 {
    match kind {
        Kind::PKing => 0xFFF,
        Kind::Rook => hours(&[9, 11, 1, 3, 6]),
        Kind::PRook => hours(&[1, 3, 5, 7, 9, 11]),
        Kind::Bishop | Kind::PBishop => hours(&[2, 4, 6, 8, 10, 12]),
        Kind::PSilver => hours(&[12, 6]),
        Kind::Lance => hours(&[11, 1]),
        Kind::PLance => hours(&[11, 1, 5, 7]),
        _ => 0,
    }
}

/// Cells one step away in a board-direction mask.
const fn step_set(cell: usize, mask: u16) -> u128 {
    let c = Cell::new_unchecked(cell as u8);
    let mut bb = 0u128;
    let mut d = 0;
    while d < 12 {
        if mask & (1 << d) != 0 {
            if let Some(t) = c.step(Dir::ALL[d]) {
                bb |= 1u128 << t.index();
            }
        }
        d += 1;
    }
    bb
}

/// `STEPS[player][pattern][cell]`: cells a stepper of that pattern attacks.
pub(crate) static STEPS: [[[u128; CELL_COUNT]; PATTERN_COUNT]; 3] = build_steps(false);
/// `REV_STEPS[player][pattern][cell]`: cells from which such a stepper attacks `cell`.
pub(crate) static REV_STEPS: [[[u128; CELL_COUNT]; PATTERN_COUNT]; 3] = build_steps(true);

const fn build_steps(reverse: bool) -> [[[u128; CELL_COUNT]; PATTERN_COUNT]; 3] {
    let mut t = [[[0u128; CELL_COUNT]; PATTERN_COUNT]; 3];
    let mut p = 0;
    while p < 3 {
        let mut pat = 0;
        while pat < PATTERN_COUNT {
            let mut mask = to_board(PATTERN_HOURS[pat], Player::from_index(p));
            if reverse {
                mask = ((mask << 6) | (mask >> 6)) & 0xFFF;
            }
            let mut c = 0;
            while c < CELL_COUNT {
                t[p][pat][c] = step_set(c, mask);
                c += 1;
            }
            pat += 1;
        }
        p += 1;
    }
    t
}

/// `RAYS[dir][cell]`: the cells beyond `cell` in `dir`, to the edge.
pub(crate) static RAYS: [[u128; CELL_COUNT]; 12] = {
    let mut t = [[0u128; CELL_COUNT]; 12];
    let mut d = 0;
    while d < 12 {
        let mut c = 0;
        while c < CELL_COUNT {
            let mut bb = 0u128;
            let mut cur = Cell::new_unchecked(c as u8);
            while let Some(n) = cur.step(Dir::ALL[d]) {
                bb |= 1u128 << n.index();
                cur = n;
            }
            t[d][c] = bb;
            c += 1;
        }
        d += 1;
    }
    t
};

/// `LINES[cell]`: every cell on one of the twelve rays from `cell`.
pub(crate) static LINES: [u128; CELL_COUNT] = {
    let mut t = [0u128; CELL_COUNT];
    let mut c = 0;
    while c < CELL_COUNT {
        let mut d = 0;
        while d < 12 {
            t[c] |= RAYS[d][c];
            d += 1;
        }
        c += 1;
    }
    t
};

/// `DIR_TO[a][b]`: the direction index from `a` along which `b` lies, or 255.
pub(crate) static DIR_TO: [[u8; CELL_COUNT]; CELL_COUNT] = {
    let mut t = [[255u8; CELL_COUNT]; CELL_COUNT];
    let mut a = 0;
    while a < CELL_COUNT {
        let mut d = 0;
        while d < 12 {
            let mut b = 0;
            while b < CELL_COUNT {
                if RAYS[d][a] >> b & 1 != 0 {
                    t[a][b] = d as u8;
                }
                b += 1;
            }
            d += 1;
        }
        a += 1;
    }
    t
};

/// Whether walking in direction `d` increases the cell index.
pub(crate) const INCREASING: [bool; 12] = {
    let mut t = [false; 12];
    let mut d = 0;
    while d < 12 {
        t[d] = Dir::ALL[d].is_increasing();
        d += 1;
    }
    t
};

/// `SLIDES[piece code]`: board directions (bit mask) the piece ranges in.
pub(crate) static SLIDES: [u16; KIND_COUNT * 3] = {
    let mut t = [0u16; KIND_COUNT * 3];
    let mut k = 0;
    while k < KIND_COUNT {
        let mut p = 0;
        while p < 3 {
            let piece = Piece {
                kind: Kind::ALL[k],
                owner: Player::from_index(p),
            };
            t[piece.code() as usize] = to_board(range_hours(Kind::ALL[k]), Player::from_index(p));
            p += 1;
        }
        k += 1;
    }
    t
};

/// `STEP_OF[piece code]`: the piece's step pattern index, or `NO_STEP`.
pub(crate) static STEP_OF: [u8; KIND_COUNT * 3] = {
    let mut t = [NO_STEP; KIND_COUNT * 3];
    let mut code = 0;
    while code < KIND_COUNT * 3 {
        if let Some(pat) = step_pattern(Kind::ALL[code / 3]) {
            t[code] = pat as u8;
        }
        code += 1;
    }
    t
};
pub(crate) const NO_STEP: u8 = 255;

/// The cells reached by ranging from `from` in direction `d` over `occ` (R4).
#[inline(always)]
pub(crate) fn slide(d: usize, from: usize, occ: u128) -> u128 {
    let ray = RAYS[d][from];
    let blockers = ray & occ;
    if blockers == 0 {
        return ray;
    }
    let b = if INCREASING[d] {
        blockers.trailing_zeros()
    } else {
        127 - blockers.leading_zeros()
    };
    ray ^ RAYS[d][b as usize]
}

/// The first occupied cell from `from` in direction `d`, if any.
#[inline(always)]
pub(crate) fn first_blocker(d: usize, from: usize, occ: u128) -> Option<usize> {
    let blockers = RAYS[d][from] & occ;
    if blockers == 0 {
        None
    } else if INCREASING[d] {
        Some(blockers.trailing_zeros() as usize)
    } else {
        Some(127 - blockers.leading_zeros() as usize)
    }
}

/// The cells a piece on `from` attacks over `occ` (R22).
#[inline]
pub(crate) fn attacks(piece: Piece, from: Cell, occ: u128) -> u128 {
    let code = piece.code() as usize;
    let f = from.index();
    let mut bb = 0u128;
    let pat = STEP_OF[code];
    if pat != NO_STEP {
        bb = STEPS[piece.owner.index()][pat as usize][f];
    }
    let mut dirs = SLIDES[code];
    while dirs != 0 {
        let d = dirs.trailing_zeros() as usize;
        dirs &= dirs - 1;
        bb |= slide(d, f, occ);
    }
    bb
}

/// Cells strictly between two cells on one line (empty if not on a line).
pub(crate) fn between(a: Cell, b: Cell) -> u128 {
    for rays in &RAYS {
        let ray = rays[a.index()];
        if ray >> b.index() & 1 != 0 {
            return ray & !rays[b.index()] & !(1u128 << b.index());
        }
    }
    0
}

/// Territory of each player (R8).
pub(crate) static TERRITORY: [Bitboard; 3] = {
    let mut t = [Bitboard(0); 3];
    let mut i = 0;
    while i < CELL_COUNT {
        let c = Cell::new_unchecked(i as u8);
        let (col, rank) = (c.col(), c.rank());
        if col <= 3 {
            t[0].0 |= 1 << i;
        }
        if rank >= 10 {
            t[1].0 |= 1 << i;
        }
        if col - rank >= 5 {
            t[2].0 |= 1 << i;
        }
        i += 1;
    }
    t
};

/// Far edge of each player (R9): both forward orthogonals leave the board.
pub(crate) static FAR_EDGE: [Bitboard; 3] = {
    let mut t = [Bitboard(0); 3];
    let mut p = 0;
    while p < 3 {
        let mut i = 0;
        while i < CELL_COUNT {
            if STEPS[p][PAWN][i] == 0 {
                t[p].0 |= 1 << i;
            }
            i += 1;
        }
        p += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(bb: Bitboard) -> Vec<String> {
        bb.map(|c| c.to_string()).collect()
    }

    #[test]
    fn r8_territories_have_24_cells_and_55_are_neutral() {
        for t in TERRITORY {
            assert_eq!(t.count(), 24);
        }
        let all = TERRITORY[0] | TERRITORY[1] | TERRITORY[2];
        assert_eq!((!all).count(), 55);
        assert!(!all.contains(super::super::cell::GARDEN));
    }

    #[test]
    fn r9_far_edges() {
        assert_eq!(
            cells(FAR_EDGE[Player::Middle.index()]),
            ["7a", "6a", "5a", "4a", "3a", "2a", "1a"]
        );
        assert_eq!(
            cells(FAR_EDGE[Player::Last.index()]),
            ["1g", "2h", "3i", "4j", "5k", "6l", "7m"]
        );
        assert_eq!(
            cells(FAR_EDGE[Player::First.index()]),
            ["13g", "13h", "13i", "13j", "13k", "13l", "13m"]
        );
    }
}

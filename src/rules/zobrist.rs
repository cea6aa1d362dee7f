//! Zobrist keys: a 64-bit key for what a position holds, for the engine's
//! transposition table. The pieces on the board and in hand are kept in
//! `Position::placement`, updated by every edit the rules make as they play
//! (`make_raw::<true>`, eliminations, a king's promotion); the player to
//! move, the alliance and the castling rights are folded in when the key is
//! asked for. The ply and the outcome are not part of it (nor is the game's
//! history: R31 is the `Game`'s business).

use super::piece::Piece;
use super::player::Player;
use super::position::Position;

/// Counts of one kind in one hand that have keys of their own; higher
/// counts share the last.
const HAND_COUNTS: usize = 32;

/// A splitmix64 stream, evaluated at compile time.
const fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

const fn table<const N: usize>(salt: u64) -> [u64; N] {
    let mut t = [0; N];
    let mut i = 0;
    while i < N {
        t[i] = mix(salt.wrapping_mul(0x1000_0000_0000).wrapping_add(i as u64));
        i += 1;
    }
    t
}

/// Per piece code (42) and cell (127).
static PIECES: [u64; 42 * 127] = table(1);
/// Per player, hand kind (7) and count.
static HANDS: [u64; 3 * 7 * HAND_COUNTS] = table(2);
/// Per player to move (or none).
static TO_MOVE: [u64; 4] = table(3);
/// Per alliance (none, or its members' bit mask).
static ALLIANCE: [u64; 8] = table(4);
/// Per set of castling rights.
static CASTLING: [u64; 8] = table(5);

/// The key of `piece` on cell index `cell`.
#[inline]
pub(crate) fn piece(piece: Piece, cell: usize) -> u64 {
    PIECES[piece.code() as usize * 127 + cell]
}

/// The key of `count` pieces of hand kind `kind` in `p`'s hand.
#[inline]
pub(crate) fn hand(p: Player, kind: usize, count: u8) -> u64 {
    let count = (count as usize).min(HAND_COUNTS - 1);
    HANDS[(p.index() * 7 + kind) * HAND_COUNTS + count]
}

impl Position {
    /// The position's Zobrist key: pieces on the board and in hand, the
    /// player to move, the alliance and the castling rights.
    #[inline]
    pub fn key(&self) -> u64 {
        self.placement
            ^ TO_MOVE[self.to_move.map_or(3, |p| p.index())]
            ^ ALLIANCE[self.alliance.map_or(0, |a| a.members().0 as usize)]
            ^ CASTLING[self.castling.0 as usize]
    }

    /// The pieces' part of the key, computed from scratch.
    pub(crate) fn placement_from_scratch(&self) -> u64 {
        let mut k = 0;
        for (cell, &code) in self.board.iter().enumerate() {
            if code != super::position::EMPTY {
                k ^= piece(Piece::from_code(code), cell);
            }
        }
        for p in Player::ALL {
            for (kind, &n) in self.hands[p.index()].iter().enumerate() {
                k ^= hand(p, kind, n);
            }
        }
        k
    }
}

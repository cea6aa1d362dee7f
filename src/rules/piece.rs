//! Piece kinds and pieces (R10, §4).

use super::player::Player;
use std::fmt;

/// A piece kind, promoted kinds included (§4).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Kind {
    /// K
    King = 0,
    /// R
    Rook,
    /// B
    Bishop,
    /// G
    Gold,
    /// S
    Silver,
    /// N
    Knight,
    /// L
    Lance,
    /// P
    Pawn,
    /// +K
    PKing,
    /// +R
    PRook,
    /// +B
    PBishop,
    /// +S
    PSilver,
    /// +L
    PLance,
    /// +P
    PPawn,
}

/// Number of kinds, promoted included.
pub const KIND_COUNT: usize = 14;

impl Kind {
    /// All kinds, unpromoted first.
    pub const ALL: [Kind; KIND_COUNT] = [
        Kind::King,
        Kind::Rook,
        Kind::Bishop,
        Kind::Gold,
        Kind::Silver,
        Kind::Knight,
        Kind::Lance,
        Kind::Pawn,
        Kind::PKing,
        Kind::PRook,
        Kind::PBishop,
        Kind::PSilver,
        Kind::PLance,
        Kind::PPawn,
    ];

    /// Kinds that can be in hand, in R32 order: R B G S N L P.
    pub const HAND: [Kind; 7] = [
        Kind::Rook,
        Kind::Bishop,
        Kind::Gold,
        Kind::Silver,
        Kind::Knight,
        Kind::Lance,
        Kind::Pawn,
    ];

    /// 0–13.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The kind with this index (0–13).
    #[inline]
    pub const fn from_index(i: usize) -> Kind {
        Kind::ALL[i]
    }

    /// Whether this is a promoted kind.
    #[inline]
    pub const fn is_promoted(self) -> bool {
        self as usize >= 8
    }

    /// The promoted kind, for K R B S L P (R18).
    pub const fn promoted(self) -> Option<Kind> {
        match self {
            Kind::King => Some(Kind::PKing),
            Kind::Rook => Some(Kind::PRook),
            Kind::Bishop => Some(Kind::PBishop),
            Kind::Silver => Some(Kind::PSilver),
            Kind::Lance => Some(Kind::PLance),
            Kind::Pawn => Some(Kind::PPawn),
            _ => None,
        }
    }

    /// The unpromoted kind (R14: captured pieces go to hand unpromoted).
    pub const fn unpromoted(self) -> Kind {
        match self {
            Kind::PKing => Kind::King,
            Kind::PRook => Kind::Rook,
            Kind::PBishop => Kind::Bishop,
            Kind::PSilver => Kind::Silver,
            Kind::PLance => Kind::Lance,
            Kind::PPawn => Kind::Pawn,
            k => k,
        }
    }

    /// Whether this is a king, promoted or not.
    #[inline]
    pub const fn is_king(self) -> bool {
        matches!(self, Kind::King | Kind::PKing)
    }

    /// The letter of the unpromoted kind.
    pub const fn letter(self) -> char {
        match self.unpromoted() {
            Kind::King => 'K',
            Kind::Rook => 'R',
            Kind::Bishop => 'B',
            Kind::Gold => 'G',
            Kind::Silver => 'S',
            Kind::Knight => 'N',
            Kind::Lance => 'L',
            _ => 'P',
        }
    }

    /// The unpromoted kind written with this letter.
    pub const fn from_letter(c: char) -> Option<Kind> {
        Some(match c {
            'K' => Kind::King,
            'R' => Kind::Rook,
            'B' => Kind::Bishop,
            'G' => Kind::Gold,
            'S' => Kind::Silver,
            'N' => Kind::Knight,
            'L' => Kind::Lance,
            'P' => Kind::Pawn,
            _ => return None,
        })
    }

    /// Lowercase English name, e.g. `rook`, `promoted pawn`.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::King => "king",
            Kind::Rook => "rook",
            Kind::Bishop => "bishop",
            Kind::Gold => "gold",
            Kind::Silver => "silver",
            Kind::Knight => "knight",
            Kind::Lance => "lance",
            Kind::Pawn => "pawn",
            Kind::PKing => "promoted king",
            Kind::PRook => "promoted rook",
            Kind::PBishop => "promoted bishop",
            Kind::PSilver => "promoted silver",
            Kind::PLance => "promoted lance",
            Kind::PPawn => "promoted pawn",
        }
    }

    /// Position in the R32 hand order (R B G S N L P), for hand kinds.
    pub(crate) const fn hand_index(self) -> usize {
        self.unpromoted() as usize - 1
    }
}

/// A piece: a kind and its owner.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Piece {
    /// What it is.
    pub kind: Kind,
    /// Whose it is; it faces away from its owner (R7).
    pub owner: Player,
}

impl Piece {
    /// Mailbox code: `kind * 3 + owner`, 0–41.
    #[inline]
    pub(crate) const fn code(self) -> u8 {
        self.kind as u8 * 3 + self.owner as u8
    }

    #[inline]
    pub(crate) const fn from_code(code: u8) -> Piece {
        Piece {
            kind: Kind::ALL[(code / 3) as usize],
            owner: Player::from_index((code % 3) as usize),
        }
    }
}

impl fmt::Display for Piece {
    /// The R32 token, e.g. `Pm`, `+Rf`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.kind.is_promoted() {
            f.write_str("+")?;
        }
        write!(f, "{}{}", self.kind.letter(), self.owner.letter())
    }
}

//! Errors of the rules engine: bad notation and illegal actions, each with a stable code.

use std::fmt;

/// A field of the position string (R32).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PositionField {
    /// The string as a whole (field count, spacing).
    Whole,
    /// Field 1.
    Board,
    /// Field 2.
    ToMove,
    /// Field 3.
    Hands,
    /// Field 4.
    Alliance,
    /// Field 5.
    Castling,
    /// Field 6.
    Ply,
}

impl PositionField {
    /// Stable name of the field.
    pub const fn name(self) -> &'static str {
        match self {
            PositionField::Whole => "position",
            PositionField::Board => "board",
            PositionField::ToMove => "player to move",
            PositionField::Hands => "hands",
            PositionField::Alliance => "alliance",
            PositionField::Castling => "castling rights",
            PositionField::Ply => "ply",
        }
    }
}

/// Why a position string was rejected: which field, where, and why.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PositionError {
    /// The field at fault.
    pub field: PositionField,
    /// Character offset (0-based) in the whole string where the problem was found.
    pub offset: usize,
    /// What is wrong, in words.
    pub reason: String,
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid position string: {} field, at character {}: {}",
            self.field.name(),
            self.offset + 1,
            self.reason
        )
    }
}

impl std::error::Error for PositionError {}

/// Why a move string could not be read (R33).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct MoveParseError {
    /// Character offset (0-based) where the problem was found.
    pub offset: usize,
    /// What is wrong, in words.
    pub reason: String,
}

impl fmt::Display for MoveParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid move string at character {}: {}",
            self.offset + 1,
            self.reason
        )
    }
}

impl std::error::Error for MoveParseError {}

/// The kind of reason an action was refused. The code strings are stable.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum IllegalKind {
    /// The game is over.
    GameOver,
    /// It is another player's turn.
    NotYourTurn,
    /// The move string could not be read.
    Malformed,
    /// No piece on the from-cell.
    NoPiece,
    /// The piece on the from-cell belongs to someone else.
    NotYourPiece,
    /// The destination holds one of the mover's own pieces.
    OwnPiece,
    /// Kings are never captured (R12).
    CannotCaptureKing,
    /// The piece does not move that way (§4).
    Unreachable,
    /// A ranging move is blocked by a piece on the way.
    PathBlocked,
    /// Castling conditions (R21) are not met.
    CastlingNotAllowed,
    /// The mover's king would be in check (R23a).
    LeavesKingInCheck,
    /// The mover would check its ally (R23b).
    ChecksAlly,
    /// No such piece in hand (R15).
    NotInHand,
    /// Drops go to empty cells (R15).
    DropOnOccupied,
    /// Pawns and lances may not be dropped on the far edge (R16).
    DropOnFarEdge,
    /// The piece cannot promote (R18).
    CannotPromote,
    /// Neither cell is in the promotion zone (R17, R18).
    PromotionNotPossible,
    /// The move must promote (R19).
    PromotionRequired,
    /// Illumination needs the mover's promoted king (R24).
    CannotIlluminate,
    /// A listed cell is not a candidate target (R24).
    NotATarget,
    /// The target is protected (R24).
    TargetProtected,
    /// With `illumination=all`, every candidate must be taken (R24).
    MustIlluminateAll,
    /// An alliance cannot be formed now (R29).
    AllianceNotAllowed,
    /// The player is not in the game.
    NotPlaying,
}

impl IllegalKind {
    /// Stable machine-readable code.
    pub const fn code(self) -> &'static str {
        match self {
            IllegalKind::GameOver => "game_over",
            IllegalKind::NotYourTurn => "not_your_turn",
            IllegalKind::Malformed => "malformed_move",
            IllegalKind::NoPiece => "no_piece",
            IllegalKind::NotYourPiece => "not_your_piece",
            IllegalKind::OwnPiece => "own_piece_on_target",
            IllegalKind::CannotCaptureKing => "cannot_capture_king",
            IllegalKind::Unreachable => "unreachable",
            IllegalKind::PathBlocked => "path_blocked",
            IllegalKind::CastlingNotAllowed => "castling_not_allowed",
            IllegalKind::LeavesKingInCheck => "king_in_check",
            IllegalKind::ChecksAlly => "checks_ally",
            IllegalKind::NotInHand => "not_in_hand",
            IllegalKind::DropOnOccupied => "drop_on_occupied",
            IllegalKind::DropOnFarEdge => "drop_on_far_edge",
            IllegalKind::CannotPromote => "cannot_promote",
            IllegalKind::PromotionNotPossible => "promotion_not_possible",
            IllegalKind::PromotionRequired => "promotion_required",
            IllegalKind::CannotIlluminate => "cannot_illuminate",
            IllegalKind::NotATarget => "not_an_illumination_target",
            IllegalKind::TargetProtected => "target_protected",
            IllegalKind::MustIlluminateAll => "must_illuminate_all",
            IllegalKind::AllianceNotAllowed => "alliance_not_allowed",
            IllegalKind::NotPlaying => "not_playing",
        }
    }
}

/// An action the rules refuse, with a stable code and a reason in words.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Illegal {
    /// What kind of refusal.
    pub kind: IllegalKind,
    /// Why, in words a player understands.
    pub message: String,
}

impl Illegal {
    pub(crate) fn new(kind: IllegalKind, message: impl Into<String>) -> Illegal {
        Illegal {
            kind,
            message: message.into(),
        }
    }

    /// Stable machine-readable code.
    pub fn code(&self) -> &'static str {
        self.kind.code()
    }
}

impl fmt::Display for Illegal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Illegal {}

//! Explaining why a move is illegal, in words and with a stable code.

use super::bitboard::Bitboard;
use super::cell::Cell;
use super::error::{Illegal, IllegalKind as K};
use super::movegen::{illumination_candidates, legal_after};
use super::moves::{Move, Targets};
use super::options::{Illumination, StuckPiece};
use super::piece::{Kind, Piece};
use super::player::Player;
use super::position::Position;
use super::tables::{self, attacks, FAR_EDGE, RAYS, TERRITORY};

/// Why `mv` is not among the legal moves of `us`.
pub(crate) fn why_illegal(pos: &Position, us: Player, mv: Move) -> Illegal {
    match mv {
        Move::Board { from, to, promote } => board_move(pos, us, from, to, promote),
        Move::Drop { kind, to } => drop(pos, us, kind, to),
        Move::Illuminate { king, targets } => illuminate(pos, us, king, targets),
    }
    .err()
    .unwrap_or_else(|| Illegal::new(K::Unreachable, format!("{mv} is not a legal move here")))
}

fn safety(pos: &Position, us: Player, mv: Move) -> Result<(), Illegal> {
    let mut p = *pos;
    super::movegen::make_raw::<false>(&mut p, us, mv);
    if p.in_check(us) {
        return Err(Illegal::new(
            K::LeavesKingInCheck,
            "it would leave your king in check",
        ));
    }
    if !legal_after(pos, us, mv) {
        return Err(Illegal::new(K::ChecksAlly, "it would check your ally"));
    }
    Ok(())
}

fn board_move(
    pos: &Position,
    us: Player,
    from: Cell,
    to: Cell,
    promote: bool,
) -> Result<(), Illegal> {
    let Some(piece) = pos.piece_at(from) else {
        return Err(Illegal::new(
            K::NoPiece,
            format!("there is no piece on {from}"),
        ));
    };
    if piece.owner != us {
        return Err(Illegal::new(
            K::NotYourPiece,
            format!(
                "no piece of yours on {from}: the {} there is {}'s",
                piece.kind.name(),
                piece.owner
            ),
        ));
    }
    if let Some(target) = pos.piece_at(to) {
        if target.owner == us {
            return Err(Illegal::new(
                K::OwnPiece,
                format!("{to} holds your own {}", target.kind.name()),
            ));
        }
        if target.kind.is_king() {
            return Err(Illegal::new(
                K::CannotCaptureKing,
                format!(
                    "a king is never captured ({to} holds {}'s king)",
                    target.owner
                ),
            ));
        }
    }
    let name = piece.kind.name();
    let occ = pos.occ();
    let reach = attacks(piece, from, occ);
    let castling =
        piece.kind.is_king() && TERRITORY[us.index()].contains(to) && reach >> to.index() & 1 == 0;
    if castling {
        if !pos.castling().contains(us) {
            return Err(Illegal::new(K::CastlingNotAllowed, "your king can no longer castle: it has moved, been in check, or an alliance has formed (R21)"));
        }
        if pos.in_check(us) {
            return Err(Illegal::new(
                K::CastlingNotAllowed,
                "a king in check cannot castle (R21)",
            ));
        }
    } else if reach >> to.index() & 1 == 0 {
        let empty_reach = attacks(piece, from, 0);
        if empty_reach >> to.index() & 1 != 0 {
            let d = (0..12)
                .find(|&d| RAYS[d][from.index()] >> to.index() & 1 != 0)
                .unwrap_or(0);
            let at =
                tables::first_blocker(d, from.index(), occ).map(|b| Cell::new_unchecked(b as u8));
            if let Some(at) = at {
                return Err(Illegal::new(
                    K::PathBlocked,
                    format!("the path of your {name} is blocked at {at}"),
                ));
            }
        }
        return Err(Illegal::new(
            K::Unreachable,
            format!("your {name} on {from} cannot reach {to}"),
        ));
    }
    let kind = piece.kind;
    if promote {
        if kind.promoted().is_none() {
            return Err(Illegal::new(
                K::CannotPromote,
                if kind.is_promoted() {
                    format!("your {name} is already promoted")
                } else {
                    format!("a {name} never promotes")
                },
            ));
        }
        let zone = pos.zone(us, kind != Kind::King);
        let forced = forced(pos, us, kind, to);
        if zone >> from.index() & 1 == 0 && zone >> to.index() & 1 == 0 && !forced {
            return Err(Illegal::new(
                K::PromotionNotPossible,
                format!("promotion is not possible here: neither {from} nor {to} is in your promotion zone"),
            ));
        }
    } else if forced(pos, us, kind, to) {
        return Err(Illegal::new(
            K::PromotionRequired,
            format!(
                "promotion is required here: a {name} on {to} would have no further move (R19)"
            ),
        ));
    }
    safety(pos, us, Move::Board { from, to, promote })
}

fn forced(pos: &Position, us: Player, kind: Kind, to: Cell) -> bool {
    matches!(kind, Kind::Pawn | Kind::Lance)
        && pos.options().stuck_piece == StuckPiece::Promote
        && FAR_EDGE[us.index()].contains(to)
}

fn drop(pos: &Position, us: Player, kind: Kind, to: Cell) -> Result<(), Illegal> {
    if pos.hand_count(us, kind) == 0 {
        return Err(Illegal::new(
            K::NotInHand,
            format!("you have no {} in hand", kind.name()),
        ));
    }
    if let Some(p) = pos.piece_at(to) {
        return Err(Illegal::new(
            K::DropOnOccupied,
            format!(
                "{to} is not empty: {}'s {} stands there",
                p.owner,
                p.kind.name()
            ),
        ));
    }
    if matches!(kind, Kind::Pawn | Kind::Lance) && FAR_EDGE[us.index()].contains(to) {
        return Err(Illegal::new(
            K::DropOnFarEdge,
            format!("pawns and lances cannot be dropped on your far edge ({to}) (R16)"),
        ));
    }
    safety(pos, us, Move::Drop { kind, to })
}

fn illuminate(pos: &Position, us: Player, king: Cell, targets: Targets) -> Result<(), Illegal> {
    let ok_king = pos.piece_at(king)
        == Some(Piece {
            kind: Kind::PKing,
            owner: us,
        });
    if !ok_king {
        return Err(Illegal::new(
            K::CannotIlluminate,
            format!("only your promoted king illuminates, and it is not on {king}"),
        ));
    }
    let cand = Bitboard(illumination_candidates(pos, us));
    let occ = pos.occ();
    for &t in targets.cells() {
        if cand.contains(t) {
            continue;
        }
        let first_on_ray =
            (0..12).any(|d| tables::first_blocker(d, king.index(), occ) == Some(t.index()));
        let msg = match pos.piece_at(t) {
            None => format!("{t} is empty"),
            Some(p) if p.owner == us => format!("{t} holds your own piece"),
            Some(p) if p.kind.is_king() => format!("a king is never captured ({t})"),
            Some(_) if !first_on_ray => {
                format!("{t} is not the first piece on a line from your king")
            }
            Some(_) => {
                return Err(Illegal::new(
                    K::TargetProtected,
                    format!("illumination target {t} is protected"),
                ));
            }
        };
        return Err(Illegal::new(K::NotATarget, msg));
    }
    if pos.options().illumination == Illumination::All && targets.to_bitboard() != cand {
        let all: Vec<String> = cand.map(|c| c.to_string()).collect();
        return Err(Illegal::new(
            K::MustIlluminateAll,
            format!("illumination must take every candidate: {}", all.join(",")),
        ));
    }
    safety(pos, us, Move::Illuminate { king, targets })
}

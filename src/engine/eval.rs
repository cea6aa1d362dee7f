//! The evaluation: material on the board and in hand, promotions, the kings'
//! safety and the Garden (R26), and the alliance, as seen by one player.

use crate::rules::{Cell, Kind, Outcome, Player, Position, GARDEN};

/// A won game; wins sooner score higher (`MATE - ply`).
pub const MATE: i32 = 1_000_000;

/// What a piece on the board is worth, in hundredths of a pawn. The king
/// counts through the player being alive, not as material.
pub const fn piece_value(kind: Kind) -> i32 {
    match kind {
        Kind::King => 0,
        Kind::Pawn => 100,
        Kind::Lance => 300,
        Kind::Knight => 350,
        Kind::Silver => 450,
        Kind::Gold => 500,
        Kind::Bishop => 800,
        Kind::Rook => 1000,
        // A promoted king (R20) captures by illumination (R24–R25).
        Kind::PKing => 400,
        Kind::PPawn | Kind::PLance => 480,
        Kind::PSilver => 500,
        Kind::PBishop => 1050,
        Kind::PRook => 1250,
    }
}

/// A piece in hand can be dropped anywhere (R15): nearly as good as on the
/// board, in its unpromoted form.
const fn hand_value(kind: Kind) -> i32 {
    piece_value(kind) * 9 / 10
}

/// Steps between two cells of the hexagonal board, in the axial coordinates
/// column and rank (R2: a cell exists where `-5 ≤ column − rank ≤ 7`).
fn distance(a: Cell, b: Cell) -> i32 {
    let (dc, dr) = (a.col() - b.col(), a.rank() - b.rank());
    dc.abs().max(dr.abs()).max((dc - dr).abs())
}

/// R26: what a king near the Garden threatens. Next to it, with the Garden
/// neither guarded by another player's piece nor held by one of its own,
/// it wins on its next move unless stopped: nearly a queen's worth more.
fn garden_threat(pos: &Position, p: Player, king: Cell) -> i32 {
    match distance(king, GARDEN) {
        1 => {
            let held = pos.piece_at(GARDEN).is_some_and(|q| q.owner == p);
            let guarded = Player::ALL.into_iter().filter(|q| *q != p).any(|q| {
                let mut pieces = pos.pieces_of(q);
                Iterator::any(&mut pieces, |c| pos.attacks_from(c).contains(GARDEN))
            });
            if held || guarded {
                150
            } else {
                1_500
            }
        }
        2 => 250,
        3 => 60,
        _ => 0,
    }
}

/// One player's standing: material, and its king's safety and Garden threat.
fn standing(pos: &Position, p: Player) -> i32 {
    let mut score = 0;
    for cell in pos.pieces_of(p) {
        if let Some(piece) = pos.piece_at(cell) {
            score += piece_value(piece.kind);
        }
    }
    for kind in Kind::HAND {
        score += hand_value(kind) * i32::from(pos.hand_count(p, kind));
    }
    if let Some(king) = pos.king(p) {
        // R26: a king that reaches the Garden while not allied wins.
        let allied = pos.alliance().is_some_and(|a| a.contains(p));
        if !allied {
            score += garden_threat(pos, p, king);
        }
        if pos.in_check(p) {
            score -= 150;
        }
        // Own pieces next to the king shelter it.
        let shelter = pos
            .pieces_of(p)
            .filter(|c| *c != king && distance(*c, king) == 1)
            .count() as i32;
        score += 15 * shelter.min(4);
    }
    score
}

/// The position as `me` sees it, in hundredths of a pawn: its own standing
/// against the mean of its enemies' (the living players it is not allied
/// with). A finished game is `±MATE` (less the ply, so sooner is better) or 0.
pub fn evaluate(pos: &Position, me: Player) -> i32 {
    if let Some(outcome) = pos.outcome() {
        let ply = pos.ply() as i32;
        return match outcome {
            Outcome::Win(w, _) if w == me => MATE - ply,
            Outcome::Win(..) => -MATE + ply,
            Outcome::Draw(players, _) if players.contains(me) => 0,
            Outcome::Draw(..) => -MATE + ply,
        };
    }
    if !pos.is_alive(me) {
        return -MATE + pos.ply() as i32;
    }
    let ally = pos.alliance().and_then(|a| a.ally_of(me));
    let (mut against, mut enemies) = (0, 0);
    for p in pos.living().iter().filter(|p| *p != me && Some(*p) != ally) {
        against += standing(pos, p);
        enemies += 1;
    }
    // An ally's fall ends the game against both (R28): its standing counts
    // as one's own.
    let mine = standing(pos, me) + ally.map_or(0, |a| standing(pos, a));
    if enemies == 0 {
        return mine;
    }
    mine - against / enemies
}

/// Whether `me` accepts a draw (R36): unless it stands better than its
/// enemies.
pub fn accepts_draw(pos: &Position, me: Player) -> bool {
    evaluate(pos, me) <= 0
}

/// Whether `me` accepts an alliance with `proposer` against the third
/// player, judged by each one's standing: never when `me` stands best of the
/// three (it needs no one); always when it stands worst; otherwise only
/// against the leader (two weaker players ganging up on the strongest).
pub fn accepts_alliance(pos: &Position, me: Player, proposer: Player) -> bool {
    let Some(third) = Player::ALL.into_iter().find(|p| *p != me && *p != proposer) else {
        return false;
    };
    if me == proposer || pos.living().len() < 3 {
        return false;
    }
    let (m, p, t) = (
        standing(pos, me),
        standing(pos, proposer),
        standing(pos, third),
    );
    if m >= p && m >= t {
        return false;
    }
    m < p.min(t) || t >= p
}

//! Reading position strings (R32). Printing lives with [`Position`]'s `Display`.

use super::cell::{Cell, GARDEN};
use super::error::{PositionError, PositionField};
use super::piece::{Kind, Piece};
use super::player::{Alliance, Player, PlayerSet};
use super::position::{DrawReason, Outcome, Position, WinReason};

/// How many of each unpromoted kind the three sets hold together (R10).
const TOTALS: [(Kind, u32); 8] = [
    (Kind::King, 3),
    (Kind::Rook, 3),
    (Kind::Bishop, 3),
    (Kind::Gold, 6),
    (Kind::Silver, 6),
    (Kind::Knight, 3),
    (Kind::Lance, 6),
    (Kind::Pawn, 24),
];

fn fail<T>(
    field: PositionField,
    offset: usize,
    reason: impl Into<String>,
) -> Result<T, PositionError> {
    Err(PositionError {
        field,
        offset,
        reason: reason.into(),
    })
}

pub(crate) fn parse_position(s: &str) -> Result<Position, PositionError> {
    use PositionField as F;
    if let Some((i, c)) = s
        .char_indices()
        .find(|(_, c)| !c.is_ascii_graphic() && *c != ' ')
    {
        return fail(
            F::Whole,
            s[..i].chars().count(),
            format!("unexpected character {c:?}; position strings are ASCII"),
        );
    }
    // Fields and the byte offset each starts at.
    let mut fields: Vec<(usize, &str)> = Vec::with_capacity(6);
    let mut start = 0;
    for (i, part) in s.split(' ').enumerate() {
        if part.is_empty() {
            return fail(
                F::Whole,
                start,
                if i == 0 && s.is_empty() {
                    "the position string is empty".to_string()
                } else {
                    "fields are separated by exactly one space".to_string()
                },
            );
        }
        fields.push((start, part));
        start += part.len() + 1;
    }
    if fields.len() != 6 {
        return fail(
            F::Whole,
            0,
            format!(
                "expected 6 fields (board, player to move, hands, alliance, castling rights, ply), found {}",
                fields.len()
            ),
        );
    }
    let mut pos = Position::empty();
    parse_board(&mut pos, fields[0].0, fields[0].1)?;

    let (o, f) = fields[1];
    pos.to_move = match f {
        "-" => None,
        _ => match f.chars().next().and_then(Player::from_letter) {
            Some(p) if f.len() == 1 => Some(p),
            _ => {
                return fail(
                    F::ToMove,
                    o,
                    format!("expected `f`, `m`, `l` or `-`, found `{f}`"),
                )
            }
        },
    };

    parse_hands(&mut pos, fields[2].0, fields[2].1)?;

    let (o, f) = fields[3];
    pos.alliance = match f {
        "-" => None,
        _ => match Alliance::parse(f) {
            Some(a) => Some(a),
            None => {
                return fail(
                    F::Alliance,
                    o,
                    format!("expected `-`, `fm`, `fl` or `ml`, found `{f}`"),
                )
            }
        },
    };

    let (o, f) = fields[4];
    if f != "-" {
        let mut last = None;
        for (i, c) in f.char_indices() {
            let Some(p) = Player::from_letter(c) else {
                return fail(
                    F::Castling,
                    o + i,
                    format!("`{c}` is not a player letter (f, m, l)"),
                );
            };
            if last.is_some_and(|l| l >= p) {
                return fail(
                    F::Castling,
                    o + i,
                    "castling owners are listed once each, in the order f, m, l",
                );
            }
            last = Some(p);
            pos.castling.insert(p);
        }
    }

    let (o, f) = fields[5];
    if !f.bytes().all(|b| b.is_ascii_digit()) || f.starts_with('0') {
        return fail(
            F::Ply,
            o,
            format!("the ply is a whole number from 1, found `{f}`"),
        );
    }
    pos.ply = match f.parse::<u32>() {
        Ok(n) => n,
        Err(_) => return fail(F::Ply, o, "the ply is too large"),
    };

    validate(&pos, &fields)?;
    pos.outcome = infer_outcome(&pos);
    Ok(pos)
}

fn parse_board(pos: &mut Position, base: usize, f: &str) -> Result<(), PositionError> {
    let ranks: Vec<&str> = f.split('/').collect();
    if ranks.len() != 13 {
        return fail(
            PositionField::Board,
            base,
            format!(
                "the board has 13 ranks separated by `/`, found {}",
                ranks.len()
            ),
        );
    }
    let mut offset = base;
    let mut idx = 0usize;
    for (r, rank) in ranks.iter().enumerate() {
        let len = if r <= 6 { 7 + r } else { 19 - r };
        let rank_name = (b'a' + r as u8) as char;
        let b = rank.as_bytes();
        let mut i = 0;
        let mut filled = 0;
        while i < b.len() {
            let at = offset + i;
            if b[i].is_ascii_digit() {
                let mut j = i;
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
                let n: usize = rank[i..j].parse().unwrap_or(usize::MAX);
                if b[i] == b'0' || !(1..=13).contains(&n) {
                    return fail(
                        PositionField::Board,
                        at,
                        format!("`{}` is not a count of empty cells (1–13)", &rank[i..j]),
                    );
                }
                filled += n;
                i = j;
            } else {
                let promoted = b[i] == b'+';
                let k = i + promoted as usize;
                let Some(kind) = b.get(k).and_then(|c| Kind::from_letter(*c as char)) else {
                    return fail(
                        PositionField::Board,
                        offset + k,
                        match b.get(k) {
                            Some(c) => {
                                format!("`{}` is not a piece letter (K R B G S N L P)", *c as char)
                            }
                            None => "a piece letter must follow `+`".to_string(),
                        },
                    );
                };
                let Some(owner) = b.get(k + 1).and_then(|c| Player::from_letter(*c as char)) else {
                    return fail(
                        PositionField::Board,
                        offset + k + 1,
                        "a piece letter must be followed by its owner `f`, `m` or `l`",
                    );
                };
                let kind = if promoted {
                    match kind.promoted() {
                        Some(p) => p,
                        None => {
                            return fail(
                                PositionField::Board,
                                at,
                                format!("a {} cannot be promoted", kind.name()),
                            )
                        }
                    }
                } else {
                    kind
                };
                if filled >= len {
                    return fail(
                        PositionField::Board,
                        at,
                        format!("rank {rank_name} has only {len} cells"),
                    );
                }
                let cell = Cell::from_index(idx + filled).expect("within the board");
                pos.put(cell, Piece { kind, owner });
                filled += 1;
                i = k + 2;
            }
        }
        if filled != len {
            return fail(
                PositionField::Board,
                offset,
                format!("rank {rank_name} has {len} cells, but this describes {filled}"),
            );
        }
        idx += len;
        offset += rank.len() + 1;
    }
    Ok(())
}

fn parse_hands(pos: &mut Position, base: usize, f: &str) -> Result<(), PositionError> {
    if f == "-" {
        return Ok(());
    }
    let b = f.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let at = base + i;
        let mut j = i;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        let count: u32 = if j == i {
            1
        } else {
            match f[i..j].parse::<u32>() {
                Ok(n) if n >= 1 && b[i] != b'0' => n,
                _ => {
                    return fail(
                        PositionField::Hands,
                        at,
                        format!("`{}` is not a piece count", &f[i..j]),
                    )
                }
            }
        };
        let kind = match b.get(j).and_then(|c| Kind::from_letter(*c as char)) {
            Some(Kind::King) => {
                return fail(PositionField::Hands, base + j, "a king is never in hand")
            }
            Some(k) => k,
            None => {
                return fail(
                    PositionField::Hands,
                    base + j,
                    match b.get(j) {
                        Some(c) => {
                            format!("`{}` is not a piece letter (R B G S N L P)", *c as char)
                        }
                        None => "a piece letter is missing".to_string(),
                    },
                )
            }
        };
        let Some(owner) = b.get(j + 1).and_then(|c| Player::from_letter(*c as char)) else {
            return fail(
                PositionField::Hands,
                base + j + 1,
                "a piece letter must be followed by its owner `f`, `m` or `l`",
            );
        };
        let slot = &mut pos.hands[owner.index()][kind.hand_index()];
        if *slot != 0 {
            return fail(
                PositionField::Hands,
                at,
                format!("{}{} is listed twice", kind.letter(), owner.letter()),
            );
        }
        if count > 24 {
            return fail(
                PositionField::Hands,
                at,
                format!("there are not {count} of that piece in the game"),
            );
        }
        *slot = count as u8;
        i = j + 2;
    }
    Ok(())
}

/// Checks that the parts fit together into a position that can arise.
fn validate(pos: &Position, fields: &[(usize, &str)]) -> Result<(), PositionError> {
    use PositionField as F;
    for p in Player::ALL {
        let kings = (pos.kings() & pos.by_player[p.index()]).count_ones();
        if kings > 1 {
            return fail(F::Board, fields[0].0, format!("{p} has {kings} kings"));
        }
        let has_material =
            pos.by_player[p.index()] != 0 || pos.hands[p.index()].iter().any(|n| *n > 0);
        if kings == 0 && has_material {
            return fail(
                F::Board,
                fields[0].0,
                format!("{p} has pieces but no king; an eliminated player's pieces leave the game"),
            );
        }
    }
    for (kind, total) in TOTALS {
        let mut n = 0u32;
        for k in [Some(kind), kind.promoted()].into_iter().flatten() {
            n += pos.by_kind[k.index()].count_ones();
        }
        if kind != Kind::King {
            n += Player::ALL
                .iter()
                .map(|p| pos.hands[p.index()][kind.hand_index()] as u32)
                .sum::<u32>();
        }
        if n > total {
            return fail(
                F::Whole,
                0,
                format!(
                    "there are {n} {}s on the board and in hand, but the game has only {total}",
                    kind.name()
                ),
            );
        }
    }
    let living = pos.living();
    if let Some(p) = pos.to_move {
        if !living.contains(p) {
            return fail(
                F::ToMove,
                fields[1].0,
                format!("{p} is to move but has no king"),
            );
        }
        if living.len() < 2 {
            return fail(
                F::ToMove,
                fields[1].0,
                "only one player is left, so the game is over and the player to move is `-`",
            );
        }
    }
    if let Some(a) = pos.alliance {
        if pos.to_move.is_some() && living.len() < 3 {
            return fail(
                F::Alliance,
                fields[3].0,
                "an alliance exists only while all three players are in the game",
            );
        }
        if !pos.castling.is_empty() {
            return fail(
                F::Castling,
                fields[4].0,
                "nobody may castle once an alliance has formed (R21c)",
            );
        }
        let third = a.third();
        if let Some(k) = pos.king(third) {
            if pos.piece_at(k).is_some_and(|p| p.kind == Kind::King) {
                return fail(
                    F::Alliance,
                    fields[3].0,
                    format!(
                        "{third} stands alone against the alliance, so its king is promoted (R20)"
                    ),
                );
            }
        }
    }
    for p in pos.castling.iter() {
        if !living.contains(p) {
            return fail(
                F::Castling,
                fields[4].0,
                format!("{p} has no king, so it cannot castle"),
            );
        }
    }
    Ok(())
}

/// Who won a finished game, as far as the position shows it.
fn infer_outcome(pos: &Position) -> Option<Outcome> {
    if pos.to_move.is_some() {
        return None;
    }
    let living = pos.living();
    if living.len() == 1 {
        return living
            .iter()
            .next()
            .map(|p| Outcome::Win(p, WinReason::LastPlayerStanding));
    }
    if let Some(a) = pos.alliance {
        if a.members().iter().any(|p| !living.contains(p)) && living.contains(a.third()) {
            return Some(Outcome::Win(a.third(), WinReason::AllyEliminated));
        }
    }
    if let Some(piece) = pos.piece_at(GARDEN) {
        if piece.kind.is_king() && !pos.alliance.is_some_and(|a| a.contains(piece.owner)) {
            return Some(Outcome::Win(piece.owner, WinReason::Garden));
        }
    }
    // A position string cannot tell an agreed draw (R36) from a repetition;
    // the stored outcome beside it does.
    Some(Outcome::Draw(
        if living.is_empty() {
            PlayerSet::EMPTY
        } else {
            living
        },
        DrawReason::Repetition,
    ))
}

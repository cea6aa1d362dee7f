//! Moves and their notation (R25, R33).

use super::bitboard::Bitboard;
use super::cell::Cell;
use super::error::MoveParseError;
use super::piece::Kind;
use std::fmt;

/// A move: a board move (castling included), a drop, or an illumination.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Move {
    /// `<from><to>[+]`.
    Board {
        /// Where the piece stands.
        from: Cell,
        /// Where it goes (capturing what stands there).
        to: Cell,
        /// Whether it promotes.
        promote: bool,
    },
    /// `<piece>*<to>` (R15).
    Drop {
        /// The unpromoted kind dropped.
        kind: Kind,
        /// An empty cell.
        to: Cell,
    },
    /// `<king cell>!<target>,<target>…` (R24, R25).
    Illuminate {
        /// The promoted king's cell.
        king: Cell,
        /// The captured cells.
        targets: Targets,
    },
}

/// Up to twelve cells (one per hour), kept in reading order (R25).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Targets {
    len: u8,
    cells: [Cell; 12],
}

impl Targets {
    /// The cells of a set of at most twelve cells; `None` if it has more.
    pub fn from_bitboard(bb: Bitboard) -> Option<Targets> {
        if bb.count() > 12 {
            return None;
        }
        let mut t = Targets {
            len: 0,
            cells: [Cell::new_unchecked(0); 12],
        };
        for c in bb {
            t.cells[t.len as usize] = c;
            t.len += 1;
        }
        Some(t)
    }

    /// The cells in reading order.
    pub fn cells(&self) -> &[Cell] {
        &self.cells[..self.len as usize]
    }

    /// The cells as a set.
    pub fn to_bitboard(&self) -> Bitboard {
        let mut bb = Bitboard::EMPTY;
        for c in self.cells() {
            bb.insert(*c);
        }
        bb
    }
}

impl Move {
    /// Parses a move string (R33). Checks syntax only; legality is the position's business.
    /// Never panics.
    /// The longest move string R33 writes is an illumination of twelve
    /// targets (`13m!` and twelve three-character cells with commas: 51); a
    /// longer string is refused without reading it.
    pub const MAX_NOTATION_LEN: usize = 64;

    pub fn parse(s: &str) -> Result<Move, MoveParseError> {
        let err = |offset: usize, reason: String| Err(MoveParseError { offset, reason });
        if s.is_empty() {
            return err(0, "the move is empty".into());
        }
        if s.len() > Self::MAX_NOTATION_LEN {
            return err(
                Self::MAX_NOTATION_LEN,
                format!("a move is at most {} characters", Self::MAX_NOTATION_LEN),
            );
        }
        if let Some(i) = s.find(|c: char| !c.is_ascii_graphic()) {
            return err(
                s[..i].chars().count(),
                "moves are written in ASCII letters, digits and `+*!,` without spaces".into(),
            );
        }
        let b = s.as_bytes();
        // Drop: `P*7g`.
        if b.len() >= 2 && b[1] == b'*' {
            let kind = match Kind::from_letter(b[0] as char) {
                Some(Kind::King) => return err(0, "a king cannot be dropped".into()),
                Some(k) => k,
                None => {
                    return err(
                        0,
                        format!("`{}` is not a piece letter (R B G S N L P)", b[0] as char),
                    )
                }
            };
            let (to, end) = read_cell(s, 2)?;
            if end != b.len() {
                return err(end, "unexpected text after the drop".into());
            }
            return Ok(Move::Drop { kind, to });
        }
        let (from, end) = read_cell(s, 0)?;
        match b.get(end) {
            Some(b'!') => {
                let mut bb = Bitboard::EMPTY;
                let mut pos = end + 1;
                loop {
                    let (c, e) = read_cell(s, pos)?;
                    if bb.contains(c) {
                        return err(pos, format!("target {c} is listed twice"));
                    }
                    bb.insert(c);
                    match b.get(e) {
                        None => break,
                        Some(b',') => pos = e + 1,
                        Some(_) => {
                            return err(e, "expected `,` between illumination targets".into())
                        }
                    }
                }
                let Some(targets) = Targets::from_bitboard(bb) else {
                    return err(end, "at most twelve illumination targets".into());
                };
                Ok(Move::Illuminate {
                    king: from,
                    targets,
                })
            }
            Some(_) => {
                let (to, e) = read_cell(s, end)?;
                let promote = match &b[e..] {
                    [] => false,
                    [b'+'] => true,
                    _ => return err(e, "only `+` (promote) may follow the destination".into()),
                };
                if from == to {
                    return err(
                        end,
                        "the destination is the cell the piece stands on".into(),
                    );
                }
                Ok(Move::Board { from, to, promote })
            }
            None => err(
                end,
                "a destination cell, `!` (illumination) is missing".into(),
            ),
        }
    }
}

/// Reads a cell name at byte `start`; returns it and the byte after it.
fn read_cell(s: &str, start: usize) -> Result<(Cell, usize), MoveParseError> {
    let b = s.as_bytes();
    let mut i = start;
    while i < b.len() && b[i].is_ascii_digit() && i - start < 3 {
        i += 1;
    }
    if i == start {
        return Err(MoveParseError {
            offset: start,
            reason: match b.get(start) {
                None => "a cell is missing at the end".into(),
                Some(c) => format!("expected a cell such as `7g`, found `{}`", *c as char),
            },
        });
    }
    let Some(&rank) = b.get(i) else {
        return Err(MoveParseError {
            offset: i,
            reason: "the cell needs a rank letter a–m after the column".into(),
        });
    };
    let name = &s[start..=i];
    match Cell::parse(name) {
        Some(c) => Ok((c, i + 1)),
        None if !(b'a'..=b'm').contains(&rank) => Err(MoveParseError {
            offset: i,
            reason: format!("`{}` is not a rank letter a–m", rank as char),
        }),
        None => Err(MoveParseError {
            offset: start,
            reason: format!("there is no cell {name} on the board"),
        }),
    }
}

impl fmt::Display for Move {
    /// The canonical move string (R33).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Board { from, to, promote } => {
                write!(f, "{from}{to}{}", if *promote { "+" } else { "" })
            }
            Move::Drop { kind, to } => write!(f, "{}*{to}", kind.letter()),
            Move::Illuminate { king, targets } => {
                write!(f, "{king}!")?;
                for (i, c) in targets.cells().iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{c}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::str::FromStr for Move {
    type Err = MoveParseError;
    fn from_str(s: &str) -> Result<Move, MoveParseError> {
        Move::parse(s)
    }
}

//! Cells of the hexagonal board (R1–R5) and board directions (R4).

use std::fmt;

/// Number of cells on the board (R1).
pub const CELL_COUNT: usize = 127;

/// One of the 127 cells, stored as its index in reading order (R3).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Cell(u8);

/// The Pleasure Garden, 7g (R5).
pub const GARDEN: Cell = Cell(63);

/// Index of the first cell of each rank in reading order.
const RANK_START: [u8; 14] = {
    let mut t = [0u8; 14];
    let mut r = 0;
    while r < 13 {
        t[r + 1] = t[r] + rank_len(r as u8);
        r += 1;
    }
    t
};

const fn rank_len(r: u8) -> u8 {
    if r <= 6 {
        7 + r
    } else {
        19 - r
    }
}

const fn max_col(r: u8) -> u8 {
    if r + 7 < 13 {
        r + 7
    } else {
        13
    }
}

const fn min_col(r: u8) -> u8 {
    if r > 5 {
        r - 5
    } else {
        1
    }
}

/// (column, rank index) of every cell.
const COORDS: [(u8, u8); CELL_COUNT] = {
    let mut t = [(0u8, 0u8); CELL_COUNT];
    let mut r = 0u8;
    while r < 13 {
        let mut c = max_col(r);
        while c >= min_col(r) {
            t[(RANK_START[r as usize] + max_col(r) - c) as usize] = (c, r);
            c -= 1;
        }
        r += 1;
    }
    t
};

impl Cell {
    /// The cell at column `col` (1–13) and rank index `rank` (a = 0 … m = 12), if it exists (R2).
    pub const fn from_coords(col: i32, rank: i32) -> Option<Cell> {
        if col < 1 || col > 13 || rank < 0 || rank > 12 || col - rank < -5 || col - rank > 7 {
            return None;
        }
        let r = rank as u8;
        Some(Cell(RANK_START[r as usize] + max_col(r) - col as u8))
    }

    /// The cell with this reading-order index (R3), if `index < 127`.
    pub const fn from_index(index: usize) -> Option<Cell> {
        if index < CELL_COUNT {
            Some(Cell(index as u8))
        } else {
            None
        }
    }

    /// The cell with this reading-order index; `index` must be below 127.
    #[inline]
    pub(crate) const fn new_unchecked(index: u8) -> Cell {
        Cell(index)
    }

    /// Reading-order index, 0 (7a) … 126 (7m).
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Column, 1–13.
    #[inline]
    pub const fn col(self) -> i32 {
        COORDS[self.0 as usize].0 as i32
    }

    /// Rank index, 0 (a) … 12 (m).
    #[inline]
    pub const fn rank(self) -> i32 {
        COORDS[self.0 as usize].1 as i32
    }

    /// The neighbouring cell in a board direction, if it is on the board.
    pub const fn step(self, dir: Dir) -> Option<Cell> {
        let (dc, dr) = dir.delta();
        Cell::from_coords(self.col() + dc, self.rank() + dr)
    }

    /// All cells in reading order.
    pub fn all() -> impl Iterator<Item = Cell> {
        (0..CELL_COUNT as u8).map(Cell)
    }

    /// Parses a cell name such as `7g` or `10m` (R1).
    pub fn parse(s: &str) -> Option<Cell> {
        let b = s.as_bytes();
        if b.len() < 2 || b.len() > 3 {
            return None;
        }
        let (digits, rank) = b.split_at(b.len() - 1);
        if digits[0] == b'0' || !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let col = digits.iter().fold(0i32, |a, d| a * 10 + (d - b'0') as i32);
        let rank = rank[0];
        if !(b'a'..=b'm').contains(&rank) {
            return None;
        }
        Cell::from_coords(col, (rank - b'a') as i32)
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.col(), (b'a' + self.rank() as u8) as char)
    }
}

/// A board direction: a clock hour as Middle sees the board (R4), stored as `hour % 12`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Dir(u8);

/// (Δcolumn, Δrank) per direction index (`hour % 12`), from R4's table.
const DELTAS: [(i32, i32); 12] = [
    (-1, -2), // 12
    (-1, -1), // 1
    (-2, -1), // 2
    (-1, 0),  // 3
    (-1, 1),  // 4
    (0, 1),   // 5
    (1, 2),   // 6
    (1, 1),   // 7
    (2, 1),   // 8
    (1, 0),   // 9
    (1, -1),  // 10
    (0, -1),  // 11
];

impl Dir {
    /// The direction of a clock hour, 1–12 (any integer is taken mod 12).
    pub const fn hour(h: i32) -> Dir {
        Dir(h.rem_euclid(12) as u8)
    }

    /// All twelve directions, hour 12 first.
    pub const ALL: [Dir; 12] = {
        let mut t = [Dir(0); 12];
        let mut i = 0;
        while i < 12 {
            t[i] = Dir(i as u8);
            i += 1;
        }
        t
    };

    /// Index 0–11 (`hour % 12`).
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The clock hour, 1–12.
    pub const fn as_hour(self) -> u8 {
        if self.0 == 0 {
            12
        } else {
            self.0
        }
    }

    /// (Δcolumn, Δrank) of one step (R4).
    pub const fn delta(self) -> (i32, i32) {
        DELTAS[self.0 as usize]
    }

    /// The opposite direction.
    pub const fn opposite(self) -> Dir {
        Dir((self.0 + 6) % 12)
    }

    /// Odd hours pass through a face (R4).
    pub const fn is_orthogonal(self) -> bool {
        self.0 % 2 == 1
    }

    /// Whether walking this way increases the reading-order index.
    pub(crate) const fn is_increasing(self) -> bool {
        let (dc, dr) = self.delta();
        dr > 0 || (dr == 0 && dc < 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r2_r3_reading_order_and_corners() {
        assert_eq!(Cell::parse("7a").unwrap().index(), 0);
        assert_eq!(Cell::parse("1a").unwrap().index(), 6);
        assert_eq!(Cell::parse("13g").unwrap().index(), 57);
        assert_eq!(Cell::parse("7g").unwrap(), GARDEN);
        assert_eq!(Cell::parse("7m").unwrap().index(), 126);
        assert_eq!(Cell::parse("13m").unwrap().index(), 120);
        for cell in Cell::all() {
            assert_eq!(Cell::parse(&cell.to_string()), Some(cell));
        }
        for bad in ["8a", "0g", "14g", "6m", "7n", "", "g", "07g", "1", "+1a"] {
            assert_eq!(Cell::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn r4_diagonal_is_sum_of_neighbouring_orthogonals() {
        for h in (2..=12).step_by(2) {
            let (a, b) = (Dir::hour(h - 1).delta(), Dir::hour(h + 1).delta());
            assert_eq!(Dir::hour(h).delta(), (a.0 + b.0, a.1 + b.1));
        }
    }
}

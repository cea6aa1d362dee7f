//! Screen geometry of the board: where each cell lands for a given view (R2, R4, R7).
//!
//! Cells are pointy-top hexagons of width [`W`] (flat side to flat side). In Middle's view
//! the centre of cell (c, r) is `((r − 6)/2 − (c − 7)) · W` across and `(r − 6) · √3/2 · W`
//! down from the Garden, so hour 3 (−1, 0) is one cell to the right and hour 12 (−1, −2)
//! straight up. Another seat's view turns every point about the Garden by a multiple of
//! 120°, which maps the hexagon lattice onto itself: cell outlines stay pointy-top and
//! only their centres move, and every label keeps naming the cell it names.

use crate::rules::{Cell, Player};

/// Cell width in SVG user units.
pub(crate) const W: f64 = 46.0;

const SQRT_3: f64 = 1.732_050_807_568_877_2;

/// A point in SVG user units, relative to the Garden's centre.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Pt {
    pub x: f64,
    pub y: f64,
}

impl Pt {
    pub(crate) fn new(x: f64, y: f64) -> Pt {
        Pt { x, y }
    }

    pub(crate) fn add(self, o: Pt) -> Pt {
        Pt::new(self.x + o.x, self.y + o.y)
    }

    pub(crate) fn scale(self, k: f64) -> Pt {
        Pt::new(self.x * k, self.y * k)
    }
}

/// The board hour an owner's pieces face (R7), 0–11: 0 for Middle, 4 for Last, 8 for
/// First.
pub(crate) const fn hour_offset(p: Player) -> i32 {
    p.forward().index() as i32
}

/// The picture as one seat sees it: that seat at the bottom.
#[derive(Clone, Copy, Debug)]
pub(crate) struct View {
    /// Clock hours the board is turned clockwise on screen: 0, 4 or 8.
    turn: i32,
}

impl View {
    /// Each seat sits opposite its forward hour (Middle at hour 6, First at 2, Last at 10);
    /// turning by `12 − forward` hours brings it to hour 6, the bottom.
    pub(crate) fn of(p: Player) -> View {
        View {
            turn: (12 - hour_offset(p)) % 12,
        }
    }

    /// The screen hour (0–11, 0 = up) of a board hour.
    pub(crate) fn screen_hour(self, board_hour: i32) -> i32 {
        (board_hour + self.turn).rem_euclid(12)
    }

    /// The screen angle in degrees, clockwise from up, of a board hour.
    pub(crate) fn angle(self, board_hour: i32) -> f64 {
        30.0 * self.screen_hour(board_hour) as f64
    }

    /// Where a (possibly off-board) column/rank point lands on screen.
    pub(crate) fn point(self, col: f64, rank: f64) -> Pt {
        let x = ((rank - 6.0) / 2.0 - (col - 7.0)) * W;
        let y = (rank - 6.0) * SQRT_3 / 2.0 * W;
        self.turn_pt(Pt::new(x, y))
    }

    /// A cell's centre on screen.
    pub(crate) fn cell(self, c: Cell) -> Pt {
        self.point(c.col() as f64, c.rank() as f64)
    }

    /// Turns a Middle-view point clockwise (screen y grows downwards).
    fn turn_pt(self, p: Pt) -> Pt {
        let (s, c) = match self.turn {
            0 => (0.0, 1.0),
            4 => (SQRT_3 / 2.0, -0.5),
            _ => (-SQRT_3 / 2.0, -0.5),
        };
        Pt::new(p.x * c - p.y * s, p.x * s + p.y * c)
    }
}

/// The six corners of a pointy-top hexagon of width `w` centred on `at`.
pub(crate) fn hexagon(at: Pt, w: f64) -> [Pt; 6] {
    let r = w / SQRT_3;
    let h = w / 2.0;
    [
        Pt::new(at.x, at.y - r),
        Pt::new(at.x + h, at.y - r / 2.0),
        Pt::new(at.x + h, at.y + r / 2.0),
        Pt::new(at.x, at.y + r),
        Pt::new(at.x - h, at.y + r / 2.0),
        Pt::new(at.x - h, at.y - r / 2.0),
    ]
}

/// The six corners of the board's outline (a flat-top hexagon on screen), `reach` cell
/// widths from the Garden; the board's corner cells are 6 widths away.
pub(crate) fn board_outline(reach: f64) -> [Pt; 6] {
    let mut out = [Pt::new(0.0, 0.0); 6];
    for (i, p) in out.iter_mut().enumerate() {
        let a = (60.0 * i as f64).to_radians();
        *p = Pt::new(a.cos() * reach * W, a.sin() * reach * W);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Dir;

    fn close(a: Pt, b: Pt) -> bool {
        (a.x - b.x).abs() < 1e-6 && (a.y - b.y).abs() < 1e-6
    }

    #[test]
    fn r4_hours_point_where_the_clock_says() {
        let v = View::of(Player::Middle);
        let g = v.cell(crate::rules::GARDEN);
        assert!(close(g, Pt::new(0.0, 0.0)));
        for h in 1..=12 {
            let n = crate::rules::GARDEN.step(Dir::hour(h)).unwrap();
            let p = v.cell(n);
            let a = (30.0 * h as f64).to_radians();
            let len = if h % 2 == 1 { W } else { W * SQRT_3 };
            assert!(
                close(p, Pt::new(a.sin() * len, -a.cos() * len)),
                "hour {h}: {p:?}"
            );
        }
    }

    #[test]
    fn each_view_puts_its_seat_at_the_bottom() {
        // The middle of each player's back row lands straight below the Garden.
        for (p, back) in [
            (Player::Middle, "10m"),
            (Player::First, "1d"),
            (Player::Last, "10d"),
        ] {
            let v = View::of(p);
            let at = v.cell(Cell::parse(back).unwrap());
            assert!(at.x.abs() < 1e-6 && at.y > 0.0, "{p}: {at:?}");
            assert_eq!(v.screen_hour(hour_offset(p)), 0, "{p} faces up");
        }
    }

    #[test]
    fn neighbours_touch_in_every_view() {
        for p in Player::ALL {
            let v = View::of(p);
            for c in Cell::all() {
                for h in (1..=11).step_by(2) {
                    if let Some(n) = c.step(Dir::hour(h)) {
                        let (a, b) = (v.cell(c), v.cell(n));
                        let d = ((a.x - b.x).powi(2) + (a.y - b.y).powi(2)).sqrt();
                        assert!((d - W).abs() < 1e-6);
                    }
                }
            }
        }
    }
}

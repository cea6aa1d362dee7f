//! The board itself: frame, cells, coordinates, pieces and the last move.

use super::geom::{self, hexagon, Pt, View, W};
use super::palette::{self, Colours};
use super::xml::{escape, num, points};
use crate::rules::{Cell, Dir, Kind, Move, Piece, Player, Position, GARDEN};
use std::fmt::Write as _;

/// How far the frame reaches, in cell widths from the Garden (corner cells are at 6):
/// enough to hold the coordinates printed on it.
const FRAME_REACH: f64 = 7.35;
/// How far a coordinate sits beyond the centre of the edge cell it names.
const LABEL_OFFSET: f64 = 0.86;

/// The piece outline, pointing up, in cell widths: a shogi piece's pentagon. Its
/// farthest corner is 0.45 W from the centre, inside the hexagon's 0.5 W in-radius, so
/// it fits however it is turned.
const PENTAGON: [(f64, f64); 5] = [
    (0.0, -0.385),
    (0.255, -0.235),
    (0.3, 0.335),
    (-0.3, 0.335),
    (-0.255, -0.235),
];

pub(crate) fn draw(s: &mut String, pos: &Position, view: View, last: Option<Move>) {
    frame(s);
    cells(s, view);
    labels(s, view);
    if let Some(mv) = last {
        highlight_cells(s, view, mv);
    }
    checks(s, pos, view);
    s.push_str(r#"<g class="pieces">"#);
    for c in Cell::all() {
        if let Some(p) = pos.piece_at(c) {
            piece(s, view, c, p);
        }
    }
    s.push_str("</g>");
    if let Some(mv) = last {
        move_marks(s, view, mv);
    }
}

fn frame(s: &mut String) {
    let _ = write!(
        s,
        r#"<polygon class="frame" points="{}" fill="{}" stroke="{}" stroke-width="10" stroke-linejoin="round"/>"#,
        points(&geom::board_outline(FRAME_REACH)),
        palette::FRAME,
        palette::FRAME_EDGE,
    );
    let _ = write!(
        s,
        r#"<polygon points="{}" fill="none" stroke="{}" stroke-width="1.5" stroke-opacity="0.35" stroke-linejoin="round"/>"#,
        points(&geom::board_outline(FRAME_REACH - 0.12)),
        palette::FRAME_TEXT,
    );
}

/// The territory (R8) a cell belongs to, if any.
fn territory(c: Cell) -> Option<Player> {
    Player::ALL.into_iter().find(|p| p.territory().contains(c))
}

fn cells(s: &mut String, view: View) {
    s.push_str(&format!(
        r#"<g class="cells" stroke="{}" stroke-width="1.2" stroke-linejoin="round">"#,
        palette::GRID
    ));
    for c in Cell::all() {
        let (class, fill) = if c == GARDEN {
            ("cell garden", palette::GARDEN)
        } else {
            match territory(c) {
                Some(p) => (
                    match p {
                        Player::First => "cell territory-f",
                        Player::Middle => "cell territory-m",
                        Player::Last => "cell territory-l",
                    },
                    palette::of(p).territory,
                ),
                None => ("cell", palette::NEUTRAL),
            }
        };
        let _ = write!(
            s,
            r#"<polygon class="{class}" data-cell="{c}" points="{}" fill="{fill}"/>"#,
            points(&hexagon(view.cell(c), W))
        );
    }
    s.push_str("</g>");
    // The Garden: a second ring and a six-petalled mark, so it stands out without colour.
    let g = view.cell(GARDEN);
    let _ = write!(
        s,
        r#"<g class="garden-mark" fill="none" stroke="{}"><polygon points="{}" stroke-width="2"/>"#,
        palette::GARDEN_MARK,
        points(&hexagon(g, W * 0.78)),
    );
    for i in 0..6 {
        let a = (30.0 + 60.0 * i as f64).to_radians();
        let p = g.add(Pt::new(a.cos(), a.sin()).scale(W * 0.3));
        let _ = write!(
            s,
            r#"<circle cx="{}" cy="{}" r="{}" stroke-width="1.2"/>"#,
            num(p.x),
            num(p.y),
            num(W * 0.09)
        );
    }
    s.push_str("</g>");
}

/// Ranks at both ends of every row; columns at the ends of the top and bottom rows,
/// offset along the column's own line (hours 11 and 5) so the slant reads at a glance.
/// Column labels on the slanted edges would sit on the rank labels' spots.
fn labels(s: &mut String, view: View) {
    let _ = write!(
        s,
        r#"<g class="coords" font-size="13" font-weight="bold" text-anchor="middle" fill="{}">"#,
        palette::FRAME_TEXT
    );
    let mut label = |at: Pt, text: String| {
        let _ = write!(
            s,
            r#"<text x="{}" y="{}">{text}</text>"#,
            num(at.x),
            num(at.y + 4.6)
        );
    };
    for c in Cell::all() {
        let (col, rank) = (c.col() as f64, c.rank() as f64);
        let rank_name = ((b'a' + c.rank() as u8) as char).to_string();
        if c.step(Dir::hour(9)).is_none() {
            label(view.point(col + LABEL_OFFSET, rank), rank_name.clone());
        }
        if c.step(Dir::hour(3)).is_none() {
            label(view.point(col - LABEL_OFFSET, rank), rank_name);
        }
        if c.rank() == 0 {
            label(view.point(col, rank - LABEL_OFFSET), c.col().to_string());
        }
        if c.rank() == 12 {
            label(view.point(col, rank + LABEL_OFFSET), c.col().to_string());
        }
    }
    s.push_str("</g>");
}

fn overlay(s: &mut String, view: View, c: Cell, class: &str, dashed: bool) {
    let _ = write!(
        s,
        r#"<polygon class="last-move {class}" data-cell="{c}" points="{}" fill="{}" fill-opacity="0.9" stroke="{}" stroke-width="2.6"{}/>"#,
        points(&hexagon(view.cell(c), W - 3.0)),
        palette::HIGHLIGHT,
        palette::HIGHLIGHT_EDGE,
        if dashed {
            r#" stroke-dasharray="5 4""#
        } else {
            ""
        }
    );
}

fn highlight_cells(s: &mut String, view: View, mv: Move) {
    s.push_str(r#"<g class="highlights">"#);
    match mv {
        Move::Board { from, to, .. } => {
            overlay(s, view, from, "from", true);
            overlay(s, view, to, "to", false);
        }
        Move::Drop { to, .. } => overlay(s, view, to, "to drop", false),
        Move::Illuminate { king, targets } => {
            overlay(s, view, king, "king", false);
            for &t in targets.cells() {
                overlay(s, view, t, "target", true);
            }
        }
    }
    s.push_str("</g>");
}

/// An arrow for a board move and crosses on illuminated cells, drawn over the pieces
/// but stopping short of the piece that moved.
fn move_marks(s: &mut String, view: View, mv: Move) {
    let ink = palette::HIGHLIGHT_EDGE;
    match mv {
        Move::Board { from, to, .. } => {
            let (a, b) = (view.cell(from), view.cell(to));
            let _ = write!(
                s,
                r#"<g class="last-move arrow" fill="{ink}" stroke="{ink}" opacity="0.6">{}</g>"#,
                arrow(a, b, W * 0.42)
            );
        }
        Move::Drop { .. } => {}
        Move::Illuminate { king, targets } => {
            let k = view.cell(king);
            let _ = write!(
                s,
                r#"<g class="last-move rays" stroke="{ink}" stroke-width="3" stroke-linecap="round" opacity="0.7">"#
            );
            for &t in targets.cells() {
                let p = view.cell(t);
                let (dx, dy) = (p.x - k.x, p.y - k.y);
                let len = (dx * dx + dy * dy).sqrt();
                let u = Pt::new(dx / len, dy / len);
                let a = k.add(u.scale(W * 0.45));
                let b = p.add(u.scale(-W * 0.3));
                let _ = write!(
                    s,
                    r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke-dasharray="2 7"/>"#,
                    num(a.x),
                    num(a.y),
                    num(b.x),
                    num(b.y)
                );
                let d = W * 0.17;
                let _ = write!(
                    s,
                    r#"<path d="M{} {}L{} {}M{} {}L{} {}" stroke-width="4.5"/>"#,
                    num(p.x - d),
                    num(p.y - d),
                    num(p.x + d),
                    num(p.y + d),
                    num(p.x - d),
                    num(p.y + d),
                    num(p.x + d),
                    num(p.y - d)
                );
            }
            s.push_str("</g>");
        }
    }
}

/// A shaft and head from `a` towards `b`, the tip `short` before `b`.
fn arrow(a: Pt, b: Pt, short: f64) -> String {
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let len = (dx * dx + dy * dy).sqrt();
    let u = Pt::new(dx / len, dy / len);
    let n = Pt::new(-u.y, u.x);
    let tip = b.add(u.scale(-short));
    let head = 15.0;
    let base = tip.add(u.scale(-head));
    let l = base.add(n.scale(8.0));
    let r = base.add(n.scale(-8.0));
    format!(
        r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke-width="5" stroke-linecap="round"/><polygon points="{}" stroke-width="1" stroke-linejoin="round"/>"#,
        num(a.x),
        num(a.y),
        num(base.x),
        num(base.y),
        points(&[tip, l, r]),
    )
}

/// A ring round each king that stands in check (R22).
fn checks(s: &mut String, pos: &Position, view: View) {
    for p in pos.living().iter() {
        if let (true, Some(k)) = (pos.in_check(p), pos.king(p)) {
            let at = view.cell(k);
            let _ = write!(
                s,
                r#"<circle class="check" data-cell="{k}" cx="{}" cy="{}" r="{}" fill="{}" fill-opacity="0.25" stroke="{}" stroke-width="3"/>"#,
                num(at.x),
                num(at.y),
                num(W * 0.48),
                palette::CHECK,
                palette::CHECK,
            );
        }
    }
}

fn piece(s: &mut String, view: View, c: Cell, p: Piece) {
    let at = view.cell(c);
    let _ = write!(
        s,
        r#"<g class="piece" data-cell="{c}" data-piece="{p}" transform="translate({},{})"><title>{} {} on {c}</title>"#,
        num(at.x),
        num(at.y),
        escape(p.owner.name()),
        escape(p.kind.name()),
    );
    piece_body(
        s,
        p.owner,
        p.kind,
        view.angle(geom::hour_offset(p.owner)),
        1.0,
    );
    s.push_str("</g>");
}

/// A piece drawn at the origin: a shadowed pentagon turned `angle` degrees clockwise from
/// up, in the owner's colours, with its letter upright. `scale` 1 is board size.
pub(crate) fn piece_body(s: &mut String, owner: Player, kind: Kind, angle: f64, scale: f64) {
    let Colours { dark, piece, .. } = palette::of(owner);
    let shape: Vec<Pt> = PENTAGON
        .iter()
        .map(|&(x, y)| Pt::new(x, y).scale(W * scale))
        .collect();
    let pts = points(&shape);
    let _ = write!(
        s,
        r##"<polygon points="{pts}" transform="translate({},{}) rotate({})" fill="#000" fill-opacity="0.22"/>"##,
        num(1.3 * scale),
        num(2.0 * scale),
        num(angle),
    );
    let _ = write!(
        s,
        r#"<polygon points="{pts}" transform="rotate({})" fill="{piece}" stroke="{dark}" stroke-width="{}" stroke-linejoin="round"/>"#,
        num(angle),
        num(2.0 * scale.max(0.75)),
    );
    let size = 19.0 * scale;
    let y = num(size * 0.36);
    if kind.is_promoted() {
        let _ = write!(
            s,
            r#"<text y="{y}" text-anchor="middle" font-size="{}" font-weight="bold" fill="{}"><tspan font-size="{}">+</tspan>{}</text>"#,
            num(size),
            palette::PROMOTED,
            num(size * 0.7),
            kind.letter()
        );
    } else {
        let _ = write!(
            s,
            r#"<text y="{y}" text-anchor="middle" font-size="{}" font-weight="bold" fill="{}">{}</text>"#,
            num(size),
            palette::INK,
            kind.letter()
        );
    }
}

/// An empty pentagon in a player's colours pointing its forward direction: the player's
/// badge in the side panels.
pub(crate) fn badge(s: &mut String, owner: Player, angle: f64, scale: f64) {
    let Colours { dark, piece, .. } = palette::of(owner);
    let shape: Vec<Pt> = PENTAGON
        .iter()
        .map(|&(x, y)| Pt::new(x, y).scale(W * scale))
        .collect();
    let _ = write!(
        s,
        r#"<polygon points="{}" transform="rotate({})" fill="{piece}" stroke="{dark}" stroke-width="1.6" stroke-linejoin="round"/>"#,
        points(&shape),
        num(angle),
    );
}

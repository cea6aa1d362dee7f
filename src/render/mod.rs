//! Pictures of positions: a self-contained SVG of the board, the hands and the state of
//! play. Pure, like [`crate::rules`]: no I/O, and the same input always gives the same
//! bytes.
//!
//! The document embeds no fonts, images or scripts (it names common system fonts and
//! falls back to `sans-serif`), is well-formed XML, and escapes every text it prints, so
//! it can be served as `image/svg+xml` as it is.

mod board;
mod geom;
mod palette;
mod panels;
pub(crate) mod xml;

use crate::rules::{Move, Player, Position};
use std::fmt::Write as _;

/// What to draw besides the position itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SvgOptions {
    /// The move that led to the position: its from and to cells (a board move), its cell
    /// (a drop) or the king and its targets (an illumination) are highlighted.
    pub last_move: Option<Move>,
    /// The seat drawn at the bottom. [`Player::Middle`] shows the board as `RULES.md`
    /// describes it; the others turn the picture by 120° so labels stay true.
    pub view: Player,
    /// A heading above the board.
    pub title: Option<String>,
    /// Player names by seat, indexed by [`Player::index`]; a seat without one is shown
    /// by its seat name.
    pub names: [Option<String>; 3],
}

impl Default for SvgOptions {
    fn default() -> Self {
        SvgOptions {
            last_move: None,
            view: Player::Middle,
            title: None,
            names: [None, None, None],
        }
    }
}

/// Canvas size in SVG user units (also the default size in pixels).
const CANVAS_W: f64 = 1040.0;
const CANVAS_H: f64 = 668.0;
/// The Garden's centre on the canvas.
const CENTRE: (f64, f64) = (CANVAS_W / 2.0, 352.0);

/// The position as an SVG document, seen from `opts.view`'s seat.
///
/// Shows the 127 cells with the territories (R8) tinted in their owners' colours and the
/// Pleasure Garden (R5) marked; every piece as a pentagon pointing its owner's forward
/// direction (R7) in its owner's colour, with its letter (a promoted piece has a red
/// letter after a `+`); ranks a–m and columns 1–13 on the frame; each player's hand and
/// status beside the board; whose turn it is or how the game ended; the last move.
///
/// ```
/// use sannin::render::{board_svg, SvgOptions};
/// use sannin::rules::{Move, Player, Position};
///
/// let pos = Position::start();
/// let mv = Move::parse("3d4d").unwrap();
/// let svg = board_svg(
///     &pos.play(mv).unwrap(),
///     &SvgOptions {
///         view: Player::First,
///         last_move: Some(mv),
///         names: [Some("Hanako".into()), None, None],
///         ..SvgOptions::default()
///     },
/// );
/// assert!(svg.starts_with("<svg") && svg.contains("Hanako"));
/// ```
pub fn board_svg(pos: &Position, opts: &SvgOptions) -> String {
    let view = geom::View::of(opts.view);
    let names = panels::Names::new(&opts.names);
    let heading = match &opts.title {
        Some(t) => xml::clip(t, 80),
        None => "Sannin shogi".to_string(),
    };

    let mut s = String::with_capacity(48 * 1024);
    let _ = write!(
        s,
        concat!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" version="1.1" "#,
            r#"width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" "#,
            r#"font-family="DejaVu Sans, Verdana, Arial, Helvetica, sans-serif">"#,
            "<title>{title}</title><desc>{desc}</desc>",
        ),
        w = CANVAS_W,
        h = CANVAS_H,
        title = xml::escape(&heading),
        desc = xml::escape(&format!(
            "Position {pos}, seen from {}'s seat",
            opts.view.name()
        )),
    );
    let _ = write!(
        s,
        r#"<rect width="{CANVAS_W}" height="{CANVAS_H}" fill="{}"/>"#,
        palette::PAPER
    );
    let _ = write!(
        s,
        r#"<text class="title" x="{}" y="32" text-anchor="middle" font-size="21" font-weight="bold" fill="{}">{}</text>"#,
        xml::num(CANVAS_W / 2.0),
        palette::INK,
        xml::escape(&heading)
    );

    let _ = write!(
        s,
        r#"<g class="board" transform="translate({},{})">"#,
        CENTRE.0, CENTRE.1
    );
    board::draw(&mut s, pos, view, opts.last_move);
    s.push_str("</g>");

    panels::draw(
        &mut s,
        pos,
        view,
        opts.view,
        &names,
        opts.last_move,
        (CANVAS_W, CANVAS_H),
    );
    s.push_str("</svg>\n");
    s
}

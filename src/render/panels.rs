//! The panels in the canvas corners: one per player (name, state, hand) placed at that
//! player's side of the board, and one with the state of play.

use super::board::{badge, piece_body};
use super::geom::{self, View};
use super::palette;
use super::xml::{clip, escape, num};
use crate::rules::{DrawReason, Kind, Move, Outcome, Player, Position, WinReason};
use std::fmt::Write as _;

const PANEL_W: f64 = 236.0;
const PANEL_H: f64 = 160.0;
const MARGIN: f64 = 12.0;
/// Top of the upper panels: level with the top of the board's frame.
const TOP: f64 = 50.0;

/// What each seat is called: its player's name, else the seat's name.
pub(crate) struct Names([String; 3]);

impl Names {
    pub(crate) fn new(given: &[Option<String>; 3]) -> Names {
        Names(Player::ALL.map(|p| match &given[p.index()] {
            Some(n) if !n.trim().is_empty() => clip(n, 20),
            _ => seat(p).to_string(),
        }))
    }

    fn of(&self, p: Player) -> &str {
        &self.0[p.index()]
    }

    /// A shorter form for headings and running text.
    fn short(&self, p: Player) -> String {
        clip(self.of(p), 15)
    }
}

fn seat(p: Player) -> &'static str {
    match p {
        Player::First => "First",
        Player::Middle => "Middle",
        Player::Last => "Last",
    }
}

pub(crate) fn draw(
    s: &mut String,
    pos: &Position,
    view: View,
    viewer: Player,
    names: &Names,
    last: Option<Move>,
    (w, h): (f64, f64),
) {
    for p in Player::ALL {
        // A player sits opposite its forward hour; its panel goes to that corner, the
        // viewer's (at the bottom) to the lower right as in shogi diagrams.
        let sits = view.screen_hour(geom::hour_offset(p) + 6);
        let (x, y) = match sits {
            10 => (MARGIN, TOP),
            2 => (w - MARGIN - PANEL_W, TOP),
            _ => (w - MARGIN - PANEL_W, h - MARGIN - PANEL_H),
        };
        player_panel(s, pos, view, names, p, x, y);
    }
    status_panel(
        s,
        pos,
        view,
        viewer,
        names,
        last,
        MARGIN,
        h - MARGIN - PANEL_H,
    );
}

fn frame(s: &mut String, class: &str, x: f64, y: f64, stroke: &str, width: f64, dashed: bool) {
    let _ = write!(
        s,
        r#"<g class="{class}" transform="translate({},{})"><rect width="{PANEL_W}" height="{PANEL_H}" rx="10" fill="{}" stroke="{stroke}" stroke-width="{}"{}/>"#,
        num(x),
        num(y),
        palette::PANEL,
        num(width),
        if dashed {
            r#" stroke-dasharray="6 4""#
        } else {
            ""
        }
    );
}

fn player_panel(
    s: &mut String,
    pos: &Position,
    view: View,
    names: &Names,
    p: Player,
    x: f64,
    y: f64,
) {
    let c = palette::of(p);
    let alive = pos.is_alive(p);
    let to_move = pos.to_move() == Some(p);
    let class = format!("hand hand-{}", p.letter());
    frame(
        s,
        &class,
        x,
        y,
        c.dark,
        if to_move { 3.5 } else { 1.5 },
        !alive,
    );
    // Header band in the player's territory colour.
    let _ = write!(
        s,
        r#"<path d="M0 10a10 10 0 0 1 10-10h{}a10 10 0 0 1 10 10v26h-{}z" fill="{}"/>"#,
        num(PANEL_W - 20.0),
        num(PANEL_W),
        c.territory
    );
    s.push_str(r#"<g transform="translate(22,19)">"#);
    badge(s, p, view.angle(geom::hour_offset(p)), 0.5);
    s.push_str("</g>");
    // The "to move" pill takes the right of the header, so the name gets less room.
    let name = clip(names.of(p), if to_move { 11 } else { 18 });
    let _ = write!(
        s,
        r#"<text class="name" x="42" y="24.5" font-size="16" font-weight="bold" fill="{}">{}</text>"#,
        palette::INK,
        escape(&name)
    );
    if to_move {
        let _ = write!(
            s,
            r#"<rect x="{}" y="8" width="62" height="20" rx="10" fill="{}"/><text x="{}" y="22" font-size="11" font-weight="bold" text-anchor="middle" fill="{}">TO MOVE</text>"#,
            num(PANEL_W - 70.0),
            c.dark,
            num(PANEL_W - 39.0),
            palette::PANEL
        );
    }

    let mut seat_line = format!("{} seat ({})", seat(p), p.letter());
    let mut notes = Vec::new();
    if !alive {
        seat_line += " · eliminated";
    } else {
        if let Some(Outcome::Win(w, _)) = pos.outcome() {
            if w == p {
                seat_line += " · winner";
            }
        }
        if let Some(ally) = pos.alliance().and_then(|a| a.ally_of(p)) {
            notes.push(format!("allied with {}", seat(ally)));
        }
        if pos.in_check(p) {
            notes.push("in check".to_string());
        }
    }
    let _ = write!(
        s,
        r#"<text x="14" y="54" font-size="12.5" fill="{}">{}</text>"#,
        palette::MUTED,
        escape(&seat_line)
    );
    if !notes.is_empty() {
        let _ = write!(
            s,
            r#"<text class="notes" x="14" y="70" font-size="12.5" font-weight="bold" fill="{}">{}</text>"#,
            c.dark,
            escape(&notes.join(" · "))
        );
    }

    let held: Vec<(Kind, u8)> = Kind::HAND
        .iter()
        .map(|&k| (k, pos.hand_count(p, k)))
        .filter(|&(_, n)| n > 0)
        .collect();
    if held.is_empty() {
        let _ = write!(
            s,
            r#"<text x="14" y="100" font-size="12.5" font-style="italic" fill="{}">{}</text>"#,
            palette::MUTED,
            if alive {
                "No pieces in hand"
            } else {
                "Out of the game"
            }
        );
    } else {
        let angle = view.angle(geom::hour_offset(p));
        for (i, (k, n)) in held.into_iter().enumerate() {
            let (col, row) = (i % 4, i / 4);
            let (px, py) = (24.0 + 57.0 * col as f64, 98.0 + 40.0 * row as f64);
            let _ = write!(
                s,
                r#"<g class="hand-piece" data-piece="{}" data-count="{n}"><g transform="translate({},{})">"#,
                k.letter(),
                num(px),
                num(py)
            );
            piece_body(s, p, k, angle, 0.72);
            let _ = write!(
                s,
                r#"</g><text x="{}" y="{}" font-size="13" font-weight="bold" fill="{}">×{n}</text></g>"#,
                num(px + 15.0),
                num(py + 5.0),
                palette::INK
            );
        }
    }
    s.push_str("</g>");
}

#[allow(clippy::too_many_arguments)]
fn status_panel(
    s: &mut String,
    pos: &Position,
    view: View,
    viewer: Player,
    names: &Names,
    last: Option<Move>,
    x: f64,
    y: f64,
) {
    frame(s, "status", x, y, palette::GRID, 1.5, false);
    let mut lines: Vec<(String, &str)> = Vec::new();
    match (pos.to_move(), pos.outcome()) {
        (Some(p), _) => {
            s.push_str(r#"<g transform="translate(22,24)">"#);
            badge(s, p, view.angle(geom::hour_offset(p)), 0.5);
            s.push_str("</g>");
            heading(s, &names.short(p));
            lines.push((format!("To move: move {}", pos.ply()), palette::INK));
        }
        (None, Some(Outcome::Win(p, why))) => {
            s.push_str(r#"<g transform="translate(22,24)">"#);
            badge(s, p, view.angle(geom::hour_offset(p)), 0.5);
            s.push_str("</g>");
            heading(s, &names.short(p));
            let why = match why {
                WinReason::Garden => "Wins: king reached the Garden",
                WinReason::LastPlayerStanding => "Wins: last player standing",
                WinReason::AllyEliminated => "Wins: an ally against it fell",
            };
            lines.push((why.to_string(), palette::INK));
            lines.push((
                format!("Game over after move {}", pos.ply() - 1),
                palette::MUTED,
            ));
        }
        (None, draw) => {
            heading(s, "Drawn");
            if let Some(Outcome::Draw(among, reason)) = draw {
                let who: Vec<String> = among.iter().map(|p| names.short(p)).collect();
                let why = match reason {
                    DrawReason::Repetition => "Repetition",
                    DrawReason::Agreement => "Agreed",
                };
                lines.push((format!("{why}; among {}", who.join(", ")), palette::INK));
            }
        }
    }
    if let Some(mv) = last {
        lines.push((format!("Last move {mv}"), palette::INK));
    }
    if let Some(a) = pos.alliance() {
        let mut m = a.members().iter();
        if let (Some(p), Some(q)) = (m.next(), m.next()) {
            lines.push((
                format!("Alliance: {} and {}", seat(p), seat(q)),
                palette::INK,
            ));
        }
    }
    if lines.len() < 3 {
        lines.push((format!("Seen from {}'s seat", seat(viewer)), palette::MUTED));
    }
    for (i, (text, fill)) in lines.iter().enumerate() {
        let _ = write!(
            s,
            r#"<text x="14" y="{}" font-size="13" fill="{fill}">{}</text>"#,
            num(58.0 + 19.0 * i as f64),
            escape(text)
        );
    }
    let _ = write!(
        s,
        r#"<text x="14" y="{}" font-size="11" fill="{}"><tspan>Pieces point the way their owner faces.</tspan><tspan x="14" dy="14">Promoted: <tspan fill="{}" font-weight="bold">+</tspan> and a red letter.</tspan></text>"#,
        num(PANEL_H - 24.0),
        palette::MUTED,
        palette::PROMOTED
    );
    s.push_str("</g>");
}

fn heading(s: &mut String, text: &str) {
    let _ = write!(
        s,
        r#"<text class="turn" x="42" y="30" font-size="16" font-weight="bold" fill="{}">{}</text>"#,
        palette::INK,
        escape(text)
    );
}

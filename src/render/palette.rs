//! Colours. The three players take blue, orange and bluish green from the Okabe–Ito
//! palette, chosen to stay apart under the common colour-vision deficiencies; every
//! coloured shape also has a dark outline, and owners differ in orientation too, so
//! colour is never the only cue.

use crate::rules::Player;

/// The colours of one player.
pub(crate) struct Colours {
    /// Outlines and text: dark enough for contrast on any light fill.
    pub dark: &'static str,
    /// Piece bodies.
    pub piece: &'static str,
    /// The player's territory on the board.
    pub territory: &'static str,
}

pub(crate) const fn of(p: Player) -> Colours {
    match p {
        Player::First => Colours {
            dark: "#7a4c00",
            piece: "#f4c257",
            territory: "#fbe6bd",
        },
        Player::Middle => Colours {
            dark: "#003f66",
            piece: "#8cc2ea",
            territory: "#d9e8f6",
        },
        Player::Last => Colours {
            dark: "#005a41",
            piece: "#84d3b7",
            territory: "#d2eee2",
        },
    }
}

pub(crate) const FRAME: &str = "#5a4330";
pub(crate) const FRAME_EDGE: &str = "#3b2b1e";
pub(crate) const FRAME_TEXT: &str = "#f6ead0";
pub(crate) const NEUTRAL: &str = "#f7f1e3";
pub(crate) const GRID: &str = "#6b5a40";
pub(crate) const GARDEN: &str = "#e8c35c";
pub(crate) const GARDEN_MARK: &str = "#8a6410";
pub(crate) const INK: &str = "#1b1b1b";
pub(crate) const MUTED: &str = "#5b5346";
pub(crate) const PROMOTED: &str = "#c2001b";
pub(crate) const HIGHLIGHT: &str = "#ffe35a";
pub(crate) const HIGHLIGHT_EDGE: &str = "#4a3500";
pub(crate) const CHECK: &str = "#d0001c";
pub(crate) const PAPER: &str = "#fbf8f1";
pub(crate) const PANEL: &str = "#fffdf8";

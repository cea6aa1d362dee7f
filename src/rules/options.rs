//! The two per-game options (R19, R24).

use std::fmt;
use std::str::FromStr;

/// R19: what happens to a pawn or lance that moves onto its far edge.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum StuckPiece {
    /// It must promote, wherever the cell is (default).
    #[default]
    Promote,
    /// It is never forced to promote and may stay stuck.
    Stay,
}

/// R24: which illumination subsets a promoted king may capture.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum Illumination {
    /// Any non-empty subset of the candidates (default).
    #[default]
    Selective,
    /// Every candidate at once, or no illumination.
    All,
}

/// The per-game rule options.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Options {
    /// R19.
    pub stuck_piece: StuckPiece,
    /// R24.
    pub illumination: Illumination,
}

impl StuckPiece {
    pub const ALL: [StuckPiece; 2] = [StuckPiece::Promote, StuckPiece::Stay];

    /// `promote` or `stay`.
    pub const fn as_str(self) -> &'static str {
        match self {
            StuckPiece::Promote => "promote",
            StuckPiece::Stay => "stay",
        }
    }
}

impl Illumination {
    pub const ALL: [Illumination; 2] = [Illumination::Selective, Illumination::All];

    /// `selective` or `all`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Illumination::Selective => "selective",
            Illumination::All => "all",
        }
    }
}

impl FromStr for StuckPiece {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "promote" => Ok(StuckPiece::Promote),
            "stay" => Ok(StuckPiece::Stay),
            _ => Err(format!(
                "stuck_piece must be `promote` or `stay`, not `{s}`"
            )),
        }
    }
}

impl FromStr for Illumination {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "selective" => Ok(Illumination::Selective),
            "all" => Ok(Illumination::All),
            _ => Err(format!(
                "illumination must be `selective` or `all`, not `{s}`"
            )),
        }
    }
}

impl fmt::Display for StuckPiece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for Illumination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

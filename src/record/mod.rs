//! Game records: a plain-text format for a whole game, its reader and its writer. Pure: no
//! I/O. A record is to sannin shogi what PGN is to chess; [`Record::to_text`] writes it,
//! [`Record::parse`] reads it back, and [`Record::replay`] plays it through the rules
//! engine, so that export → parse → replay → export gives the same text.
//!
//! # The format
//!
//! ```text
//! [Event "Autumn correspondence cup"]
//! [Site "sannin.example"]
//! [Started "2026-11-30T14:00:00Z"]
//! [Finished "2026-12-19T08:12:40Z"]
//! [First "alice"]
//! [Middle "bob"]
//! [Last "carol \"cc\" smith"]
//! [TimeControl "3 days per move"]
//! [StuckPiece "promote"]
//! [Illumination "selective"]
//! [Result "l"]
//! [Termination "ally_eliminated"]
//!
//! 1. 3d4d
//! 2. 7k7j
//! 3. 10d10e
//! ally:fm
//! 4. 4d5e
//! resign:m {m eliminated: resigned; l wins: ally_eliminated}
//! l
//! ```
//!
//! **Header.** One tag per line, `[Name "value"]`, before anything else; blank lines may
//! separate them. A name is an ASCII letter then letters, digits or `_`; names are
//! case-sensitive and appear at most once. In a value, `\"` stands for `"` and `\\` for
//! `\`; no other escape exists, and a value holds no line break or control character.
//! Tags the format does not know are kept as they are, in their order. The known ones:
//!
//! | tag | value |
//! |---|---|
//! | `Event`, `Site` | free text |
//! | `Started`, `Finished` | free text; by convention an RFC 3339 UTC time |
//! | `First`, `Middle`, `Last` | who sat in each seat (R6) |
//! | `TimeControl` | free text, `none` when moves have no time limit |
//! | `StuckPiece` | option R19: `promote` (default when absent) or `stay` |
//! | `Illumination` | option R24: `selective` (default when absent) or `all` |
//! | `Allies` | the alliance in force at the start (`fm`, `fl`, `ml`), for games whose seats start allied (R11) |
//! | `Position` | the start position as an R32 string, only when it is neither the standard start nor the allied start |
//! | `Result` | required: `f`, `m` or `l` (that player won), `draw` and the players the draw is among (`draw fml`, `draw fm`), or `*` while the game goes on |
//! | `Termination` | for finished games, why it ended: `garden`, `last_player_standing`, `ally_eliminated` (the engine's win reasons, R26, R28), `repetition` (R31) or `agreement` (R36) |
//!
//! The start position is the `Position` tag if present (with `Allies`, when also
//! present, agreeing with its alliance field); otherwise the allied start of `Allies`;
//! otherwise the standard start (R10). The two option tags apply to either.
//!
//! **Actions.** After the header, whitespace-separated tokens, in the order they happened:
//!
//! - a move: its ply number with a dot, then the move in R33 notation: `12. 7k7j`. The
//!   numbers start at the start position's ply (1 unless the `Position` tag says
//!   otherwise) and go up by one per move; `12.7k7j` is read too;
//! - a voluntary alliance (R29): `ally:fm`;
//! - a resignation or a time-out (R35): `resign:m`, `timeout:l`;
//! - a draw all living players agreed to (R36): `draw:agreed`;
//! - comments in braces, `{…}`, anywhere among the actions; they do not nest and end at
//!   the first `}`. Readers skip them (they are kept in [`Record::comments`]);
//! - last, the result token, the same text as the `Result` tag: `f`, `m`, `l`,
//!   `draw fml` or `*`. Only comments may follow it.
//!
//! What the rules do by themselves — automatic alliances (R29a), eliminations by
//! checkmate or for want of a move (R27, R30), the end of the game — are not actions: they
//! follow from the moves. [`Record::from_game`] writes them as a comment after the action
//! that caused them, e.g. `{l eliminated: checkmate by m}`.
//!
//! **Canonical text** (what [`Record::to_text`] writes): the tags in order, a blank line,
//! comments that come before any action each on a line of their own, one action per line
//! with the comments that follow it on the same line, and the result token on the last
//! line, which ends with a newline.
//!
//! **Limits.** A record is at most [`MAX_BYTES`] bytes, [`MAX_TAGS`] tags and
//! [`MAX_ACTIONS`] actions; beyond that it is refused with [`RecordErrorKind::TooLarge`].
//! The reader never panics, whatever the input.
//!
//! **Errors** carry the line and column where they were found. Replay errors point at the
//! action or tag at fault: in the text that was parsed, or, for a record built in code, in
//! its canonical text.

mod error;
mod parse;
mod write;

pub use error::{Loc, RecordError, RecordErrorKind};

use crate::rules::{
    Action, Alliance, Game, Illumination, Outcome, Player, PlayerSet, Position, StuckPiece,
};
use std::fmt;
use std::str::FromStr;

/// The most bytes a record may have (1 MiB).
pub const MAX_BYTES: usize = 1 << 20;
/// The most tags a record may have.
pub const MAX_TAGS: usize = 256;
/// The most actions a record may have.
pub const MAX_ACTIONS: usize = 10_000;

/// A game record: header tags, the actions in order, and comments.
#[derive(Clone, Debug, Default)]
pub struct Record {
    /// The header, in order: `(name, value)` with values unescaped.
    pub tags: Vec<(String, String)>,
    /// Everything the players did, in order.
    pub actions: Vec<Action>,
    /// Comments among the actions.
    pub comments: Vec<Comment>,
    /// Where [`Record::parse`] found each tag and action; empty for records built in code.
    spans: Spans,
}

/// A comment among the actions.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Comment {
    /// How many actions come before it.
    pub after: usize,
    /// The text between the braces. A `}` in it is written as `)`, since `}` ends a
    /// comment.
    pub text: String,
}

/// Where the parts of a parsed record are.
#[derive(Clone, Debug, Default)]
struct Spans {
    tags: Vec<Loc>,
    actions: Vec<Loc>,
}

impl PartialEq for Record {
    /// Records are equal when they say the same; where they were read from does not count.
    fn eq(&self, other: &Record) -> bool {
        self.tags == other.tags && self.actions == other.actions && self.comments == other.comments
    }
}

impl Eq for Record {}

/// What a record says about a game besides its actions, which the engine does not know.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct RecordMeta {
    /// `Event`.
    pub event: Option<String>,
    /// `Site`.
    pub site: Option<String>,
    /// `Started`: by convention an RFC 3339 UTC time.
    pub started: Option<String>,
    /// `Finished`: by convention an RFC 3339 UTC time.
    pub finished: Option<String>,
    /// `First`, `Middle`, `Last`: who sat in each seat, indexed by [`Player::index`].
    pub players: [Option<String>; 3],
    /// `TimeControl`; `None` is written `none`.
    pub time_control: Option<String>,
    /// Tags the format does not know, in order. [`Record::from_game`] leaves out those
    /// whose name is a known tag, is not a valid tag name, or repeats an earlier one.
    pub extra: Vec<(String, String)>,
}

/// Whether `name` can be a tag name: an ASCII letter, then ASCII letters, digits or `_`.
pub fn is_tag_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The result of a game as a record writes it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum RecordResult {
    /// `*`: the game goes on.
    Ongoing,
    /// `f`, `m` or `l`: that player won.
    Win(Player),
    /// `draw fml`: drawn among these players (R31).
    Draw(PlayerSet),
}

impl RecordResult {
    /// The result of a game with this outcome.
    pub fn of(outcome: Option<Outcome>) -> RecordResult {
        match outcome {
            None => RecordResult::Ongoing,
            Some(Outcome::Win(p, _)) => RecordResult::Win(p),
            Some(Outcome::Draw(s, _)) => RecordResult::Draw(s),
        }
    }
}

impl fmt::Display for RecordResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordResult::Ongoing => f.write_str("*"),
            RecordResult::Win(p) => write!(f, "{}", p.letter()),
            RecordResult::Draw(s) => write!(f, "draw {}", s.letters()),
        }
    }
}

impl FromStr for RecordResult {
    type Err = String;
    fn from_str(s: &str) -> Result<RecordResult, String> {
        let bad = || {
            Err(format!(
                "a result is `f`, `m`, `l`, `draw` and the drawing players (`draw fml`), or `*`; not `{s}`"
            ))
        };
        match s {
            "*" => return Ok(RecordResult::Ongoing),
            "f" | "m" | "l" => {
                return Ok(RecordResult::Win(
                    s.chars()
                        .next()
                        .and_then(Player::from_letter)
                        .expect("a letter"),
                ))
            }
            _ => {}
        }
        match s.strip_prefix("draw ").and_then(parse_player_set) {
            Some(set) => Ok(RecordResult::Draw(set)),
            None => bad(),
        }
    }
}

/// Players in turn order without repeats (`fml`, `fl`), or `-` for none.
fn parse_player_set(s: &str) -> Option<PlayerSet> {
    let mut set = PlayerSet::EMPTY;
    if s == "-" {
        return Some(set);
    }
    let mut last = None;
    for c in s.chars() {
        let p = Player::from_letter(c)?;
        if last.is_some_and(|l| l >= p) {
            return None;
        }
        last = Some(p);
        set.insert(p);
    }
    (!set.is_empty()).then_some(set)
}

/// The `Termination` value of a finished game.
pub fn termination(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Win(_, reason) => reason.code(),
        Outcome::Draw(_, reason) => reason.code(),
    }
}

/// Every `Termination` value.
const TERMINATIONS: [&str; 5] = [
    "garden",
    "last_player_standing",
    "ally_eliminated",
    "repetition",
    "agreement",
];

/// Tag names the format gives a meaning to, in the order the writer puts them.
pub mod tag {
    /// The event.
    pub const EVENT: &str = "Event";
    /// Where it was played.
    pub const SITE: &str = "Site";
    /// When it started.
    pub const STARTED: &str = "Started";
    /// When it ended.
    pub const FINISHED: &str = "Finished";
    /// First's player.
    pub const FIRST: &str = "First";
    /// Middle's player.
    pub const MIDDLE: &str = "Middle";
    /// Last's player.
    pub const LAST: &str = "Last";
    /// The time control.
    pub const TIME_CONTROL: &str = "TimeControl";
    /// Option R19.
    pub const STUCK_PIECE: &str = "StuckPiece";
    /// Option R24.
    pub const ILLUMINATION: &str = "Illumination";
    /// The alliance at the start.
    pub const ALLIES: &str = "Allies";
    /// A start position other than the standard or allied start.
    pub const POSITION: &str = "Position";
    /// The result.
    pub const RESULT: &str = "Result";
    /// Why the game ended.
    pub const TERMINATION: &str = "Termination";

    /// Every known tag, in the writer's order.
    pub const ALL: [&str; 14] = [
        EVENT,
        SITE,
        STARTED,
        FINISHED,
        FIRST,
        MIDDLE,
        LAST,
        TIME_CONTROL,
        STUCK_PIECE,
        ILLUMINATION,
        ALLIES,
        POSITION,
        RESULT,
        TERMINATION,
    ];
}

/// Checks the value of a known tag on its own; unknown tags take any value. On error,
/// the character offset in the value and the reason.
pub(crate) fn check_tag_value(name: &str, value: &str) -> Result<(), (usize, String)> {
    match name {
        tag::STUCK_PIECE => value.parse::<StuckPiece>().map(drop).map_err(|e| (0, e)),
        tag::ILLUMINATION => value.parse::<Illumination>().map(drop).map_err(|e| (0, e)),
        tag::ALLIES => Alliance::parse(value)
            .map(drop)
            .ok_or_else(|| (0, format!("expected `fm`, `fl` or `ml`, not `{value}`"))),
        tag::POSITION => Position::parse(value)
            .map(drop)
            .map_err(|e| (e.offset, e.to_string())),
        tag::RESULT => value.parse::<RecordResult>().map(drop).map_err(|e| (0, e)),
        tag::TERMINATION => {
            if TERMINATIONS.contains(&value) {
                Ok(())
            } else {
                Err((
                    0,
                    format!(
                        "expected one of {}, not `{value}`",
                        TERMINATIONS.map(|t| format!("`{t}`")).join(", ")
                    ),
                ))
            }
        }
        _ => Ok(()),
    }
}

impl Record {
    /// A record built in code, without comments. Errors from [`Record::replay`] point
    /// into its canonical text ([`Record::to_text`]).
    pub fn new(tags: Vec<(String, String)>, actions: Vec<Action>) -> Record {
        Record {
            tags,
            actions,
            ..Record::default()
        }
    }

    /// The value of a tag.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The `Result` tag, if present and well-formed.
    pub fn result(&self) -> Option<RecordResult> {
        self.tag(tag::RESULT).and_then(|v| v.parse().ok())
    }

    /// The tags that are not about the rules, for writing a replayed game back out.
    pub fn meta(&self) -> RecordMeta {
        let get = |name: &str| self.tag(name).map(str::to_string);
        RecordMeta {
            event: get(tag::EVENT),
            site: get(tag::SITE),
            started: get(tag::STARTED),
            finished: get(tag::FINISHED),
            players: [get(tag::FIRST), get(tag::MIDDLE), get(tag::LAST)],
            time_control: get(tag::TIME_CONTROL).filter(|t| t != "none"),
            extra: self
                .tags
                .iter()
                .filter(|(n, _)| !tag::ALL.contains(&n.as_str()))
                .cloned()
                .collect(),
        }
    }

    /// Where tag `i` is: as parsed, or in the canonical text.
    fn tag_loc(&self, i: usize, layout: &Spans) -> Loc {
        self.spans
            .tags
            .get(i)
            .or_else(|| layout.tags.get(i))
            .copied()
            .unwrap_or(Loc::START)
    }

    /// Locations to report replay errors at: as parsed, else in the canonical text.
    fn locations(&self) -> Spans {
        if self.spans.tags.len() == self.tags.len()
            && self.spans.actions.len() == self.actions.len()
        {
            self.spans.clone()
        } else {
            write::layout(self).1
        }
    }

    fn tag_error(&self, name: &str, reason: String, spans: &Spans) -> RecordError {
        let i = self.tags.iter().position(|(n, _)| n == name).unwrap_or(0);
        RecordError::new(
            self.tag_loc(i, spans),
            RecordErrorKind::BadTag {
                tag: name.to_string(),
                reason,
            },
        )
    }

    /// The start position the header describes (tags `Position`, `Allies`, `StuckPiece`,
    /// `Illumination`).
    pub fn start_position(&self) -> Result<Position, RecordError> {
        self.start_position_at(&self.locations())
    }

    fn start_position_at(&self, spans: &Spans) -> Result<Position, RecordError> {
        for (name, value) in &self.tags {
            if let Err((_, reason)) = check_tag_value(name, value) {
                return Err(self.tag_error(name, reason, spans));
            }
        }
        let stuck_piece = self
            .tag(tag::STUCK_PIECE)
            .and_then(|v| v.parse().ok())
            .unwrap_or_default();
        let illumination = self
            .tag(tag::ILLUMINATION)
            .and_then(|v| v.parse().ok())
            .unwrap_or_default();
        let options = crate::rules::Options {
            stuck_piece,
            illumination,
        };
        let allies = self.tag(tag::ALLIES).and_then(Alliance::parse);
        match self.tag(tag::POSITION).map(Position::parse) {
            Some(Ok(pos)) => {
                if allies.is_some() && allies != pos.alliance() {
                    let reason = format!(
                        "the Position tag's alliance field is `{}`",
                        pos.alliance().map_or("-".to_string(), |a| a.to_string())
                    );
                    return Err(self.tag_error(tag::ALLIES, reason, spans));
                }
                Ok(pos.with_options(options))
            }
            Some(Err(e)) => Err(self.tag_error(tag::POSITION, e.to_string(), spans)),
            None => Ok(match allies {
                Some(a) => Position::start_allied(a, options),
                None => Position::start().with_options(options),
            }),
        }
    }

    /// Plays the record through the rules engine from its start position: every action is
    /// checked, and the header's `Result` (and `Termination`, if present) must agree with
    /// how the replayed game stands.
    pub fn replay(&self) -> Result<Game, RecordError> {
        let spans = self.locations();
        let mut game = Game::new(self.start_position_at(&spans)?);
        for (i, action) in self.actions.iter().enumerate() {
            let ply = u64::from(game.position().ply());
            if let Err(illegal) = game.act(*action) {
                let loc = spans.actions.get(i).copied().unwrap_or(Loc::START);
                let (ply, action) = match action {
                    Action::Move(mv) => (Some(ply), mv.to_string()),
                    other => (None, write::action_token(other)),
                };
                return Err(RecordError::new(
                    loc,
                    RecordErrorKind::Illegal {
                        ply,
                        action,
                        illegal,
                    },
                ));
            }
        }
        let outcome = game.outcome();
        let mismatch = |name: &str, recorded: &str, actual: String| {
            let i = self.tags.iter().position(|(n, _)| n == name).unwrap_or(0);
            RecordError::new(
                self.tag_loc(i, &spans),
                RecordErrorKind::Mismatch {
                    tag: name.to_string(),
                    recorded: recorded.to_string(),
                    actual,
                },
            )
        };
        match self.tag(tag::RESULT) {
            Some(recorded) => {
                let actual = RecordResult::of(outcome);
                if recorded.parse::<RecordResult>() != Ok(actual) {
                    return Err(mismatch(tag::RESULT, recorded, actual.to_string()));
                }
            }
            None => {
                return Err(RecordError::new(
                    Loc::START,
                    RecordErrorKind::BadTag {
                        tag: tag::RESULT.to_string(),
                        reason: "the header has no Result tag".to_string(),
                    },
                ))
            }
        }
        if let Some(recorded) = self.tag(tag::TERMINATION) {
            let actual = outcome.map(termination);
            if actual != Some(recorded) {
                let actual = actual.unwrap_or("(none: the game goes on)").to_string();
                return Err(mismatch(tag::TERMINATION, recorded, actual));
            }
        }
        Ok(game)
    }

    /// Reads a record. Checks the format and the values of known tags, not the rules:
    /// that is [`Record::replay`]'s job. Never panics.
    pub fn parse(text: &str) -> Result<Record, RecordError> {
        parse::parse(text)
    }

    /// The record of a game, with what the engine does not know taken from `meta`.
    /// What the rules did by themselves is written as comments.
    pub fn from_game(game: &Game, meta: &RecordMeta) -> Record {
        write::from_game(game, meta)
    }

    /// The canonical text of the record.
    pub fn to_text(&self) -> String {
        write::layout(self).0
    }
}

impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text())
    }
}

//! Why a record was refused, and where.

use crate::rules::Illegal;
use std::fmt;

/// A place in a record's text: 1-based line and column (columns count characters).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Loc {
    /// Line, from 1.
    pub line: usize,
    /// Column in characters, from 1.
    pub column: usize,
}

impl Loc {
    pub(crate) const START: Loc = Loc { line: 1, column: 1 };

    /// The place `chars` characters further along the same line.
    pub(crate) fn plus(self, chars: usize) -> Loc {
        Loc {
            line: self.line,
            column: self.column + chars,
        }
    }
}

/// A refused record: where, and what is wrong.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("line {}, column {}: {kind}", loc.line, loc.column)]
pub struct RecordError {
    /// Where the problem was found (for replay errors: the action or tag at fault).
    pub loc: Loc,
    /// What is wrong.
    pub kind: RecordErrorKind,
}

impl RecordError {
    pub(crate) fn new(loc: Loc, kind: RecordErrorKind) -> RecordError {
        RecordError { loc, kind }
    }

    pub(crate) fn syntax(loc: Loc, reason: impl Into<String>) -> RecordError {
        RecordError::new(loc, RecordErrorKind::Syntax(reason.into()))
    }

    /// The line of the problem, from 1.
    pub fn line(&self) -> usize {
        self.loc.line
    }

    /// The column of the problem, in characters from 1.
    pub fn column(&self) -> usize {
        self.loc.column
    }

    /// Stable machine-readable code of the kind of problem.
    pub fn code(&self) -> &'static str {
        self.kind.code()
    }
}

/// The kinds of problem a record can have.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum RecordErrorKind {
    /// The text is over a size limit (bytes, tags or actions).
    TooLarge(String),
    /// The text does not follow the record format.
    Syntax(String),
    /// A known tag has a value the format does not allow, or tags contradict each other.
    BadTag {
        /// The tag's name.
        tag: String,
        /// What is wrong, in words.
        reason: String,
    },
    /// The engine refused an action while replaying.
    Illegal {
        /// The ply number, for moves.
        ply: Option<u64>,
        /// The action as written in the record.
        action: String,
        /// The engine's refusal, with its code and message.
        illegal: Illegal,
    },
    /// The header's Result or Termination disagrees with the replayed game.
    Mismatch {
        /// `Result` or `Termination`.
        tag: String,
        /// What the header says.
        recorded: String,
        /// What the replayed game gives.
        actual: String,
    },
}

impl RecordErrorKind {
    /// Stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            RecordErrorKind::TooLarge(_) => "record_too_large",
            RecordErrorKind::Syntax(_) => "record_syntax",
            RecordErrorKind::BadTag { .. } => "record_bad_tag",
            RecordErrorKind::Illegal { .. } => "record_illegal_action",
            RecordErrorKind::Mismatch { .. } => "record_result_mismatch",
        }
    }
}

impl fmt::Display for RecordErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordErrorKind::TooLarge(m) | RecordErrorKind::Syntax(m) => f.write_str(m),
            RecordErrorKind::BadTag { tag, reason } => write!(f, "tag {tag}: {reason}"),
            RecordErrorKind::Illegal {
                ply: Some(ply),
                action,
                illegal,
            } => write!(
                f,
                "move {ply} `{action}` is illegal ({}): {illegal}",
                illegal.code()
            ),
            RecordErrorKind::Illegal {
                ply: None,
                action,
                illegal,
            } => write!(f, "`{action}` is refused ({}): {illegal}", illegal.code()),
            RecordErrorKind::Mismatch {
                tag,
                recorded,
                actual,
            } => write!(
                f,
                "the {tag} tag says `{recorded}`, but replaying the actions gives `{actual}`"
            ),
        }
    }
}

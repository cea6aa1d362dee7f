//! Reading records. Never panics: every input gives a record or an error with a place.

use super::{
    check_tag_value, is_tag_name, parse_player_set, tag, Comment, Loc, Record, RecordError,
    RecordErrorKind, RecordResult, MAX_ACTIONS, MAX_BYTES, MAX_TAGS,
};
use crate::rules::{Action, Alliance, Move, Player};

/// A position in the text that knows its line and column.
struct Cursor<'a> {
    text: &'a str,
    pos: usize,
    loc: Loc,
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        if c == '\n' {
            self.loc.line += 1;
            self.loc.column = 1;
        } else {
            self.loc.column += 1;
        }
        Some(c)
    }

    fn skip_while(&mut self, f: impl Fn(char) -> bool) {
        while self.peek().is_some_and(&f) {
            self.bump();
        }
    }

    /// Reads while `f` holds; returns what was read.
    fn take_while(&mut self, f: impl Fn(char) -> bool) -> &'a str {
        let start = self.pos;
        self.skip_while(f);
        &self.text[start..self.pos]
    }
}

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t' || c == '\r'
}

struct Parser<'a> {
    cur: Cursor<'a>,
    record: Record,
}

pub(super) fn parse(text: &str) -> Result<Record, RecordError> {
    if text.len() > MAX_BYTES {
        return Err(RecordError::new(
            Loc::START,
            RecordErrorKind::TooLarge(format!(
                "the record is {} bytes; the most a record may have is {MAX_BYTES}",
                text.len()
            )),
        ));
    }
    let mut p = Parser {
        cur: Cursor {
            text,
            pos: 0,
            loc: Loc::START,
        },
        record: Record::default(),
    };
    loop {
        p.cur.skip_while(char::is_whitespace);
        if p.cur.peek() != Some('[') {
            break;
        }
        p.tag()?;
    }
    // The header is complete: check that its tags fit together before reading moves.
    p.record.start_position()?;
    p.body()?;
    Ok(p.record)
}

impl Parser<'_> {
    /// `[Name "value"]` and the end of its line.
    fn tag(&mut self) -> Result<(), RecordError> {
        let start = self.cur.loc;
        self.cur.bump(); // `[`
        let name_loc = self.cur.loc;
        let name = self
            .cur
            .take_while(|c| c.is_ascii_alphanumeric() || c == '_');
        if !is_tag_name(name) {
            return Err(RecordError::syntax(
                name_loc,
                "a tag name (an ASCII letter, then letters, digits or `_`) must follow `[`",
            ));
        }
        let gap = self.cur.loc;
        self.cur.skip_while(|c| c == ' ' || c == '\t');
        if self.cur.loc == gap || self.cur.peek() != Some('"') {
            return Err(RecordError::syntax(
                self.cur.loc,
                format!("expected a space and a quoted value after the tag name `{name}`"),
            ));
        }
        let open = self.cur.loc;
        self.cur.bump();
        let value_loc = self.cur.loc;
        let mut value = String::new();
        loop {
            let at = self.cur.loc;
            match self.cur.bump() {
                None | Some('\n') => {
                    return Err(RecordError::syntax(
                        open,
                        "the tag value is not closed: a `\"` is missing before the end of the line",
                    ))
                }
                Some('"') => break,
                Some('\\') => match self.cur.bump() {
                    Some(c @ ('"' | '\\')) => value.push(c),
                    other => {
                        return Err(RecordError::syntax(
                            at,
                            match other {
                                Some(c) if !c.is_control() => format!(
                                    "`\\{c}` is not an escape; in a tag value only `\\\"` and `\\\\` are"
                                ),
                                _ => "a `\\` in a tag value must be followed by `\"` or `\\`"
                                    .to_string(),
                            },
                        ))
                    }
                },
                Some(c) if c.is_control() && c != '\t' => {
                    return Err(RecordError::syntax(
                        at,
                        format!("a tag value cannot hold the control character {c:?}"),
                    ))
                }
                Some(c) => value.push(c),
            }
        }
        self.cur.skip_while(|c| c == ' ' || c == '\t');
        if self.cur.peek() != Some(']') {
            return Err(RecordError::syntax(
                self.cur.loc,
                "expected `]` after the tag value",
            ));
        }
        self.cur.bump();
        self.cur.skip_while(is_blank);
        if !matches!(self.cur.peek(), None | Some('\n')) {
            return Err(RecordError::syntax(
                self.cur.loc,
                "nothing may follow a tag on its line: one tag per line",
            ));
        }
        if self.record.tags.iter().any(|(n, _)| n == name) {
            return Err(RecordError::syntax(
                name_loc,
                format!("the tag {name} appears twice"),
            ));
        }
        if self.record.tags.len() >= MAX_TAGS {
            return Err(RecordError::new(
                start,
                RecordErrorKind::TooLarge(format!("a record has at most {MAX_TAGS} tags")),
            ));
        }
        if let Err((offset, reason)) = check_tag_value(name, &value) {
            return Err(RecordError::new(
                value_loc.plus(offset),
                RecordErrorKind::BadTag {
                    tag: name.to_string(),
                    reason,
                },
            ));
        }
        self.record.tags.push((name.to_string(), value));
        self.record.spans.tags.push(start);
        Ok(())
    }

    fn push_action(&mut self, action: Action, loc: Loc) -> Result<(), RecordError> {
        if self.record.actions.len() >= MAX_ACTIONS {
            return Err(RecordError::new(
                loc,
                RecordErrorKind::TooLarge(format!("a record has at most {MAX_ACTIONS} actions")),
            ));
        }
        self.record.actions.push(action);
        self.record.spans.actions.push(loc);
        Ok(())
    }

    /// The actions, comments and the result token.
    fn body(&mut self) -> Result<(), RecordError> {
        let mut next_ply = super::write::start_ply(&self.record);
        // A move number read, waiting for its move.
        let mut number: Option<(u64, Loc)> = None;
        // `draw` read, waiting for its players.
        let mut draw: Option<Loc> = None;
        let mut result: Option<(RecordResult, Loc)> = None;
        loop {
            self.cur.skip_while(char::is_whitespace);
            let loc = self.cur.loc;
            match self.cur.peek() {
                None => break,
                Some('{') => {
                    self.cur.bump();
                    let text = self.cur.take_while(|c| c != '}');
                    if self.cur.bump().is_none() {
                        return Err(RecordError::syntax(
                            loc,
                            "the comment is not closed: a `}` is missing",
                        ));
                    }
                    self.record.comments.push(Comment {
                        after: self.record.actions.len(),
                        text: text.to_string(),
                    });
                    continue;
                }
                Some('}') => {
                    return Err(RecordError::syntax(loc, "a `}` without a `{` before it"));
                }
                Some('[') => {
                    return Err(RecordError::syntax(
                        loc,
                        "tags come before the actions; this one comes after them",
                    ));
                }
                Some(_) => {}
            }
            let token = self
                .cur
                .take_while(|c| !c.is_whitespace() && c != '{' && c != '}');

            if let Some(draw_loc) = draw.take() {
                let set = parse_player_set(token).ok_or_else(|| {
                    RecordError::syntax(
                        loc,
                        format!("`draw` must be followed by the drawing players, such as `fml` or `fm`; not `{token}`"),
                    )
                })?;
                result = Some((RecordResult::Draw(set), draw_loc));
                continue;
            }
            if result.is_some() {
                return Err(RecordError::syntax(
                    loc,
                    format!("only comments may follow the result; found `{token}`"),
                ));
            }
            // A move number, alone (`12.`) or joined to its move (`12.7k7j`).
            let digits = token.bytes().take_while(u8::is_ascii_digit).count();
            if digits > 0 && token.as_bytes().get(digits) == Some(&b'.') {
                if let Some((n, _)) = number {
                    return Err(RecordError::syntax(
                        loc,
                        format!("move number {n}. has no move"),
                    ));
                }
                let n = token[..digits]
                    .parse::<u64>()
                    .ok()
                    .filter(|n| *n == next_ply);
                let Some(n) = n else {
                    return Err(RecordError::syntax(
                        loc,
                        format!(
                            "expected move number {next_ply}., found `{}`",
                            &token[..=digits]
                        ),
                    ));
                };
                number = Some((n, loc));
                let rest = &token[digits + 1..];
                if rest.is_empty() {
                    continue;
                }
                self.board_move(rest, loc.plus(digits + 1), loc)?;
                number = None;
                next_ply += 1;
                continue;
            }
            if let Some((n, number_loc)) = number {
                let not_a_move =
                    matches!(token, "f" | "m" | "l" | "*" | "draw") || token.contains(':');
                if not_a_move {
                    return Err(RecordError::syntax(
                        number_loc,
                        format!("move number {n}. has no move"),
                    ));
                }
                self.board_move(token, loc, number_loc)?;
                number = None;
                next_ply += 1;
                continue;
            }
            if let Some((verb, arg)) = token.split_once(':') {
                let arg_loc = loc.plus(verb.chars().count() + 1);
                let player = || {
                    let mut cs = arg.chars();
                    match (cs.next().and_then(Player::from_letter), cs.next()) {
                        (Some(p), None) => Ok(p),
                        _ => Err(RecordError::syntax(
                            arg_loc,
                            format!("expected a player letter `f`, `m` or `l`, not `{arg}`"),
                        )),
                    }
                };
                let action = match verb {
                    "ally" => Action::Alliance(Alliance::parse(arg).ok_or_else(|| {
                        RecordError::syntax(
                            arg_loc,
                            format!("expected an alliance `fm`, `fl` or `ml`, not `{arg}`"),
                        )
                    })?),
                    "resign" => Action::Resign(player()?),
                    "timeout" => Action::TimeOut(player()?),
                    "draw" if arg == "agreed" => Action::DrawAgreed,
                    _ => {
                        return Err(RecordError::syntax(
                            loc,
                            format!("`{verb}:` is not an action; the actions besides moves are `ally:`, `resign:`, `timeout:` and `draw:agreed`"),
                        ))
                    }
                };
                self.push_action(action, loc)?;
                continue;
            }
            match token {
                "f" | "m" | "l" | "*" => {
                    let r = token
                        .parse::<RecordResult>()
                        .map_err(|e| RecordError::syntax(loc, e))?;
                    result = Some((r, loc));
                    continue;
                }
                "draw" => {
                    draw = Some(loc);
                    continue;
                }
                _ => {}
            }
            return Err(RecordError::syntax(
                loc,
                match Move::parse(token) {
                    Ok(_) => format!("the move `{token}` needs its number: `{next_ply}. {token}`"),
                    Err(_) => format!(
                        "`{token}` is not a numbered move, an action (`ally:fm`, `resign:m`, `timeout:l`) or a result (`f`, `m`, `l`, `draw fml`, `*`)"
                    ),
                },
            ));
        }
        let end = self.cur.loc;
        if let Some((n, loc)) = number {
            return Err(RecordError::syntax(
                loc,
                format!("move number {n}. has no move"),
            ));
        }
        if let Some(loc) = draw {
            return Err(RecordError::syntax(
                loc,
                "`draw` must be followed by the drawing players, such as `fml`",
            ));
        }
        let Some((result, loc)) = result else {
            return Err(RecordError::syntax(
                end,
                "the record ends without its result (`f`, `m`, `l`, `draw fml` or `*`)",
            ));
        };
        match self.record.result() {
            None => Err(RecordError::new(
                loc,
                RecordErrorKind::BadTag {
                    tag: tag::RESULT.to_string(),
                    reason: "the header has no Result tag".to_string(),
                },
            )),
            Some(r) if r != result => Err(RecordError::syntax(
                loc,
                format!("the result `{result}` differs from the Result tag `{r}`"),
            )),
            Some(_) => Ok(()),
        }
    }

    /// A move at `loc` after its number at `number_loc`, where the action is said to be.
    fn board_move(&mut self, text: &str, loc: Loc, number_loc: Loc) -> Result<(), RecordError> {
        match Move::parse(text) {
            Ok(mv) => self.push_action(Action::Move(mv), number_loc),
            Err(e) => Err(RecordError::syntax(
                loc.plus(e.offset),
                format!("`{text}` is not a move: {}", e.reason),
            )),
        }
    }
}

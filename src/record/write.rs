//! Writing records: from a game, and as canonical text.

use super::{is_tag_name, tag, termination, Comment, Loc, Record, RecordMeta, RecordResult, Spans};
use crate::rules::{Action, Alliance, Event, Game, Outcome, Player, Position};
use std::fmt::Write as _;

/// An action other than a move, as its token (`ally:fm`, `resign:m`, `timeout:l`,
/// `draw:agreed`); a move
/// as its R33 string, without its number.
pub(super) fn action_token(action: &Action) -> String {
    match action {
        Action::Move(mv) => mv.to_string(),
        Action::Alliance(a) => format!("ally:{a}"),
        Action::Resign(p) => format!("resign:{}", p.letter()),
        Action::TimeOut(p) => format!("timeout:{}", p.letter()),
        Action::DrawAgreed => "draw:agreed".to_owned(),
    }
}

/// A tag value with `"` and `\` escaped. Line breaks and other control characters but
/// the tab cannot be written in a value, so they become spaces.
fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() && c != '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// The ply the record's moves are numbered from: the `Position` tag's, else 1.
pub(super) fn start_ply(record: &Record) -> u64 {
    record
        .tag(tag::POSITION)
        .and_then(|p| p.rsplit(' ').next())
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or(1)
}

/// The canonical text of a record, and where each tag and action is in it.
pub(super) fn layout(record: &Record) -> (String, Spans) {
    let mut out = String::new();
    let mut spans = Spans::default();
    let mut line = 1;
    for (name, value) in &record.tags {
        spans.tags.push(Loc { line, column: 1 });
        let _ = writeln!(out, "[{name} \"{}\"]", escape(value));
        line += 1;
    }
    if !record.tags.is_empty() {
        out.push('\n');
        line += 1;
    }
    let mut comments: Vec<&Comment> = record.comments.iter().collect();
    comments.sort_by_key(|c| c.after.min(record.actions.len()));
    let mut comments = comments.into_iter().peekable();
    let write_comment = |out: &mut String, c: &Comment| {
        out.push('{');
        out.push_str(&c.text.replace('}', ")"));
        out.push('}');
    };
    while let Some(c) = comments.next_if(|c| c.after == 0 || record.actions.is_empty()) {
        write_comment(&mut out, c);
        out.push('\n');
        line += c.text.matches('\n').count() + 1;
    }
    let mut ply = start_ply(record);
    for (i, action) in record.actions.iter().enumerate() {
        spans.actions.push(Loc { line, column: 1 });
        if let Action::Move(mv) = action {
            let _ = write!(out, "{ply}. {mv}");
            ply += 1;
        } else {
            out.push_str(&action_token(action));
        }
        let last = i + 1 == record.actions.len();
        while let Some(c) = comments.next_if(|c| c.after == i + 1 || last) {
            out.push(' ');
            write_comment(&mut out, c);
            line += c.text.matches('\n').count();
        }
        out.push('\n');
        line += 1;
    }
    let result = record.tag(tag::RESULT).unwrap_or("*");
    out.push_str(result);
    out.push('\n');
    (out, spans)
}

/// What the rules did after an action, in words, or `None` if nothing worth a note.
fn describe(events: &[Event]) -> Option<String> {
    let notes: Vec<String> = events
        .iter()
        .filter_map(|e| match *e {
            Event::AllianceFormed {
                alliance,
                automatic,
            } => automatic.then(|| format!("{alliance} ally automatically (R29a)")),
            Event::Eliminated { player, reason, by } => Some(match by {
                Some(m) => format!(
                    "{} eliminated: {} by {}",
                    player.letter(),
                    reason.code(),
                    m.letter()
                ),
                None => format!("{} eliminated: {}", player.letter(), reason.code()),
            }),
            Event::AllianceDissolved { alliance } => Some(format!("alliance {alliance} dissolved")),
            Event::Finished(outcome @ Outcome::Win(p, _)) => {
                Some(format!("{} wins: {}", p.letter(), termination(outcome)))
            }
            Event::Finished(outcome @ Outcome::Draw(s, _)) => {
                Some(format!("draw {}: {}", s.letters(), termination(outcome)))
            }
        })
        .collect();
    (!notes.is_empty()).then(|| notes.join("; "))
}

/// The alliance of the standard start that `start` is, if it is one.
fn allied_start(start: &Position) -> Option<Alliance> {
    let options = start.options();
    [Player::Last, Player::Middle, Player::First]
        .into_iter()
        .map(Alliance::against)
        .find(|a| *start == Position::start_allied(*a, options))
}

pub(super) fn from_game(game: &Game, meta: &RecordMeta) -> Record {
    let mut tags: Vec<(String, String)> = Vec::new();
    let mut put = |name: &str, value: Option<&str>| {
        if let Some(v) = value {
            tags.push((name.to_string(), v.to_string()));
        }
    };
    put(tag::EVENT, meta.event.as_deref());
    put(tag::SITE, meta.site.as_deref());
    put(tag::STARTED, meta.started.as_deref());
    put(tag::FINISHED, meta.finished.as_deref());
    put(tag::FIRST, meta.players[0].as_deref());
    put(tag::MIDDLE, meta.players[1].as_deref());
    put(tag::LAST, meta.players[2].as_deref());
    put(
        tag::TIME_CONTROL,
        Some(meta.time_control.as_deref().unwrap_or("none")),
    );
    let start = game.start();
    let options = start.options();
    put(tag::STUCK_PIECE, Some(options.stuck_piece.as_str()));
    put(tag::ILLUMINATION, Some(options.illumination.as_str()));
    let standard = *start == Position::start().with_options(options);
    if !standard && allied_start(start).is_none() {
        let allies = start.alliance().map(|a| a.to_string());
        put(tag::ALLIES, allies.as_deref());
        put(tag::POSITION, Some(&start.to_string()));
    } else if let Some(a) = allied_start(start) {
        put(tag::ALLIES, Some(&a.to_string()));
    }
    let outcome = game.outcome();
    put(tag::RESULT, Some(&RecordResult::of(outcome).to_string()));
    put(tag::TERMINATION, outcome.map(termination));
    for (name, value) in &meta.extra {
        let taken = tags.iter().any(|(n, _)| n == name);
        if is_tag_name(name) && !taken && !tag::ALL.contains(&name.as_str()) {
            tags.push((name.clone(), value.clone()));
        }
    }

    let mut actions = Vec::with_capacity(game.entries().len());
    let mut comments = Vec::new();
    for (i, entry) in game.entries().iter().enumerate() {
        actions.push(entry.action);
        if let Some(text) = describe(&entry.events) {
            comments.push(Comment { after: i + 1, text });
        }
    }
    Record {
        tags,
        actions,
        comments,
        spans: Spans::default(),
    }
}

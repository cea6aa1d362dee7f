//! Just enough XML writing for the board picture: escaping and number formatting.

use super::geom::Pt;
use std::fmt::Write as _;

/// Text made safe for XML character data and attribute values: markup characters become
/// entities, and characters XML 1.0 forbids (most C0 controls, U+FFFE, U+FFFF) become
/// U+FFFD, so that any name a player chooses still yields a well-formed document.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(' '),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// At most `max` characters of `s`, with `…` in place of the rest, so long names keep
/// their panel's width. Whitespace runs collapse to one space.
pub(crate) fn clip(s: &str, max: usize) -> String {
    let words: Vec<&str> = s.split_whitespace().collect();
    let s = words.join(" ");
    if s.chars().count() <= max {
        return s;
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// A coordinate with one decimal, never `-0.0`, so output is stable and compact.
pub(crate) fn num(x: f64) -> String {
    let r = (x * 10.0).round() / 10.0;
    if r == 0.0 {
        "0".to_string()
    } else if r.fract() == 0.0 {
        format!("{r:.0}")
    } else {
        format!("{r:.1}")
    }
}

/// `x,y x,y …` for a `points` attribute.
pub(crate) fn points(pts: &[Pt]) -> String {
    let mut s = String::new();
    for (i, p) in pts.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        let _ = write!(s, "{},{}", num(p.x), num(p.y));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_covers_markup_and_forbidden_characters() {
        assert_eq!(
            escape("<script>&\"'x\u{1}\u{FFFF}\n"),
            "&lt;script&gt;&amp;&quot;&#39;x\u{FFFD}\u{FFFD} "
        );
    }

    #[test]
    fn clip_keeps_short_text_and_marks_cut_text() {
        assert_eq!(clip("  Ann   Lee ", 10), "Ann Lee");
        assert_eq!(clip("abcdefghijk", 5), "abcd…");
    }

    #[test]
    fn num_is_compact_and_has_no_negative_zero() {
        assert_eq!(num(-0.01), "0");
        assert_eq!(num(12.0), "12");
        assert_eq!(num(-3.46), "-3.5");
    }
}

//! Perft (R34) against the reference data in `tests/data/perft.txt` and against the
//! known start-position counts. Perft counts every legal move once, so any generator
//! bug in piece movement (§4), drops (R15–R16), promotion (R17–R19), castling (R21),
//! legality (R22–R23) or the after-move effects (R26–R30) shows up as a wrong count.

use sannin::rules::{perft, perft_divide, Move, Position};
use std::collections::BTreeMap;

/// One block of the data file: a position, a depth, per-root-move counts and a total.
struct Case {
    line: usize,
    position: String,
    depth: u32,
    divide: Vec<(String, u64)>,
    total: u64,
}

/// Reads the data file's format: `#` comments and blank lines are skipped; each block is
/// `position <string>`, `divide <depth>`, then `<move> <nodes>` lines, then `total <nodes>`.
fn parse_cases(text: &str) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut current: Option<Case> = None;
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, rest) = line
            .split_once(' ')
            .unwrap_or_else(|| panic!("line {line_no}: expected `<key> <value>`: {line:?}"));
        match key {
            "position" => {
                assert!(
                    current.is_none(),
                    "line {line_no}: new position before the previous block's `total`"
                );
                current = Some(Case {
                    line: line_no,
                    position: rest.to_string(),
                    depth: 0,
                    divide: Vec::new(),
                    total: 0,
                });
            }
            "divide" => {
                let case = current
                    .as_mut()
                    .unwrap_or_else(|| panic!("line {line_no}: `divide` outside a block"));
                case.depth = rest
                    .parse()
                    .unwrap_or_else(|e| panic!("line {line_no}: bad depth {rest:?}: {e}"));
            }
            "total" => {
                let mut case = current
                    .take()
                    .unwrap_or_else(|| panic!("line {line_no}: `total` outside a block"));
                case.total = rest
                    .parse()
                    .unwrap_or_else(|e| panic!("line {line_no}: bad total {rest:?}: {e}"));
                assert!(case.depth > 0, "line {line_no}: block without `divide`");
                cases.push(case);
            }
            mv => {
                let case = current
                    .as_mut()
                    .unwrap_or_else(|| panic!("line {line_no}: move line outside a block"));
                let n = rest
                    .parse()
                    .unwrap_or_else(|e| panic!("line {line_no}: bad count {rest:?}: {e}"));
                case.divide.push((mv.to_string(), n));
            }
        }
    }
    assert!(current.is_none(), "data file ends inside a block");
    cases
}

fn reference_cases() -> Vec<Case> {
    let cases = parse_cases(include_str!("data/perft.txt"));
    assert!(!cases.is_empty(), "no perft cases in tests/data/perft.txt");
    cases
}

fn parse(s: &str) -> Position {
    Position::parse(s).unwrap_or_else(|e| panic!("{s:?} does not parse: {e}"))
}

#[test]
fn r34_reference_divide_matches_every_root_move() {
    for case in reference_cases() {
        let pos = parse(&case.position);
        let got: BTreeMap<String, u64> = perft_divide(&pos, case.depth)
            .into_iter()
            .map(|(m, n)| (m.to_string(), n))
            .collect();
        let want: BTreeMap<String, u64> = case.divide.iter().cloned().collect();
        assert_eq!(
            want.len(),
            case.divide.len(),
            "block at line {}: a move is listed twice",
            case.line
        );
        let missing: Vec<_> = want.keys().filter(|m| !got.contains_key(*m)).collect();
        let extra: Vec<_> = got.keys().filter(|m| !want.contains_key(*m)).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "block at line {}: root moves differ; missing {missing:?}, extra {extra:?}",
            case.line
        );
        for (mv, n) in &want {
            assert_eq!(
                got[mv], *n,
                "block at line {}: divide {} of {mv}",
                case.line, case.depth
            );
        }
        let sum: u64 = got.values().sum();
        assert_eq!(
            sum, case.total,
            "block at line {}: sum of divide counts",
            case.line
        );
        assert_eq!(
            perft(&pos, case.depth),
            case.total,
            "block at line {}: perft {}",
            case.line,
            case.depth
        );
    }
}

#[test]
fn r33_reference_moves_are_canonical_strings() {
    // The data file writes moves in R33's canonical form: each parses and prints back
    // unchanged, and is legal in its position.
    for case in reference_cases() {
        let pos = parse(&case.position);
        for (s, _) in &case.divide {
            let mv = Move::parse(s).unwrap_or_else(|e| panic!("{s:?}: {e}"));
            assert_eq!(mv.to_string(), *s);
            assert!(pos.is_legal(mv), "{s} is not legal in {}", case.position);
        }
    }
}

#[test]
fn r32_reference_positions_are_canonical_strings() {
    for case in reference_cases() {
        assert_eq!(parse(&case.position).to_string(), case.position);
    }
}

#[test]
fn r34_perft_zero_is_one() {
    assert_eq!(perft(&Position::start(), 0), 1);
}

#[test]
fn r34_start_position_depth_1() {
    assert_eq!(perft(&Position::start(), 1), 48);
}

#[test]
fn r34_start_position_depth_2() {
    assert_eq!(perft(&Position::start(), 2), 2_302);
}

#[test]
fn r34_start_position_depth_3() {
    assert_eq!(perft(&Position::start(), 3), 110_365);
}

/// The second reference position: Middle to move with B, L, P in hand (R15, R16), late
/// in a game (ply 95) with promoted pieces on the board.
const DROPS: &str = "Sl1Pl4/6+Ll1/GlKlPlPl5/2Pl+Rl6/2Rl8/2Nl3Bm5/1SlPl+Bm9/Ll1PlGl8/3Pm5Pm1/Pm1PmSm1NmPm1Pm1/6Pm2/2GlSmKmGm2/6Lm m BmLmPm2Pl - - 95";

#[test]
fn r34_drop_position_depth_1() {
    assert_eq!(perft(&parse(DROPS), 1), 28);
}

#[test]
fn r34_drop_position_depth_2() {
    assert_eq!(perft(&parse(DROPS), 2), 4_154);
}

#[test]
fn data_file_parser_reads_blocks() {
    // A parser that silently skipped blocks would make the reference test vacuous.
    let text =
        "# comment\n\nposition a b\ndivide 2\nx1 3\nx2 4\ntotal 7\nposition c\ndivide 1\ntotal 0\n";
    let cases = parse_cases(text);
    assert_eq!(cases.len(), 2);
    assert_eq!(cases[0].position, "a b");
    assert_eq!(cases[0].depth, 2);
    assert_eq!(
        cases[0].divide,
        vec![("x1".to_string(), 3), ("x2".to_string(), 4)]
    );
    assert_eq!(cases[0].total, 7);
    assert_eq!(cases[1].line, 8);
    assert!(cases[1].divide.is_empty());
}

#[test]
fn reference_file_holds_both_positions() {
    let cases = reference_cases();
    assert_eq!(cases.len(), 2);
    assert_eq!(cases[0].position, sannin::rules::START);
    assert_eq!((cases[0].depth, cases[0].total), (3, 110_365));
    assert_eq!(cases[0].divide.len(), 48);
    assert_eq!(cases[1].position, DROPS);
    assert_eq!((cases[1].depth, cases[1].total), (2, 4_154));
    assert_eq!(cases[1].divide.len(), 28);
}

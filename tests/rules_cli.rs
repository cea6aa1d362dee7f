//! `sannin rules …` from the shell, as a user runs it.

use std::io::Write;
use std::process::{Command, Output, Stdio};

const START: &str = sannin::rules::START;

fn sannin(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sannin"))
        .args(args)
        .output()
        .expect("runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8")
}

#[test]
fn perft_prints_the_count_as_its_last_line() {
    let o = sannin(&["rules", "perft", "2"]);
    assert!(o.status.success());
    assert_eq!(stdout(&o).lines().last(), Some("2302"));
}

#[test]
fn perft_divide_lists_each_root_move_then_the_total() {
    let o = sannin(&["rules", "perft", "2", "--divide"]);
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 49);
    assert_eq!(lines[0], "1a2a 48");
    assert_eq!(lines[48], "2302");
    let sum: u64 = lines[..48]
        .iter()
        .map(|l| l.split(' ').nth(1).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, 2302);
}

#[test]
fn perft_takes_a_position_and_options() {
    let pos = "Sl1Pl4/6+Ll1/GlKlPlPl5/2Pl+Rl6/2Rl8/2Nl3Bm5/1SlPl+Bm9/Ll1PlGl8/3Pm5Pm1/Pm1PmSm1NmPm1Pm1/6Pm2/2GlSmKmGm2/6Lm m BmLmPm2Pl - - 95";
    let o = sannin(&[
        "rules",
        "perft",
        "1",
        "--pos",
        pos,
        "--illumination",
        "all",
        "--stuck",
        "stay",
    ]);
    assert_eq!(stdout(&o).trim(), "28");
    let bad = sannin(&["rules", "perft", "1", "--stuck", "sometimes"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("stuck_piece"));
}

#[test]
fn legal_prints_one_canonical_move_per_line() {
    let o = sannin(&["rules", "legal"]);
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 48);
    assert!(out.lines().any(|l| l == "2g10k+"));
}

#[test]
fn legal_batch_answers_one_line_per_input_line() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sannin"))
        .args(["rules", "legal", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let over = "5Kf1/8/9/10/11/12/Kl5Km6/12/11/10/9/8/7 - - - - 2";
    let input = format!("{START}\nnot a position\n{over}\n");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.split('\n').collect();
    assert_eq!(lines.len(), 4, "{text:?}");
    assert_eq!(lines[0].split(' ').count(), 48);
    assert!(lines[1].starts_with("error: "));
    assert_eq!(lines[2], "", "a finished game has no moves");
}

#[test]
fn play_applies_moves_and_alliances_and_prints_position_and_status() {
    let o = sannin(&["rules", "play", "3d4d", "7k7j", "ally:fm"]);
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(out.contains(" l - fm - 3\n"), "{out}");
    assert!(out.contains("+Kl"));
    assert!(out
        .lines()
        .last()
        .unwrap()
        .starts_with("status: ongoing; to move: last"));
}

#[test]
fn play_reports_an_illegal_move_and_exits_non_zero() {
    let o = sannin(&["rules", "play", "3d4d", "3d4e"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("no_piece") || err.contains("not_your_piece"),
        "{err}"
    );
    let o = sannin(&["rules", "play", "--pos", "nonsense"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("invalid position string"));
}

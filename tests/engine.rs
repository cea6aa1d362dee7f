//! The computer player: legal, reproducible answers that see a won game.

use std::process::Command;

use sannin::engine::{search, Level, Limits, MATE};
use sannin::rules::{Move, Position, START};

/// First's king one step from the Garden, nobody allied (R26): `6g7g` wins.
const GARDEN_IN_ONE: &str = "7/8/9/10/11/12/Kl6Kf5/12/11/10/9/8/3Km3 f - - - 1";

fn depth(d: u32) -> Limits<'static> {
    Limits {
        depth: Some(d),
        ..Limits::default()
    }
}

#[test]
fn r26_a_king_one_step_from_the_garden_walks_in() {
    let pos = Position::parse(GARDEN_IN_ONE).unwrap();
    for d in [1, 2, 3] {
        let result = search(&pos, &depth(d)).unwrap();
        assert_eq!(result.best, Move::parse("6g7g").unwrap(), "depth {d}");
        assert!(
            result.iterations[0].score > MATE - 100,
            "{:?}",
            result.iterations
        );
    }
}

#[test]
fn answers_are_legal_and_reproducible_through_a_game() {
    let mut pos = Position::parse(START).unwrap();
    for ply in 0..24 {
        if pos.is_over() {
            break;
        }
        let limits = Level::new(2).unwrap().limits(ply);
        let a = search(&pos, &limits).unwrap();
        let b = search(&pos, &limits).unwrap();
        assert_eq!(a.best, b.best, "ply {ply}");
        assert_eq!(a.nodes, b.nodes, "ply {ply}");
        assert!(pos.is_legal(a.best), "{} at ply {ply}", a.best);
        pos.play_unchecked(a.best);
    }
}

#[test]
fn deeper_iterations_report_in_order_and_a_node_limit_holds() {
    let pos = Position::parse(START).unwrap();
    let result = search(&pos, &depth(3)).unwrap();
    let depths: Vec<u32> = result.iterations.iter().map(|r| r.depth).collect();
    assert_eq!(depths, [1, 2, 3]);
    assert!(result
        .iterations
        .windows(2)
        .all(|w| w[0].nodes < w[1].nodes));

    let limited = Limits {
        nodes: Some(2_000),
        ..Limits::default()
    };
    let result = search(&pos, &limited).unwrap();
    assert!(result.nodes <= 2_001, "{}", result.nodes);
    assert!(pos.is_legal(result.best));
}

#[test]
fn a_stop_ends_the_search_with_the_last_finished_answer() {
    let pos = Position::parse(START).unwrap();
    let calls = std::cell::Cell::new(0);
    let stop = || {
        calls.set(calls.get() + 1);
        calls.get() > 3
    };
    let limits = Limits {
        stop: Some(&stop),
        ..Limits::default()
    };
    let result = search(&pos, &limits).unwrap();
    assert!(pos.is_legal(result.best));
    assert!(calls.get() > 3);
}

#[test]
fn a_finished_game_has_no_move() {
    let mut pos = Position::parse(GARDEN_IN_ONE).unwrap();
    pos.play_unchecked(Move::parse("6g7g").unwrap());
    assert!(pos.is_over());
    assert!(search(&pos, &depth(2)).is_none());
}

#[test]
fn the_cli_prints_the_move_last() {
    let o = Command::new(env!("CARGO_BIN_EXE_sannin"))
        .args(["engine", "bestmove", "--depth", "2", "--pos", GARDEN_IN_ONE])
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let out = String::from_utf8(o.stdout).unwrap();
    assert_eq!(out.lines().last(), Some("6g7g"), "{out}");
    assert!(
        out.lines().next().unwrap().starts_with("depth 1 nodes "),
        "{out}"
    );

    let o = Command::new(env!("CARGO_BIN_EXE_sannin"))
        .args(["engine", "bestmove", "--level", "6"])
        .output()
        .unwrap();
    assert!(!o.status.success());
}

#[test]
fn a_match_plays_whole_games_and_prints_a_share_last() {
    let o = Command::new(env!("CARGO_BIN_EXE_sannin"))
        .args([
            "engine",
            "match",
            "--games",
            "6",
            "--a",
            "2",
            "--b",
            "1",
            "--max-plies",
            "12",
            "--movetime",
            "50",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let out = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 7, "{out}");
    // Each arrangement once: a lone A at each seat, then a lone B.
    let seats: Vec<&str> = lines[..6]
        .iter()
        .map(|l| l.split(' ').nth(3).unwrap())
        .collect();
    assert_eq!(
        seats,
        ["2/1/1", "1/2/1", "1/1/2", "1/2/2", "2/1/2", "2/2/1"],
        "{out}"
    );
    assert!(lines[6].starts_with("A (level 2) scored "), "{out}");
    assert!(lines[6].contains("fair share is 3.00"), "{out}");
}

#[test]
fn r26_the_threat_of_an_unguarded_garden_weighs_heavily() {
    use sannin::engine::evaluate;
    use sannin::rules::Player;
    // Middle to move, First's king next to the empty, unguarded Garden.
    let threatened = Position::parse("7/8/9/10/11/12/Kl6Kf5/12/11/10/9/8/3Km3 m - - - 1").unwrap();
    // The same king two steps away.
    let calm = Position::parse("7/8/9/10/11/12/Kl5Kf6/12/11/10/9/8/3Km3 m - - - 1").unwrap();
    let (a, b) = (
        evaluate(&threatened, Player::Middle),
        evaluate(&calm, Player::Middle),
    );
    assert!(
        b - a >= 500,
        "the threat costs Middle {} ({a} against {b})",
        b - a
    );
}

#[test]
fn r29_a_bot_allies_only_when_it_does_not_lead() {
    use sannin::engine::accepts_alliance;
    use sannin::rules::Player::{First, Last, Middle};
    // At the start everyone stands equal: nobody needs an ally.
    let start = Position::parse(START).unwrap();
    assert!(!accepts_alliance(&start, Middle, First));
    // Middle without its rook stands worst: it takes any ally; First, level
    // with Last, does not ally with the weakest against its equal.
    let weak_middle = START.replace("1Bm4Rm1", "1Bm6");
    let pos = Position::parse(&weak_middle).unwrap();
    assert!(accepts_alliance(&pos, Middle, First));
    assert!(accepts_alliance(&pos, Middle, Last));
    assert!(!accepts_alliance(&pos, First, Middle));
    // Nobody allies with itself.
    assert!(!accepts_alliance(&pos, Middle, Middle));
}

#[test]
fn r36_a_bot_accepts_a_draw_unless_it_stands_better() {
    use sannin::engine::accepts_draw;
    use sannin::rules::Player::{First, Last, Middle};
    let start = Position::parse(START).unwrap();
    for p in [First, Middle, Last] {
        assert!(accepts_draw(&start, p), "{p} at the start");
    }
    // Middle without its rook: the others stand better and play on.
    let pos = Position::parse(&START.replace("1Bm4Rm1", "1Bm6")).unwrap();
    assert!(accepts_draw(&pos, Middle));
    assert!(!accepts_draw(&pos, First));
    assert!(!accepts_draw(&pos, Last));
}

#[test]
fn best_reply_search_plays_legal_reproducible_moves_and_sees_the_garden() {
    let best_reply = |d: u32| Limits {
        depth: Some(d),
        best_reply: true,
        ..Limits::default()
    };
    let pos = Position::parse(GARDEN_IN_ONE).unwrap();
    assert_eq!(
        search(&pos, &best_reply(2)).unwrap().best,
        Move::parse("6g7g").unwrap()
    );
    let mut pos = Position::parse(START).unwrap();
    for ply in 0..16 {
        if pos.is_over() {
            break;
        }
        let a = search(&pos, &best_reply(3)).unwrap();
        let b = search(&pos, &best_reply(3)).unwrap();
        assert_eq!((a.best, a.nodes), (b.best, b.nodes), "ply {ply}");
        assert!(pos.is_legal(a.best), "{} at ply {ply}", a.best);
        pos.play_unchecked(a.best);
    }
}

#[test]
fn with_turn_hands_the_move_to_a_living_player_only() {
    use sannin::rules::Player;
    let start = Position::parse(START).unwrap();
    let passed = start.with_turn(Player::Last);
    assert_eq!(passed.to_move(), Some(Player::Last));
    assert_ne!(passed.key(), start.key());
    assert_eq!(passed.with_turn(Player::First).key(), start.key());
    let mut over = Position::parse(GARDEN_IN_ONE).unwrap();
    over.play_unchecked(Move::parse("6g7g").unwrap());
    assert_eq!(over.with_turn(Player::Middle).to_move(), None);
}

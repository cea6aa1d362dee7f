//! Game records: round trips through text and the engine, and the errors a bad record
//! gets. Games are random playouts with a fixed-seed xorshift, so they are the same on
//! every run.

use proptest::prelude::*;
use sannin::record::{Record, RecordErrorKind, RecordMeta, RecordResult, MAX_ACTIONS, MAX_BYTES};
use sannin::rules::{
    Action, Alliance, Game, Illumination, Move, Options, Player, Position, StuckPiece,
};

/// xorshift64: a small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Plays up to `plies` random legal moves (fewer if the game ends).
fn play_random(game: &mut Game, rng: &mut Rng, plies: usize) {
    for _ in 0..plies {
        let moves = game.position().legal_moves();
        if moves.is_empty() {
            return;
        }
        let mv = moves[rng.below(moves.len())];
        game.play(mv).expect("a legal move");
    }
}

fn meta() -> RecordMeta {
    RecordMeta {
        event: Some("Autumn correspondence cup".into()),
        site: Some("test".into()),
        started: Some("2026-11-30T14:00:00Z".into()),
        finished: None,
        players: [
            Some("alice".into()),
            Some("bob \"the rook\"".into()),
            Some("carol\\c".into()),
        ],
        time_control: Some("3 days per move".into()),
        extra: vec![("Annotator".into(), "dave {\\ \"}".into())],
    }
}

/// Export → parse → replay → export gives the same text, and the same final position.
fn round_trip(game: &Game, meta: &RecordMeta) -> String {
    let text = Record::from_game(game, meta).to_text();
    let parsed = Record::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(parsed.to_text(), text, "parse → to_text");
    assert_eq!(parsed.meta(), *meta);
    let replayed = parsed.replay().unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(replayed.position(), game.position());
    assert_eq!(replayed.entries().len(), game.entries().len());
    let again = Record::from_game(&replayed, &parsed.meta()).to_text();
    assert_eq!(again, text);
    text
}

fn line_of(text: &str, prefix: &str) -> usize {
    text.lines()
        .position(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line starts with {prefix:?} in\n{text}"))
        + 1
}

fn random_game() -> Game {
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let plies = 40 + rng.below(41);
    let mut game = Game::new(Position::start());
    play_random(&mut game, &mut rng, plies);
    game
}

#[test]
fn random_playout_round_trips() {
    let game = random_game();
    assert!(game.entries().len() >= 40, "{}", game.entries().len());
    let text = round_trip(&game, &meta());
    assert!(text.starts_with("[Event \"Autumn correspondence cup\"]\n"));
    assert!(text.contains("[Middle \"bob \\\"the rook\\\"\"]\n"));
    assert!(text.contains("[Last \"carol\\\\c\"]\n"));
    assert!(text.contains("[StuckPiece \"promote\"]\n[Illumination \"selective\"]\n"));
    assert!(!text.contains("[Position "));
    let first = game.entries()[0].action;
    let Action::Move(mv) = first else {
        panic!("a move")
    };
    assert!(text.contains(&format!("\n\n1. {mv}\n")), "{text}");
}

#[test]
fn whole_random_games_round_trip() {
    // Played to the end (or 400 plies): automatic alliances, checkmates and game ends
    // appear as comments and must come back the same from the replay.
    let mut finished = 0;
    for seed in 1..=6 {
        let mut game = Game::new(Position::start());
        play_random(&mut game, &mut Rng(seed), 400);
        finished += usize::from(game.outcome().is_some());
        round_trip(&game, &RecordMeta::default());
    }
    assert!(finished > 0);
}

#[test]
fn alliance_and_resignation_round_trip() {
    let mut rng = Rng(77);
    let mut game = Game::new(Position::start());
    play_random(&mut game, &mut rng, 9);
    let fm = Alliance::new(Player::First, Player::Middle).expect("two players");
    game.act(Action::Alliance(fm)).expect("an alliance");
    play_random(&mut game, &mut rng, 7);
    game.act(Action::Resign(Player::Middle))
        .expect("a resignation");
    let text = round_trip(&game, &RecordMeta::default());
    assert!(text.contains("\nally:fm\n"), "{text}");
    assert!(
        text.contains("\nresign:m {m eliminated: resigned; l wins: ally_eliminated}\nl\n"),
        "{text}"
    );
    assert!(text.contains("[Result \"l\"]\n[Termination \"ally_eliminated\"]\n"));
    assert!(text.contains("[TimeControl \"none\"]\n"));
}

#[test]
fn agreed_draws_round_trip() {
    let mut rng = Rng(2036);
    let mut game = Game::new(Position::start());
    play_random(&mut game, &mut rng, 11);
    game.act(Action::DrawAgreed).expect("an agreed draw (R36)");
    let text = round_trip(&game, &RecordMeta::default());
    assert!(
        text.contains("\ndraw:agreed {draw fml: agreement}\ndraw fml\n"),
        "{text}"
    );
    assert!(text.contains("[Result \"draw fml\"]\n[Termination \"agreement\"]\n"));
}

#[test]
fn time_outs_round_trip() {
    let mut rng = Rng(4242);
    let mut game = Game::new(Position::start());
    play_random(&mut game, &mut rng, 12);
    game.act(Action::TimeOut(Player::Last)).expect("a time-out");
    play_random(&mut game, &mut rng, 6);
    game.act(Action::TimeOut(Player::First))
        .expect("a time-out");
    let text = round_trip(&game, &meta());
    assert!(
        text.contains("\ntimeout:l {l eliminated: timed_out}\n"),
        "{text}"
    );
    assert!(text.contains("[Result \"m\"]\n[Termination \"last_player_standing\"]\n"));
    assert!(
        text.ends_with("timeout:f {f eliminated: timed_out; m wins: last_player_standing}\nm\n")
    );
}

#[test]
fn allied_start_round_trips() {
    let ml = Alliance::new(Player::Middle, Player::Last).expect("two players");
    let mut game = Game::new(Position::start_allied(ml, Options::default()));
    play_random(&mut game, &mut Rng(99), 30);
    let text = round_trip(&game, &meta());
    assert!(text.contains("[Allies \"ml\"]\n"));
    assert!(!text.contains("[Position "));
}

#[test]
fn custom_start_with_other_options_round_trips() {
    let mut rng = Rng(2026);
    let mut pre = Game::new(Position::start());
    play_random(&mut pre, &mut rng, 25);
    let options = Options {
        stuck_piece: StuckPiece::Stay,
        illumination: Illumination::All,
    };
    let start = Position::parse(&pre.position().to_string())
        .expect("a position string")
        .with_options(options);
    let first_ply = start.ply();
    let mut game = Game::new(start);
    play_random(&mut game, &mut rng, 20);
    let text = round_trip(&game, &meta());
    assert!(text.contains(&format!("[Position \"{start}\"]\n")));
    assert!(text.contains("[StuckPiece \"stay\"]\n[Illumination \"all\"]\n"));
    assert!(text.contains(&format!("\n\n{first_ply}. ")), "{text}");
    let replayed = Record::parse(&text).unwrap().replay().unwrap();
    assert_eq!(replayed.start().options(), options);
}

#[test]
fn an_illegal_move_is_reported_with_its_ply_line_and_code() {
    let game = random_game();
    let text = Record::from_game(&game, &meta()).to_text();
    // Move 3 replaced by a second go of First's first move: its from-cell is now empty.
    let Action::Move(first) = game.entries()[0].action else {
        panic!("a move")
    };
    let line = line_of(&text, "3. ");
    let tampered: String = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i + 1 == line {
                format!("3. {first}\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    let record = Record::parse(&tampered).expect("well-formed");
    let err = record.replay().expect_err("an illegal move");
    assert_eq!((err.line(), err.column()), (line, 1));
    let RecordErrorKind::Illegal {
        ply,
        action,
        illegal,
    } = &err.kind
    else {
        panic!("{err}")
    };
    assert_eq!(*ply, Some(3));
    assert_eq!(*action, first.to_string());
    assert_eq!(illegal.code(), "no_piece");
    let msg = err.to_string();
    assert!(
        msg.contains(&format!("line {line}")) && msg.contains("no_piece"),
        "{msg}"
    );
}

#[test]
fn illegal_actions_in_a_record_built_in_code_point_into_its_canonical_text() {
    let record = Record::new(
        vec![("Result".into(), "*".into())],
        vec![Action::Resign(Player::Last), Action::Resign(Player::Last)],
    );
    let err = record.replay().expect_err("l is already out");
    assert_eq!((err.line(), err.column()), (4, 1));
    assert!(
        matches!(&err.kind, RecordErrorKind::Illegal { ply: None, illegal, .. } if illegal.code() == "not_playing")
    );
}

#[test]
fn a_tampered_result_is_rejected() {
    let mut rng = Rng(77);
    let mut game = Game::new(Position::start());
    play_random(&mut game, &mut rng, 9);
    game.act(Action::Resign(Player::Middle)).unwrap();
    game.act(Action::Resign(Player::First)).unwrap();
    let text = Record::from_game(&game, &RecordMeta::default()).to_text();
    assert!(text.ends_with("\nl\n"));

    // Both the tag and the closing token changed: the replay disagrees.
    let both = text.replace("[Result \"l\"]", "[Result \"m\"]");
    let both = format!("{}m\n", &both[..both.len() - 2]);
    let err = Record::parse(&both)
        .unwrap()
        .replay()
        .expect_err("m did not win");
    assert_eq!(err.line(), line_of(&both, "[Result "));
    assert_eq!(
        err.kind,
        RecordErrorKind::Mismatch {
            tag: "Result".into(),
            recorded: "m".into(),
            actual: "l".into()
        }
    );

    // A game claimed to go on.
    let ongoing = text.replace(
        "[Result \"l\"]\n[Termination \"last_player_standing\"]\n",
        "[Result \"*\"]\n",
    );
    let ongoing = format!("{}*\n", &ongoing[..ongoing.len() - 2]);
    let err = Record::parse(&ongoing)
        .unwrap()
        .replay()
        .expect_err("it is over");
    assert!(
        matches!(err.kind, RecordErrorKind::Mismatch { .. }),
        "{err}"
    );

    // Only the tag changed: the reader sees the two disagree.
    let tag_only = text.replace("[Result \"l\"]", "[Result \"draw fml\"]");
    let err = Record::parse(&tag_only).expect_err("tag and token differ");
    assert_eq!(err.line(), tag_only.lines().count());
    assert!(
        err.to_string().contains("differs from the Result tag"),
        "{err}"
    );

    let termination = text.replace("last_player_standing", "garden");
    let err = Record::parse(&termination)
        .unwrap()
        .replay()
        .expect_err("not a garden win");
    assert_eq!(err.line(), line_of(&termination, "[Termination "));
    assert!(matches!(&err.kind, RecordErrorKind::Mismatch { tag, .. } if tag == "Termination"));
}

/// `(text, line, column, words in the message)`.
fn assert_error(text: &str, line: usize, column: usize, words: &str) {
    let err = Record::parse(text).expect_err(text);
    assert_eq!(
        (err.line(), err.column()),
        (line, column),
        "{err} for {text:?}"
    );
    assert!(err.to_string().contains(words), "{err} for {text:?}");
}

#[test]
fn malformed_records_give_line_and_column() {
    let r = "\n1. 3d4d\n*\n";
    let tail = "[Result \"*\"]\n";
    assert_error(
        &format!("[Event \"a\\qb\"]\n{tail}"),
        1,
        10,
        "`\\q` is not an escape",
    );
    assert_error(&format!("{tail}[Event \"abc\n"), 2, 8, "not closed");
    assert_error(&format!("{tail}[Event abc]\n"), 2, 8, "quoted value");
    assert_error(&format!("{tail}[Event\"abc\"]\n"), 2, 7, "quoted value");
    assert_error(&format!("{tail}[ Event \"x\"]\n"), 2, 2, "tag name");
    assert_error(&format!("{tail}[Event \"x\" \n"), 2, 12, "`]`");
    assert_error(
        &format!("{tail}[Event \"x\"] [Site \"y\"]\n"),
        2,
        13,
        "one tag per line",
    );
    assert_error(&format!("{tail}[Result \"*\"]\n"), 2, 2, "appears twice");
    assert_error(
        &format!("{tail}[StuckPiece \"sometimes\"]\n"),
        2,
        14,
        "stuck_piece",
    );
    assert_error(&format!("{tail}[Allies \"ff\"]\n"), 2, 10, "Allies");
    assert_error(
        &format!("{tail}[Position \"{} x 1\"]\n", "9/".repeat(12)),
        2,
        12,
        "board",
    );
    assert_error(
        &format!("{tail}[Event \"a\u{7}\"]\n"),
        2,
        10,
        "control character",
    );
    assert_error("[Result \"fm\"]\n\nfm\n", 1, 10, "a result is");

    // Actions.
    assert_error(
        &format!("{tail}\n3d4d\n*\n"),
        3,
        1,
        "needs its number: `1. 3d4d`",
    );
    assert_error(
        &format!("{tail}\n2. 3d4d\n*\n"),
        3,
        1,
        "expected move number 1.",
    );
    assert_error(&format!("{tail}\n1. 3d4x\n*\n"), 3, 7, "not a rank letter");
    assert_error(&format!("{tail}\n1.3d4x\n*\n"), 3, 6, "not a rank letter");
    assert_error(
        &format!("{tail}\n1. {{unclosed\n*\n"),
        3,
        4,
        "comment is not closed",
    );
    assert_error(&format!("{tail}\n1. 3d4d }}\n*\n"), 3, 9, "without a `{`");
    assert_error(
        &format!("{tail}{r}[Site \"x\"]\n"),
        5,
        1,
        "tags come before",
    );
    assert_error(&format!("{tail}\nally:fx\n*\n"), 3, 6, "alliance");
    assert_error(&format!("{tail}\nresign:q\n*\n"), 3, 8, "player letter");
    assert_error(
        &format!("{tail}\npass:f\n*\n"),
        3,
        1,
        "`pass:` is not an action",
    );
    assert_error(&format!("{tail}\n1. 3d4d\n"), 4, 1, "without its result");
    assert_error(&format!("{tail}\n1.\n*\n"), 3, 1, "has no move");
    assert_error(
        &format!("{tail}\n*\n1. 3d4d\n"),
        4,
        1,
        "only comments may follow",
    );
    assert_error(
        &format!("{tail}\nhello\n*\n"),
        3,
        1,
        "is not a numbered move",
    );
    assert_error("[Event \"x\"]\n\n*\n", 3, 1, "no Result tag");
    assert_error(&format!("{tail}\ndraw fx\n"), 3, 6, "drawing players");

    // Comments anywhere in the actions are skipped; columns count characters.
    let ok = "[Result \"*\"]\n{é}\n1.{a}3d4d {b}{c} * {done}";
    let record = Record::parse(ok).unwrap();
    assert_eq!(record.actions.len(), 1);
    assert_eq!(record.comments.len(), 5);
    assert_error(
        "[Result \"*\"]\n{éé} 1. 3d4x\n*",
        2,
        12,
        "not a rank letter",
    );
}

#[test]
fn size_limits_are_enforced() {
    let big = format!("[Result \"*\"]\n{{{}}}\n*\n", "x".repeat(MAX_BYTES));
    let err = Record::parse(&big).expect_err("too large");
    assert_eq!(err.code(), "record_too_large");

    let many = format!(
        "[Result \"*\"]\n\n{}*\n",
        "resign:m\n".repeat(MAX_ACTIONS + 1)
    );
    let err = Record::parse(&many).expect_err("too many actions");
    assert_eq!(err.code(), "record_too_large");
    assert_eq!((err.line(), err.column()), (MAX_ACTIONS + 3, 1));

    let just = format!("[Result \"*\"]\n\n{}*\n", "resign:m\n".repeat(MAX_ACTIONS));
    assert_eq!(Record::parse(&just).unwrap().actions.len(), MAX_ACTIONS);
}

#[test]
fn results_read_and_write_the_same() {
    for s in ["*", "f", "m", "l", "draw fml", "draw fm", "draw l"] {
        let r: RecordResult = s.parse().unwrap();
        assert_eq!(r.to_string(), s);
    }
    for s in ["", "fm", "draw", "draw mf", "draw ff", "draw  fm", "1-0"] {
        assert!(s.parse::<RecordResult>().is_err(), "{s}");
    }
}

/// The canonical text of a finished game, as raw material for mutations.
fn sample_text() -> String {
    let mut rng = Rng(77);
    let mut game = Game::new(Position::start());
    play_random(&mut game, &mut rng, 9);
    let fm = Alliance::new(Player::First, Player::Middle).expect("two players");
    game.act(Action::Alliance(fm)).expect("an alliance");
    play_random(&mut game, &mut rng, 7);
    game.act(Action::Resign(Player::Middle))
        .expect("a resignation");
    Record::from_game(&game, &meta()).to_text()
}

/// Whatever the reader accepts, it writes back to a text it reads as the same record,
/// and replaying it does not panic.
fn check_any(text: &str) {
    if let Ok(record) = Record::parse(text) {
        let again = Record::parse(&record.to_text()).expect("canonical text parses");
        assert_eq!(again, record);
        let _ = record.replay();
    }
}

proptest! {
    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,300}") {
        check_any(&text);
    }

    #[test]
    fn arbitrary_record_like_text_never_panics(
        text in "(\\[[A-Za-z]{0,8} \"[^\"\n]{0,12}\"\\]\n){0,3}([0-9]{1,2}\\. ?[0-9]{1,2}[a-n][0-9]{1,2}[a-n]\\+? |[{}*:!,] |ally:[fml]{0,3} |resign:[fmlx] |draw [fml-]{0,3} |[fml] ){0,20}",
    ) {
        check_any(&text);
    }

    #[test]
    fn mutated_records_never_panic(
        edits in proptest::collection::vec((any::<usize>(), 0usize..4, "[\\PC\n\"\\\\{}\\[\\]:. ]{0,3}"), 1..6),
    ) {
        let mut text = sample_text();
        for (at, cut, insert) in edits {
            let chars: Vec<char> = text.chars().collect();
            let at = at % (chars.len() + 1);
            let end = (at + cut).min(chars.len());
            text = chars[..at].iter().chain(insert.chars().collect::<Vec<_>>().iter()).chain(chars[end..].iter()).collect();
        }
        check_any(&text);
    }
}

#[test]
fn moves_can_be_checked_against_the_engine_by_their_text() {
    // A small sanity check that R33 text in a record is the engine's own.
    let pos = Position::start();
    for mv in pos.legal_moves() {
        let text = format!("[Result \"*\"]\n\n1. {mv}\n*\n");
        let record = Record::parse(&text).unwrap();
        assert_eq!(
            record.actions,
            vec![Action::Move(Move::parse(&mv.to_string()).unwrap())]
        );
        record.replay().unwrap();
    }
}

#[test]
fn extra_tags_that_cannot_be_written_are_left_out() {
    let meta = RecordMeta {
        extra: vec![
            ("Event".into(), "shadowing a known tag".into()),
            ("bad name".into(), "not a tag name".into()),
            ("Annotator".into(), "a".into()),
            ("Annotator".into(), "b".into()),
            ("Round_2".into(), "line\nbreak".into()),
        ],
        ..RecordMeta::default()
    };
    let text = Record::from_game(&Game::new(Position::start()), &meta).to_text();
    assert_eq!(
        text,
        "[TimeControl \"none\"]\n[StuckPiece \"promote\"]\n[Illumination \"selective\"]\n\
         [Result \"*\"]\n[Annotator \"a\"]\n[Round_2 \"line break\"]\n\n*\n"
    );
    let record = Record::parse(&text).unwrap();
    assert_eq!(
        record.meta().extra,
        vec![
            ("Annotator".to_string(), "a".to_string()),
            ("Round_2".to_string(), "line break".to_string())
        ]
    );
    record.replay().unwrap();
}

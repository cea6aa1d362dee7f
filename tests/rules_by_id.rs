//! One or more tests per rule of RULES.md, named by rule id, each from a hand-made
//! position. Positions are written as lists of `cell:piece` so the geometry can be
//! checked against R4's table by hand.

use sannin::rules::{
    Action, Alliance, Cell, DrawReason, Elimination, Event, Game, Illumination, Kind, Move,
    Options, Outcome, Player, Position, StuckPiece, WinReason, START,
};

/// Builds an R32 string from `cell:token` pairs and the other five fields.
fn fen(pieces: &str, to_move: &str, hands: &str, alliance: &str, castling: &str) -> String {
    let mut board: Vec<Option<&str>> = vec![None; 127];
    for item in pieces.split_whitespace() {
        let (cell, token) = item.split_once(':').expect("cell:token");
        let cell = Cell::parse(cell).unwrap_or_else(|| panic!("bad cell {cell}"));
        assert!(board[cell.index()].is_none(), "{cell} used twice");
        board[cell.index()] = Some(token);
    }
    let mut ranks = Vec::new();
    let mut idx = 0;
    for r in 0..13 {
        let len = if r <= 6 { 7 + r } else { 19 - r };
        let mut s = String::new();
        let mut empty = 0;
        for _ in 0..len {
            match board[idx] {
                None => empty += 1,
                Some(t) => {
                    if empty > 0 {
                        s += &empty.to_string();
                        empty = 0;
                    }
                    s += t;
                }
            }
            idx += 1;
        }
        if empty > 0 {
            s += &empty.to_string();
        }
        ranks.push(s);
    }
    format!(
        "{} {to_move} {hands} {alliance} {castling} 1",
        ranks.join("/")
    )
}

fn pos(pieces: &str, to_move: &str, hands: &str, alliance: &str, castling: &str) -> Position {
    let s = fen(pieces, to_move, hands, alliance, castling);
    Position::parse(&s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn mv(s: &str) -> Move {
    Move::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn moves(p: &Position) -> Vec<String> {
    let mut v: Vec<String> = p.legal_moves().iter().map(|m| m.to_string()).collect();
    v.sort();
    v
}

fn has(p: &Position, m: &str) -> bool {
    moves(p).iter().any(|x| x == m)
}

fn refused(p: &Position, m: &str) -> &'static str {
    match p.play(mv(m)) {
        Ok(after) => panic!("{m} was accepted: {after}"),
        Err(e) => {
            assert!(!e.message.is_empty());
            e.code()
        }
    }
}

fn play(p: &Position, m: &str) -> (Position, Vec<Event>) {
    p.play_with_events(mv(m))
        .unwrap_or_else(|e| panic!("{m}: {e} ({})", e.code()))
}

fn piece(p: &Position, cell: &str) -> String {
    p.piece_at(Cell::parse(cell).unwrap())
        .map_or("-".into(), |x| x.to_string())
}

// Kings out of the way for most tests: none of these cells shares a line with 7g.
const KINGS: &str = "2a:Kf 12m:Km 13g:Kl";

#[test]
fn r1_r2_r3_cells_names_and_reading_order() {
    assert_eq!(Cell::all().count(), 127);
    let names: Vec<String> = Cell::all().map(|c| c.to_string()).collect();
    assert_eq!(&names[..7], ["7a", "6a", "5a", "4a", "3a", "2a", "1a"]);
    assert_eq!(names[63], "7g");
    assert_eq!(names[126], "7m");
    assert_eq!(
        &names[57..70],
        ["13g", "12g", "11g", "10g", "9g", "8g", "7g", "6g", "5g", "4g", "3g", "2g", "1g"]
    );
    for corner in ["1a", "7a", "1g", "13g", "7m", "13m"] {
        let c = Cell::parse(corner).unwrap();
        let on_board = sannin::rules::Dir::ALL
            .iter()
            .filter(|d| c.step(**d).is_some())
            .count();
        assert!(on_board <= 5, "{corner} is a corner");
    }
    assert!(
        Cell::parse("8a").is_none() && Cell::parse("6m").is_none() && Cell::parse("14g").is_none()
    );
}

#[test]
fn r4_diagonal_steps_pass_no_cell_and_ranges_stop_at_the_first_piece() {
    // Middle bishop on 7g; its own golds on 7f and 6f flank the hour-12 diagonal.
    let p = pos(
        &format!("{KINGS} 7g:Bm 7f:Gm 6f:Gm 5c:Pf"),
        "m",
        "-",
        "-",
        "-",
    );
    assert!(
        has(&p, "7g6e"),
        "a diagonal step is not blocked by the cells beside it"
    );
    assert!(has(&p, "7g5c"), "the range may capture the first piece");
    assert!(!has(&p, "7g4a"), "and stops there");
    assert_eq!(refused(&p, "7g4a"), "path_blocked");
}

#[test]
fn r5_the_garden_is_7g() {
    assert_eq!(sannin::rules::GARDEN.to_string(), "7g");
}

#[test]
fn r6_turn_order_skips_eliminated_players() {
    let p = pos("12m:Km 13g:Kl 10j:Pm 9c:Pl", "l", "-", "-", "-");
    let (after, _) = play(&p, "9c8c");
    assert_eq!(
        after.to_move(),
        Some(Player::Middle),
        "First is out, so Middle follows Last"
    );
    let (after, _) = play(&after, "10j10i");
    assert_eq!(after.to_move(), Some(Player::Last));
}

#[test]
fn r7_pieces_face_away_from_their_owner() {
    let p = Position::start();
    // First's pawn on 3d goes to board hours 7 and 9.
    assert!(has(&p, "3d4d") && has(&p, "3d4e"));
    // Middle's and Last's pawns, seen in positions where they are to move.
    let m = pos(&format!("{KINGS} 7k:Pm"), "m", "-", "-", "-");
    let pawn: Vec<String> = moves(&m)
        .into_iter()
        .filter(|s| s.starts_with("7k"))
        .collect();
    assert_eq!(pawn, ["7k6j", "7k7j"]);
    let l = pos(&format!("{KINGS} 8d:Pl"), "l", "-", "-", "-");
    let pawn: Vec<String> = moves(&l)
        .into_iter()
        .filter(|s| s.starts_with("8d"))
        .collect();
    assert_eq!(pawn, ["8d7d", "8d8e"]);
}

#[test]
fn r8_r17_territories_are_promotion_zones_of_the_others() {
    // A Middle silver on neutral 4g: 3f is First's territory, 4f is neutral.
    let p = pos(&format!("{KINGS} 4g:Sm"), "m", "-", "-", "-");
    assert!(has(&p, "4g3f+") && has(&p, "4g3f"));
    assert!(has(&p, "4g4f") && !has(&p, "4g4f+"));
    assert_eq!(refused(&p, "4g4f+"), "promotion_not_possible");
}

#[test]
fn r9_r16_pawns_and_lances_are_not_dropped_on_the_far_edge() {
    let p = pos(KINGS, "m", "PmLm", "-", "-");
    assert_eq!(refused(&p, "P*4a"), "drop_on_far_edge");
    assert_eq!(refused(&p, "L*1a"), "drop_on_far_edge");
    assert!(has(&p, "P*4b") && has(&p, "L*4b"));
    // Last's far edge is 1g…7m.
    let l = pos(KINGS, "l", "Pl", "-", "-");
    assert_eq!(refused(&l, "P*5k"), "drop_on_far_edge");
    assert!(has(&l, "P*5j"));
}

#[test]
fn r10_setup() {
    let p = Position::start();
    let table = [
        ("f", "K", "1d"),
        ("f", "R", "2b"),
        ("f", "B", "2g"),
        ("f", "G", "1c 1e"),
        ("f", "S", "1b 1f"),
        ("f", "N", "3e"),
        ("f", "L", "1a 1g"),
        ("f", "P", "3a 3b 3c 3d 3f 3g 3h 3i"),
        ("m", "K", "10m"),
        ("m", "R", "7l"),
        ("m", "B", "12l"),
        ("m", "G", "9m 11m"),
        ("m", "S", "8m 12m"),
        ("m", "N", "9k"),
        ("m", "L", "7m 13m"),
        ("m", "P", "5k 6k 7k 8k 10k 11k 12k 13k"),
        ("l", "K", "10d"),
        ("l", "R", "12g"),
        ("l", "B", "7b"),
        ("l", "G", "9c 11e"),
        ("l", "S", "8b 12f"),
        ("l", "N", "9e"),
        ("l", "L", "7a 13g"),
        ("l", "P", "5a 6b 7c 8d 10f 11g 12h 13i"),
    ];
    let mut count = 0;
    for (owner, letter, cells) in table {
        for c in cells.split(' ') {
            assert_eq!(piece(&p, c), format!("{letter}{owner}"), "{c}");
            count += 1;
        }
    }
    assert_eq!(count, 54);
    assert_eq!(p.occupied().count(), 54);
    assert_eq!(p.to_string(), START);
}

#[test]
fn r11_r20_allied_start_third_moves_first_with_a_promoted_king() {
    let p = Position::start_allied(Alliance::parse("fm").unwrap(), Options::default());
    assert_eq!(p.to_move(), Some(Player::Last));
    assert_eq!(piece(&p, "10d"), "+Kl");
    assert!(p.castling().is_empty());
    assert!(p.to_string().ends_with(" l - fm - 1"));
    assert_eq!(Position::parse(&p.to_string()).unwrap(), p);
}

#[test]
fn r12_any_other_player_is_captured_but_never_a_king() {
    // Middle and First allied; Middle's rook may take First's pawn on 9g.
    let p = pos(
        "2a:Kf 12m:Km 13g:+Kl 9j:Rm 9g:Pf 8j:Pl",
        "m",
        "-",
        "fm",
        "-",
    );
    assert!(has(&p, "9j9g"));
    // A king on the path is never captured.
    let q = pos("2a:Kf 12m:Km 9g:Kl 9j:Rm", "m", "-", "-", "-");
    assert!(!has(&q, "9j9g"));
    assert_eq!(refused(&q, "9j9g"), "cannot_capture_king");
}

#[test]
fn r13_promoted_rook_ranges_the_six_orthogonals_only() {
    let p = pos(&format!("{KINGS} 7g:+Rm"), "m", "-", "-", "-");
    for m in ["7g7a", "7g1a", "7g1g", "7g13g", "7g7m", "7g13m"] {
        assert!(has(&p, m) || m == "7g13g", "{m}");
    }
    assert!(!has(&p, "7g6e") && !has(&p, "7g5f"), "no diagonal");
    // An unpromoted Middle rook: orthogonal hours 9 11 1 3 and the diagonal hour 6.
    let r = pos(&format!("{KINGS} 7g:Rm"), "m", "-", "-", "-");
    assert!(has(&r, "7g7a") && has(&r, "7g1g") && has(&r, "7g1a") && has(&r, "7g8g"));
    assert!(has(&r, "7g8i") && !has(&r, "7g7h") && !has(&r, "7g6e"));
}

#[test]
fn r14_captured_pieces_go_to_hand_unpromoted() {
    let p = pos(&format!("{KINGS} 7g:Rm 7c:+Rf"), "m", "-", "-", "-");
    let (after, _) = play(&p, "7g7c");
    assert_eq!(after.hand_count(Player::Middle, Kind::Rook), 1);
    assert!(after.to_string().contains(" Rm "));
}

#[test]
fn r15_drops_are_unpromoted_and_owned_by_the_dropper() {
    let p = pos(KINGS, "m", "Bm", "-", "-");
    let (after, _) = play(&p, "B*7g");
    assert_eq!(piece(&after, "7g"), "Bm");
    assert_eq!(after.hand_count(Player::Middle, Kind::Bishop), 0);
    assert_eq!(refused(&after, "B*7f"), "not_in_hand");
    let q = pos(&format!("{KINGS} 7g:Pf"), "m", "Bm", "-", "-");
    assert_eq!(refused(&q, "B*7g"), "drop_on_occupied");
}

#[test]
fn r16_a_dropped_pawn_may_mate() {
    // Last's king in the 7a corner; Middle golds cover 8b and 7b; P*7b mates.
    let p = pos("1g:Kf 13m:Km 7a:Kl 9c:Gm 7c:Gm", "m", "Pm", "-", "-");
    let (after, events) = play(&p, "P*7b");
    assert!(!after.is_alive(Player::Last));
    assert!(events.contains(&Event::Eliminated {
        player: Player::Last,
        reason: Elimination::Checkmate,
        by: Some(Player::Middle)
    }));
    // R27: the mating player moves next, here the mover again.
    assert_eq!(after.to_move(), Some(Player::Middle));
    assert_eq!(after.ply(), 2);
}

#[test]
fn r17_allies_territory_is_not_a_zone_and_eliminated_players_territory_is() {
    let allied = pos("2a:Kf 12m:Km 13g:+Kl 4g:Sm", "m", "-", "fm", "-");
    assert!(has(&allied, "4g3f") && !has(&allied, "4g3f+"));
    let gone = pos("12m:Km 13g:Kl 4g:Sm", "m", "-", "-", "-");
    assert!(has(&gone, "4g3f+"));
}

#[test]
fn r17_r18_the_garden_counts_when_entered_or_left_not_passed() {
    let p = pos(&format!("{KINGS} 7i:Lm"), "m", "-", "-", "-");
    assert!(has(&p, "7i7g+"), "entering the Garden");
    assert!(!has(&p, "7i7f+"), "passing through it does not count");
    let q = pos(&format!("{KINGS} 7g:Sm"), "m", "-", "-", "-");
    assert!(has(&q, "7g7f+"), "leaving it does");
    // Not for the king: Middle's king entering the Garden (allied, so no win) stays a K.
    let k = pos("2a:Kf 7h:Km 11m:+Kl", "m", "-", "fm", "-");
    assert!(has(&k, "7h7g") && !has(&k, "7h7g+"));
}

#[test]
fn r18_golds_and_knights_never_promote_and_promoted_pieces_stay() {
    let p = pos(&format!("{KINGS} 4g:Gm 5h:Nm"), "m", "-", "-", "-");
    assert!(!moves(&p).iter().any(|m| m.ends_with('+')));
    assert_eq!(refused(&p, "4g3f+"), "cannot_promote");
}

#[test]
fn r19_stuck_piece_promote_forces_promotion_even_outside_every_zone() {
    let p = pos(&format!("{KINGS} 4b:Pm"), "m", "-", "-", "-");
    let pawn: Vec<String> = moves(&p)
        .into_iter()
        .filter(|s| s.starts_with("4b"))
        .collect();
    assert_eq!(pawn, ["4b3a+", "4b4a+"]);
    assert_eq!(refused(&p, "4b4a"), "promotion_required");
}

#[test]
fn r19_stuck_piece_stay_never_forces() {
    let opts = Options {
        stuck_piece: StuckPiece::Stay,
        ..Options::default()
    };
    let p = pos(&format!("{KINGS} 4b:Pm"), "m", "-", "-", "-").with_options(opts);
    let pawn: Vec<String> = moves(&p)
        .into_iter()
        .filter(|s| s.starts_with("4b"))
        .collect();
    assert_eq!(
        pawn,
        ["4b3a", "4b3a+", "4b4a"],
        "4a is in no zone, 3a is First's"
    );
    let (after, _) = play(&p, "4b4a");
    assert_eq!(piece(&after, "4a"), "Pm");
}

#[test]
fn r20_r29_voluntary_alliance_promotes_the_third_king_and_ends_castling() {
    let p = Position::start();
    let (after, events) = p.form_alliance(Alliance::parse("fl").unwrap()).unwrap();
    assert_eq!(piece(&after, "10m"), "+Km");
    assert!(after.castling().is_empty());
    assert_eq!(
        after.to_move(),
        Some(Player::First),
        "an alliance is not a move"
    );
    assert_eq!(after.ply(), 1);
    assert!(events.contains(&Event::AllianceFormed {
        alliance: Alliance::parse("fl").unwrap(),
        automatic: false
    }));
    let again = after
        .form_alliance(Alliance::parse("fm").unwrap())
        .unwrap_err();
    assert_eq!(again.code(), "alliance_not_allowed");
    let two_left = pos("12m:Km 13g:Kl", "m", "-", "-", "-");
    assert_eq!(
        two_left
            .form_alliance(Alliance::parse("ml").unwrap())
            .unwrap_err()
            .code(),
        "alliance_not_allowed"
    );
}

#[test]
fn r21_castling_jumps_within_the_own_territory_on_the_first_king_move() {
    let p = Position::start();
    assert!(has(&p, "1d2a") && has(&p, "1d2h"));
    let (after, _) = play(&p, "1d2a");
    assert_eq!(after.castling().letters(), "ml");
    // Without the right, the same jump is refused.
    let no = Position::parse(&START.replace(" fml 1", " ml 1")).unwrap();
    assert!(!has(&no, "1d2a"));
    assert_eq!(refused(&no, "1d2a"), "castling_not_allowed");
}

#[test]
fn r21_no_castling_in_check_and_a_check_ends_the_right() {
    // Middle's rook on 5f reaches 5d and checks First's king on 1d along rank d.
    let q = pos("1d:Kf 10m:Km 10d:Kl 5f:Rm 8d:Pl", "m", "-", "-", "fml");
    let (quiet, _) = play(&q, "5f5e");
    assert_eq!(quiet.castling().letters(), "fml");
    let (after, _) = play(&q, "5f5d");
    assert!(after.in_check(Player::First));
    assert_eq!(
        after.castling().letters(),
        "ml",
        "First has now been in check"
    );
    assert!(!has(&after, "1d2a"), "in check: no castling");
}

#[test]
fn r22_an_ally_can_give_check() {
    // Middle (allied with First) has a lance aimed at First's king: First is in check.
    let p = pos("7a:Kf 12m:Km 13g:+Kl 7e:Lm 9j:Pf", "f", "-", "fm", "-");
    assert!(p.in_check(Player::First));
    assert_eq!(refused(&p, "9j10k"), "king_in_check");
}

#[test]
fn r23a_a_pinned_piece_keeps_to_its_line() {
    // Last's promoted rook on 10f pins Middle's gold on 10k against the king on 10m.
    let p = pos("2a:Kf 10m:Km 13g:Kl 10k:Gm 10f:+Rl", "m", "-", "-", "-");
    assert!(has(&p, "10k10j"));
    assert!(!has(&p, "10k9j"));
    assert_eq!(refused(&p, "10k9j"), "king_in_check");
}

#[test]
fn r23b_no_move_may_check_the_ally() {
    // First's rook may not step onto the line of its ally Middle's king.
    let p = pos("2a:Kf 7m:Km 13g:+Kl 5h:Rf", "f", "-", "fm", "-");
    let p2 = pos("2a:Kf 7m:Km 13g:+Kl 5h:Rf", "f", "-", "-", "-");
    // Promotions differ too (an ally's territory is no zone, R17): compare plain moves.
    let checking: Vec<String> = moves(&p2)
        .into_iter()
        .filter(|m| !m.ends_with('+') && !has(&p, m))
        .collect();
    assert!(!checking.is_empty());
    for m in &checking {
        let (after, _) = play(&p2, m);
        assert!(
            after.in_check(Player::Middle),
            "{m} is missing only because it checks the ally"
        );
        assert_eq!(refused(&p, m), "checks_ally");
    }
}

#[test]
fn r24_r25_illumination_candidates_subsets_and_notation() {
    // Last's promoted king on 7g. 7e (First pawn) and 9g (Middle pawn) are first on
    // their rays and unprotected; 5g is protected by Middle's silver on 5h.
    let pieces = "2a:Kf 12m:Km 7g:+Kl 7e:Pf 9g:Pm 5g:Gm 5h:Sm";
    let p = pos(pieces, "l", "-", "fm", "-");
    let ill: Vec<String> = moves(&p).into_iter().filter(|m| m.contains('!')).collect();
    assert_eq!(ill, ["7g!7e", "7g!7e,9g", "7g!9g"]);
    assert_eq!(refused(&p, "7g!5g"), "target_protected");
    assert_eq!(mv("7g!9g,7e").to_string(), "7g!7e,9g");
    let (after, _) = play(&p, "7g!9g,7e");
    assert_eq!(after.hand_count(Player::Last, Kind::Pawn), 2);
    assert_eq!(piece(&after, "7g"), "+Kl", "the king does not move");
    let all = p.with_options(Options {
        illumination: Illumination::All,
        ..Options::default()
    });
    let ill: Vec<String> = moves(&all)
        .into_iter()
        .filter(|m| m.contains('!'))
        .collect();
    assert_eq!(ill, ["7g!7e,9g"]);
    assert_eq!(refused(&all, "7g!7e"), "must_illuminate_all");
    let unpromoted = pos("2a:Kf 12m:Km 7g:Kl 7e:Pf", "l", "-", "-", "-");
    assert_eq!(refused(&unpromoted, "7g!7e"), "cannot_illuminate");
}

#[test]
fn r26_a_king_entering_the_garden_wins_unless_allied() {
    let p = pos("2a:Kf 7h:Km 13g:Kl", "m", "-", "-", "-");
    let (after, _) = play(&p, "7h7g");
    assert_eq!(
        after.outcome(),
        Some(Outcome::Win(Player::Middle, WinReason::Garden))
    );
    assert!(after.is_over());
    assert!(after.legal_moves().is_empty());
    let allied = pos("2a:Kf 7h:Km 11m:+Kl", "m", "-", "fm", "-");
    let (after, _) = play(&allied, "7h7g");
    assert_eq!(after.outcome(), None);
    let standing = pos("2a:Kf 7g:Km 13g:Kl 9j:Pm", "m", "-", "-", "-");
    let (after, _) = play(&standing, "9j9i");
    assert_eq!(
        after.outcome(),
        None,
        "a king already in the Garden does not win by staying"
    );
}

#[test]
fn r27_checkmate_eliminates_at_once_and_the_pieces_leave() {
    let p = pos(
        "1g:Kf 13m:Km 7a:Kl 9c:Gm 7c:Gm 11e:Pl",
        "m",
        "PmGl",
        "-",
        "-",
    );
    let p = Position::parse(&p.to_string().replace("PmGl", "Pm")).unwrap();
    let (after, _) = play(&p, "P*7b");
    assert!(!after.is_alive(Player::Last));
    assert!(after.pieces_of(Player::Last).is_empty());
    assert_eq!(after.hand_count(Player::Last, Kind::Gold), 0);
    assert_eq!(after.living().letters(), "fm");
}

#[test]
fn r28_alliance_ends_when_the_third_is_eliminated_and_loses_when_an_ally_is() {
    let p = Position::start_allied(Alliance::parse("fm").unwrap(), Options::default());
    let (after, events) = p.eliminate(Player::Last, Elimination::Resigned).unwrap();
    assert_eq!(after.alliance(), None);
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::AllianceDissolved { .. })));
    assert_eq!(after.to_move(), Some(Player::First));
    let (after, _) = p.eliminate(Player::Middle, Elimination::TimedOut).unwrap();
    assert_eq!(
        after.outcome(),
        Some(Outcome::Win(Player::Last, WinReason::AllyEliminated))
    );
    let (two, _) = Position::start()
        .eliminate(Player::Middle, Elimination::Resigned)
        .unwrap();
    let (one, _) = two.eliminate(Player::First, Elimination::Resigned).unwrap();
    assert_eq!(
        one.outcome(),
        Some(Outcome::Win(Player::Last, WinReason::LastPlayerStanding))
    );
}

#[test]
fn r29a_a_player_checked_by_both_others_makes_them_allies() {
    // First's silver leaves 7c, uncovering Middle's lance, and checks from 6b.
    let p = pos("1g:Kf 13m:Km 7a:Kl 7e:Lm 7c:Sf", "f", "-", "-", "fml");
    let (after, events) = play(&p, "7c6b");
    assert_eq!(after.alliance(), Alliance::parse("fm"));
    assert!(events.contains(&Event::AllianceFormed {
        alliance: Alliance::parse("fm").unwrap(),
        automatic: true
    }));
    assert_eq!(piece(&after, "7a"), "+Kl", "R20");
    assert!(after.castling().is_empty());
    assert_eq!(after.to_move(), Some(Player::Middle));
}

#[test]
fn r30_a_player_without_a_legal_move_is_eliminated_when_its_turn_comes() {
    // Middle's lone king on 7m: 7l and 6l are covered by Last's rook, 8m by its bishop.
    let p = pos("1g:Kf 3c:Pf 7m:Km 13g:Kl 13l:+Rl 6i:Bl", "f", "-", "-", "-");
    let (after, events) = play(&p, "3c4c");
    assert!(events.contains(&Event::Eliminated {
        player: Player::Middle,
        reason: Elimination::NoLegalMove,
        by: None
    }));
    assert_eq!(after.to_move(), Some(Player::Last));
    assert_eq!(after.living().letters(), "fl");
}

#[test]
fn r31_the_fourth_occurrence_draws() {
    let mut g = Game::new(pos("1d:Kf 10m:Km 10d:Kl", "f", "-", "-", "-"));
    let cycle = ["1d1e", "10m10l", "10d10e", "1e1d", "10l10m", "10e10d"];
    for i in 0..18 {
        assert_eq!(g.outcome(), None, "ply {i}");
        g.play(mv(cycle[i % 6])).unwrap();
    }
    assert_eq!(
        g.outcome(),
        Some(Outcome::Draw(
            Position::start().living(),
            DrawReason::Repetition
        ))
    );
    assert!(g.position().is_over());
}

#[test]
fn r31_a_game_resumed_from_its_stored_repetitions_draws_on_the_same_move() {
    let start = pos("1d:Kf 10m:Km 10d:Kl", "f", "-", "-", "-");
    let cycle = ["1d1e", "10m10l", "10d10e", "1e1d", "10l10m", "10e10d"];
    let mut g = Game::new(start);
    for m in &cycle[..] {
        g.play(mv(m)).unwrap();
    }
    for m in &cycle[..] {
        g.play(mv(m)).unwrap();
    }
    // What a server stores after ply 12, and takes up again later.
    let bytes = g.repetitions().to_bytes();
    assert_eq!(bytes.len(), 6 * 17, "six positions, each seen three times");
    let seen = sannin::rules::Repetitions::from_bytes(&bytes).unwrap();
    assert_eq!(&seen, g.repetitions());
    assert_eq!(seen.count(g.position()), 3);
    let mut resumed = Game::resume(start, *g.position(), None, seen);
    for (i, m) in cycle.iter().enumerate() {
        assert_eq!(resumed.outcome(), None, "ply {}", 13 + i);
        resumed.play(mv(m)).unwrap();
        g.play(mv(m)).unwrap();
        assert_eq!(resumed.position(), g.position());
    }
    let drawn = Outcome::Draw(Position::start().living(), DrawReason::Repetition);
    assert_eq!(resumed.outcome(), Some(drawn));
    assert_eq!(resumed.entries().len(), 6, "only what happened since");
    // The outcome is stored beside the position, which has no field for it.
    assert_eq!(drawn.to_string(), "draw fml");
    assert_eq!(Outcome::parse("draw fml"), Some(drawn));
    let over = Game::resume(
        start,
        *g.position(),
        Outcome::parse("draw fml"),
        Default::default(),
    );
    assert_eq!(over.outcome(), Some(drawn));
    assert_eq!(over.position().to_move(), None);
    for bad in [
        "",
        "draw",
        "draw f",
        "draw ff",
        "win x garden",
        "win f",
        "win f nope",
        "draw fm x",
        "draw fm repetition",
        "draw fm agreement x",
    ] {
        assert_eq!(Outcome::parse(bad), None, "{bad:?}");
    }
    // Damaged tables are refused, never guessed at.
    assert!(sannin::rules::Repetitions::from_bytes(&bytes[..20]).is_none());
    let mut zero = bytes.clone();
    zero[16] = 0;
    assert!(sannin::rules::Repetitions::from_bytes(&zero).is_none());
    let twice = [&bytes[..17], &bytes[..17]].concat();
    assert!(sannin::rules::Repetitions::from_bytes(&twice).is_none());
}

#[test]
fn r32_position_strings_are_canonical_and_errors_name_the_field() {
    let p = pos(KINGS, "m", "2PmSlBl", "-", "-");
    assert!(p.to_string().contains(" 2PmBlSl "));
    let cases = [
        ("", "position"),
        ("x f - - - 1", "board"),
        ("a b c", "position"),
        (&START.replace("Ll1Pl1", "Xl1Pl1"), "board"),
        (&START.replace("/10/", "/9/"), "board"),
        (
            &START.replace(" f - - fml 1", " x - - fml 1"),
            "player to move",
        ),
        (&START.replace(" f - - fml 1", " f Q - fml 1"), "hands"),
        (&START.replace(" f - - fml 1", " f - mm fml 1"), "alliance"),
        (
            &START.replace(" f - - fml 1", " f - - lf 1"),
            "castling rights",
        ),
        (&START.replace(" f - - fml 1", " f - - fml 0"), "ply"),
        (&START.replace("Kl1", "+Gl1"), "board"),
    ];
    for (s, field) in cases {
        let e = Position::parse(s).unwrap_err();
        assert_eq!(e.field.name(), field, "{s}: {e}");
        assert!(e.to_string().contains(field));
    }
}

#[test]
fn r33_move_strings() {
    for s in ["7k7j", "6b6a+", "P*7g", "10d!7d,9e", "13m13l", "1a13g"] {
        assert_eq!(mv(s).to_string(), s);
    }
    for bad in [
        "", "7k", "7k7", "7k7j++", "K*7g", "X*7g", "7k!", "7k!7j,7j", "8a7a", "7k 7j", "7k7k",
    ] {
        assert!(Move::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn r34_perft_counts_forced_and_optional_promotions() {
    let p = pos(&format!("{KINGS} 4b:Pm"), "m", "-", "-", "-");
    let n = sannin::rules::perft(&p, 1);
    assert_eq!(n as usize, p.legal_moves().len());
    assert_eq!(sannin::rules::perft(&Position::start(), 2), 2302);
}

#[test]
fn r35_resignation_passes_the_turn_only_if_the_resigner_was_to_move() {
    let p = Position::start();
    let (after, events) = p.eliminate(Player::First, Elimination::Resigned).unwrap();
    assert_eq!(after.to_move(), Some(Player::Middle));
    assert!(events.contains(&Event::Eliminated {
        player: Player::First,
        reason: Elimination::Resigned,
        by: None
    }));
    assert!(after.pieces_of(Player::First).is_empty());
    let (after, _) = p.eliminate(Player::Last, Elimination::TimedOut).unwrap();
    assert_eq!(after.to_move(), Some(Player::First));
    assert_eq!(
        after
            .eliminate(Player::Last, Elimination::Resigned)
            .unwrap_err()
            .code(),
        "not_playing"
    );
}

#[test]
fn r36_an_agreed_draw_ends_the_game_among_the_living() {
    let mut g = Game::new(Position::start());
    g.play(mv("3d4d")).unwrap();
    g.act(Action::Resign(Player::Middle)).unwrap();
    let entry = g.act(Action::DrawAgreed).unwrap().clone();
    let fl = Position::start()
        .eliminate(Player::Middle, Elimination::Resigned)
        .unwrap()
        .0
        .living();
    let drawn = Outcome::Draw(fl, DrawReason::Agreement);
    assert_eq!(entry.events, vec![Event::Finished(drawn)]);
    assert_eq!(entry.player, None, "an agreement is no one player's act");
    assert_eq!(g.outcome(), Some(drawn));
    assert_eq!(g.position().to_move(), None);
    // Stored beside the position, the reason survives.
    assert_eq!(drawn.to_string(), "draw fl agreement");
    assert_eq!(Outcome::parse("draw fl agreement"), Some(drawn));
    // Nothing can follow it, not even a second agreement.
    assert_eq!(g.act(Action::DrawAgreed).unwrap_err().code(), "game_over");
    assert_eq!(g.play(mv("7k7j")).unwrap_err().code(), "game_over");
}

#[test]
fn not_your_turn_and_game_over_are_refused() {
    let p = Position::start();
    assert_eq!(
        p.play_as(Player::Middle, mv("7k7j")).unwrap_err().code(),
        "not_your_turn"
    );
    let over = pos("2a:Kf 7h:Km 13g:Kl", "m", "-", "-", "-");
    let (over, _) = play(&over, "7h7g");
    assert_eq!(over.play(mv("2a2b")).unwrap_err().code(), "game_over");
    assert_eq!(refused(&p, "7k7j"), "not_your_piece");
    assert_eq!(refused(&p, "4d4e"), "no_piece");
    assert_eq!(refused(&p, "3d2d"), "unreachable");
    assert_eq!(refused(&p, "3d4d+"), "promotion_not_possible");
    assert_eq!(refused(&p, "1c1d"), "own_piece_on_target");
}

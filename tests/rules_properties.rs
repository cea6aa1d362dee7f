//! Property tests of the rules engine through its public API: random playouts from the
//! start position (with voluntary alliances, R29, and resignations, R35, mixed in, under
//! both values of each option, R19 and R24), checking at every step that move generation,
//! checked and unchecked play, notation (R32, R33), rotation and the R30 invariant agree;
//! and that the parsers never panic on arbitrary or damaged input.

use proptest::prelude::*;
use sannin::rules::{
    perft, Alliance, Bitboard, Cell, Elimination, Illumination, Kind, Move, Options, Player,
    Position, StuckPiece, Targets, CELL_COUNT, START,
};
use std::collections::HashSet;
use std::sync::OnceLock;

/// A small deterministic generator for choices inside one step, seeded by proptest, so a
/// failing case replays exactly.
struct XorShift(u64);

impl XorShift {
    fn new(seed: u64) -> XorShift {
        // Zero is a fixed point of xorshift.
        XorShift(seed | 1)
    }

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

    fn cell(&mut self) -> Cell {
        Cell::from_index(self.below(CELL_COUNT)).expect("index below CELL_COUNT")
    }
}

/// What a playout does next.
#[derive(Clone, Debug)]
enum Step {
    /// Plays the legal move with this index (modulo their number).
    Move { pick: u32, salt: u64 },
    /// Two players try to form a voluntary alliance (R29).
    Ally(Player, Player),
    /// A player resigns (R35).
    Resign(Player),
}

fn player() -> impl Strategy<Value = Player> {
    (0usize..3).prop_map(Player::from_index)
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        40 => (any::<u32>(), any::<u64>()).prop_map(|(pick, salt)| Step::Move { pick, salt }),
        2 => (player(), player()).prop_map(|(a, b)| Step::Ally(a, b)),
        1 => player().prop_map(Step::Resign),
    ]
}

fn options() -> impl Strategy<Value = Options> {
    (any::<bool>(), any::<bool>()).prop_map(|(stay, all)| Options {
        stuck_piece: if stay {
            StuckPiece::Stay
        } else {
            StuckPiece::Promote
        },
        illumination: if all {
            Illumination::All
        } else {
            Illumination::Selective
        },
    })
}

/// Moves that are probably illegal, made by damaging a legal one or at random: another
/// destination or origin, the promotion flag toggled, random cell pairs, drops of pieces
/// (in hand or not) anywhere, and illuminations from anywhere at anything.
fn mutations(pos: &Position, legal: &[Move], rng: &mut XorShift) -> Vec<Move> {
    let mut out = Vec::new();
    for _ in 0..6 {
        let m = legal[rng.below(legal.len())];
        match m {
            Move::Board { from, to, promote } => {
                out.push(Move::Board {
                    from,
                    to,
                    promote: !promote,
                });
                let other = rng.cell();
                if other != from {
                    out.push(Move::Board {
                        from,
                        to: other,
                        promote,
                    });
                }
                if other != to {
                    out.push(Move::Board {
                        from: other,
                        to,
                        promote,
                    });
                }
            }
            Move::Drop { kind, to } => {
                out.push(Move::Drop {
                    kind,
                    to: rng.cell(),
                });
                let other = Kind::HAND[rng.below(Kind::HAND.len())];
                out.push(Move::Drop { kind: other, to });
            }
            Move::Illuminate { king, targets } => {
                let mut bb = targets.to_bitboard();
                bb.insert(rng.cell());
                if let Some(t) = Targets::from_bitboard(bb) {
                    out.push(Move::Illuminate { king, targets: t });
                }
                out.push(Move::Illuminate {
                    king: rng.cell(),
                    targets,
                });
            }
        }
    }
    for _ in 0..4 {
        let (from, to) = (rng.cell(), rng.cell());
        if from != to {
            out.push(Move::Board {
                from,
                to,
                promote: rng.below(2) == 0,
            });
        }
        out.push(Move::Drop {
            kind: Kind::HAND[rng.below(Kind::HAND.len())],
            to: rng.cell(),
        });
        let mut bb = Bitboard::EMPTY;
        for _ in 0..1 + rng.below(3) {
            bb.insert(rng.cell());
        }
        let targets = Targets::from_bitboard(bb).expect("at most three cells");
        out.push(Move::Illuminate {
            king: pos
                .king(pos.to_move().unwrap_or(Player::First))
                .unwrap_or(rng.cell()),
            targets,
        });
    }
    out
}

/// Everything checked about one position reached in a playout.
fn check_position(pos: &Position, rng: &mut XorShift) -> Result<(), TestCaseError> {
    let s = pos.to_string();
    let legal = pos.legal_moves();

    // The Zobrist key kept up along the way is the one computed afresh.
    let parsed = Position::parse(&s).expect("a position string parses");
    prop_assert_eq!(pos.key(), parsed.key(), "key drifted in {}", s);

    // Generation: counting agrees with listing, and no move is listed twice.
    prop_assert_eq!(pos.count_legal_moves(), legal.len() as u64, "in {}", s);
    let set: HashSet<Move> = legal.iter().copied().collect();
    prop_assert_eq!(set.len(), legal.len(), "duplicate legal moves in {}", s);

    // R30: a player to move always has a move; a finished game has none.
    match pos.to_move() {
        Some(p) => {
            prop_assert!(pos.is_alive(p), "{} is to move but eliminated in {}", p, s);
            prop_assert!(
                !legal.is_empty(),
                "{} to move has no legal move in {}",
                p,
                s
            );
            prop_assert!(pos.outcome().is_none(), "outcome set but not over: {}", s);
        }
        None => {
            prop_assert!(legal.is_empty(), "finished game has moves: {}", s);
            prop_assert!(pos.outcome().is_some(), "game over without outcome: {}", s);
        }
    }

    // R32: the position string round-trips (options are not part of it).
    let reparsed = Position::parse(&s)
        .map_err(|e| TestCaseError::fail(format!("{s:?} does not re-parse: {e}")))?
        .with_options(pos.options());
    prop_assert_eq!(reparsed.to_string(), s.clone());
    prop_assert_eq!(
        reparsed.count_legal_moves(),
        legal.len() as u64,
        "after re-parse of {}",
        s
    );

    // Every legal move: its string round-trips (R33), checked and unchecked play agree.
    for &m in &legal {
        let ms = m.to_string();
        prop_assert_eq!(
            Move::parse(&ms).ok(),
            Some(m),
            "move string {} in {}",
            ms,
            s
        );
        prop_assert!(pos.is_legal(m), "{} listed but not is_legal in {}", ms, s);
        let checked = pos
            .play(m)
            .map_err(|e| TestCaseError::fail(format!("legal {ms} refused in {s}: {e}")))?;
        let mut unchecked = *pos;
        unchecked.play_unchecked(m);
        prop_assert_eq!(
            checked,
            unchecked,
            "play and play_unchecked differ: {} in {}",
            ms,
            s
        );
        prop_assert_eq!(checked.options(), pos.options());
    }

    if let Some(us) = pos.to_move() {
        for &m in &legal {
            check_move_shape(pos, us, m)?;
        }
        check_options_agree(pos, &legal)?;
    }

    // Moves that are not legal are refused with a code.
    if !legal.is_empty() {
        for m in mutations(pos, &legal, rng) {
            if set.contains(&m) {
                continue;
            }
            prop_assert!(!pos.is_legal(m), "{} is_legal but not listed in {}", m, s);
            match pos.play(m) {
                Ok(_) => {
                    return Err(TestCaseError::fail(format!(
                        "illegal {m} was played in {s}"
                    )))
                }
                Err(e) => {
                    prop_assert!(!e.code().is_empty(), "{} refused without code in {}", m, s);
                    prop_assert!(
                        !e.message.is_empty(),
                        "{} refused without reason in {}",
                        m,
                        s
                    );
                    if let Move::Drop { kind, to } = m {
                        let us = pos.to_move().expect("moves exist");
                        if pos.hand_count(us, kind) == 0 && pos.piece_at(to).is_none() {
                            prop_assert_eq!(e.code(), "not_in_hand", "{} in {}", m, s);
                        }
                    }
                }
            }
        }
    } else {
        // A finished game refuses everything.
        let m = Move::Drop {
            kind: Kind::Pawn,
            to: rng.cell(),
        };
        let e = pos.play(m).err();
        prop_assert_eq!(e.map(|e| e.code()), Some("game_over"), "in {}", s);
    }

    // Rotation by 120°: the moves are the rotated moves, three turns give the same string.
    let r = pos.rotated();
    prop_assert_eq!(r.count_legal_moves(), legal.len() as u64, "rotated {}", s);
    let rotated_moves: HashSet<Move> = legal.iter().map(|m| rotate_move(*m)).collect();
    let of_rotated: HashSet<Move> = r.legal_moves().into_iter().collect();
    prop_assert_eq!(&rotated_moves, &of_rotated, "moves of rotated {}", s);
    prop_assert_eq!(r.rotated().rotated().to_string(), s.clone());
    prop_assert_ne!(r.to_string(), s.clone(), "rotation changed nothing");
    Ok(())
}

/// Whether `c` is on `p`'s far edge (R9).
fn on_far_edge(p: Player, c: Cell) -> bool {
    match p {
        Player::Middle => c.rank() == 0,
        Player::Last => c.col() - c.rank() == -5,
        Player::First => c.col() == 13,
    }
}

/// A cell turned 120° as [`Position::rotated`] turns the board.
fn rotate_cell(c: Cell) -> Cell {
    let (x, y) = (c.col() - 7, c.rank() - 6);
    Cell::from_coords(y - x + 7, -x + 6).expect("rotation keeps the board")
}

fn rotate_move(m: Move) -> Move {
    match m {
        Move::Board { from, to, promote } => Move::Board {
            from: rotate_cell(from),
            to: rotate_cell(to),
            promote,
        },
        Move::Drop { kind, to } => Move::Drop {
            kind,
            to: rotate_cell(to),
        },
        Move::Illuminate { king, targets } => {
            let mut bb = Bitboard::EMPTY;
            for c in targets.cells() {
                bb.insert(rotate_cell(*c));
            }
            Move::Illuminate {
                king: rotate_cell(king),
                targets: Targets::from_bitboard(bb).expect("as many cells as before"),
            }
        }
    }
}

/// What every legal move must look like, whatever else holds: own piece moved (R29),
/// no king captured (R12), promotion only by promotable pieces (R18) and forced onto the
/// far edge under `stuck_piece=promote` (R19), drops from hand onto empty cells and not
/// onto the far edge for pawns and lances (R15, R16), illumination by a promoted king of
/// other players' pieces (R24).
fn check_move_shape(pos: &Position, us: Player, m: Move) -> Result<(), TestCaseError> {
    match m {
        Move::Board { from, to, promote } => {
            let piece = pos.piece_at(from);
            prop_assert_eq!(piece.map(|p| p.owner), Some(us), "{} in {}", m, pos);
            let kind = piece.expect("checked").kind;
            if let Some(t) = pos.piece_at(to) {
                prop_assert!(t.owner != us, "{} captures own piece in {}", m, pos);
                prop_assert!(!t.kind.is_king(), "R12: {} captures a king in {}", m, pos);
            }
            if promote {
                prop_assert!(
                    kind.promoted().is_some(),
                    "R18: {} promotes a {:?}",
                    m,
                    kind
                );
            }
            let stuck = matches!(kind, Kind::Pawn | Kind::Lance) && on_far_edge(us, to);
            if stuck && pos.options().stuck_piece == StuckPiece::Promote {
                prop_assert!(promote, "R19: {} must promote in {}", m, pos);
            }
        }
        Move::Drop { kind, to } => {
            prop_assert!(
                pos.hand_count(us, kind) > 0,
                "R15: {} not in hand in {}",
                m,
                pos
            );
            prop_assert!(
                pos.piece_at(to).is_none(),
                "R15: {} onto a piece in {}",
                m,
                pos
            );
            if matches!(kind, Kind::Pawn | Kind::Lance) {
                prop_assert!(!on_far_edge(us, to), "R16: {} onto far edge in {}", m, pos);
            }
        }
        Move::Illuminate { king, targets } => {
            let k = pos.piece_at(king);
            prop_assert_eq!(
                k.map(|p| (p.kind, p.owner)),
                Some((Kind::PKing, us)),
                "R24: {} in {}",
                m,
                pos
            );
            prop_assert!(!targets.cells().is_empty(), "R24: empty {} in {}", m, pos);
            for t in targets.cells() {
                let p = pos.piece_at(*t);
                prop_assert!(
                    p.is_some_and(|p| p.owner != us && !p.kind.is_king()),
                    "R24: {} targets {:?} in {}",
                    m,
                    p,
                    pos
                );
            }
        }
    }
    Ok(())
}

/// The options change only what they say they change. R24: under `illumination=all`
/// the only illumination is the one taking the union of every selective target set, if
/// that one is legal; other moves are the same. R19: the two `stuck_piece` values differ
/// only in pawn and lance moves onto the mover's far edge.
fn check_options_agree(pos: &Position, legal: &[Move]) -> Result<(), TestCaseError> {
    let us = pos.to_move().expect("a player to move");
    let o = pos.options();
    let flip_illumination = Options {
        illumination: match o.illumination {
            Illumination::All => Illumination::Selective,
            Illumination::Selective => Illumination::All,
        },
        ..o
    };
    let other = pos.with_options(flip_illumination).legal_moves();
    let (selective, all) = match o.illumination {
        Illumination::Selective => (legal, &other[..]),
        Illumination::All => (&other[..], legal),
    };
    let non_illum = |ms: &[Move]| -> HashSet<Move> {
        ms.iter()
            .copied()
            .filter(|m| !matches!(m, Move::Illuminate { .. }))
            .collect()
    };
    prop_assert_eq!(
        non_illum(selective),
        non_illum(all),
        "R24 option in {}",
        pos
    );
    let sel_illum: Vec<Move> = selective
        .iter()
        .copied()
        .filter(|m| matches!(m, Move::Illuminate { .. }))
        .collect();
    let all_illum: Vec<Move> = all
        .iter()
        .copied()
        .filter(|m| matches!(m, Move::Illuminate { .. }))
        .collect();
    prop_assert!(all_illum.len() <= 1, "R24 all: {:?} in {}", all_illum, pos);
    for m in &all_illum {
        prop_assert!(sel_illum.contains(m), "R24: {} not selective in {}", m, pos);
        if let Move::Illuminate { targets, .. } = m {
            for s in &sel_illum {
                if let Move::Illuminate { targets: t, .. } = s {
                    let extra = Bitboard(t.to_bitboard().0 & !targets.to_bitboard().0);
                    prop_assert!(extra.is_empty(), "R24: {} beyond {} in {}", s, m, pos);
                }
            }
        }
    }
    // Selective allows every non-empty subset of the candidates that is legal; when the
    // union is legal under `all`, it is among the selective moves as well (checked above).

    let flip_stuck = Options {
        stuck_piece: match o.stuck_piece {
            StuckPiece::Promote => StuckPiece::Stay,
            StuckPiece::Stay => StuckPiece::Promote,
        },
        ..o
    };
    let a: HashSet<Move> = legal.iter().copied().collect();
    let b: HashSet<Move> = pos
        .with_options(flip_stuck)
        .legal_moves()
        .into_iter()
        .collect();
    for m in a.symmetric_difference(&b) {
        let ok = match *m {
            Move::Board { from, to, .. } => {
                pos.piece_at(from)
                    .is_some_and(|p| matches!(p.kind, Kind::Pawn | Kind::Lance) && p.owner == us)
                    && on_far_edge(us, to)
            }
            _ => false,
        };
        prop_assert!(ok, "R19 option changes {} in {}", m, pos);
    }
    Ok(())
}

/// The player who just moved is not in check and does not check its ally (R23); a
/// player in check loses castling (R21b); every other living player in check still has
/// a move, or R27 would have eliminated it.
fn check_after_move(before: &Position, m: Move, next: &Position) -> Result<(), TestCaseError> {
    let us = before.to_move().expect("a player moved");
    if next.is_alive(us) {
        prop_assert!(
            !next.in_check(us),
            "R23a: {} leaves {} in check: {}",
            m,
            us,
            before
        );
        if let Some(ally) = before.alliance().and_then(|a| a.ally_of(us)) {
            for c in next.checkers(ally) {
                let owner = next.piece_at(c).map(|p| p.owner);
                prop_assert!(owner != Some(us), "R23b: {} checks ally in {}", m, before);
            }
        }
    }
    for p in Player::ALL {
        if next.is_alive(p) && next.in_check(p) {
            prop_assert!(
                !next.castling().contains(p),
                "R21b: {} after {} in {}",
                p,
                m,
                before
            );
            if !next.is_over() && next.to_move() != Some(p) {
                let s = next.to_string();
                let mut fields: Vec<&str> = s.split(' ').collect();
                let letter = p.letter().to_string();
                fields[1] = &letter;
                let as_p = Position::parse(&fields.join(" "))
                    .map_err(|e| TestCaseError::fail(format!("{s} as {p}: {e}")))?
                    .with_options(next.options());
                prop_assert!(
                    as_p.count_legal_moves() > 0,
                    "R27: {} is mated after {} in {} but not eliminated",
                    p,
                    m,
                    before
                );
            }
        }
    }
    Ok(())
}

/// The more expensive rotation check, perft(2), run on some positions only.
fn check_rotation_perft(pos: &Position) -> Result<(), TestCaseError> {
    let r = pos.rotated();
    prop_assert_eq!(perft(&r, 2), perft(pos, 2), "perft 2 of rotated {}", pos);
    Ok(())
}

fn playout(options: Options, steps: &[Step], perft_every: usize) -> Result<(), TestCaseError> {
    let mut pos = Position::start().with_options(options);
    for (i, step) in steps.iter().enumerate() {
        let mut rng = XorShift::new(match step {
            Step::Move { salt, .. } => *salt,
            _ => i as u64,
        });
        check_position(&pos, &mut rng)?;
        if perft_every > 0 && i % perft_every == 0 {
            check_rotation_perft(&pos)?;
        }
        if pos.is_over() {
            break;
        }
        let before = pos.to_string();
        pos = match *step {
            Step::Move { pick, .. } => {
                let legal = pos.legal_moves();
                let m = legal[pick as usize % legal.len()];
                let next = pos.play(m).expect("checked in check_position");
                check_after_move(&pos, m, &next)?;
                prop_assert_eq!(next.ply(), pos.ply() + 1, "{} in {}", m, before);
                next
            }
            Step::Ally(a, b) => {
                let Some(alliance) = Alliance::new(a, b) else {
                    continue;
                };
                let may = pos.alliance().is_none() && pos.living().len() == 3;
                match pos.form_alliance(alliance) {
                    Ok((next, _)) => {
                        prop_assert!(may, "alliance {} formed in {}", alliance, before);
                        // R20 promotes the third king, R29 ends castling, unless the
                        // alliance itself ended the game or eliminated someone.
                        if next.alliance() == Some(alliance) {
                            let third = alliance.third();
                            let k = next.king(third).expect("third is alive");
                            let piece = next.piece_at(k).expect("king on its cell");
                            prop_assert_eq!(piece.kind, Kind::PKing, "R20 after {}", before);
                            prop_assert!(next.castling().is_empty(), "R29 after {}", before);
                        }
                        next
                    }
                    Err(e) => {
                        prop_assert!(!may, "alliance {} refused in {}: {}", alliance, before, e);
                        prop_assert!(!e.code().is_empty());
                        continue;
                    }
                }
            }
            Step::Resign(p) => match pos.eliminate(p, Elimination::Resigned) {
                Ok((next, _)) => {
                    prop_assert!(pos.is_alive(p), "{} resigned twice in {}", p, before);
                    prop_assert!(!next.is_alive(p), "{} still alive after resigning", p);
                    prop_assert!(next.pieces_of(p).is_empty(), "{}'s pieces stay", p);
                    next
                }
                Err(e) => {
                    prop_assert!(
                        !pos.is_alive(p),
                        "{} could not resign in {}: {}",
                        p,
                        before,
                        e
                    );
                    prop_assert_eq!(e.code(), "not_playing");
                    continue;
                }
            },
        };
    }
    check_position(&pos, &mut XorShift::new(7))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn r30_r32_r33_random_playouts_keep_invariants(
        options in options(),
        steps in prop::collection::vec(step(), 1..60),
    ) {
        playout(options, &steps, 0)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn rotation_keeps_perft_2_along_playouts(
        options in options(),
        steps in prop::collection::vec(step(), 1..40),
    ) {
        playout(options, &steps, 8)?;
    }
}

/// The playouts above are only as good as the positions they reach: with the same mix of
/// steps, fixed seeds must reach drops (R15), promotions (R18), alliances (R29),
/// illumination (R24) and eliminations (R27, R35), or the properties would be vacuous.
#[test]
fn playouts_reach_drops_promotions_alliances_illumination_and_eliminations() {
    let mut rng = XorShift::new(0x0dd5_eed5);
    let (mut drops, mut promotions, mut illuminations) = (0, 0, 0);
    let (mut alliances, mut eliminations, mut finished) = (0, 0, 0);
    for game in 0..60 {
        let mut pos = Position::start();
        for ply in 0..150 {
            if pos.is_over() {
                finished += 1;
                break;
            }
            if game % 2 == 0 && ply == 10 + game % 20 {
                let a = Alliance::against(Player::from_index(rng.below(3)));
                if let Ok((next, _)) = pos.form_alliance(a) {
                    alliances += 1;
                    pos = next;
                    continue;
                }
            }
            let legal = pos.legal_moves();
            for m in &legal {
                match m {
                    Move::Drop { .. } => drops += 1,
                    Move::Board { promote: true, .. } => promotions += 1,
                    Move::Illuminate { .. } => illuminations += 1,
                    Move::Board { .. } => {}
                }
            }
            let before = pos.living().len();
            pos = pos.play(legal[rng.below(legal.len())]).expect("legal");
            eliminations += before - pos.living().len();
        }
    }
    let seen = format!(
        "drops {drops}, promotions {promotions}, illuminations {illuminations}, \
         alliances {alliances}, eliminations {eliminations}, finished {finished}"
    );
    for (n, what) in [
        (drops, "drop"),
        (promotions, "promotion"),
        (illuminations, "illumination"),
        (alliances, "alliance"),
        (eliminations, "elimination"),
        (finished, "finished game"),
    ] {
        assert!(n > 0, "no {what} reached: {seen}");
    }
}

// ---- parsers ----

/// Valid position strings to damage: the start, the perft drop position, the allied start
/// and positions from a fixed playout, so mutations hit every field in many shapes.
fn valid_positions() -> &'static [String] {
    static CACHE: OnceLock<Vec<String>> = OnceLock::new();
    CACHE.get_or_init(make_valid_positions)
}

fn make_valid_positions() -> Vec<String> {
    let mut out = vec![
        START.to_string(),
        "Sl1Pl4/6+Ll1/GlKlPlPl5/2Pl+Rl6/2Rl8/2Nl3Bm5/1SlPl+Bm9/Ll1PlGl8/3Pm5Pm1/Pm1PmSm1NmPm1Pm1/6Pm2/2GlSmKmGm2/6Lm m BmLmPm2Pl - - 95".to_string(),
        Position::start_allied(
            Alliance::new(Player::Middle, Player::Last).expect("two players"),
            Options::default(),
        )
        .to_string(),
    ];
    let mut pos = Position::start();
    let mut rng = XorShift::new(0x5eed);
    for _ in 0..40 {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        pos = pos.play(legal[rng.below(legal.len())]).expect("legal");
        out.push(pos.to_string());
    }
    out
}

const VALID_MOVES: &[&str] = &[
    "7k7j",
    "6b6a+",
    "P*7g",
    "10d!7d,9e",
    "1d2a",
    "2g10k+",
    "B*9f",
    "13m13l",
    "7m!7a",
];

/// An edit of a string: insert, delete or replace one character.
#[derive(Clone, Debug)]
enum Edit {
    Insert(usize, char),
    Delete(usize),
    Replace(usize, char),
}

fn edit() -> impl Strategy<Value = Edit> {
    // Mostly characters that notation uses, so edits stay close to valid strings.
    let ch = prop_oneof![
        8 => prop::sample::select(
            "0123456789abcdefghijklmnKRBGSNLPfml+*!,/- ".chars().collect::<Vec<_>>()
        ),
        1 => any::<char>(),
    ];
    prop_oneof![
        (any::<usize>(), ch.clone()).prop_map(|(i, c)| Edit::Insert(i, c)),
        any::<usize>().prop_map(Edit::Delete),
        (any::<usize>(), ch).prop_map(|(i, c)| Edit::Replace(i, c)),
    ]
}

fn apply_edits(s: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = s.chars().collect();
    for e in edits {
        match *e {
            Edit::Insert(i, c) => {
                let i = i % (chars.len() + 1);
                chars.insert(i, c);
            }
            Edit::Delete(i) if !chars.is_empty() => {
                let i = i % chars.len();
                chars.remove(i);
            }
            Edit::Replace(i, c) if !chars.is_empty() => {
                let i = i % chars.len();
                chars[i] = c;
            }
            _ => {}
        }
    }
    chars.into_iter().collect()
}

/// Parsing never panics, and whatever parses prints to a string that parses to the same.
fn check_position_parser(s: &str) -> Result<(), TestCaseError> {
    if let Ok(p) = Position::parse(s) {
        let printed = p.to_string();
        let again = Position::parse(&printed)
            .map_err(|e| TestCaseError::fail(format!("{s:?} printed as {printed:?}: {e}")))?;
        prop_assert_eq!(again.to_string(), printed, "from {:?}", s);
        // What parses is a position the engine can work with.
        let n = again.count_legal_moves();
        prop_assert_eq!(n, again.legal_moves().len() as u64);
        prop_assert_eq!(again.rotated().count_legal_moves(), n, "from {:?}", s);
    }
    Ok(())
}

fn check_move_parser(s: &str) -> Result<(), TestCaseError> {
    if let Ok(m) = Move::parse(s) {
        let printed = m.to_string();
        prop_assert_eq!(
            Move::parse(&printed).ok(),
            Some(m),
            "{:?} printed as {:?}",
            s,
            printed
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn r32_position_parser_total_on_arbitrary_strings(s in any::<String>()) {
        check_position_parser(&s)?;
    }

    #[test]
    fn r32_position_parser_total_on_notation_alphabet(
        s in "[0-9a-mKRBGSNLPfml+/ -]{0,160}"
    ) {
        check_position_parser(&s)?;
    }

    #[test]
    fn r32_position_parser_total_on_damaged_positions(
        pick in any::<prop::sample::Index>(),
        edits in prop::collection::vec(edit(), 1..4),
    ) {
        let valid = valid_positions();
        let s = apply_edits(&valid[pick.index(valid.len())], &edits);
        check_position_parser(&s)?;
    }

    #[test]
    fn r33_move_parser_total_on_arbitrary_strings(s in any::<String>()) {
        check_move_parser(&s)?;
    }

    #[test]
    fn r33_move_parser_total_on_notation_alphabet(s in "[0-9a-mKRBGSNLP+*!,]{0,24}") {
        check_move_parser(&s)?;
    }

    #[test]
    fn r33_move_parser_total_on_damaged_moves(
        pick in any::<prop::sample::Index>(),
        edits in prop::collection::vec(edit(), 1..4),
    ) {
        let s = apply_edits(VALID_MOVES[pick.index(VALID_MOVES.len())], &edits);
        check_move_parser(&s)?;
    }
}

#[test]
fn r33_valid_move_samples_parse() {
    // The damaged-move test starts from these; they must be valid to begin with.
    for s in VALID_MOVES {
        let m = Move::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"));
        assert_eq!(m.to_string(), *s);
    }
}

#[test]
fn r32_valid_position_samples_parse() {
    for s in valid_positions() {
        let p = Position::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"));
        assert_eq!(p.to_string(), *s);
    }
}

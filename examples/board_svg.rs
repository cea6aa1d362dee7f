//! Writes pictures of a few positions as SVG, for looking at the renderer's output:
//! `cargo run --example board_svg [DIR]` (default `/tmp/svg`).

use sannin::render::{board_svg, SvgOptions};
use sannin::rules::{Move, Player, Position};
use std::{env, fs, path::PathBuf};

/// A game played without randomness: illuminations, captures and promotions first, so
/// the game soon has promoted pieces, full hands and eliminations; otherwise a move
/// picked by a fixed linear congruential sequence. Calls `seen` after every move.
fn busy_game(max_plies: usize, mut seen: impl FnMut(&Position, Move)) -> (Position, Option<Move>) {
    let mut pos = Position::start();
    let mut last = None;
    let mut seed: u64 = 0x5eed;
    for _ in 0..max_plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let score = |m: &Move| match *m {
            Move::Board { to, promote, .. } => {
                let capture = pos.piece_at(to).is_some();
                2 * u32::from(capture) + u32::from(promote)
            }
            Move::Illuminate { .. } => 4,
            Move::Drop { .. } => 0,
        };
        let best = moves.iter().map(score).max().unwrap_or(0);
        let pool: Vec<Move> = moves.into_iter().filter(|m| score(m) == best).collect();
        let mv = pool[(seed >> 33) as usize % pool.len()];
        pos.play_unchecked(mv);
        last = Some(mv);
        seen(&pos, mv);
    }
    (pos, last)
}

fn main() -> std::io::Result<()> {
    let dir = PathBuf::from(env::args().nth(1).unwrap_or_else(|| "/tmp/svg".into()));
    fs::create_dir_all(&dir)?;
    let names = [
        Some("Hanako".to_string()),
        Some("Bob <script>&\"".to_string()),
        None,
    ];
    let write = |file: &str, pos: &Position, opts: SvgOptions| {
        fs::write(dir.join(file), board_svg(pos, &opts))?;
        println!("{file}: {pos}");
        Ok::<_, std::io::Error>(())
    };
    let titled = |title: String, view: Player, last_move: Option<Move>| SvgOptions {
        title: Some(title),
        names: names.clone(),
        view,
        last_move,
    };

    let start = Position::start();
    write(
        "start.svg",
        &start,
        titled("Start position".into(), Player::Middle, None),
    )?;
    write(
        "start-first.svg",
        &start,
        titled("Start position, First's view".into(), Player::First, None),
    )?;

    let (mid, last) = busy_game(61, |_, _| {});
    for view in Player::ALL {
        let title = format!("After {} moves", mid.ply() - 1);
        write(
            &format!("mid-{}.svg", view.name()),
            &mid,
            titled(title, view, last),
        )?;
    }

    let mut check = None;
    let mut lit = None;
    let (end, last) = busy_game(2000, |pos, mv| {
        if check.is_none() && Player::ALL.iter().any(|&p| pos.in_check(p)) {
            check = Some((*pos, mv));
        }
        if lit.is_none() && matches!(mv, Move::Illuminate { .. }) {
            lit = Some((*pos, mv));
        }
    });
    if let Some((pos, mv)) = check {
        write(
            "check.svg",
            &pos,
            titled("A check".into(), Player::Last, Some(mv)),
        )?;
    }
    if let Some((pos, mv)) = lit {
        write(
            "illumination.svg",
            &pos,
            titled("An illumination".into(), Player::Middle, Some(mv)),
        )?;
    }
    write(
        "end.svg",
        &end,
        titled("Final position".into(), Player::Middle, last),
    )?;
    Ok(())
}

//! Conditional premoves. A player registers lines that answer predicted
//! replies: each a sequence of moves in turn order from the position at the
//! time, every move checked by the rules when the lines are saved. After each
//! move the server keeps only the lines that match it (what remains of them
//! is stored, from the next ply on); when it becomes a player's turn and a
//! remaining line says what to play, the journal plays it for them in the
//! same transaction (so a chain of premoves across players resolves at once).
//! An alliance formed, an elimination or a draw offer removes everyone's
//! premoves: they were checked against a game that no longer is.

use std::collections::HashMap;

use crate::domain::{FieldError, GameId, UserId};
use chrono::NaiveDateTime;

use crate::db::premoves::PremoveRow;
use crate::db::{self, DbConnection};
use crate::rules::{Move, Player, Position};

use super::model::{load, load_for_update, parse_seat_name, seat_name, Loaded};
use super::{GameError, Games};

/// The most lines one player may register.
pub const MAX_LINES: usize = 100;
/// The most moves in a line.
pub const MAX_PLIES: usize = 12;

/// A player's premoves: what remains of their lines, from ply `from_ply`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Premoves {
    pub lines: Vec<Vec<Move>>,
    pub from_ply: Option<u32>,
    pub updated_at: Option<NaiveDateTime>,
}

fn stored_lines(lines: &[Vec<Move>]) -> String {
    let text: Vec<Vec<String>> = lines
        .iter()
        .map(|l| l.iter().map(Move::to_string).collect())
        .collect();
    serde_json::to_string(&text).expect("lines serialize")
}

/// The lines stored in `row`; ones that do not parse are an error naming it.
fn parse_row(row: &PremoveRow) -> Result<Vec<Vec<Move>>, GameError> {
    let bad = |why: String| {
        GameError::Internal(anyhow::anyhow!(
            "stored premoves of user {} in game {} do not parse: {why}",
            row.user_id,
            row.game_id
        ))
    };
    let text: Vec<Vec<String>> =
        serde_json::from_str(&row.lines).map_err(|e| bad(e.to_string()))?;
    text.iter()
        .map(|l| {
            l.iter()
                .map(|m| Move::parse(m).map_err(|e| bad(format!("{m:?}: {e}"))))
                .collect()
        })
        .collect()
}

fn refused(i: usize, j: Option<usize>, code: impl Into<String>, message: String) -> FieldError {
    let field = match j {
        Some(j) => format!("lines[{i}][{j}]"),
        None => format!("lines[{i}]"),
    };
    FieldError::new(field, code, message)
}

/// What can be checked of lines without the game: how many, how long, and
/// that each move reads as R33 (a request that is malformed whatever the
/// game's state is refused as such).
pub fn check_shape(lines: &[Vec<String>]) -> Result<(), GameError> {
    if lines.len() > MAX_LINES {
        return Err(GameError::invalid(
            "lines",
            "too-many",
            format!("at most {MAX_LINES} lines (there are {})", lines.len()),
        ));
    }
    let mut errors = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if line.is_empty() || line.len() > MAX_PLIES {
            let n = line.len();
            errors.push(refused(
                i,
                None,
                "length",
                format!("line {i} has {n} moves; a line has 1 to {MAX_PLIES}"),
            ));
            continue;
        }
        if let Some((j, e)) = line
            .iter()
            .enumerate()
            .find_map(|(j, m)| Move::parse(m).err().map(|e| (j, e)))
        {
            errors.push(refused(
                i,
                Some(j),
                "malformed",
                format!("line {i}, move {j} ({:?}): {e}", line[j]),
            ));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(GameError::Invalid(errors))
    }
}

/// Checks lines for `seat` from `pos`: each move legal where it falls, each
/// line at most [`MAX_PLIES`] long with a move of `seat`'s in it, and no two
/// lines answering the same moves with different moves of `seat`'s. Every
/// refusal names the line and the index (from 0) and says why.
pub fn check_lines(
    pos: &Position,
    seat: Player,
    lines: &[Vec<String>],
) -> Result<Vec<Vec<Move>>, GameError> {
    check_shape(lines)?;
    let mut errors = Vec::new();
    let mut checked = Vec::with_capacity(lines.len());
    // For each sequence of moves that leads to a move of `seat`'s: that move,
    // and the line that first said it.
    let mut answers: HashMap<Vec<Move>, (Move, usize)> = HashMap::new();
    'lines: for (i, line) in lines.iter().enumerate() {
        let mut at = *pos;
        let mut moves = Vec::with_capacity(line.len());
        let mut mine = false;
        for (j, text) in line.iter().enumerate() {
            // `check_shape` refused moves that do not read.
            let Ok(mv) = Move::parse(text) else {
                continue 'lines;
            };
            let mover = at.to_move();
            match at.play_with_events(mv) {
                Ok((next, _)) => at = next,
                Err(e) => {
                    let who = mover.map_or("nobody".into(), |p| seat_name(p).to_owned());
                    errors.push(refused(
                        i,
                        Some(j),
                        e.code().replace('_', "-"),
                        format!("line {i}, move {j} ({text}) by {who}: {}", e.message),
                    ));
                    continue 'lines;
                }
            }
            if mover == Some(seat) {
                mine = true;
                match answers.get(&moves) {
                    Some((other, k)) if *other != mv => {
                        errors.push(refused(
                            i,
                            Some(j),
                            "conflicting-lines",
                            format!("line {i} answers the same moves as line {k} with {mv}, not {other}"),
                        ));
                        continue 'lines;
                    }
                    Some(_) => {}
                    None => {
                        answers.insert(moves.clone(), (mv, i));
                    }
                }
            }
            moves.push(mv);
        }
        if !mine {
            errors.push(refused(
                i,
                None,
                "no-move-of-yours",
                format!(
                    "line {i} has no move of yours ({}) for the server to play",
                    seat_name(seat)
                ),
            ));
            continue;
        }
        checked.push(moves);
    }
    if errors.is_empty() {
        Ok(checked)
    } else {
        Err(GameError::Invalid(errors))
    }
}

/// After the move `mv` at `ply` (in the move's transaction): keeps of every
/// player's lines those that played it, and answers the move to play now
/// for the player to move, if their lines say one (with who they are).
pub(super) fn advance(
    conn: &mut DbConnection,
    g: &Loaded,
    ply: u32,
    mv: Move,
    now: NaiveDateTime,
) -> Result<Option<(String, Move)>, GameError> {
    let rows = db::premoves::of_game(conn, &g.row.id)?;
    let to_move = g.position().to_move();
    let mut next = None;
    for mut row in rows {
        let lines = parse_row(&row)?;
        // Lines checked from another ply than this move's would play on a
        // position they were not checked against: drop them.
        let kept: Vec<Vec<Move>> = if row.from_ply == ply as i32 {
            lines
                .into_iter()
                .filter(|l| l.first() == Some(&mv) && l.len() > 1)
                .map(|l| l[1..].to_vec())
                .collect()
        } else {
            Vec::new()
        };
        if kept.is_empty() {
            db::premoves::remove(conn, &row.game_id, &row.user_id)?;
            continue;
        }
        let seat = parse_seat_name(&row.seat);
        let holder = seat.and_then(|p| g.seat(p).user_id.as_deref());
        if seat.is_some() && seat == to_move && holder == Some(row.user_id.as_str()) {
            next = Some((row.user_id.to_string(), kept[0][0]));
        }
        row.lines = stored_lines(&kept);
        row.from_ply = ply as i32 + 1;
        row.updated_at = now;
        db::premoves::replace(conn, &row)?;
    }
    Ok(next)
}

fn of_row(row: Option<PremoveRow>) -> Result<Premoves, GameError> {
    match row {
        None => Ok(Premoves::default()),
        Some(row) => Ok(Premoves {
            lines: parse_row(&row)?,
            from_ply: Some(row.from_ply as u32),
            updated_at: Some(row.updated_at),
        }),
    }
}

/// Replaces the caller's premoves with `lines`, each checked from the
/// position now (no lines removes them).
pub async fn set_premoves(
    games: &Games,
    caller: &UserId,
    game_id: &GameId,
    lines: Vec<Vec<String>>,
    now: NaiveDateTime,
) -> Result<Premoves, GameError> {
    check_shape(&lines)?;
    let (caller, id) = (caller.to_owned(), game_id.to_owned());
    db::run(&games.pool, move |conn| {
        db::write_transaction(conn, |conn| {
            let g = load_for_update(conn, &id)?;
            let seat = g.living_seat(&caller, "premoves are registered")?;
            let checked = check_lines(g.position(), seat, &lines)?;
            if checked.is_empty() {
                db::premoves::remove(conn, &id, &caller)?;
                return Ok(Premoves::default());
            }
            // A move read before this cannot now be stored without it.
            db::games::touch(conn, &id)?;
            let row = PremoveRow {
                game_id: g.row.id.clone(),
                user_id: caller.clone(),
                seat: seat_name(seat).to_owned(),
                from_ply: g.position().ply() as i32,
                lines: stored_lines(&checked),
                updated_at: now,
            };
            db::premoves::replace(conn, &row)?;
            of_row(Some(row))
        })
    })
    .await
}

/// The caller's premoves: what remains of their lines (none when none
/// remain: the set always exists, empty until lines are registered).
pub async fn read_premoves(
    games: &Games,
    caller: &UserId,
    game_id: &GameId,
) -> Result<Premoves, GameError> {
    let (caller, id) = (caller.to_owned(), game_id.to_owned());
    db::run(&games.pool, move |conn| {
        let g = load(conn, &id)?;
        g.joined_seat(&caller)?;
        of_row(db::premoves::of_player(conn, &id, &caller)?)
    })
    .await
}

/// Removes the caller's premoves; answers whether there were any.
pub async fn clear_premoves(
    games: &Games,
    caller: &UserId,
    game_id: &GameId,
) -> Result<bool, GameError> {
    let (caller, id) = (caller.to_owned(), game_id.to_owned());
    db::run(&games.pool, move |conn| {
        db::write_transaction(conn, |conn| {
            let g = load_for_update(conn, &id)?;
            g.joined_seat(&caller)?;
            Ok(db::premoves::remove(conn, &id, &caller)?)
        })
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Player::{First, Middle};

    fn lines(ls: &[&[&str]]) -> Vec<Vec<String>> {
        ls.iter()
            .map(|l| l.iter().map(|m| (*m).to_owned()).collect())
            .collect()
    }

    fn fields(e: GameError) -> Vec<(String, String)> {
        match e {
            GameError::Invalid(f) => f.into_iter().map(|f| (f.field, f.code)).collect(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn lines_are_checked_move_by_move_and_refusals_name_line_and_index() {
        let start = Position::start();
        let ok = check_lines(
            &start,
            Middle,
            &lines(&[&["2g10k+", "12l8d"], &["3d4d", "12l8d"]]),
        );
        assert_eq!(ok.unwrap().len(), 2);
        let e = check_lines(
            &start,
            Middle,
            &lines(&[
                &["2g10k+", "12l8d"],
                &["2g10k+", "7k7j"],
                &["2g10k+"],
                &["2g10k+", "12l9e"],
                &["3d4d", "1c1d"],
            ]),
        )
        .unwrap_err();
        assert_eq!(
            fields(e),
            [
                ("lines[1][1]".to_owned(), "conflicting-lines".to_owned()),
                ("lines[2]".to_owned(), "no-move-of-yours".to_owned()),
                ("lines[3][1]".to_owned(), "unreachable".to_owned()),
                ("lines[4][1]".to_owned(), "not-your-piece".to_owned()),
            ]
        );
        // Moves that do not read are refused before any is played.
        let e = check_lines(&start, Middle, &lines(&[&["3d4d", "12l8d", "xx"]])).unwrap_err();
        assert_eq!(
            fields(e),
            [("lines[0][2]".to_owned(), "malformed".to_owned())]
        );
        let long = vec!["2g10k+".to_owned(); MAX_PLIES + 1];
        let e = check_lines(&start, First, &[long]).unwrap_err();
        assert_eq!(fields(e)[0], ("lines[0]".to_owned(), "length".to_owned()));
        let many = vec![vec!["3d4d".to_owned()]; MAX_LINES + 1];
        assert!(check_lines(&start, First, &many).is_err());
    }
}

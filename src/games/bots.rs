//! Computer players. The built-in accounts `sannin-bot-1` … `sannin-bot-5`
//! (one per engine level, created by a migration, unable to log in) play
//! through the same use cases as people. The change that makes it a bot's
//! turn, or that sends a bot an alliance proposal, queues a job for it in
//! the same transaction (`bot_jobs`); the job queue runs it
//! ([`super::bot_turns`]): it reads what the job asks for now ([`task`]),
//! thinks off the async executor ([`think`]) and acts as the bot.

use std::time::{Duration, Instant};

use chrono::NaiveDateTime;

use crate::db::bots::{BotJobKind, BotJobRow};
use crate::db::games::ProposalRow;
use crate::db::{self, DbConnection};
use crate::engine::{accepts_alliance, search, Level};
use crate::rules::{Move, Position};

use super::model::{load, parse_seat, pending_proposals, Loaded, Status};
use super::GameError;

/// Bots' usernames: this prefix and the level. No one else may register
/// a name that a person could take for one (see [`is_reserved`]).
pub const USERNAME_PREFIX: &str = "sannin-bot";

/// Whether `username` reads like a computer player's: ignoring case and the
/// separators `-`, `_` and `.`, it starts with `sanninbot` (so `Sannin_Bot_1`,
/// `sanninbot1` and `sannin.bot` are the server's, as `sannin-bot-1` is).
pub fn is_reserved(username: &str) -> bool {
    let skeleton: String = username
        .chars()
        .filter(|c| !matches!(c, '-' | '_' | '.'))
        .map(|c| c.to_ascii_lowercase())
        .collect();
    skeleton.starts_with("sanninbot")
}

/// The username of the bot of `level`.
pub fn username(level: u8) -> String {
    format!("{USERNAME_PREFIX}-{level}")
}

/// Queues the move of the player to move, if that player is a bot.
pub(super) fn queue_turn(
    conn: &mut DbConnection,
    g: &Loaded,
    now: NaiveDateTime,
) -> Result<(), GameError> {
    let Some(p) = g.position().to_move() else {
        return Ok(());
    };
    let seat = g.seat(p);
    let (Some(_), Some(user), Status::Active) = (seat.bot_level, &seat.user_id, g.status()) else {
        return Ok(());
    };
    let ply = g.position().ply() as i32;
    db::bots::insert_if_new(conn, &BotJobRow::for_move(&g.row.id, user, ply, now))?;
    Ok(())
}

/// Queues a bot's answer to proposal `p`, if it is addressed to a bot.
pub(super) fn queue_answer(
    conn: &mut DbConnection,
    g: &Loaded,
    p: &ProposalRow,
    now: NaiveDateTime,
) -> Result<(), GameError> {
    let Some(to) = parse_seat(&p.to_seat) else {
        return Ok(());
    };
    let seat = g.seat(to);
    let (Some(_), Some(user)) = (seat.bot_level, &seat.user_id) else {
        return Ok(());
    };
    let ply = g.position().ply() as i32;
    let job = BotJobRow::for_proposal(&g.row.id, user, ply, &p.id, now);
    db::bots::insert_if_new(conn, &job)?;
    Ok(())
}

/// What a job asks of its bot now.
#[derive(Debug, Clone)]
pub enum Task {
    /// Choose a move in `position` and play it at the job's ply.
    Move {
        position: Box<Position>,
        level: Level,
        seed: u64,
    },
    /// Answer the job's proposal.
    Answer { accept: bool },
    /// Nothing any more (why): the game moved on, or the proposal was
    /// answered or lapsed.
    Nothing(String),
}

/// Reads what `job` asks for now.
pub fn task(conn: &mut DbConnection, job: &BotJobRow) -> Result<Task, GameError> {
    let g = load(conn, &job.game_id)?;
    let seat = g.seat_of(&job.user_id).cloned();
    let Some((seat, Some(level))) = seat.map(|s| (s.seat, s.bot_level.and_then(Level::new))) else {
        return Ok(Task::Nothing("the bot no longer plays in this game".into()));
    };
    if g.status() != Status::Active {
        return Ok(Task::Nothing(format!(
            "the game is {}",
            g.status().as_str()
        )));
    }
    match job.kind {
        BotJobKind::Move => {
            let pos = *g.position();
            if pos.ply() as i32 != job.ply || pos.to_move() != Some(seat) {
                return Ok(Task::Nothing("the game moved on".into()));
            }
            Ok(Task::Move {
                position: Box::new(pos),
                level,
                seed: seed_of(&job.id),
            })
        }
        BotJobKind::Proposal => {
            let wanted = job.proposal_id.as_deref();
            let pending = pending_proposals(conn, &job.game_id)?;
            let Some(p) = pending.iter().find(|p| Some(p.id.as_str()) == wanted) else {
                return Ok(Task::Nothing("the proposal was withdrawn or lapsed".into()));
            };
            let from = parse_seat(&p.from_seat)
                .ok_or_else(|| anyhow::anyhow!("proposal {} has no seat {}", p.id, p.from_seat))?;
            Ok(Task::Answer {
                accept: accepts_alliance(g.position(), seat, from),
            })
        }
    }
}

/// The search's seed for a job: the same job thinks the same way, so a
/// retried turn plays what the first attempt would have.
fn seed_of(job_id: &str) -> u64 {
    use sha2::Digest as _;
    let digest = sha2::Sha256::digest(job_id.as_bytes());
    u64::from_le_bytes(digest[..8].try_into().expect("eight bytes"))
}

/// Chooses a move in `position` at `level`, thinking at most `budget`
/// (level 5 uses all of it; lower levels stop sooner, at their depth).
/// Takes a core while it lasts: run it off the async executor.
pub fn think(position: &Position, level: Level, seed: u64, budget: Duration) -> Option<Move> {
    let started = Instant::now();
    let stop = move || started.elapsed() >= budget;
    let mut limits = level.limits(seed);
    limits.stop = Some(&stop);
    search(position, &limits).map(|r| r.best)
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_a_person_would_take_for_a_computer_player_are_reserved() {
        for name in [
            "sannin-bot-1",
            "sannin_bot_1",
            "Sannin-Bot",
            "sanninbot",
            "sannin.bot.9",
            "sannin--bot",
            "_sannin_bot",
            "sanninbot_fan",
        ] {
            assert!(super::is_reserved(name), "{name}");
        }
        for name in [
            "sannin",
            "sannin-b0t",
            "bot-sannin",
            "sannin-robot",
            "alice",
        ] {
            assert!(!super::is_reserved(name), "{name}");
        }
    }
}

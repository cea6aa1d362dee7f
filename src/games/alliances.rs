//! Alliances (R29): proposals and their answers.

use crate::domain::{GameId, ProposalId, UserId};
use chrono::NaiveDateTime;

use crate::db::games::ProposalRow;
use crate::db::{self, DbConnection};
use crate::rules::{Action, Alliance, IllegalKind, Player};

use super::events::{self, emit, GameEvent, Players};
use super::journal::{append, new_id, save};
use super::model::{load_for_update, seat_name, Loaded, ProposalStatus, Status};
use super::model::{load_state, pending_proposals, GameState};
use super::{GameError, Games, Settings};

fn alliance_allowed(g: &Loaded) -> Result<(), GameError> {
    let pos = g.position();
    if g.status() != Status::Active || pos.is_over() {
        return Err(GameError::State(
            "alliances are made only in a game in progress".into(),
        ));
    }
    if pos.alliance().is_some() || pos.living().len() < 3 {
        return Err(GameError::Illegal(crate::rules::Illegal {
            kind: IllegalKind::AllianceNotAllowed,
            message: "an alliance needs all three players in the game and no alliance yet (R29)"
                .into(),
        }));
    }
    Ok(())
}

/// The caller proposes an alliance to the player in seat `to` (R29).
fn propose(
    conn: &mut DbConnection,
    user_id: &str,
    game_id: &str,
    to: Player,
    now: NaiveDateTime,
) -> Result<ProposalRow, GameError> {
    db::write_transaction(conn, |conn| {
        let mut g = load_for_update(conn, game_id)?;
        let from = g.joined_seat(user_id)?;
        if from == to {
            return Err(GameError::invalid(
                "to",
                "self",
                "you cannot ally with yourself",
            ));
        }
        alliance_allowed(&g)?;
        let pending = pending_proposals(conn, game_id)?;
        if pending
            .iter()
            .any(|p| p.from_seat == seat_name(from) && p.to_seat == seat_name(to))
        {
            return Err(GameError::State(format!(
                "you already have a pending proposal to {}",
                seat_name(to)
            )));
        }
        super::offers::admit(
            conn,
            game_id,
            user_id,
            super::offers::Offer::Alliance(to),
            now,
        )?;
        let p = ProposalRow {
            id: ProposalId::from(new_id()),
            game_id: GameId::from(game_id),
            from_seat: seat_name(from).into(),
            to_seat: seat_name(to).into(),
            status: ProposalStatus::Pending,
            created_at: now,
            resolved_at: None,
        };
        db::games::insert_proposal(conn, &p)?;
        g.waiting.proposals = true;
        save(conn, &mut g, now)?;
        super::bots::queue_answer(conn, &g, &p, now)?;
        emit(
            conn,
            game_id,
            g.seat(to).user_id.as_deref(),
            GameEvent::AllianceProposed(events::AllianceProposed {
                proposal_id: p.id.to_string(),
                from: seat_name(from).to_owned(),
                from_username: g.seat(from).name().map(str::to_owned),
                to: seat_name(to).to_owned(),
                players: Players::of(&g),
            }),
            now,
        )?;
        Ok(p)
    })
}

/// What the caller does with a proposal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Accept,
    Decline,
    Withdraw,
}

/// Accepts, declines or withdraws a proposal. Accepting forms the alliance at once,
/// between moves (R29), if its premises still hold.
fn answer(
    conn: &mut DbConnection,
    settings: &Settings,
    user_id: &str,
    game_id: &str,
    proposal_id: &str,
    answer: Answer,
    now: NaiveDateTime,
) -> Result<(ProposalRow, Loaded), GameError> {
    db::write_transaction(conn, |conn| {
        let mut g = load_for_update(conn, game_id)?;
        let p = db::games::proposals(conn, game_id)?
            .into_iter()
            .find(|p| p.id == proposal_id)
            .ok_or(GameError::ProposalNotFound)?;
        let seat = seat_name(g.joined_seat(user_id)?);
        let (must_be, status) = match answer {
            Answer::Accept => (&p.to_seat, "accepted"),
            Answer::Decline => (&p.to_seat, "declined"),
            Answer::Withdraw => (&p.from_seat, "withdrawn"),
        };
        if seat != must_be {
            return Err(GameError::Forbidden(match answer {
                Answer::Withdraw => "only the proposer can withdraw a proposal".into(),
                _ => "only the player it is addressed to can answer a proposal".into(),
            }));
        }
        if p.status != ProposalStatus::Pending {
            return Err(GameError::State(format!(
                "the proposal is already {}",
                p.status.as_str()
            )));
        }
        if answer == Answer::Accept {
            alliance_allowed(&g)?;
            let a = Alliance::new(
                super::model::parse_seat(&p.from_seat).expect("stored seat"),
                super::model::parse_seat(&p.to_seat).expect("stored seat"),
            )
            .expect("two seats");
            db::games::resolve_proposal(conn, &p.id, status, now)?;
            g = append(conn, settings, &g, Action::Alliance(a), Some(user_id), now)?;
        } else {
            db::games::resolve_proposal(conn, &p.id, status, now)?;
            save(conn, &mut g, now)?;
        }
        let p = db::games::proposals(conn, game_id)?
            .into_iter()
            .find(|x| x.id == p.id)
            .expect("still there");
        Ok((p, g))
    })
}

/// The caller proposes an alliance to the player in seat `to` (R29).
pub async fn propose_alliance(
    games: &Games,
    caller: &UserId,
    game_id: &GameId,
    to: Player,
    now: NaiveDateTime,
) -> Result<ProposalRow, GameError> {
    let (caller, id) = (caller.to_owned(), game_id.to_owned());
    db::run(&games.pool, move |conn| {
        propose(conn, &caller, &id, to, now)
    })
    .await
}

/// The caller accepts, declines or withdraws a proposal; the proposal and
/// the game after it.
pub async fn answer_proposal(
    games: &Games,
    caller: &UserId,
    game_id: &GameId,
    proposal_id: &ProposalId,
    what: Answer,
    now: NaiveDateTime,
) -> Result<(ProposalRow, GameState), GameError> {
    let (settings, caller) = (games.settings, caller.to_owned());
    let (id, pid) = (game_id.to_owned(), proposal_id.to_owned());
    db::run(&games.pool, move |conn| {
        let (proposal, _) = answer(conn, &settings, &caller, &id, &pid, what, now)?;
        Ok((proposal, load_state(conn, &id)?))
    })
    .await
}

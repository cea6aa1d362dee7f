//! Draw offers (R36). A living player offers a draw among the living; each
//! other living player accepts or declines; a player who moves instead of
//! answering declines; an elimination or an alliance formed while the offer
//! stands withdraws it. When every living player has accepted, the game ends
//! drawn among them (`Action::DrawAgreed`). The offer is stored on the game
//! row, so it changes only with the game's version, like a move.

use crate::domain::{GameId, UserId};
use chrono::NaiveDateTime;
use serde::{Deserialize, Serialize};

use crate::db::{self, DbConnection};
use crate::rules::{Action, Player, PlayerSet, Position};

use super::events::{self, emit, GameEvent, Players};
use super::journal::{append, save};
use super::model::{load_for_update, parse_seat_name, seat_name, state_of, GameState, Loaded};
use super::{GameError, Games, Settings};

/// A standing offer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DrawOffer {
    pub by: Player,
    /// Who has accepted, the offerer included.
    pub accepted: PlayerSet,
    /// The ply the game was at when it was offered.
    pub ply: u32,
    pub offered_at: NaiveDateTime,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Stored {
    by: String,
    accepted: Vec<String>,
    ply: u32,
    offered_at: NaiveDateTime,
}

impl DrawOffer {
    /// The offer as stored on the game row.
    pub fn to_text(&self) -> String {
        serde_json::to_string(&Stored {
            by: seat_name(self.by).to_owned(),
            accepted: self
                .accepted
                .iter()
                .map(|p| seat_name(p).to_owned())
                .collect(),
            ply: self.ply,
            offered_at: self.offered_at,
        })
        .expect("offers serialize")
    }

    /// The offer stored on game `game_id`'s row; one that does not parse is an
    /// error naming the game.
    pub fn parse(text: &str, game_id: &str) -> Result<DrawOffer, GameError> {
        let bad = |why: String| {
            GameError::Internal(anyhow::anyhow!(
                "stored draw offer of game {game_id} does not parse: {why}"
            ))
        };
        let s: Stored = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        let seat = |name: &str| parse_seat_name(name).ok_or_else(|| bad(format!("seat {name:?}")));
        let mut accepted = PlayerSet::EMPTY;
        for name in &s.accepted {
            accepted.insert(seat(name)?);
        }
        let by = seat(&s.by)?;
        if !accepted.contains(by) {
            return Err(bad("the offerer is not among those who accepted".into()));
        }
        Ok(DrawOffer {
            by,
            accepted,
            ply: s.ply,
            offered_at: s.offered_at,
        })
    }

    /// The living players who have not answered yet.
    pub fn awaiting(&self, pos: &Position) -> Vec<Player> {
        pos.living()
            .iter()
            .filter(|p| !self.accepted.contains(*p))
            .collect()
    }
}

impl Loaded {
    /// The draw offer standing in this game, if any.
    pub fn draw_offer(&self) -> Result<Option<DrawOffer>, GameError> {
        self.row
            .draw_offer
            .as_deref()
            .map(|t| DrawOffer::parse(t, &self.row.id))
            .transpose()
    }

    fn set_draw_offer(&mut self, offer: Option<&DrawOffer>) {
        self.row.draw_offer = offer.map(DrawOffer::to_text);
    }
}

/// Why an offer ended without a draw, as `game.draw_declined` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// A player declined.
    Declined,
    /// The offerer took it back.
    Withdrawn,
    /// A player moved instead of answering.
    Moved,
    /// An alliance was formed while it stood.
    AllianceFormed,
    /// A player was eliminated while it stood.
    PlayerEliminated,
}

impl Ended {
    pub const fn code(self) -> &'static str {
        match self {
            Ended::Declined => "declined",
            Ended::Withdrawn => "withdrawn",
            Ended::Moved => "moved",
            Ended::AllianceFormed => "alliance_formed",
            Ended::PlayerEliminated => "player_eliminated",
        }
    }
}

/// What an action does to a standing offer (R36): the offer afterwards, and
/// why it ended if it did. A finished game ends it silently (the game's end
/// is the news).
pub(super) fn after_action(
    offer: Option<DrawOffer>,
    action: &Action,
    mover: Option<Player>,
    before: &Position,
    after: &Position,
) -> (Option<DrawOffer>, Option<(Ended, Option<Player>)>) {
    let Some(offer) = offer else {
        return (None, None);
    };
    if after.is_over() {
        return (None, None);
    }
    if after.living() != before.living() {
        return (None, Some((Ended::PlayerEliminated, None)));
    }
    if after.alliance() != before.alliance() {
        return (None, Some((Ended::AllianceFormed, None)));
    }
    match (action, mover) {
        (Action::Move(_), Some(p)) if !offer.accepted.contains(p) => {
            (None, Some((Ended::Moved, Some(p))))
        }
        _ => (Some(offer), None),
    }
}

/// Tells the players an offer ended, all but `actor`.
pub(super) fn report_end(
    conn: &mut DbConnection,
    g: &Loaded,
    offer: &DrawOffer,
    (why, seat): (Ended, Option<Player>),
    actor: Option<&str>,
    now: NaiveDateTime,
) -> Result<(), GameError> {
    let everyone = g.player_ids();
    let event = GameEvent::DrawDeclined(events::DrawDeclined {
        seat: seat.map(|p| seat_name(p).to_owned()),
        username: seat.and_then(|p| g.seat(p).name().map(str::to_owned)),
        offered_by: seat_name(offer.by).to_owned(),
        reason: why.code().to_owned(),
        ply: g.position().ply(),
        players: Players::of(g),
    });
    let to = everyone
        .iter()
        .map(String::as_str)
        .filter(|u| Some(*u) != actor);
    emit(conn, &g.row.id, to, event, now)?;
    Ok(())
}

/// `seat` offers a draw (in the caller's transaction, the game loaded for
/// update). Offering again while one's own offer stands changes nothing;
/// another player's standing offer is answered, not countered. Computer
/// players answer at once.
pub(super) fn offer(
    conn: &mut DbConnection,
    settings: &Settings,
    g: Loaded,
    seat: Player,
    now: NaiveDateTime,
) -> Result<Loaded, GameError> {
    match g.draw_offer()? {
        Some(o) if o.by == seat => return Ok(g),
        Some(o) => {
            return Err(GameError::State(format!(
                "{} has offered a draw already; accept or decline it",
                seat_name(o.by)
            )))
        }
        None => {}
    }
    if let Some(user) = g.seat(seat).user_id.as_deref() {
        super::offers::admit(conn, &g.row.id, user, super::offers::Offer::Draw, now)?;
    }
    let mut accepted = PlayerSet::EMPTY;
    accepted.insert(seat);
    let offer = DrawOffer {
        by: seat,
        accepted,
        ply: g.position().ply(),
        offered_at: now,
    };
    let mut g = g;
    g.set_draw_offer(Some(&offer));
    save(conn, &mut g, now)?;
    // Premoves stand: one that plays is a move like any other, and declines
    // the offer if its player has not accepted (so an offer is no way to
    // wipe the others' premoves).
    let actor = g.seat(seat).user_id.clone();
    let everyone = g.player_ids();
    let event = GameEvent::DrawOffered(events::DrawOffered {
        seat: seat_name(seat).to_owned(),
        username: g.seat(seat).name().map(str::to_owned),
        ply: offer.ply,
        awaiting: offer
            .awaiting(g.position())
            .into_iter()
            .map(|p| seat_name(p).to_owned())
            .collect(),
        players: Players::of(&g),
    });
    let to = everyone
        .iter()
        .map(String::as_str)
        .filter(|u| Some(*u) != actor.as_deref());
    emit(conn, &g.row.id, to, event, now)?;
    bots_answer(conn, settings, g, now)
}

/// Computer players who have not answered do so: they accept unless they
/// stand better than their enemies.
fn bots_answer(
    conn: &mut DbConnection,
    settings: &Settings,
    mut g: Loaded,
    now: NaiveDateTime,
) -> Result<Loaded, GameError> {
    while let Some(o) = g.draw_offer()? {
        let bot = o
            .awaiting(g.position())
            .into_iter()
            .find(|p| g.seat(*p).bot_level.is_some());
        let Some(bot) = bot else { break };
        let accept = crate::engine::accepts_draw(g.position(), bot);
        g = answer(conn, settings, g, bot, accept, now)?;
    }
    Ok(g)
}

/// `seat` accepts or declines the standing offer. Accepting twice changes
/// nothing; the offerer declining withdraws it.
fn answer(
    conn: &mut DbConnection,
    settings: &Settings,
    mut g: Loaded,
    seat: Player,
    accept: bool,
    now: NaiveDateTime,
) -> Result<Loaded, GameError> {
    let Some(mut offer) = g.draw_offer()? else {
        return Err(GameError::State(
            "no draw offer stands in this game; offer one with POST …/draw/offer".into(),
        ));
    };
    let actor = g.seat(seat).user_id.clone();
    if !accept {
        g.set_draw_offer(None);
        save(conn, &mut g, now)?;
        let why = if seat == offer.by {
            Ended::Withdrawn
        } else {
            Ended::Declined
        };
        report_end(conn, &g, &offer, (why, Some(seat)), actor.as_deref(), now)?;
        return Ok(g);
    }
    if offer.accepted.contains(seat) {
        return Ok(g);
    }
    offer.accepted.insert(seat);
    if offer.awaiting(g.position()).is_empty() {
        // R36: everyone living agreed.
        return append(
            conn,
            settings,
            &g,
            Action::DrawAgreed,
            actor.as_deref(),
            now,
        );
    }
    g.set_draw_offer(Some(&offer));
    save(conn, &mut g, now)?;
    Ok(g)
}

/// Offers a draw (R36) to the other living players.
pub async fn offer_draw(
    games: &Games,
    caller: &UserId,
    game_id: &GameId,
    now: NaiveDateTime,
) -> Result<GameState, GameError> {
    let (settings, caller, id) = (games.settings, caller.to_owned(), game_id.to_owned());
    db::run(&games.pool, move |conn| {
        db::write_transaction(conn, |conn| {
            let g = load_for_update(conn, &id)?;
            let seat = g.living_seat(&caller, "draws are offered")?;
            let g = offer(conn, &settings, g, seat, now)?;
            state_of(conn, g)
        })
    })
    .await
}

/// Accepts (`true`) or declines the standing draw offer.
pub async fn answer_draw(
    games: &Games,
    caller: &UserId,
    game_id: &GameId,
    accept: bool,
    now: NaiveDateTime,
) -> Result<GameState, GameError> {
    let (settings, caller, id) = (games.settings, caller.to_owned(), game_id.to_owned());
    db::run(&games.pool, move |conn| {
        db::write_transaction(conn, |conn| {
            let g = load_for_update(conn, &id)?;
            let seat = g.living_seat(&caller, "draws are offered")?;
            let g = answer(conn, &settings, g, seat, accept, now)?;
            state_of(conn, g)
        })
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Elimination, Move};

    fn offer_by(p: Player) -> DrawOffer {
        let mut accepted = PlayerSet::EMPTY;
        accepted.insert(p);
        DrawOffer {
            by: p,
            accepted,
            ply: 1,
            offered_at: chrono::DateTime::from_timestamp(0, 0).unwrap().naive_utc(),
        }
    }

    #[test]
    fn offers_read_back_and_damage_is_named() {
        let mut o = offer_by(Player::Middle);
        o.accepted.insert(Player::Last);
        assert_eq!(DrawOffer::parse(&o.to_text(), "g1").unwrap(), o);
        for bad in [
            "{",
            r#"{"by":"middle","accepted":["first"],"ply":1,"offered_at":"1970-01-01T00:00:00"}"#,
            r#"{"by":"centre","accepted":["centre"],"ply":1,"offered_at":"1970-01-01T00:00:00"}"#,
        ] {
            let e = DrawOffer::parse(bad, "g1").unwrap_err().to_string();
            assert!(e.contains("game g1"), "{e}");
        }
    }

    #[test]
    fn r36_moving_instead_of_answering_declines_and_eliminations_withdraw() {
        let start = Position::start();
        let mv = Move::parse("3d4d").unwrap();
        let (after, _) = start.play_with_events(mv).unwrap();
        let o = offer_by(Player::Last);
        let moved = after_action(
            Some(o.clone()),
            &Action::Move(mv),
            Some(Player::First),
            &start,
            &after,
        );
        assert_eq!(moved, (None, Some((Ended::Moved, Some(Player::First)))));
        let mut both = o.clone();
        both.accepted.insert(Player::First);
        let kept = after_action(
            Some(both.clone()),
            &Action::Move(mv),
            Some(Player::First),
            &start,
            &after,
        );
        assert_eq!(kept, (Some(both), None), "one who accepted may move on");
        let (gone, _) = start
            .eliminate(Player::Middle, Elimination::Resigned)
            .unwrap();
        let resigned = Action::Resign(Player::Middle);
        let out = after_action(Some(o), &resigned, Some(Player::Middle), &start, &gone);
        assert_eq!(out, (None, Some((Ended::PlayerEliminated, None))));
    }
}

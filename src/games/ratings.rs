//! Ratings for three players: when a rated game finishes, each player gets
//! a place from the result (the winner first; on a draw the drawn players
//! share first; the others by the order they left the game, later places
//! higher), and the places update everyone's Weng-Lin rating (the
//! `skillratings` crate, each player a team of one), in the transaction
//! that finishes the game. A result that says nothing about skill counts
//! for nothing (see [`uncounted`]): too short a game, an early draw of all
//! three, or too many games among the same players lately.

use chrono::NaiveDateTime;
use skillratings::weng_lin::{weng_lin_multi_team, WengLinConfig, WengLinRating};
use skillratings::MultiTeamOutcome;

use crate::db::ratings::{RatingChangeRow, RatingRow};
use crate::db::{self, DbConnection};
use crate::domain::{GameId, UserId};
use crate::rules::{Outcome, Player};

use super::model::{parse_seat, seat_name, Loaded};
use super::GameError;

/// A rating rests on fewer rated games than this: it is provisional, and
/// its player is not on the leaderboard.
pub const PROVISIONAL_GAMES: i32 = 10;

/// The leaderboard also asks for counted games against this many distinct
/// opponents, so no one climbs it against the same two accounts.
pub const LEADERBOARD_OPPONENTS: i32 = 5;

/// A rated game counts only once every player has made this many moves
/// (earlier, it ends as if aborted: the places are kept, ratings stand).
pub const MIN_MOVES_EACH: i64 = 3;

/// A draw agreed by all three players before this ply does not count.
pub const MIN_DRAW_PLY: u32 = 30;

/// Rated games among the same three accounts (two or more of them people)
/// that count within [`REPEAT_WINDOW_DAYS`]; later ones do not.
pub const MAX_REPEATS: usize = 3;
pub const REPEAT_WINDOW_DAYS: i64 = 30;

/// Why a finished rated game says nothing about skill, if it does not:
/// too short, an early draw of all three, or one more of many games among
/// the same players lately.
fn uncounted(
    conn: &mut DbConnection,
    g: &Loaded,
    outcome: Outcome,
    users: &[String],
    now: NaiveDateTime,
) -> Result<Option<&'static str>, GameError> {
    let moves = db::ratings::moves_per_seat(conn, &g.row.id)?;
    let made = |p: Player| {
        moves
            .iter()
            .find(|(s, _)| s == seat_name(p))
            .map_or(0, |(_, n)| *n)
    };
    if Player::ALL.iter().any(|p| made(*p) < MIN_MOVES_EACH) {
        return Ok(Some("too-short"));
    }
    if let Outcome::Draw(set, crate::rules::DrawReason::Agreement) = outcome {
        if set.len() == 3 && g.position().ply() < MIN_DRAW_PLY {
            return Ok(Some("early-draw"));
        }
    }
    let people = g.seats.iter().filter(|s| s.bot_level.is_none()).count();
    if people >= 2 {
        let since = now - chrono::Duration::days(REPEAT_WINDOW_DAYS);
        let mut shared = db::ratings::counted_games_since(conn, &users[0], since)?;
        for u in &users[1..] {
            let theirs = db::ratings::counted_games_since(conn, u, since)?;
            shared.retain(|g| theirs.contains(g));
        }
        if shared.len() >= MAX_REPEATS {
            return Ok(Some("repeated"));
        }
    }
    Ok(None)
}

/// The conservative value shown: the mean less three uncertainties.
pub fn display(mu: f64, sigma: f64) -> f64 {
    mu - 3.0 * sigma
}

/// Each seat's place (1–3, shared places skip the next: 1, 1, 3) at the end
/// of a game with `outcome`, where `eliminated` are the seats that left the
/// game with the number of the action that removed them.
pub fn places(outcome: Outcome, eliminated: &[(Player, i32)]) -> [u8; 3] {
    let first: Vec<Player> = match outcome {
        Outcome::Win(w, _) => vec![w],
        Outcome::Draw(set, _) => set.iter().collect(),
    };
    let out = |p: Player| eliminated.iter().find(|(q, _)| *q == p).map(|(_, s)| *s);
    // Groups from best to worst: the first; the others still in the game;
    // then the eliminated, the last to leave first.
    let mut groups: Vec<Vec<Player>> = vec![first.clone()];
    groups.push(
        Player::ALL
            .into_iter()
            .filter(|p| !first.contains(p) && out(*p).is_none())
            .collect(),
    );
    let mut gone: Vec<(Player, i32)> = Player::ALL
        .into_iter()
        .filter(|p| !first.contains(p))
        .filter_map(|p| out(p).map(|s| (p, s)))
        .collect();
    gone.sort_by_key(|(_, s)| std::cmp::Reverse(*s));
    for (p, s) in gone {
        match groups.last_mut() {
            Some(last) if last.first().and_then(|q| out(*q)) == Some(s) => last.push(p),
            _ => groups.push(vec![p]),
        }
    }
    let mut places = [0u8; 3];
    let mut ahead = 0u8;
    for group in groups.iter().filter(|g| !g.is_empty()) {
        for p in group {
            places[p.index()] = ahead + 1;
        }
        ahead += group.len() as u8;
    }
    places
}

/// New ratings for players `before` who finished in `places` (lower is better).
pub fn rate(before: &[WengLinRating; 3], places: [u8; 3]) -> [WengLinRating; 3] {
    let teams: Vec<[WengLinRating; 1]> = before.iter().map(|r| [*r]).collect();
    let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
        .iter()
        .zip(places)
        .map(|(t, place)| (&t[..], MultiTeamOutcome::new(place as usize)))
        .collect();
    let after = weng_lin_multi_team(&ranked, &WengLinConfig::new());
    [after[0][0], after[1][0], after[2][0]]
}

/// Settles the ratings of finished rated game `g`: one change per player,
/// and each player's new rating. Runs in the transaction that finished it.
pub(super) fn settle(
    conn: &mut DbConnection,
    g: &Loaded,
    now: NaiveDateTime,
) -> Result<(), GameError> {
    let Some(outcome) = g.position().outcome().filter(|_| g.row.rated) else {
        return Ok(());
    };
    let users: Vec<String> = g.seats.iter().filter_map(|s| s.user_id.clone()).collect();
    if users.len() != 3 {
        return Err(anyhow::anyhow!("rated game {} has a seat without a player", g.row.id).into());
    }
    let eliminated: Vec<(Player, i32)> = g
        .standing
        .eliminations
        .iter()
        .filter_map(|e| parse_seat(&e.seat).map(|p| (p, e.seq)))
        .collect();
    let places = places(outcome, &eliminated);
    let void = uncounted(conn, g, outcome, &users, now)?;
    let start = WengLinRating::new();
    let fresh: Vec<RatingRow> = users
        .iter()
        .map(|u| RatingRow {
            user_id: UserId::from(u.as_str()),
            mu: start.rating,
            sigma: start.uncertainty,
            display: display(start.rating, start.uncertainty),
            games: 0,
            updated_at: now,
            opponents: 0,
        })
        .collect();
    db::ratings::ensure(conn, &fresh)?;
    let stored = db::ratings::for_update(conn, &users)?;
    let current = |u: &str| stored.iter().find(|r| r.user_id == u);
    let before: [WengLinRating; 3] = std::array::from_fn(|i| {
        current(&users[i]).map_or_else(WengLinRating::new, |r| WengLinRating {
            rating: r.mu,
            uncertainty: r.sigma,
        })
    });
    // A game that does not count leaves every rating as it was.
    let after = match void {
        Some(_) => before,
        None => rate(&before, places),
    };
    let mut changes = Vec::with_capacity(3);
    for (i, user) in users.iter().enumerate() {
        changes.push(RatingChangeRow {
            game_id: GameId::from(g.row.id.as_str()),
            user_id: UserId::from(user.as_str()),
            seat: seat_name(Player::from_index(i)).to_owned(),
            place: i32::from(places[i]),
            mu_before: before[i].rating,
            sigma_before: before[i].uncertainty,
            mu_after: after[i].rating,
            sigma_after: after[i].uncertainty,
            created_at: now,
            uncounted: void.map(str::to_owned),
        });
    }
    db::ratings::insert_changes(conn, &changes)?;
    if void.is_some() {
        return Ok(());
    }
    for (i, user) in users.iter().enumerate() {
        let games = current(user).map_or(0, |r| r.games) + 1;
        let opponents = db::ratings::distinct_opponents(conn, user)?;
        db::ratings::save(
            conn,
            &RatingRow {
                user_id: UserId::from(user.as_str()),
                mu: after[i].rating,
                sigma: after[i].uncertainty,
                display: display(after[i].rating, after[i].uncertainty),
                games,
                updated_at: now,
                opponents,
            },
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{DrawReason, PlayerSet, WinReason};
    use Player::{First as F, Last as L, Middle as M};

    fn win(p: Player) -> Outcome {
        Outcome::Win(p, WinReason::LastPlayerStanding)
    }

    #[test]
    fn the_winner_is_first_and_the_eliminated_follow_later_leavers_higher() {
        assert_eq!(places(win(M), &[(F, 10), (L, 20)]), [3, 1, 2]);
        assert_eq!(places(win(M), &[(L, 10), (F, 20)]), [2, 1, 3]);
    }

    #[test]
    fn players_still_in_the_game_place_above_the_eliminated() {
        // An ally eliminated: the non-allied player wins, the other ally is second.
        assert_eq!(places(win(L), &[(F, 7)]), [3, 2, 1]);
        // A king in the Garden (R26): both others still in, sharing second.
        assert_eq!(places(win(F), &[]), [1, 2, 2]);
    }

    #[test]
    fn a_draw_shares_first() {
        let all = PlayerSet::ALL;
        assert_eq!(
            places(Outcome::Draw(all, DrawReason::Agreement), &[]),
            [1, 1, 1]
        );
        let mut two = PlayerSet::EMPTY;
        two.insert(F);
        two.insert(L);
        assert_eq!(
            places(Outcome::Draw(two, DrawReason::Repetition), &[(M, 4)]),
            [1, 3, 1]
        );
    }

    #[test]
    fn players_eliminated_together_share_a_place() {
        assert_eq!(places(win(F), &[(M, 9), (L, 9)]), [1, 2, 2]);
    }

    #[test]
    fn ratings_move_towards_the_places() {
        let start = [WengLinRating::new(); 3];
        let after = rate(&start, [1, 2, 3]);
        assert!(after[0].rating > after[1].rating && after[1].rating > after[2].rating);
        assert!(after.iter().all(|r| r.uncertainty < start[0].uncertainty));
    }
}

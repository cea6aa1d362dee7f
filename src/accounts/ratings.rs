//! Reading ratings: a player's current rating and history, and the
//! leaderboard. (Rated games settle them: `games::ratings`.)

use crate::db::models::User;
use crate::db::ratings::{RatingChangeRow, RatingRow};
use crate::db::{self};
use crate::state::AppState;

use super::AccountError;

/// A player on the leaderboard: rating, username and bot level.
pub type Ranked = (RatingRow, String, Option<i32>);

/// A public profile by username (case-insensitive), with the rating.
pub async fn public_profile(
    state: &AppState,
    username: String,
) -> Result<(User, Option<RatingRow>), AccountError> {
    let username = username.to_ascii_lowercase();
    db::run(&state.pool, move |conn| {
        let user =
            db::users::find_by_username(conn, &username)?.ok_or(AccountError::UserNotFound)?;
        let rating = db::ratings::find(conn, &user.id)?;
        Ok((user, rating))
    })
    .await
}

/// What each of a player's rated games did to the rating, newest first.
pub async fn history(
    state: &AppState,
    username: String,
    limit: i64,
    offset: i64,
) -> Result<Vec<RatingChangeRow>, AccountError> {
    let username = username.to_ascii_lowercase();
    db::run(&state.pool, move |conn| {
        let user =
            db::users::find_by_username(conn, &username)?.ok_or(AccountError::UserNotFound)?;
        Ok(db::ratings::changes_of_user(conn, &user.id, limit, offset)?)
    })
    .await
}

/// The best-rated players whose rating is no longer provisional, best first.
pub async fn leaderboard(
    state: &AppState,
    limit: i64,
    offset: i64,
) -> Result<Vec<Ranked>, AccountError> {
    db::run(&state.pool, move |conn| {
        let min = crate::games::ratings::PROVISIONAL_GAMES;
        let opponents = crate::games::ratings::LEADERBOARD_OPPONENTS;
        Ok(db::ratings::leaderboard(
            conn, min, opponents, limit, offset,
        )?)
    })
    .await
}

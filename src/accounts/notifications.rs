//! Mail settings of an account: which kinds of mail it gets, and the
//! one-click unsubscribe of a link in a message.

use super::AccountError;
use crate::db;
use crate::domain::UserId;
use crate::notify::mail::{self, Preferences};
use crate::state::AppState;

/// The account's mail settings and recent mail.
pub async fn notification_settings(
    state: &AppState,
    user_id: UserId,
) -> Result<Preferences, AccountError> {
    db::run(&state.pool, move |conn| {
        let user = db::users::find_by_id(conn, &user_id)?.ok_or(AccountError::UserGone)?;
        Ok(mail::preferences(conn, user)?)
    })
    .await
}

/// Turns kinds of mail on or off (names already checked); the settings after.
pub async fn set_notification_settings(
    state: &AppState,
    user_id: UserId,
    changes: Vec<(String, bool)>,
) -> Result<Preferences, AccountError> {
    let now = state.clock.now();
    db::run(&state.pool, move |conn| {
        mail::set_preferences(conn, &user_id, &changes, now)?;
        let user = db::users::find_by_id(conn, &user_id)?.ok_or(AccountError::UserGone)?;
        Ok(mail::preferences(conn, user)?)
    })
    .await
}

/// Stops one kind of mail for an account, from an unsubscribe link. An
/// account deleted since simply gets nothing more.
pub async fn unsubscribe(
    state: &AppState,
    user_id: UserId,
    kind: String,
) -> Result<(), AccountError> {
    let now = state.clock.now();
    db::run(&state.pool, move |conn| {
        if db::users::find_by_id(conn, &user_id)?.is_some() {
            mail::set_preferences(conn, &user_id, &[(kind, false)], now)?;
        }
        Ok(())
    })
    .await
}

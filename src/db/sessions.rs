//! Queries on `sessions` (refresh-token families) and `refresh_tokens`.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::models::{RefreshToken, Session, User};
use super::schema::{refresh_tokens, sessions, users};
use super::DbConnection;

/// Starts a session with its first refresh token, atomically.
pub fn create(conn: &mut DbConnection, session: &Session, token: &RefreshToken) -> QueryResult<()> {
    conn.transaction(|conn| {
        diesel::insert_into(sessions::table)
            .values(session)
            .execute(conn)?;
        diesel::insert_into(refresh_tokens::table)
            .values(token)
            .execute(conn)?;
        Ok(())
    })
}

/// The refresh token with this hash, with its session.
pub fn find_refresh_token(
    conn: &mut DbConnection,
    token_hash: &str,
) -> QueryResult<Option<(RefreshToken, Session)>> {
    refresh_tokens::table
        .inner_join(sessions::table)
        .filter(refresh_tokens::token_hash.eq(token_hash))
        .first(conn)
        .optional()
}

/// What happened when a refresh token was presented for rotation.
#[derive(Debug)]
pub enum Rotation {
    /// The old token is spent and `new` replaces it.
    Rotated,
    /// The token had already been used: someone replayed it.
    AlreadyUsed,
}

/// Spends `old_id` and stores `new` in the same family. The conditional update
/// guarantees that of two concurrent presentations only one wins.
pub fn rotate(
    conn: &mut DbConnection,
    old_id: &str,
    new: &RefreshToken,
    now: NaiveDateTime,
) -> QueryResult<Rotation> {
    conn.transaction(|conn| {
        let spent = diesel::update(
            refresh_tokens::table
                .find(old_id)
                .filter(refresh_tokens::used_at.is_null()),
        )
        .set(refresh_tokens::used_at.eq(now))
        .execute(conn)?;
        if spent != 1 {
            return Ok(Rotation::AlreadyUsed);
        }
        diesel::insert_into(refresh_tokens::table)
            .values(new)
            .execute(conn)?;
        Ok(Rotation::Rotated)
    })
}

/// Ends `user_id`'s session `session_id` (if not already ended). Every
/// process forgets the session once this commits (see `db::session_cache`;
/// the notification is sent in the transaction, so it is delivered with the
/// commit): it runs in a write transaction of its own unless one is under
/// way.
pub fn revoke(
    conn: &mut DbConnection,
    user_id: &str,
    session_id: &str,
    now: NaiveDateTime,
) -> QueryResult<()> {
    super::write_transaction(conn, |conn| {
        super::live::announce_surely(conn, super::live::Topic::Sessions(user_id.to_owned()))?;
        diesel::update(
            sessions::table
                .find(session_id)
                .filter(sessions::user_id.eq(user_id))
                .filter(sessions::revoked_at.is_null()),
        )
        .set(sessions::revoked_at.eq(now))
        .execute(conn)
        .map(drop)
    })
}

/// Ends every live session of a user except `keep`; as [`revoke`], every
/// process forgets them once this commits.
pub fn revoke_all_for_user(
    conn: &mut DbConnection,
    user_id: &str,
    keep: Option<&str>,
    now: NaiveDateTime,
) -> QueryResult<usize> {
    super::write_transaction(conn, |conn| {
        super::live::announce_surely(conn, super::live::Topic::Sessions(user_id.to_owned()))?;
        let targets = sessions::table
            .filter(sessions::user_id.eq(user_id))
            .filter(sessions::revoked_at.is_null())
            .filter(sessions::id.ne(keep.unwrap_or("")));
        diesel::update(targets)
            .set(sessions::revoked_at.eq(now))
            .execute(conn)
    })
}

/// The user of a live session, if the session belongs to them and is not revoked.
pub fn live_session_user(
    conn: &mut DbConnection,
    session_id: &str,
    user_id: &str,
) -> QueryResult<Option<(User, NaiveDateTime)>> {
    sessions::table
        .inner_join(users::table)
        .filter(sessions::id.eq(session_id))
        .filter(sessions::user_id.eq(user_id))
        .filter(sessions::revoked_at.is_null())
        .select((users::all_columns, sessions::created_at))
        .first(conn)
        .optional()
}

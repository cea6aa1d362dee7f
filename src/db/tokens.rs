//! Queries on `personal_access_tokens`.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::models::{PersonalAccessToken, User};
use super::schema::{personal_access_tokens as pat, users};
use super::DbConnection;

pub fn insert(conn: &mut DbConnection, token: &PersonalAccessToken) -> QueryResult<()> {
    diesel::insert_into(pat::table)
        .values(token)
        .execute(conn)
        .map(drop)
}

pub fn list_for_user(
    conn: &mut DbConnection,
    user_id: &str,
) -> QueryResult<Vec<PersonalAccessToken>> {
    pat::table
        .filter(pat::user_id.eq(user_id))
        .order((pat::created_at.asc(), pat::id.asc()))
        .load(conn)
}

/// Deletes one of the user's tokens; false when there was none with that id.
pub fn delete_for_user(conn: &mut DbConnection, id: &str, user_id: &str) -> QueryResult<bool> {
    let deleted =
        diesel::delete(pat::table.find(id).filter(pat::user_id.eq(user_id))).execute(conn)?;
    Ok(deleted == 1)
}

/// Deletes every token of the user; how many there were.
pub fn delete_all_for_user(conn: &mut DbConnection, user_id: &str) -> QueryResult<usize> {
    diesel::delete(pat::table.filter(pat::user_id.eq(user_id))).execute(conn)
}

/// Whether the token `id` still exists.
pub fn exists(conn: &mut DbConnection, id: &str) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(pat::table.find(id))).get_result(conn)
}

/// The token with this hash, with its owner.
pub fn find_by_hash(
    conn: &mut DbConnection,
    token_hash: &str,
) -> QueryResult<Option<(PersonalAccessToken, User)>> {
    pat::table
        .inner_join(users::table)
        .filter(pat::token_hash.eq(token_hash))
        .first(conn)
        .optional()
}

pub fn touch(conn: &mut DbConnection, id: &str, now: NaiveDateTime) -> QueryResult<()> {
    diesel::update(pat::table.find(id))
        .set(pat::last_used_at.eq(now))
        .execute(conn)
        .map(drop)
}

/// How many personal tokens `user_id` holds.
pub fn count_of_user(conn: &mut DbConnection, user_id: &str) -> QueryResult<usize> {
    pat::table
        .filter(pat::user_id.eq(user_id))
        .count()
        .get_result::<i64>(conn)
        .map(|n| n as usize)
}

//! Queries on `users`.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::models::User;
use super::schema::users;
use super::DbConnection;

pub fn insert(conn: &mut DbConnection, user: &User) -> QueryResult<()> {
    diesel::insert_into(users::table)
        .values(user)
        .execute(conn)
        .map(drop)
}

pub fn find_by_id(conn: &mut DbConnection, id: &str) -> QueryResult<Option<User>> {
    users::table.find(id).first(conn).optional()
}

/// Usernames and emails are stored lower-cased, so equality is
/// case-insensitive for callers that normalise their input the same way.
pub fn find_by_username(conn: &mut DbConnection, username: &str) -> QueryResult<Option<User>> {
    users::table
        .filter(users::username.eq(username))
        .first(conn)
        .optional()
}

pub fn find_by_email(conn: &mut DbConnection, email: &str) -> QueryResult<Option<User>> {
    users::table
        .filter(users::email.eq(email))
        .first(conn)
        .optional()
}

/// Log-in accepts either the username or a verified email address (an
/// unverified one may be anybody's, and answering to it would tell who
/// holds it).
pub fn find_by_login(conn: &mut DbConnection, login: &str) -> QueryResult<Option<User>> {
    users::table
        .filter(
            users::username
                .eq(login)
                .or(users::email.eq(login).and(users::email_verified.eq(true))),
        )
        .first(conn)
        .optional()
}

/// Marks the address verified, if it is still the account's address.
pub fn mark_email_verified(
    conn: &mut DbConnection,
    id: &str,
    email: &str,
    now: NaiveDateTime,
) -> QueryResult<()> {
    diesel::update(users::table.find(id).filter(users::email.eq(email)))
        .set((users::email_verified.eq(true), users::updated_at.eq(now)))
        .execute(conn)
        .map(drop)
}

/// Sets the account's address, unverified: `email` itself, or, for an
/// address another account holds, a placeholder `email` and the claim.
pub fn update_email(
    conn: &mut DbConnection,
    id: &str,
    email: &str,
    claimed: Option<&str>,
    now: NaiveDateTime,
) -> QueryResult<()> {
    diesel::update(users::table.find(id))
        .set((
            users::email.eq(email),
            users::claimed_email.eq(claimed),
            users::email_verified.eq(false),
            users::updated_at.eq(now),
        ))
        .execute(conn)
        .map(drop)
}

pub fn update_time_zone(
    conn: &mut DbConnection,
    id: &str,
    time_zone: &str,
    now: NaiveDateTime,
) -> QueryResult<()> {
    diesel::update(users::table.find(id))
        .set((users::time_zone.eq(time_zone), users::updated_at.eq(now)))
        .execute(conn)
        .map(drop)
}

/// Replaces the password hash if it is still `proven` (the hash the current
/// password was checked against); whether it was.
pub fn update_password_hash(
    conn: &mut DbConnection,
    id: &str,
    proven: &str,
    password_hash: &str,
    now: NaiveDateTime,
) -> QueryResult<bool> {
    diesel::update(
        users::table
            .find(id)
            .filter(users::password_hash.eq(proven)),
    )
    .set((
        users::password_hash.eq(password_hash),
        users::updated_at.eq(now),
    ))
    .execute(conn)
    .map(|n| n == 1)
}

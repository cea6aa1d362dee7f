//! Queries on `password_guards` (failed password checks per account) and
//! `known_networks` (where an account has logged in from).

use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::schema::{known_networks as kn, password_guards as pg};
use super::DbConnection;

/// How many failures in a row `subject` has, and until when it is blocked.
pub fn guard_of(
    conn: &mut DbConnection,
    subject: &str,
) -> QueryResult<Option<(i32, Option<NaiveDateTime>)>> {
    pg::table
        .find(subject)
        .select((pg::failures, pg::blocked_until))
        .first(conn)
        .optional()
}

/// Sets a subject's failure count and block.
pub fn set_guard(
    conn: &mut DbConnection,
    subject: &str,
    failures: i32,
    blocked_until: Option<NaiveDateTime>,
    now: NaiveDateTime,
) -> QueryResult<()> {
    let row = (
        pg::subject.eq(subject),
        pg::failures.eq(failures),
        pg::blocked_until.eq(blocked_until),
        pg::updated_at.eq(now),
    );
    let changes = (
        pg::failures.eq(failures),
        pg::blocked_until.eq(blocked_until),
        pg::updated_at.eq(now),
    );
    match conn {
        DbConnection::Postgres(c) => diesel::insert_into(pg::table)
            .values(row)
            .on_conflict(pg::subject)
            .do_update()
            .set(changes)
            .execute(c)?,
        DbConnection::Sqlite(c) => diesel::insert_into(pg::table)
            .values(row)
            .on_conflict(pg::subject)
            .do_update()
            .set(changes)
            .execute(c)?,
    };
    Ok(())
}

/// Forgets subjects with no failure since `before` and no standing block.
pub fn prune(
    conn: &mut DbConnection,
    before: NaiveDateTime,
    now: NaiveDateTime,
) -> QueryResult<usize> {
    diesel::delete(
        pg::table
            .filter(pg::updated_at.lt(before))
            .filter(pg::blocked_until.is_null().or(pg::blocked_until.lt(now))),
    )
    .execute(conn)
}

/// Whether the account has logged in from `network`.
pub fn is_known(conn: &mut DbConnection, user_id: &str, network: &str) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(
        kn::table
            .filter(kn::user_id.eq(user_id))
            .filter(kn::network.eq(network)),
    ))
    .get_result(conn)
}

/// Remembers that the account logged in from `network` now, and forgets the
/// networks it has not used since `forget_before`.
pub fn remember(
    conn: &mut DbConnection,
    user_id: &str,
    network: &str,
    now: NaiveDateTime,
    forget_before: NaiveDateTime,
) -> QueryResult<()> {
    let row = (
        kn::user_id.eq(user_id),
        kn::network.eq(network),
        kn::last_seen_at.eq(now),
    );
    match conn {
        DbConnection::Postgres(c) => diesel::insert_into(kn::table)
            .values(row)
            .on_conflict((kn::user_id, kn::network))
            .do_update()
            .set(kn::last_seen_at.eq(now))
            .execute(c)?,
        DbConnection::Sqlite(c) => diesel::insert_into(kn::table)
            .values(row)
            .on_conflict((kn::user_id, kn::network))
            .do_update()
            .set(kn::last_seen_at.eq(now))
            .execute(c)?,
    };
    diesel::delete(
        kn::table
            .filter(kn::user_id.eq(user_id))
            .filter(kn::last_seen_at.lt(forget_before)),
    )
    .execute(conn)
    .map(drop)
}

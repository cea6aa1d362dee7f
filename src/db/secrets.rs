//! Server-generated secrets kept in the database.

use chrono::Utc;
use diesel::prelude::*;

use super::models::ServerSecret;
use super::schema::server_secrets;
use super::DbConnection;

/// Returns the stored secret `name`, first storing `generate()` if there is
/// none. Two instances starting together both end up with the winner's value.
pub fn get_or_create(
    conn: &mut DbConnection,
    name: &str,
    generate: impl FnOnce() -> String,
) -> QueryResult<String> {
    let existing = server_secrets::table
        .find(name)
        .select(server_secrets::value)
        .first::<String>(conn)
        .optional()?;
    if let Some(value) = existing {
        return Ok(value);
    }
    let row = ServerSecret {
        name: name.to_owned(),
        value: generate(),
        created_at: Utc::now().naive_utc(),
    };
    match diesel::insert_into(server_secrets::table)
        .values(&row)
        .execute(conn)
    {
        Ok(_) => Ok(row.value),
        Err(e) if super::is_unique_violation(&e) => server_secrets::table
            .find(name)
            .select(server_secrets::value)
            .first(conn),
        Err(e) => Err(e),
    }
}

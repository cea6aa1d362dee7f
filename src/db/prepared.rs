//! Hand-written statements that the connection prepares once and reuses.
//!
//! diesel keeps a prepared statement only for a query whose SQL its type
//! fixes: every `UPDATE`, every `INSERT` with an optional column and every
//! `sql_query` is parsed and planned by the database again each time. On
//! the path of a move those plans cost PostgreSQL more than running the
//! statements did. An [`Sql`] is text with numbered parameters (`$1`, `$2`,
//! … on either backend) and the values or fragments that stand for them;
//! its text is the same every time, so the connection caches it by its
//! text, and PostgreSQL plans it a few times per connection, not per call.

use diesel::backend::Backend;
use diesel::expression::AsExpression;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::{SingleValue, SqlType, Untyped};
use diesel::{QueryResult, RunQueryDsl};

/// A statement of fixed text `$N` parameters of which stand for values
/// bound to it or for fragments (a changeset, say) written in their place.
pub struct Sql<'a, DB: Backend> {
    text: &'static str,
    parts: Vec<Box<dyn QueryFragment<DB> + Send + 'a>>,
}

impl<'a, DB: Backend> Sql<'a, DB> {
    /// A statement of `text`, its parameters bound next, `$1` first.
    pub fn new(text: &'static str) -> Self {
        Sql {
            text,
            parts: Vec::new(),
        }
    }

    /// Binds the next parameter to `value`, as SQL type `ST`.
    pub fn bind<ST, U>(self, value: U) -> Self
    where
        ST: SqlType + SingleValue,
        U: AsExpression<ST>,
        U::Expression: QueryFragment<DB> + Send + 'a,
    {
        self.fragment(value.as_expression())
    }

    /// Writes `fragment` where the next parameter stands. Its SQL must be
    /// the same every time the statement runs (a changeset of a struct
    /// that treats `None` as `NULL` is).
    pub fn fragment(mut self, fragment: impl QueryFragment<DB> + Send + 'a) -> Self {
        self.parts.push(Box::new(fragment));
        self
    }
}

impl<DB: Backend> QueryFragment<DB> for Sql<'_, DB> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        let mut rest = self.text;
        while let Some(at) = rest.find('$') {
            let digits = rest[at + 1..]
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len() - at - 1);
            out.push_sql(&rest[..at]);
            let number = &rest[at + 1..at + 1 + digits];
            let part = number
                .parse::<usize>()
                .ok()
                .and_then(|n| n.checked_sub(1))
                .and_then(|i| self.parts.get(i))
                .ok_or_else(|| {
                    diesel::result::Error::QueryBuilderError(
                        format!("no parameter ${number} in: {}", self.text).into(),
                    )
                })?;
            part.walk_ast(out.reborrow())?;
            rest = &rest[at + 1 + digits..];
        }
        out.push_sql(rest);
        Ok(())
    }
}

impl<DB: Backend> QueryId for Sql<'_, DB> {
    // Cached by its text, which the connection builds to look it up.
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<DB: Backend> Query for Sql<'_, DB> {
    type SqlType = Untyped;
}

impl<DB: Backend, Conn> RunQueryDsl<Conn> for Sql<'_, DB> {}

#[cfg(test)]
mod tests {
    use super::*;
    use diesel::sql_types::{Integer, Text};
    use diesel::{Connection as _, QueryableByName, SqliteConnection};

    #[derive(QueryableByName, Debug, PartialEq)]
    struct Row {
        #[diesel(sql_type = Text)]
        word: String,
        #[diesel(sql_type = Integer)]
        n: i32,
    }

    #[test]
    fn parameters_are_written_where_their_numbers_stand_even_twice() {
        let mut c = SqliteConnection::establish(":memory:").unwrap();
        let rows: Vec<Row> = Sql::new("SELECT $2 || $1 || $2 AS word, $3 + $3 AS n")
            .bind::<Text, _>("b")
            .bind::<Text, _>("a")
            .bind::<Integer, _>(21)
            .load(&mut c)
            .unwrap();
        assert_eq!(
            rows,
            [Row {
                word: "aba".into(),
                n: 42
            }]
        );
    }

    #[test]
    fn a_parameter_without_a_value_is_an_error_naming_it() {
        let mut c = SqliteConnection::establish(":memory:").unwrap();
        let err = Sql::new("SELECT $1 + $2 AS n")
            .bind::<Integer, _>(1)
            .execute(&mut c)
            .unwrap_err();
        assert!(err.to_string().contains("$2"), "{err}");
    }
}

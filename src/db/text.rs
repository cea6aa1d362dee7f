//! Rust enums stored as text. [`stored_as_text!`](crate::stored_as_text)
//! gives an enum with `as_str` and `parse` diesel's `ToSql`/`FromSql` for
//! text on both backends, so rows carry the enum itself: a stored value that
//! is not one of its words is an error saying which column and what value,
//! never a default. The migrations' CHECK constraints (triggers on SQLite)
//! keep such values out in the first place.
//!
//! The enum derives `AsExpression` and `FromSqlRow` with
//! `#[diesel(sql_type = diesel::sql_types::Text)]`; `stored_words!` writes
//! its `as_str` and `parse`.

/// `as_str` and `parse` for an enum of words:
/// `stored_words!(Status { Open = "open", … })`.
#[macro_export]
macro_rules! stored_words {
    ($ty:ident { $($variant:ident = $word:literal),+ $(,)? }) => {
        impl $ty {
            /// Every word, in declaration order.
            pub const WORDS: &'static [&'static str] = &[$($word),+];

            pub fn as_str(self) -> &'static str {
                match self {
                    $($ty::$variant => $word,)+
                }
            }

            pub fn parse(s: &str) -> Option<$ty> {
                match s {
                    $($word => Some($ty::$variant),)+
                    _ => None,
                }
            }
        }
    };
}

/// See the [module](crate::db::text): `stored_as_text!(Type, "table.column")`.
#[macro_export]
macro_rules! stored_as_text {
    ($ty:ty, $column:literal) => {
        $crate::stored_as_text!(@backend $ty, $column, diesel::pg::Pg);
        $crate::stored_as_text!(@backend $ty, $column, diesel::sqlite::Sqlite);
        $crate::stored_as_text!(@backend $ty, $column, $crate::db::MultiBackend);
    };
    (@backend $ty:ty, $column:literal, $db:ty) => {
        impl diesel::serialize::ToSql<diesel::sql_types::Text, $db> for $ty {
            fn to_sql<'b>(
                &'b self,
                out: &mut diesel::serialize::Output<'b, '_, $db>,
            ) -> diesel::serialize::Result {
                <str as diesel::serialize::ToSql<diesel::sql_types::Text, $db>>::to_sql(
                    self.as_str(),
                    out,
                )
            }
        }

        impl diesel::deserialize::FromSql<diesel::sql_types::Text, $db> for $ty {
            fn from_sql(
                bytes: <$db as diesel::backend::Backend>::RawValue<'_>,
            ) -> diesel::deserialize::Result<Self> {
                let text =
                    <String as diesel::deserialize::FromSql<diesel::sql_types::Text, $db>>::from_sql(
                        bytes,
                    )?;
                <$ty>::parse(&text).ok_or_else(|| {
                    format!(concat!($column, ": {:?} is not a known value"), text).into()
                })
            }
        }
    };
}

//! The OpenAPI schemas of the domain's values, written from the same limits
//! their `parse` checks, so that the document states exactly what the server
//! enforces (a test in `tests/api/openapi.rs` checks samples against both).

use utoipa::openapi::schema::{ObjectBuilder, Schema, SchemaFormat, Type};
use utoipa::openapi::RefOr;

/// The characters `str::trim` removes (Unicode `White_Space`), as the body
/// of a regular-expression class that ECMA-262, Python and Rust read alike.
pub const WHITESPACE_CLASS: &str =
    r"\t-\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000";

/// Control characters (`char::is_control`, Unicode `Cc`) as a class body.
pub const CONTROL_CLASS: &str = r"\x00-\x1f\x7f-\x9f";

/// A string with the given limits.
pub fn string(description: &str) -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .description(Some(description))
}

/// A string of `min..=max` characters matching `pattern`.
pub fn bounded(
    description: &str,
    min: usize,
    max: usize,
    pattern: Option<String>,
    example: &str,
) -> RefOr<Schema> {
    string(description)
        .min_length(Some(min))
        .max_length(Some(max))
        .pattern(pattern)
        .examples([serde_json::Value::from(example)])
        .into()
}

/// One of `words`.
pub fn words<'a>(description: &str, words: impl IntoIterator<Item = &'a str>) -> RefOr<Schema> {
    string(description)
        .enum_values(Some(words.into_iter().map(str::to_owned)))
        .into()
}

/// A UUID, as every id the server makes is.
pub fn uuid(description: &str) -> RefOr<Schema> {
    string(description)
        .format(Some(SchemaFormat::Custom("uuid".into())))
        .examples([serde_json::Value::from(
            "019a1f0e-7c1a-7b3e-9d2f-3c4b5a697887",
        )])
        .into()
}

//! One offending field of a request: what validation in the domain reports.

use serde::Serialize;
use utoipa::ToSchema;

use super::Invalid;

/// One offending field of a request body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct FieldError {
    /// The field's path in the request body (`.` for the body as a whole).
    #[schema(example = "username")]
    pub field: String,
    /// A stable machine-readable reason.
    #[schema(example = "length")]
    pub code: String,
    /// A human-readable explanation.
    #[schema(example = "must be 3 to 32 characters long")]
    pub message: String,
}

impl FieldError {
    pub fn new(
        field: impl Into<String>,
        code: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            field: field.into(),
            code: code.into(),
            message: message.into(),
        }
    }

    pub fn from_invalid(field: &str, invalid: Invalid) -> Self {
        Self::new(field, invalid.code, invalid.message)
    }
}

//! `ApiJson<T>`: a JSON body extractor whose every failure is a problem
//! document — wrong content type (415), too large (413), not JSON (400), or
//! JSON of the wrong shape (422, naming the field).

use std::future::Future;
use std::pin::Pin;

use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::{web, FromRequest, HttpMessage as _, HttpRequest};
use futures_util::StreamExt as _;
use serde::de::DeserializeOwned;

use crate::domain::FieldError;
use crate::error::ApiError;
use crate::state::AppState;

/// Fallback limits when the app state is missing (it never is in the server).
const DEFAULT_LIMIT: usize = 65_536;
const DEFAULT_BODY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

pub struct ApiJson<T>(pub T);

fn is_json(req: &HttpRequest) -> bool {
    match req.mime_type() {
        Ok(Some(mime)) => mime.subtype() == mime::JSON || mime.suffix() == Some(mime::JSON),
        _ => false,
    }
}

impl<T: DeserializeOwned + 'static> FromRequest for ApiJson<T> {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let state = req.app_data::<web::Data<AppState>>();
        let limit = state.map_or(DEFAULT_LIMIT, |s| s.max_body_bytes);
        let deadline =
            tokio::time::Instant::now() + state.map_or(DEFAULT_BODY_TIMEOUT, |s| s.body_timeout);
        let json = is_json(req);
        let declared = req
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<usize>().ok());
        let mut payload = payload.take();
        Box::pin(async move {
            if !json {
                return Err(ApiError::UnsupportedMediaType);
            }
            if declared.is_some_and(|len| len > limit) {
                return Err(ApiError::PayloadTooLarge { limit });
            }
            let mut body = web::BytesMut::new();
            loop {
                // A body sent too slowly holds a connection: cut it off.
                let next = tokio::time::timeout_at(deadline, payload.next())
                    .await
                    .map_err(|_| ApiError::BodyTimeout)?;
                let Some(chunk) = next else { break };
                let chunk = chunk.map_err(|e| {
                    ApiError::MalformedJson(format!("body could not be read ({e})"))
                })?;
                if body.len() + chunk.len() > limit {
                    return Err(ApiError::PayloadTooLarge { limit });
                }
                body.extend_from_slice(&chunk);
            }
            parse(&body).map(ApiJson)
        })
    }
}

/// An error for a value that is not a JSON object where one belongs.
fn not_an_object(field: &str) -> ApiError {
    ApiError::Validation(vec![FieldError::new(
        field,
        "type",
        "must be a JSON object",
    )])
}

/// For a field that holds an object (`#[serde(deserialize_with =
/// "crate::routes::json::object")]`): serde's derived structs also take a
/// JSON array of their fields in order, which the document does not allow.
pub fn object<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: DeserializeOwned,
{
    use serde::de::{Error, Unexpected};
    let value = <serde_json::Value as serde::Deserialize>::deserialize(d)?;
    if !value.is_object() {
        let unexpected = match &value {
            serde_json::Value::Array(_) => Unexpected::Seq,
            serde_json::Value::Null => Unexpected::Unit,
            _ => Unexpected::Other("a scalar"),
        };
        return Err(D::Error::invalid_type(unexpected, &"an object"));
    }
    T::deserialize(value).map_err(D::Error::custom)
}

/// Deserialises a body, telling syntax errors (400) from shape errors (422).
/// Every body is a JSON object (serde would also take an array of fields).
pub fn parse<T: DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    // A NUL in any string is refused before the body means anything (see
    // routes::nul); the full walk runs only when the text holds the escape.
    if super::nul::may_hold_nul(body) {
        if let Ok(value) = serde_json::from_slice::<serde_json::Value>(body) {
            let mut path = String::new();
            if super::nul::nul_in_json(&value, &mut path) {
                return Err(super::nul::nul_in(if path.is_empty() {
                    "."
                } else {
                    &path
                }));
            }
        }
    }
    let de = &mut serde_json::Deserializer::from_slice(body);
    match serde_path_to_error::deserialize::<_, T>(de) {
        Ok(_) if body.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') => {
            Err(not_an_object("."))
        }
        Ok(value) => Ok(value),
        Err(err) => {
            let path = err.path().to_string();
            let inner = err.into_inner();
            match inner.classify() {
                serde_json::error::Category::Data => {
                    let message = inner.to_string();
                    // "missing field `x`" is reported at the parent's path.
                    let field = match message.strip_prefix("missing field `") {
                        Some(rest) => {
                            let name = rest.split('`').next().unwrap_or_default();
                            if path == "." {
                                name.to_owned()
                            } else {
                                format!("{path}.{name}")
                            }
                        }
                        None => path,
                    };
                    let code = if message.starts_with("missing field") {
                        "required"
                    } else if message.starts_with("unknown field") {
                        "unknown"
                    } else {
                        "type"
                    };
                    let message = message
                        .split(" at line ")
                        .next()
                        .unwrap_or_default()
                        .to_owned();
                    Err(ApiError::Validation(vec![FieldError::new(
                        field, code, message,
                    )]))
                }
                _ => {
                    let message = inner.to_string();
                    Err(ApiError::MalformedJson(message))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Body {
        name: String,
        count: u32,
    }

    fn field_of(err: ApiError) -> (String, String) {
        match err {
            ApiError::Validation(errors) => (errors[0].field.clone(), errors[0].code.clone()),
            other => panic!("expected validation, got {other:?}"),
        }
    }

    #[test]
    fn tells_syntax_from_shape() {
        assert!(matches!(
            parse::<Body>(b"{\"name\":"),
            Err(ApiError::MalformedJson(_))
        ));
        assert!(matches!(
            parse::<Body>(b"nonsense"),
            Err(ApiError::MalformedJson(_))
        ));
        assert_eq!(
            field_of(parse::<Body>(b"{\"name\":\"x\"}").unwrap_err()),
            ("count".into(), "required".into())
        );
        assert_eq!(
            field_of(parse::<Body>(b"{\"name\":\"x\",\"count\":-1}").unwrap_err()),
            ("count".into(), "type".into())
        );
        assert_eq!(
            field_of(parse::<Body>(b"{\"name\":\"x\",\"count\":1,\"z\":1}").unwrap_err()).1,
            "unknown"
        );
        assert!(parse::<Body>(b"{\"name\":\"x\",\"count\":1}").is_ok());
    }
}

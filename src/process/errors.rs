//! Provider error bodies, recognised in every response format: OpenAI-compatible
//! `{"error": {message, type, code}}`, Anthropic `{"type": "error", "error": {...}}`, a Responses
//! `error` object, and the bare `{"error": "text"}` some local servers send.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, value::MapAccessDeserializer, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use crate::error::{Error, ProviderDetail, Result};
use crate::providers::{is_retryable, ErrorBody, Scalar};

/// The `error` field of a response body; `null` and absent are both "no error".
#[derive(Default)]
pub(crate) struct ErrorField<'a>(pub(crate) Option<ErrorBody<'a>>);

impl<'de: 'a, 'a> Deserialize<'de> for ErrorField<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ErrorField<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an error object or message")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> std::result::Result<Self::Value, A::Error> {
                ErrorBody::deserialize(MapAccessDeserializer::new(map)).map(|b| ErrorField(Some(b)))
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> std::result::Result<Self::Value, E> {
                Ok(message_only(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Self::Value, E> {
                Ok(message_only(Cow::Owned(v.to_owned())))
            }
            fn visit_unit<E: de::Error>(self) -> std::result::Result<Self::Value, E> {
                Ok(ErrorField(None))
            }
            fn visit_none<E: de::Error>(self) -> std::result::Result<Self::Value, E> {
                Ok(ErrorField(None))
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Self::Value, D::Error> {
                d.deserialize_any(self)
            }
            // `"error": false` or a list is not an error report.
            fn visit_bool<E: de::Error>(self, _: bool) -> std::result::Result<Self::Value, E> {
                Ok(ErrorField(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> std::result::Result<Self::Value, E> {
                Ok(ErrorField(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> std::result::Result<Self::Value, E> {
                Ok(ErrorField(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> std::result::Result<Self::Value, E> {
                Ok(ErrorField(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(ErrorField(None))
            }
        }
        deserializer.deserialize_any(V)
    }
}

/// `{"error": "text"}`: a message with no type or code.
fn message_only(message: Cow<'_, str>) -> ErrorField<'_> {
    ErrorField(Some(ErrorBody { message: Scalar(Some(message)), ..ErrorBody::default() }))
}

impl ErrorField<'_> {
    /// `Err(provider_error)` when the body reports an error.
    pub(crate) fn check(&self) -> Result<()> {
        match &self.0 {
            Some(body) => Err(provider_error(body)),
            None => Ok(()),
        }
    }
}

/// The provider's error as a thrown `provider_error`: its message verbatim, type and code beside.
pub(crate) fn provider_error(body: &ErrorBody<'_>) -> Error {
    let kind = body.kind.as_deref().map(str::to_owned);
    let code = body.code.as_deref().map(str::to_owned);
    let retryable = is_retryable(kind.as_deref()) || is_retryable(code.as_deref());
    let message = body.message.as_deref().unwrap_or("the provider reported an error").to_owned();
    Error::provider(message, ProviderDetail { kind, code, retryable })
}

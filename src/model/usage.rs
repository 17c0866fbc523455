//! Token usage, normalised across providers, with the provider's own object kept untouched.

use serde::Serialize;
use serde_json::value::RawValue;

use crate::json::write::WriteJson;

/// A JSON value kept as its original text: serialised verbatim, never re-parsed on the hot path.
/// The text is one valid JSON value without surrounding whitespace.
#[derive(Debug, Clone, PartialEq)]
pub struct RawJson(Box<str>);

impl RawJson {
    /// Wraps a serde_json raw value.
    pub fn from_raw(raw: &RawValue) -> RawJson {
        RawJson(raw.get().into())
    }

    /// Wraps text this crate's JSON reader has validated (from `Reader::raw`) or its writer
    /// wrote: one JSON value, no whitespace around it. Not checked again.
    pub(crate) fn from_valid(text: &str) -> RawJson {
        RawJson(text.into())
    }

    /// `null`.
    pub(crate) fn null() -> RawJson {
        RawJson::from_valid("null")
    }

    /// Parses `text` as JSON (whitespace around the value is dropped); `None` when it is not
    /// one JSON value.
    pub fn parse(text: &str) -> Option<RawJson> {
        crate::json::read_document(text.as_bytes(), |r| r.raw()).ok().map(RawJson::from_valid)
    }

    pub fn get(&self) -> &str {
        &self.0
    }
}

/// Verbatim, as serde_json's `RawValue` (which is built here, for serde only).
impl Serialize for RawJson {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let raw = RawValue::from_string(self.0.clone().into()).map_err(serde::ser::Error::custom)?;
        raw.serialize(serializer)
    }
}

impl WriteJson for RawJson {
    fn write_json(&self, out: &mut String) {
        out.push_str(&self.0);
    }
}

/// Token counts, counted one way whatever the provider, so that they compare across providers;
/// `raw` is the provider's usage object as it arrived.
///
/// - `input_tokens` counts every input token, cached ones included: Anthropic and Bedrock
///   report cache reads and writes apart from their input count, and they are added to it;
///   Gemini's is its prompt and tool-use prompt counts. `cache_read_tokens` and
///   `cache_write_tokens` are parts of it.
/// - `output_tokens` includes reasoning; `reasoning_tokens` is part of it (Gemini's thoughts,
///   and the reasoning of a server that counts it beside its output, as xAI does, are added).
/// - `total_tokens` is always `input_tokens + output_tokens` (at most `u64::MAX`).
///
/// Each count is read on its own: a number or numeric string that is finite and not negative
/// counts (a fraction is cut to its whole part, a count beyond `u64` is `u64::MAX`); anything
/// else, a literal beyond the double range such as `1e400` included, leaves that count absent
/// (0 for the input and output counts) and the others as they are.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub total_tokens: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_read_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_write_tokens: Option<u64>,
    pub raw: RawJson,
}

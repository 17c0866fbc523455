//! Token usage, normalised across providers, with the provider's own object kept untouched.

use serde::Serialize;
use serde_json::value::RawValue;

use crate::json::write::WriteJson;

/// A JSON value kept as its original text: serialised verbatim, never re-parsed on the hot path.
#[derive(Debug, Clone)]
pub struct RawJson(pub Box<RawValue>);

impl RawJson {
    /// Wraps JSON text that is already known to be valid (it came out of a parser).
    pub fn from_raw(raw: &RawValue) -> RawJson {
        RawJson(raw.to_owned())
    }

    /// Parses `text` as JSON; `None` when it is not JSON.
    pub fn parse(text: &str) -> Option<RawJson> {
        RawValue::from_string(text.to_owned()).ok().map(RawJson)
    }

    pub fn get(&self) -> &str {
        self.0.get()
    }
}

impl PartialEq for RawJson {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl Serialize for RawJson {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl WriteJson for RawJson {
    fn write_json(&self, out: &mut String) {
        out.push_str(self.get());
    }
}

/// Token counts (DESIGN.md §4). `raw` is the provider's usage object as it arrived.
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

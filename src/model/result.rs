//! The §8 result of a response: text, a parsed structured output, tool calls, or vectors/URLs.

use serde::Serialize;

use super::ToolCall;
use crate::json::write::WriteJson;
use crate::json::Value;

/// What `process` (and `Accumulator::result`) returns.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ProcessResult {
    /// Plain text (or structured output that did not parse: the raw string, §7.7).
    Text(String),
    /// Structured output, JSON-parsed because the agent has `outputs`.
    Json(Value),
    /// Tool calls, which win over content (§8.1).
    ToolCalls(Vec<ToolCall>),
    /// One embedding vector (§8.2).
    Vector(Vec<f64>),
    /// Several embedding vectors.
    Vectors(Vec<Vec<f64>>),
    /// Several image URLs or base64 strings (§8.3).
    Strings(Vec<String>),
}

impl ProcessResult {
    /// A message's text as a result: JSON-parsed when the agent declares outputs (§8.6), the
    /// text itself when it is empty, there are none, or it is not JSON (§7.7). Numbers are read
    /// as `JSON.parse` reads them (`1e400` is infinity), as the output parsers read them.
    pub(crate) fn of_text(text: String, has_outputs: bool) -> ProcessResult {
        if has_outputs && !text.is_empty() {
            if let Ok(value) = crate::json::value::parse_value_as_js(&text) {
                return ProcessResult::Json(value);
            }
        }
        ProcessResult::Text(text)
    }
}

/// As the untagged `Serialize`: the variant's value alone.
impl WriteJson for ProcessResult {
    fn write_json(&self, out: &mut String) {
        match self {
            ProcessResult::Text(text) => text.write_json(out),
            ProcessResult::Json(value) => value.write_json(out),
            ProcessResult::ToolCalls(calls) => calls.write_json(out),
            ProcessResult::Vector(vector) => vector.write_json(out),
            ProcessResult::Vectors(vectors) => vectors.write_json(out),
            ProcessResult::Strings(strings) => strings.write_json(out),
        }
    }
}

//! Multi-turn continuity: the message metadata an agent loop carries from one turn to the next,
//! and [`FinalMessage::to_message`], which turns a finished turn back into an assistant
//! [`Message`].
//!
//! The canonical form is OpenAI Chat's: an assistant message lists its calls in
//! `metadata.tool_calls` (`{id, type: "function", function: {name, arguments}}`), and each
//! answer is a `tool` message with `metadata.tool_call_id`. Every request builder reads that
//! form, so a loop can switch formats between turns. Replay data only one format understands
//! sits under its own key ([`RESPONSES_FUNCTION_CALL`], [`ANTHROPIC_THINKING`]) and the other
//! formats leave it out.

use super::agent::{Message, MessageContent};
use super::{Block, FinalMessage, ToolCall};
use crate::error::{Error, Result};
use crate::json::value;
use crate::json::{Map, Value};
use crate::request::wire::Object;

/// `metadata.tool_calls`: the calls an assistant message made (OpenAI shape).
pub const TOOL_CALLS: &str = "tool_calls";
/// `metadata.tool_call_id`: the call a `tool` message answers.
pub const TOOL_CALL_ID: &str = "tool_call_id";
/// `metadata.responses_function_call`: the Responses API `function_call` item a tool result
/// answers (§7.4.1); sent back verbatim before the `function_call_output`.
pub const RESPONSES_FUNCTION_CALL: &str = "responses_function_call";
/// `metadata.anthropic_thinking`: Anthropic `thinking` / `redacted_thinking` blocks, which must
/// be sent back unchanged before the tool calls of the same turn.
pub const ANTHROPIC_THINKING: &str = "anthropic_thinking";

/// Metadata keys that hold one format's replay data, never sent as-is in another format.
pub(crate) const FORMAT_PRIVATE_KEYS: &[&str] = &[RESPONSES_FUNCTION_CALL, ANTHROPIC_THINKING];

impl Message {
    /// The calls in `metadata.tool_calls`, read from the OpenAI shape or the flat
    /// `{id, name, arguments}` one; `arguments` given as an object is serialised. `path` is the
    /// message's path (`messages[2]`).
    pub fn tool_call_list(&self, path: &str) -> Result<Vec<ToolCall>> {
        let list_path = format!("{path}.metadata.{TOOL_CALLS}");
        let calls = match self.metadata.get(TOOL_CALLS) {
            None | Some(Value::Null) => return Ok(Vec::new()),
            Some(Value::Array(calls)) => calls,
            Some(_) => return Err(Error::invalid_input(list_path, "expected an array of tool calls")),
        };
        let mut read = Vec::new();
        for (k, call) in calls.iter().enumerate() {
            read.push(read_call(call, &format!("{list_path}[{k}]"))?);
        }
        Ok(read)
    }
}

/// A non-empty string member.
fn text_of(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned)
}

fn read_call(call: &Value, path: &str) -> Result<ToolCall> {
    let nested = call.get("function");
    let function = nested.filter(|f| f.is_object()).unwrap_or(call);
    let id =
        text_of(call, "id").ok_or_else(|| Error::invalid_input(format!("{path}.id"), "a tool call needs an id"))?;
    let name = text_of(function, "name").ok_or_else(|| {
        let at = if nested.is_some() { format!("{path}.function.name") } else { format!("{path}.name") };
        Error::invalid_input(at, "a tool call needs a name")
    })?;
    let arguments = match function.get("arguments") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
    };
    Ok(ToolCall { id, name, arguments })
}

/// A call in the OpenAI Chat shape, as `metadata.tool_calls` holds it.
pub fn openai_tool_call(call: &ToolCall) -> Value {
    let function =
        value::object([("name", Value::from(call.name.as_str())), ("arguments", Value::from(call.arguments.as_str()))]);
    value::object([("id", Value::from(call.id.as_str())), ("type", Value::from("function")), ("function", function)])
}

/// [`openai_tool_call`] as JSON text.
pub(crate) fn write_openai_tool_call(call: &ToolCall) -> String {
    let function = Object::new().str("arguments", &call.arguments).str("name", &call.name).finish();
    Object::new().json("function", &function).str("id", &call.id).str("type", "function").finish()
}

impl FinalMessage {
    /// This turn as an assistant [`Message`] for the next request: the text as content, the
    /// tool calls in `metadata.tool_calls`, and Anthropic thinking blocks that carry a signature
    /// (or redacted data) in `metadata.anthropic_thinking` so a tool loop with extended thinking
    /// can continue. Reasoning without a signature is not replayed: no API accepts it back.
    pub fn to_message(&self) -> Message {
        let mut metadata = Map::new();
        if !self.tool_calls.is_empty() {
            metadata.insert(TOOL_CALLS.into(), Value::Array(self.tool_calls.iter().map(openai_tool_call).collect()));
        }
        let thinking: Vec<Value> = self
            .content
            .iter()
            .filter_map(|block| match block {
                Block::Reasoning { redacted: Some(data), .. } => Some(value::object([
                    ("type", Value::from("redacted_thinking")),
                    ("data", Value::from(data.as_str())),
                ])),
                Block::Reasoning { text, signature: Some(signature), .. } => Some(value::object([
                    ("type", Value::from("thinking")),
                    ("thinking", Value::from(text.as_str())),
                    ("signature", Value::from(signature.as_str())),
                ])),
                _ => None,
            })
            .collect();
        if !thinking.is_empty() {
            metadata.insert(ANTHROPIC_THINKING.into(), Value::Array(thinking));
        }
        Message { role: "assistant".into(), content: MessageContent::Text(self.text.clone()), metadata }
    }
}

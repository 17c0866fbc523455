//! Multi-turn continuity: the message metadata an agent loop carries from one turn to the next,
//! and [`FinalMessage::to_message`], which turns a finished turn back into an assistant
//! [`Message`] (docs/design.md, "Reasoning that goes back").
//!
//! The canonical form is OpenAI Chat's: an assistant message lists its calls in
//! `metadata.tool_calls` (`{id, type: "function", function: {name, arguments}}`), and each
//! answer is a `tool` message with `metadata.tool_call_id`. Every request builder reads that
//! form, so a loop can switch formats between turns. A finished turn also carries its blocks in
//! `metadata.blocks`; a builder renders such a message from them, taking the blocks its API
//! understands (its own reasoning state included, see [`ReasoningState`]) and dropping the rest.
//! Older replay data only one format understands sits under its own key
//! ([`RESPONSES_FUNCTION_CALL`], [`ANTHROPIC_THINKING`]) and the other formats leave it out.
//!
//! A builder for a new format follows the same rule: read [`Message::blocks`] of an assistant
//! message, render text, tool calls and the reasoning states its API accepts, in order, and
//! fall back to `content` and `metadata.tool_calls` when there are no blocks. Gemini takes the
//! `signature` of text and tool-call blocks (its `thoughtSignature`) and its own `other` parts;
//! Bedrock Converse takes [`ReasoningState::Signed`] and [`ReasoningState::Redacted`].

use super::agent::{Message, MessageContent};
use super::agent_json::read_blocks;
use super::{Block, FinalMessage, ToolCall};
use crate::error::{Error, Result};
use crate::json::value;
use crate::json::write::WriteJson;
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

/// `metadata.blocks`: the blocks of a finished turn (`FinalMessage.content`), from which every
/// builder renders that assistant message.
pub const BLOCKS: &str = "blocks";

/// Metadata keys that hold replay data, never sent as-is on the wire.
pub(crate) const FORMAT_PRIVATE_KEYS: &[&str] = &[RESPONSES_FUNCTION_CALL, ANTHROPIC_THINKING, BLOCKS];

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

    /// The blocks in `metadata.blocks` of an assistant message, read with exact paths
    /// (`messages[2].metadata.blocks[0].type`); `None` when there are none to render from (the
    /// key is absent, or the message is not an assistant's).
    pub fn blocks(&self, path: &str) -> Result<Option<Vec<Block>>> {
        match self.metadata.get(BLOCKS) {
            Some(list) if !list.is_null() && self.role == "assistant" => {
                read_blocks(list, &format!("{path}.metadata.{BLOCKS}")).map(Some)
            }
            _ => Ok(None),
        }
    }
}

/// The reasoning state of a reasoning block, by the API it can go back to (docs/design.md,
/// "Reasoning that goes back"). A block belongs to exactly one kind, so state a builder does not
/// know is never sent to an API that did not make it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum ReasoningState<'b> {
    /// A chat `reasoning_details` item (OpenRouter, Vercel AI Gateway): back to OpenAI Chat.
    Details { format: &'b str, text: &'b str, signature: Option<&'b str>, data: Option<&'b str>, id: Option<&'b str> },
    /// An OpenAI Responses reasoning item: back to the Responses API.
    Item { id: &'b str, encrypted_content: Option<&'b str>, text: &'b str },
    /// Signed thinking (Anthropic, Bedrock's Claude).
    Signed { text: &'b str, signature: &'b str },
    /// Redacted thinking (Anthropic, Bedrock): opaque data, Anthropic's `data` string, which
    /// Bedrock's wire carries as base64 of its bytes.
    Redacted { data: &'b str },
    /// Reasoning text no API takes back (`reasoning_content`, think tags, ...).
    Plain,
}

impl<'b> ReasoningState<'b> {
    /// The state of `block`, `None` when it is not a reasoning block.
    pub(crate) fn of(block: &'b Block) -> Option<ReasoningState<'b>> {
        let Block::Reasoning { text, signature, redacted, id, encrypted_content, format } = block else { return None };
        let (signature, redacted, id) = (signature.as_deref(), redacted.as_deref(), id.as_deref());
        Some(match (format, id, redacted, signature) {
            (Some(format), ..) => ReasoningState::Details { format, text, signature, data: redacted, id },
            (None, Some(id), ..) => ReasoningState::Item { id, encrypted_content: encrypted_content.as_deref(), text },
            (None, None, Some(data), _) => ReasoningState::Redacted { data },
            (None, None, None, Some(signature)) => ReasoningState::Signed { text, signature },
            (None, None, None, None) => ReasoningState::Plain,
        })
    }
}

/// The text of a turn's text blocks, joined.
pub(crate) fn blocks_text(blocks: &[Block]) -> String {
    blocks.iter().filter_map(|b| if let Block::Text { text, .. } = b { Some(text.as_str()) } else { None }).collect()
}

/// The tool calls of a turn's blocks, in order.
pub(crate) fn blocks_calls(blocks: &[Block]) -> Vec<ToolCall> {
    let calls = blocks.iter().filter_map(|b| match b {
        Block::ToolCall { id, name, arguments, .. } => {
            Some(ToolCall { id: id.clone(), name: name.clone(), arguments: arguments.clone() })
        }
        _ => None,
    });
    calls.collect()
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
    /// tool calls in `metadata.tool_calls` and the blocks, verbatim, in `metadata.blocks`, from
    /// which every builder renders the turn with the reasoning state its API needs back
    /// (docs/design.md, "Reasoning that goes back").
    pub fn to_message(&self) -> Message {
        assistant_turn(self.text.clone(), &self.tool_calls, Some(&self.content))
    }
}

/// The assistant message of a finished turn (see [`FinalMessage::to_message`]), with
/// `metadata.blocks` when there are `blocks`.
pub(crate) fn assistant_turn(text: String, calls: &[ToolCall], blocks: Option<&[Block]>) -> Message {
    let mut metadata = Map::new();
    if !calls.is_empty() {
        metadata.insert(TOOL_CALLS.into(), Value::Array(calls.iter().map(openai_tool_call).collect()));
    }
    // Always reads back: the writer's own JSON, nested no deeper than the blocks were read.
    if let Some(Ok(blocks)) = blocks.map(|blocks| value::parse_value(&blocks.to_json_text())) {
        metadata.insert(BLOCKS.into(), blocks);
    }
    Message { role: "assistant".into(), content: MessageContent::Text(text), metadata }
}

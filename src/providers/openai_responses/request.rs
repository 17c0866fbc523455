//! OpenAI Responses API request bodies (§7.4.1 with the rules of docs/design.md, "Dispatch").
//!
//! System and developer text goes to `instructions`; every other message becomes `input` items.
//! Tool calls from earlier turns are replayed as `function_call` items and their answers as
//! `function_call_output` items, from either the canonical metadata (`tool_calls`,
//! `tool_call_id`) or the §7.4.1 `responses_function_call` item carried by a tool result.

use std::collections::BTreeSet;

use crate::error::{Error, Result};
use crate::json::value::parse_value;
use crate::json::Value;
use crate::model::continuity::{ReasoningState, RESPONSES_FUNCTION_CALL};
use crate::model::{Agent, Block, Message, MessageContent, ToolCall};
use crate::options::write_openai_responses;
use crate::providers::openai_chat::request::{write_content as chat_content, write_parts, write_response_format};
use crate::request::wire::{field, index, text, Array, Fields, Object};
use crate::request::{is_system, missing_call_id, system_text, Api};
use crate::tools::write_tools;

/// The request body, as JSON text to be (see `request::wire`), onto `body` (which has the model).
pub(crate) fn build(agent: &Agent, messages: &[Message], body: &mut Fields) -> Result<()> {
    let mut input = Array::new();
    let mut sent_calls = BTreeSet::new();
    for (i, message) in messages.iter().enumerate() {
        if !is_system(message) {
            write_message(message, &index("messages", i), &mut input, &mut sent_calls)?;
        }
    }
    if let Some(instructions) = system_text(messages) {
        body.str("instructions", &instructions);
    }
    body.set("input", input.finish());
    write_tools(body, agent, Api::OpenAiResponses)?;
    if let Some(format) = write_response_format(&agent.outputs, true)? {
        // Merged into a `text` object given in `additionalProperties` (its `verbosity`), the
        // built `format` winning; a `text` that is not an object gives way to the built one.
        let mut text = Fields::new();
        if let Some(Value::Object(given)) = agent.model.options.additional_properties.get("text") {
            given.iter().for_each(|(key, value)| text.value(key, value));
        }
        text.set("format", format);
        body.set("text", text.finish());
    }
    write_openai_responses(&agent.model.options, body);
    Ok(())
}

/// One message as its input items: a message, its function calls, or a call output.
fn write_message(message: &Message, path: &str, input: &mut Array, sent_calls: &mut BTreeSet<String>) -> Result<()> {
    let call_id = message.tool_call_id();
    // `call_id` is `null` when neither the message nor the replayed item has one.
    let output = |id: Option<&str>| -> Result<String> {
        let output = match id {
            Some(id) => Object::new().str("call_id", id),
            None => Object::new().json("call_id", "null"),
        };
        let content = write_output(&message.content, path)?;
        Ok(output.json("output", &content).str("type", "function_call_output").finish())
    };
    if let Some(item) = message.metadata.get(RESPONSES_FUNCTION_CALL).filter(|v| v.is_object()) {
        let item_call_id = item.get("call_id").and_then(Value::as_str);
        // An item whose call went out already (as a call of the assistant turn) is not sent twice.
        if !item_call_id.is_some_and(|id| sent_calls.contains(id)) {
            input.value(item);
            if let Some(id) = item_call_id {
                sent_calls.insert(id.to_owned());
            }
        }
        input.push(output(call_id.or(item_call_id))?);
        return Ok(());
    }
    if message.role == "tool" {
        let id = call_id.ok_or_else(|| missing_call_id(path))?;
        input.push(output(Some(id))?);
        return Ok(());
    }
    if let Some(blocks) = message.blocks(path)? {
        write_turn(&blocks, input, sent_calls);
        return Ok(());
    }
    let calls = message.tool_call_list(path)?;
    if calls.is_empty() || !message.content.is_empty() {
        let content = write_content(message, path)?;
        input.push(Object::new().json("content", &content).str("role", &message.role).finish());
    }
    for call in &calls {
        write_call(call, input, sent_calls);
    }
    Ok(())
}

/// A `function_call` item.
fn write_call(call: &ToolCall, input: &mut Array, sent_calls: &mut BTreeSet<String>) {
    let item = Object::new().str("arguments", &call.arguments).str("call_id", &call.id).str("name", &call.name);
    input.push(item.str("type", "function_call").finish());
    sent_calls.insert(call.id.clone());
}

/// An assistant turn from its blocks, in order (docs/design.md, "Reasoning that goes back"):
/// each reasoning item (the consecutive blocks with its id) as a `reasoning` item with its
/// encrypted content, each run of text as an assistant message, each tool call as a
/// `function_call`, and the API's own tool items (kept as `other` blocks) as they came. Other
/// formats' reasoning and blocks are left out.
fn write_turn(blocks: &[Block], input: &mut Array, sent_calls: &mut BTreeSet<String>) {
    let together = |a: &Block, b: &Block| match (a, b) {
        (Block::Text { .. }, Block::Text { .. }) => true,
        _ => item_id(a).is_some_and(|id| item_id(b) == Some(id)),
    };
    for run in blocks.chunk_by(together) {
        match &run[0] {
            Block::Text { .. } => {
                let text: String = run.iter().filter_map(text_of).collect();
                if !text.is_empty() {
                    input.push(Object::new().str("content", &text).str("role", "assistant").finish());
                }
            }
            Block::ToolCall { id, name, arguments, .. } => {
                let call = ToolCall { id: id.clone(), name: name.clone(), arguments: arguments.clone() };
                write_call(&call, input, sent_calls);
            }
            Block::Other { provider_type, data } => {
                if let Some(item) = own_item(provider_type, data.get()) {
                    input.value(&item);
                }
            }
            first => {
                if let Some(id) = item_id(first) {
                    input.push(write_reasoning_item(id, run));
                }
            }
        }
    }
}

/// The output item types of the API's own tools, which it takes back as input items.
const TOOL_ITEM_TYPES: &[&str] = &[
    "web_search_call",
    "file_search_call",
    "code_interpreter_call",
    "image_generation_call",
    "computer_call",
    "local_shell_call",
    "shell_call",
    "apply_patch_call",
    "mcp_call",
    "mcp_list_tools",
    "mcp_approval_request",
    "custom_tool_call",
];

/// An `other` block's data when it is one of the API's own tool items: of such a type, and an
/// object of that `type` (so no other format's block of the same name goes).
fn own_item(provider_type: &str, data: &str) -> Option<Value> {
    if !TOOL_ITEM_TYPES.contains(&provider_type) {
        return None;
    }
    let item = parse_value(data).ok()?;
    (item.get("type").and_then(Value::as_str) == Some(provider_type)).then_some(item)
}

/// The id of the Responses reasoning item a block belongs to.
fn item_id(block: &Block) -> Option<&str> {
    match ReasoningState::of(block) {
        Some(ReasoningState::Item { id, .. }) => Some(id),
        _ => None,
    }
}

fn text_of(block: &Block) -> Option<&str> {
    match block {
        Block::Text { text, .. } => Some(text),
        _ => None,
    }
}

/// `{type: "reasoning", id, encrypted_content?, summary}` from the blocks of one item: each
/// block's text is a summary part (an empty summary is an empty list).
fn write_reasoning_item(id: &str, blocks: &[Block]) -> String {
    let mut summary = Array::new();
    let mut encrypted = None;
    for state in blocks.iter().filter_map(ReasoningState::of) {
        if let ReasoningState::Item { encrypted_content, text, .. } = state {
            encrypted = encrypted.or(encrypted_content);
            if !text.is_empty() {
                summary.push(Object::new().str("text", text).str("type", "summary_text").finish());
            }
        }
    }
    let item = match encrypted {
        Some(encrypted) => Object::new().str("encrypted_content", encrypted),
        None => Object::new(),
    };
    item.str("id", id).array("summary", &summary).str("type", "reasoning").finish()
}

/// A tool result's `output`: its text as a string, or, when it has parts other than text, the
/// list of its parts (`input_text`, `input_image`, `input_file`; the API takes no audio there).
fn write_output(content: &MessageContent, path: &str) -> Result<String> {
    let parts = match content {
        MessageContent::Parts(parts) if parts.iter().any(|part| !part.is_text()) => parts,
        _ => return Ok(text(&content.text())),
    };
    if let Some(j) = parts.iter().position(|part| part.kind == "audio") {
        let at = field(&index(&field(path, "content"), j), "kind");
        return Err(Error::invalid_input(at, "a Responses tool result does not accept audio parts"));
    }
    write_parts(parts, path, Some("input_text"))
}

/// A message's content, with text parts typed as the role's input or output text.
fn write_content(message: &Message, path: &str) -> Result<String> {
    let text_type = if message.role == "assistant" { "output_text" } else { "input_text" };
    chat_content(&message.content, path, Some(text_type))
}

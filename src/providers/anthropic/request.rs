//! Anthropic Messages request bodies (§7.5, options §7.6).
//!
//! System (and developer) text is the top-level `system`; content is always an array of blocks.
//! Tool calls of an assistant turn become `tool_use` blocks (after any replayed thinking), and
//! the `tool` messages answering them become `tool_result` blocks of one user turn, as the API
//! requires all results of a turn in the next user message.

use serde_json::{json, Map, Value};

use crate::error::{Error, Result};
use crate::model::continuity::ANTHROPIC_THINKING;
use crate::model::{Agent, ContentPart, Message};
use crate::options::{anthropic, merge_absent};
use crate::providers::openai_chat::request::unknown_part;
use crate::request::{is_system, split_data_url, system_text};
use crate::tools::project_tools;

/// One conversation turn being assembled.
struct Turn {
    role: String,
    blocks: Vec<Value>,
    /// The turn holds tool results: a following user message joins it.
    has_results: bool,
}

pub(crate) fn build(agent: &Agent, messages: &[Message]) -> Result<Value> {
    let mut turns: Vec<Turn> = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        if !is_system(message) {
            add_message(message, &format!("messages[{i}]"), &mut turns)?;
        }
    }
    let mut body = Map::new();
    body.insert("model".into(), Value::String(agent.model.id.clone()));
    if let Some(system) = system_text(messages) {
        body.insert("system".into(), Value::String(system));
    }
    let turns = turns.into_iter().map(|t| json!({"role": t.role, "content": t.blocks})).collect();
    body.insert("messages".into(), Value::Array(turns));
    let tools = project_tools(&agent.tools)?;
    if !tools.is_empty() {
        let tools = tools.iter().map(|def| {
            let mut tool = Map::new();
            tool.insert("name".into(), Value::String(def.name.clone()));
            if let Some(description) = &def.description {
                tool.insert("description".into(), Value::String(description.clone()));
            }
            tool.insert("input_schema".into(), def.parameters.clone());
            Value::Object(tool)
        });
        body.insert("tools".into(), Value::Array(tools.collect()));
        // Anthropic's spelling of `allowMultipleToolCalls: false`.
        if agent.model.options.allow_multiple_tool_calls == Some(false) {
            body.insert("tool_choice".into(), json!({"type": "auto", "disable_parallel_tool_use": true}));
        }
    }
    merge_absent(&mut body, &anthropic(&agent.model.options));
    Ok(Value::Object(body))
}

fn add_message(message: &Message, path: &str, turns: &mut Vec<Turn>) -> Result<()> {
    if message.role == "tool" {
        let id = message.tool_call_id().ok_or_else(|| {
            Error::invalid_input(
                format!("{path}.metadata.tool_call_id"),
                "a tool message needs the id of the call it answers",
            )
        })?;
        let result = json!({"type": "tool_result", "tool_use_id": id, "content": result_content(message, path)?});
        match turns.last_mut() {
            Some(turn) if turn.has_results => turn.blocks.push(result),
            _ => turns.push(Turn { role: "user".into(), blocks: vec![result], has_results: true }),
        }
        return Ok(());
    }
    let mut blocks = Vec::new();
    if message.role == "assistant" {
        if let Some(Value::Array(thinking)) = message.metadata.get(ANTHROPIC_THINKING) {
            blocks.extend(thinking.iter().cloned());
        }
    }
    blocks.extend(content_blocks(message, path)?);
    for (k, call) in message.tool_call_list(path)?.into_iter().enumerate() {
        let input = parse_arguments(&call.arguments).ok_or_else(|| {
            Error::invalid_input(
                format!("{path}.metadata.tool_calls[{k}]"),
                format!("the arguments of tool call `{}` are not a JSON object", call.id),
            )
        })?;
        blocks.push(json!({"type": "tool_use", "id": call.id, "name": call.name, "input": input}));
    }
    match turns.last_mut() {
        Some(turn) if turn.has_results && message.role == "user" => turn.blocks.extend(blocks),
        _ => turns.push(Turn { role: message.role.clone(), blocks, has_results: false }),
    }
    Ok(())
}

/// Tool-call arguments as the object `tool_use.input` wants; an empty string is `{}`.
fn parse_arguments(arguments: &str) -> Option<Value> {
    if arguments.trim().is_empty() {
        return Some(json!({}));
    }
    serde_json::from_str::<Value>(arguments).ok().filter(Value::is_object)
}

/// The blocks of a message. Empty text blocks are left out: the API rejects them.
fn content_blocks(message: &Message, path: &str) -> Result<Vec<Value>> {
    let parts = message.content.parts();
    let mut blocks = Vec::with_capacity(parts.len());
    for (j, part) in parts.iter().enumerate() {
        if !(part.is_text() && part.value.is_empty()) {
            blocks.push(part_to_block(part, &format!("{path}.content[{j}]"))?);
        }
    }
    Ok(blocks)
}

/// A tool result's content: its text, or blocks when it has images or documents.
fn result_content(message: &Message, path: &str) -> Result<Value> {
    let parts = message.content.parts();
    if parts.iter().all(ContentPart::is_text) {
        return Ok(Value::String(message.content.text()));
    }
    content_blocks(message, path).map(Value::Array)
}

/// §7.5 `anthropic_message` for one part. Images and documents take a base64 source (a `data:`
/// URL is split into media type and data) or, for http(s) URLs, a `url` source.
fn part_to_block(part: &ContentPart, path: &str) -> Result<Value> {
    let block_type = match part.kind.as_str() {
        "text" => return Ok(json!({"type": "text", "text": part.value})),
        "image" => "image",
        "file" => "document",
        "audio" => {
            return Err(Error::invalid_input(format!("{path}.kind"), "Anthropic Messages does not accept audio parts"))
        }
        other => return Err(unknown_part(other, path)),
    };
    if part.value.starts_with("https://") || part.value.starts_with("http://") {
        return Ok(json!({"type": block_type, "source": {"type": "url", "url": part.value}}));
    }
    let (media_type, data) = match split_data_url(&part.value) {
        Some((media_type, data)) => (part.media_type.as_deref().unwrap_or(media_type).to_owned(), data),
        None => {
            let media_type = part.media_type.clone().or_else(|| sniff_media_type(&part.value)).ok_or_else(|| {
                Error::invalid_input(
                    format!("{path}.mediaType"),
                    format!("a base64 {} part needs a mediaType (image/png, application/pdf, ...)", part.kind),
                )
            })?;
            (media_type, part.value.as_str())
        }
    };
    Ok(json!({"type": block_type, "source": {"type": "base64", "media_type": media_type, "data": data}}))
}

/// The media type of base64 data from the magic bytes of the formats Anthropic accepts.
fn sniff_media_type(base64: &str) -> Option<String> {
    const MAGIC: &[(&str, &str)] = &[
        ("iVBORw0KGgo", "image/png"),
        ("/9j/", "image/jpeg"),
        ("R0lGOD", "image/gif"),
        ("UklGR", "image/webp"),
        ("JVBERi0", "application/pdf"),
    ];
    MAGIC.iter().find(|(prefix, _)| base64.starts_with(prefix)).map(|(_, media_type)| (*media_type).to_owned())
}

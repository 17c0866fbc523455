//! OpenAI Responses API request bodies (§7.4.1 with the rules of DESIGN.md §3).
//!
//! System and developer text goes to `instructions`; every other message becomes `input` items.
//! Tool calls from earlier turns are replayed as `function_call` items and their answers as
//! `function_call_output` items, from either the canonical metadata (`tool_calls`,
//! `tool_call_id`) or the §7.4.1 `responses_function_call` item carried by a tool result.

use serde_json::{json, Map, Value};

use crate::error::{Error, Result};
use crate::model::continuity::RESPONSES_FUNCTION_CALL;
use crate::model::{Agent, ContentPart, Message, MessageContent};
use crate::options::{merge_absent, openai_responses};
use crate::providers::openai_chat::request::{audio_data, unknown_part};
use crate::request::{is_system, parallel_tool_calls, system_text};
use crate::schema::to_strict_schema;
use crate::tools::{project_tools, FunctionDef};

pub(crate) fn build(agent: &Agent, messages: &[Message]) -> Result<Value> {
    let mut input = Vec::new();
    // Call ids already sent as `function_call` items, so a call is never sent twice when both
    // the assistant turn and its answer carry it.
    let mut sent_calls: Vec<String> = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        if !is_system(message) {
            add_message(message, &format!("messages[{i}]"), &mut input, &mut sent_calls)?;
        }
    }
    let mut body = Map::new();
    body.insert("model".into(), Value::String(agent.model.id.clone()));
    if let Some(instructions) = system_text(messages) {
        body.insert("instructions".into(), Value::String(instructions));
    }
    body.insert("input".into(), Value::Array(input));
    let tools = project_tools(&agent.tools)?;
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools.iter().map(flat_tool).collect()));
        parallel_tool_calls(&mut body, &agent.model.options);
    }
    if !agent.outputs.is_empty() {
        let format = json!({
            "type": "json_schema", "name": "structured_output", "strict": true, "schema": to_strict_schema(&agent.outputs),
        });
        body.insert("text".into(), json!({"format": format}));
    }
    merge_absent(&mut body, &openai_responses(&agent.model.options));
    Ok(Value::Object(body))
}

fn add_message(message: &Message, path: &str, input: &mut Vec<Value>, sent_calls: &mut Vec<String>) -> Result<()> {
    let call_id = message.tool_call_id().map(str::to_owned);
    // §7.4.1: a tool result carrying its `function_call` item replays the item, then answers it.
    if let Some(item) = message.metadata.get(RESPONSES_FUNCTION_CALL).filter(|v| v.is_object()) {
        let item_call_id = item.get("call_id").and_then(Value::as_str).map(str::to_owned);
        if let Some(id) = &item_call_id {
            if !sent_calls.contains(id) {
                input.push(item.clone());
                sent_calls.push(id.clone());
            }
        } else {
            input.push(item.clone());
        }
        let output_id = call_id.or(item_call_id).map_or(Value::Null, Value::String);
        input.push(json!({"type": "function_call_output", "call_id": output_id, "output": message.content.text()}));
        return Ok(());
    }
    if message.role == "tool" {
        let id = call_id.ok_or_else(|| {
            Error::invalid_input(
                format!("{path}.metadata.tool_call_id"),
                "a tool message needs the id of the call it answers",
            )
        })?;
        input.push(json!({"type": "function_call_output", "call_id": id, "output": message.content.text()}));
        return Ok(());
    }
    let calls = message.tool_call_list(path)?;
    if calls.is_empty() || !message.content.is_empty() {
        input.push(json!({"role": message.role, "content": content(message, path)?}));
    }
    for call in calls {
        input
            .push(json!({"type": "function_call", "call_id": call.id, "name": call.name, "arguments": call.arguments}));
        sent_calls.push(call.id);
    }
    Ok(())
}

/// One text part as a plain string, as in Chat; otherwise typed input parts (assistant text is
/// `output_text`, since the API reads assistant turns as its own earlier output).
fn content(message: &Message, path: &str) -> Result<Value> {
    let parts = match &message.content {
        MessageContent::Text(text) => return Ok(Value::String(text.clone())),
        MessageContent::Parts(parts) => parts,
    };
    if let [only] = parts.as_slice() {
        if only.is_text() {
            return Ok(Value::String(only.value.clone()));
        }
    }
    let text_type = if message.role == "assistant" { "output_text" } else { "input_text" };
    parts
        .iter()
        .enumerate()
        .map(|(j, part)| part_to_wire(part, text_type, &format!("{path}.content[{j}]")))
        .collect::<Result<Vec<_>>>()
        .map(Value::Array)
}

fn part_to_wire(part: &ContentPart, text_type: &str, path: &str) -> Result<Value> {
    Ok(match part.kind.as_str() {
        "text" => json!({"type": text_type, "text": part.value}),
        "image" => {
            let mut image = json!({"type": "input_image", "image_url": part.value});
            if let Some(detail) = part.detail.as_deref().filter(|d| !d.is_empty()) {
                image["detail"] = Value::String(detail.to_owned());
            }
            image
        }
        "audio" => {
            let (data, format) = audio_data(part, path)?;
            json!({"type": "input_audio", "input_audio": {"data": data, "format": format}})
        }
        "file" if part.value.starts_with("data:") => json!({"type": "input_file", "file_data": part.value}),
        "file" => json!({"type": "input_file", "file_url": part.value}),
        other => return Err(unknown_part(other, path)),
    })
}

/// `{type: "function", name, description, parameters}` (DESIGN.md §3), plus `strict: true` for
/// strict tools, the same flag Chat puts on its function definitions.
fn flat_tool(def: &FunctionDef) -> Value {
    let mut tool = Map::new();
    tool.insert("type".into(), json!("function"));
    tool.insert("name".into(), Value::String(def.name.clone()));
    if let Some(description) = &def.description {
        tool.insert("description".into(), Value::String(description.clone()));
    }
    tool.insert("parameters".into(), def.parameters.clone());
    if def.strict {
        tool.insert("strict".into(), Value::Bool(true));
    }
    Value::Object(tool)
}

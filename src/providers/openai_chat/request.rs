//! OpenAI Chat Completions request bodies (§7.1), the format of every OpenAI-compatible server.

use serde_json::{json, Map, Value};

use crate::error::{Error, Result};
use crate::model::continuity::{openai_tool_call, FORMAT_PRIVATE_KEYS, TOOL_CALLS};
use crate::model::{Agent, ContentPart, Message, MessageContent, Property};
use crate::options::{merge_absent, openai_chat};
use crate::request::{parallel_tool_calls, split_data_url};
use crate::schema::to_strict_schema;
use crate::tools::{project_tools, FunctionDef};

/// §7.1.7 `build_chat_args`.
pub(crate) fn build(agent: &Agent, messages: &[Message]) -> Result<Value> {
    let wire: Vec<Value> = messages
        .iter()
        .enumerate()
        .map(|(i, m)| message_to_wire(m, &format!("messages[{i}]")))
        .collect::<Result<_>>()?;
    let mut body = Map::new();
    body.insert("model".into(), Value::String(agent.model.id.clone()));
    body.insert("messages".into(), Value::Array(wire));
    let tools = project_tools(&agent.tools)?;
    // §7.1.3: no tools means no `tools` key at all, not an empty array.
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools.iter().map(function_tool).collect()));
        parallel_tool_calls(&mut body, &agent.model.options);
    }
    if let Some(format) = response_format(&agent.outputs) {
        body.insert("response_format".into(), format);
    }
    merge_absent(&mut body, &openai_chat(&agent.model.options));
    Ok(Value::Object(body))
}

/// §7.1.1 `message_to_wire`: metadata merged in, one text part as a plain string.
///
/// `tool_calls` is rewritten in the OpenAI shape (it may arrive flat), metadata never replaces
/// `role` or `content`, and replay data of other formats is left out. An assistant turn that
/// only calls tools sends `content: null`, which the API accepts where an empty array is not.
pub(crate) fn message_to_wire(message: &Message, path: &str) -> Result<Value> {
    let mut wire = Map::new();
    wire.insert("role".into(), Value::String(message.role.clone()));
    for (key, value) in &message.metadata {
        if !FORMAT_PRIVATE_KEYS.contains(&key.as_str()) && key != "role" && key != "content" {
            wire.insert(key.clone(), value.clone());
        }
    }
    let calls = message.tool_call_list(path)?;
    if calls.is_empty() {
        // The API rejects an empty `tool_calls` array.
        wire.remove(TOOL_CALLS);
    } else {
        wire.insert(TOOL_CALLS.into(), Value::Array(calls.iter().map(openai_tool_call).collect()));
    }
    let content = match &message.content {
        content if content.is_empty() && !calls.is_empty() => Value::Null,
        MessageContent::Text(text) => Value::String(text.clone()),
        MessageContent::Parts(parts) => match parts.as_slice() {
            [only] if only.is_text() => Value::String(only.value.clone()),
            parts => Value::Array(
                parts
                    .iter()
                    .enumerate()
                    .map(|(j, part)| part_to_wire(part, &format!("{path}.content[{j}]")))
                    .collect::<Result<_>>()?,
            ),
        },
    };
    wire.insert("content".into(), content);
    Ok(Value::Object(wire))
}

/// §7.1.2 `part_to_wire`. An empty `detail` is never sent. Audio given as a `data:` URL is
/// split, since `input_audio.data` is bare base64; a file given as a `data:` URL goes in
/// `file_data`, the field the API reads inline files from.
pub(crate) fn part_to_wire(part: &ContentPart, path: &str) -> Result<Value> {
    Ok(match part.kind.as_str() {
        "text" => json!({"type": "text", "text": part.value}),
        "image" => {
            let mut image = json!({"url": part.value});
            if let Some(detail) = part.detail.as_deref().filter(|d| !d.is_empty()) {
                image["detail"] = Value::String(detail.to_owned());
            }
            json!({"type": "image_url", "image_url": image})
        }
        "audio" => {
            let (data, format) = audio_data(part, path)?;
            json!({"type": "input_audio", "input_audio": {"data": data, "format": format}})
        }
        "file" if part.value.starts_with("data:") => json!({"type": "file", "file": {"file_data": part.value}}),
        "file" => json!({"type": "file", "file": {"url": part.value}}),
        other => return Err(unknown_part(other, path)),
    })
}

/// The bare base64 data and the API format of an audio part.
pub(crate) fn audio_data<'a>(part: &'a ContentPart, path: &str) -> Result<(&'a str, String)> {
    let (media_type, data) = match split_data_url(&part.value) {
        Some((media_type, data)) => (part.media_type.as_deref().unwrap_or(media_type), data),
        None => match part.media_type.as_deref() {
            Some(media_type) => (media_type, part.value.as_str()),
            None => {
                return Err(Error::invalid_input(
                    format!("{path}.mediaType"),
                    "an audio part needs a mediaType (audio/wav, audio/mp3, ...) to name its format",
                ))
            }
        },
    };
    Ok((data, audio_format(media_type)))
}

/// §7.1.2 audio format table: wav, mp3, flac, ogg, and any other `audio/*` without its prefix.
pub fn audio_format(media_type: &str) -> String {
    let essence = media_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    match essence.as_str() {
        "audio/wav" | "audio/x-wav" => "wav".into(),
        "audio/mp3" | "audio/mpeg" => "mp3".into(),
        "audio/flac" => "flac".into(),
        "audio/ogg" => "ogg".into(),
        other => other.strip_prefix("audio/").unwrap_or(other).to_owned(),
    }
}

pub(crate) fn unknown_part(kind: &str, path: &str) -> Error {
    Error::invalid_input(
        format!("{path}.kind"),
        format!("unknown content part kind `{kind}` (text, image, audio, file)"),
    )
}

/// `{type: "function", function: {name, description, parameters, strict?}}` (§7.1.3).
pub(crate) fn function_tool(def: &FunctionDef) -> Value {
    let mut function = Map::new();
    function.insert("name".into(), Value::String(def.name.clone()));
    if let Some(description) = &def.description {
        function.insert("description".into(), Value::String(description.clone()));
    }
    function.insert("parameters".into(), def.parameters.clone());
    if def.strict {
        function.insert("strict".into(), Value::Bool(true));
    }
    json!({"type": "function", "function": function})
}

/// §7.1.6 `output_schema_to_wire`, with the strict schema of DESIGN.md §3.
pub(crate) fn response_format(outputs: &[Property]) -> Option<Value> {
    if outputs.is_empty() {
        return None;
    }
    Some(json!({
        "type": "json_schema",
        "json_schema": {"name": "structured_output", "strict": true, "schema": to_strict_schema(outputs)},
    }))
}

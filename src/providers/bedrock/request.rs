//! Bedrock Converse request bodies (docs/design.md, "Formats", Bedrock).
//!
//! The model is named by the URL, not the body. System and developer text is `system`, one text
//! block each; every other message is a turn of `messages`, whose `content` is a list of
//! content blocks, each an object with one member (`text`, `image`, `document`, `toolUse`, ...).
//! Converse wants the roles to alternate: consecutive messages of one role, and the `tool`
//! messages answering a turn's calls (as `toolResult` blocks of a user turn), join one turn; a
//! turn with no content is left out.

use super::redacted;
use crate::error::{Error, Result};
use crate::json::value::parse_value;
use crate::json::{Map, Value};
use crate::model::continuity::{ReasoningState, ANTHROPIC_THINKING, BLOCKS};
use crate::model::{Agent, Block, ContentPart, Message, MessageContent, ToolCall};
use crate::options::write_absent;
use crate::providers::anthropic::request::media_and_data;
use crate::providers::openai_chat::request::unknown_part;
use crate::request::wire::{field, index, json as json_text, text as quoted, Array, Fields, Object};
use crate::request::{is_system, missing_call_id};
use crate::schema::to_strict_schema;
use crate::tools::project_tools;

/// The top-level members of a Converse request an `additionalProperties` key may set; any other
/// key is one of the model's own parameters and goes in `additionalModelRequestFields`.
const CONVERSE_KEYS: &[&str] = &[
    "additionalModelResponseFieldPaths",
    "guardrailConfig",
    "outputConfig",
    "performanceConfig",
    "promptVariables",
    "requestMetadata",
    "serviceTier",
    "toolConfig",
];

/// A turn of the conversation being written.
struct Turn<'m> {
    role: &'m str,
    blocks: Array,
}

/// The request body, as JSON text to be (see `request::wire`), onto `body` (which has no model:
/// Bedrock names it in the URL).
pub(crate) fn build(agent: &Agent, messages: &[Message], body: &mut Fields) -> Result<()> {
    let mut system = Array::new();
    let mut turns: Vec<Turn> = Vec::new();
    let mut documents = 0;
    for (i, message) in messages.iter().enumerate() {
        let path = index("messages", i);
        if is_system(message) {
            let text = message.content.text();
            if !text.is_empty() {
                system.push(text_block(&text));
            }
            continue;
        }
        // Tool results are the user's turn.
        let role = if message.role == "tool" { "user" } else { message.role.as_str() };
        // Converse refuses a turn with no content: it is left out, and the turns around it join
        // when they share a role.
        if turns.last().is_some_and(|t| t.blocks.is_empty()) {
            turns.pop();
        }
        if turns.last().map(|t| t.role) != Some(role) {
            turns.push(Turn { role, blocks: Array::new() });
        }
        let Some(Turn { blocks, .. }) = turns.last_mut() else { continue };
        match message.role.as_str() {
            "tool" => blocks.push(tool_result(message, &path, &mut documents)?),
            "assistant" => write_assistant(message, &path, blocks, &mut documents)?,
            _ => write_parts(&message.content, &path, blocks, &mut documents)?,
        }
    }
    let mut written = Array::new();
    for turn in turns.iter().filter(|t| !t.blocks.is_empty()) {
        written.push(Object::new().array("content", &turn.blocks).str("role", turn.role).finish());
    }
    body.set("messages", written.finish());
    if !system.is_empty() {
        body.set("system", system.finish());
    }
    write_tools(agent, body)?;
    if !agent.outputs.is_empty() {
        body.set("outputConfig", output_config(agent));
    }
    write_options(agent, body);
    Ok(())
}

/// `{text}`.
fn text_block(text: &str) -> String {
    Object::new().str("text", text).finish()
}

/// The content parts of a message onto `blocks`; empty text is left out, as Converse refuses a
/// blank text block.
fn write_parts(content: &MessageContent, path: &str, blocks: &mut Array, documents: &mut usize) -> Result<()> {
    match content {
        MessageContent::Text(text) if text.is_empty() => {}
        MessageContent::Text(text) => blocks.push(text_block(text)),
        MessageContent::Parts(parts) => {
            let path = field(path, "content");
            for (j, part) in parts.iter().enumerate() {
                if !(part.is_text() && part.value.is_empty()) {
                    blocks.push(part_block(part, &index(&path, j), documents)?);
                }
            }
        }
    }
    Ok(())
}

/// One content part as a block: text, or an image, document, video or audio from base64 data
/// (a `data:` URL or bare base64) or an `s3://` URI. Bedrock fetches no `http(s)` URL.
fn part_block(part: &ContentPart, path: &str, documents: &mut usize) -> Result<String> {
    if part.is_text() {
        return Ok(text_block(&part.value));
    }
    if !matches!(part.kind.as_str(), "image" | "file" | "audio") {
        return Err(unknown_part(&part.kind, path));
    }
    if part.value.starts_with("https://") || part.value.starts_with("http://") {
        return Err(Error::invalid_input(
            field(path, "value"),
            "Bedrock does not fetch URLs: give the data as base64 (a data: URL) or an s3:// URI",
        ));
    }
    let (media_type, source) = match part.value.strip_prefix("s3://") {
        Some(_) => {
            let media_type = part.media_type.as_deref().unwrap_or_else(|| media_type_of_path(&part.value));
            let location = Object::new().str("uri", &part.value).finish();
            (media_type, Object::new().json("s3Location", &location).finish())
        }
        None => {
            let (media_type, data) = media_and_data(part, path)?;
            (media_type, Object::new().str("bytes", data).finish())
        }
    };
    let (member, format) = format_of(&part.kind, media_type).ok_or_else(|| {
        Error::invalid_input(
            field(path, "mediaType"),
            format!("Bedrock does not take {} parts of type {}", part.kind, quoted(media_type)),
        )
    })?;
    let block = match member {
        "document" => {
            // Converse requires a name, unique in the request.
            *documents += 1;
            let name = format!("Document {documents}");
            Object::new().str("format", format).str("name", &name).json("source", &source).finish()
        }
        _ => Object::new().str("format", format).json("source", &source).finish(),
    };
    Ok(Object::new().json(member, &block).finish())
}

/// The Converse block member and format of a part of `kind` with `media_type`: `image` (png,
/// jpeg, gif, webp), `document` (pdf, csv, doc, docx, xls, xlsx, html, txt, md), `video` (a file
/// of a video type) or `audio`; `None` for a type Converse does not take.
fn format_of(kind: &str, media_type: &str) -> Option<(&'static str, &'static str)> {
    let media_type = media_type.to_ascii_lowercase();
    let (group, subtype) = media_type.split_once('/').unwrap_or(("", media_type.as_str()));
    match (kind, group) {
        ("image", _) => {
            let format = match subtype {
                "png" => "png",
                "jpeg" | "jpg" => "jpeg",
                "gif" => "gif",
                "webp" => "webp",
                _ => return None,
            };
            Some(("image", format))
        }
        ("audio", _) => {
            let format = match subtype {
                "mpeg" | "mp3" => "mp3",
                "wav" | "x-wav" | "wave" => "wav",
                "mp4" | "m4a" | "x-m4a" => "m4a",
                "aac" | "x-aac" => "aac",
                "flac" => "flac",
                "ogg" => "ogg",
                "opus" => "opus",
                "webm" => "webm",
                _ => return None,
            };
            Some(("audio", format))
        }
        ("file", "video") => {
            let format = match subtype {
                "mp4" => "mp4",
                "quicktime" => "mov",
                "x-matroska" => "mkv",
                "webm" => "webm",
                "x-flv" => "flv",
                "mpeg" => "mpeg",
                "x-ms-wmv" => "wmv",
                "3gpp" => "three_gp",
                _ => return None,
            };
            Some(("video", format))
        }
        ("file", _) => {
            let format = match media_type.as_str() {
                "application/pdf" => "pdf",
                "text/csv" => "csv",
                "application/msword" => "doc",
                "application/vnd.openxmlformats-officedocument.wordprocessingml.document" => "docx",
                "application/vnd.ms-excel" => "xls",
                "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" => "xlsx",
                "text/html" => "html",
                "text/plain" => "txt",
                "text/markdown" => "md",
                _ => return None,
            };
            Some(("document", format))
        }
        _ => None,
    }
}

/// The media type of an `s3://` object from its extension.
fn media_type_of_path(uri: &str) -> &'static str {
    let extension = uri.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    match extension.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "pdf" => "application/pdf",
        "txt" => "text/plain",
        "md" => "text/markdown",
        "html" => "text/html",
        "csv" => "text/csv",
        "mp4" => "video/mp4",
        _ => "",
    }
}

/// A `tool` message as `{toolResult: {content, toolUseId}}`: its text, or its parts as blocks;
/// empty text is left out, as in any message (an empty result has an empty `content`).
fn tool_result(message: &Message, path: &str, documents: &mut usize) -> Result<String> {
    let id = message.tool_call_id().ok_or_else(|| missing_call_id(path))?;
    let mut content = Array::new();
    match &message.content {
        MessageContent::Parts(parts) if !parts.iter().all(ContentPart::is_text) => {
            write_parts(&message.content, path, &mut content, documents)?
        }
        _ => write_parts(&MessageContent::Text(message.content.text()), path, &mut content, documents)?,
    }
    let result = Object::new().array("content", &content).str("toolUseId", id).finish();
    Ok(Object::new().json("toolResult", &result).finish())
}

/// An assistant message: from `metadata.blocks` when it has them (a finished turn sent back),
/// else its replayed Anthropic thinking, its content and its tool calls.
fn write_assistant(message: &Message, path: &str, blocks: &mut Array, documents: &mut usize) -> Result<()> {
    if let Some(given) = message.blocks(path)? {
        return write_final_blocks(&given, &field(path, &format!("metadata.{BLOCKS}")), blocks);
    }
    if let Some(Value::Array(thinking)) = message.metadata.get(ANTHROPIC_THINKING) {
        for block in thinking {
            let text = |key| block.get(key).and_then(Value::as_str);
            match block.get("type").and_then(Value::as_str) {
                Some("thinking") => {
                    if let Some(signature) = text("signature") {
                        blocks.push(reasoning_text(text("thinking").unwrap_or(""), signature));
                    }
                }
                Some("redacted_thinking") => {
                    if let Some(data) = text("data") {
                        blocks.push(redacted::write(data));
                    }
                }
                _ => {}
            }
        }
    }
    write_parts(&message.content, path, blocks, documents)?;
    for (k, call) in message.tool_call_list(path)?.iter().enumerate() {
        blocks.push(tool_use(call, &index(&field(path, "metadata.tool_calls"), k))?);
    }
    Ok(())
}

/// The blocks of a finished turn, in order (docs/design.md, "Reasoning that goes back"): signed
/// and redacted reasoning (Claude's, from Anthropic or Bedrock), Bedrock's own redacted bytes,
/// text and tool calls; what Converse cannot take back (other APIs' reasoning state, reasoning
/// without a signature, other `other` blocks) is left out.
fn write_final_blocks(given: &[Block], path: &str, blocks: &mut Array) -> Result<()> {
    for (j, block) in given.iter().enumerate() {
        match block {
            Block::Text { text, .. } if !text.is_empty() => blocks.push(text_block(text)),
            Block::ToolCall { id, name, arguments, .. } => {
                let call = ToolCall { id: id.clone(), name: name.clone(), arguments: arguments.clone() };
                blocks.push(tool_use(&call, &index(path, j))?);
            }
            // Redacted bytes that are not text, kept as they came.
            Block::Other { provider_type, data } if provider_type == redacted::REASONING_CONTENT => {
                blocks.push(Object::new().json(redacted::REASONING_CONTENT, data.get()).finish());
            }
            _ => match ReasoningState::of(block) {
                Some(ReasoningState::Signed { text, signature }) => blocks.push(reasoning_text(text, signature)),
                Some(ReasoningState::Redacted { data }) => blocks.push(redacted::write(data)),
                _ => {}
            },
        }
    }
    Ok(())
}

/// `{reasoningContent: {reasoningText: {signature, text}}}`.
fn reasoning_text(text: &str, signature: &str) -> String {
    let inner = Object::new().str("signature", signature).str("text", text).finish();
    Object::new().json("reasoningContent", &Object::new().json("reasoningText", &inner).finish()).finish()
}

/// `{toolUse: {input, name, toolUseId}}`; the arguments must be a JSON object (empty is `{}`).
fn tool_use(call: &ToolCall, path: &str) -> Result<String> {
    let input = if call.arguments.trim().is_empty() {
        Value::Object(Map::new())
    } else {
        parse_value(&call.arguments).ok().filter(Value::is_object).ok_or_else(|| {
            Error::invalid_input(path, format!("the arguments of tool call `{}` are not a JSON object", call.id))
        })?
    };
    let block = Object::new().json("input", &json_text(&input)).str("name", &call.name).str("toolUseId", &call.id);
    Ok(Object::new().json("toolUse", &block.finish()).finish())
}

/// `toolConfig`: every tool kind as `{toolSpec: {description?, inputSchema: {json}, name,
/// strict?}}`, then what a `toolConfig` given in `additionalProperties` adds: its `tools`
/// (Converse's own, such as `systemTool` or `cachePoint`) after these, and its `toolChoice`. No
/// tools: no `toolConfig`.
fn write_tools(agent: &Agent, body: &mut Fields) -> Result<()> {
    let mut tools = Array::new();
    for def in project_tools(&agent.tools)? {
        let mut spec = Fields::new();
        if let Some(description) = &def.description {
            spec.str("description", description);
        }
        spec.set("inputSchema", Object::new().json("json", &json_text(&def.parameters)).finish());
        spec.str("name", &def.name);
        if def.strict {
            spec.bool("strict", true);
        }
        tools.push(Object::new().json("toolSpec", &spec.finish()).finish());
    }
    let mut config = Fields::new();
    if let Some(Value::Object(given)) = agent.model.options.additional_properties.get("toolConfig") {
        if let Some(Value::Array(more)) = given.get("tools") {
            more.iter().for_each(|tool| tools.push(json_text(tool)));
        }
        write_absent(&mut config, given);
    }
    if !tools.is_empty() {
        config.set("tools", tools.finish());
        body.set("toolConfig", config.finish());
    }
    Ok(())
}

/// Converse's own structured output: `outputConfig.textFormat` with the strict schema as JSON
/// text, then the other members of an `outputConfig` given in `additionalProperties` (such as
/// `effort`). The answer is then the message's text, read as every format's is.
fn output_config(agent: &Agent) -> String {
    let schema = json_text(&to_strict_schema(&agent.outputs));
    let json_schema = Object::new().str("name", "structured_output").str("schema", &schema).finish();
    let structure = Object::new().json("jsonSchema", &json_schema).finish();
    let format = Object::new().json("structure", &structure).str("type", "json_schema").finish();
    let mut config = Fields::new();
    config.set("textFormat", format);
    if let Some(Value::Object(given)) = agent.model.options.additional_properties.get("outputConfig") {
        write_absent(&mut config, given);
    }
    config.finish()
}

/// `inferenceConfig` from the options (`maxTokens`, `stopSequences`, `temperature`, `topP`),
/// `topK` and every additional property that is not a Converse member in
/// `additionalModelRequestFields`; Converse has no penalties or seed, which are left out.
fn write_options(agent: &Agent, body: &mut Fields) {
    let options = &agent.model.options;
    let mut inference = Fields::new();
    let numbers =
        [("maxTokens", &options.max_output_tokens), ("temperature", &options.temperature), ("topP", &options.top_p)];
    for (name, value) in numbers {
        if let Some(value) = value {
            inference.value(name, value);
        }
    }
    if let Some(stop) = &options.stop_sequences {
        let mut written = Array::new();
        stop.iter().for_each(|s| written.str(s));
        inference.set("stopSequences", written.finish());
    }
    let mut model_fields = Fields::new();
    if let Some(top_k) = &options.top_k {
        model_fields.value("top_k", top_k);
    }
    let mut converse = Map::new();
    for (key, value) in &options.additional_properties {
        match (key.as_str(), value) {
            ("inferenceConfig", Value::Object(given)) => write_absent(&mut inference, given),
            ("additionalModelRequestFields", Value::Object(given)) => write_absent(&mut model_fields, given),
            // Merged into the built ones by `write_tools` and `output_config`.
            ("toolConfig", Value::Object(_)) => {}
            ("outputConfig", Value::Object(_)) if !agent.outputs.is_empty() => {}
            (key, _) if CONVERSE_KEYS.contains(&key) => {
                converse.insert(key.to_owned(), value.clone());
            }
            _ => model_fields.set_absent(key, json_text(value)),
        }
    }
    // An empty object is left out, as the other formats leave out what they do not set.
    for (key, fields) in [("inferenceConfig", inference), ("additionalModelRequestFields", model_fields)] {
        let written = fields.finish();
        if written != "{}" {
            body.set(key, written);
        }
    }
    write_absent(body, &converse);
}

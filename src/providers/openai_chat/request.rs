//! OpenAI Chat Completions request bodies (§7.1), the format of every OpenAI-compatible server.

use std::borrow::Cow;

use crate::error::{Error, Result};
use crate::json::Map;
use crate::model::continuity::{
    blocks_calls, blocks_text, write_openai_tool_call, ReasoningState, FORMAT_PRIVATE_KEYS, TOOL_CALLS,
};
use crate::model::{Agent, Block, ContentPart, Message, MessageContent, Property};
use crate::options::write_chat_compatible;
use crate::providers::anthropic::request::media_and_data;
use crate::request::wire::{field, index, json as json_text, text, Array, Fields, Object};
use crate::request::{split_data_url, Api};
use crate::schema::{check_strict_items, to_strict_schema};
use crate::tools::write_tools;

/// Whether a Chat message leaves out the metadata key: the other formats' replay data, and the
/// message's own fields (`tool_calls` is written from the calls read).
fn is_not_metadata(key: &str) -> bool {
    FORMAT_PRIVATE_KEYS.contains(&key) || key == "role" || key == "content" || key == TOOL_CALLS
}

/// The bare base64 data and the API format of an audio part.
fn audio_data<'a>(part: &'a ContentPart, path: &str) -> Result<(&'a str, String)> {
    let (media_type, data) = match split_data_url(&part.value) {
        Some((media_type, data)) => (part.media_type.as_deref().unwrap_or(media_type), data),
        None => match part.media_type.as_deref() {
            Some(media_type) => (media_type, part.value.as_str()),
            None => {
                return Err(Error::invalid_input(
                    field(path, "mediaType"),
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
        "audio/wav" | "audio/x-wav" => "wav".to_owned(),
        "audio/mp3" | "audio/mpeg" => "mp3".to_owned(),
        "audio/flac" => "flac".to_owned(),
        "audio/ogg" => "ogg".to_owned(),
        other => other.strip_prefix("audio/").unwrap_or(other).to_owned(),
    }
}

/// A part of a kind no format knows (only a part built in Rust can have one).
pub(crate) fn unknown_part(kind: &str, path: &str) -> Error {
    Error::invalid_input(field(path, "kind"), format!("unknown content part kind `{kind}` (text, image, audio, file)"))
}

/// The request body, as JSON text to be (see `request::wire`), onto `body` (which has the model).
pub(crate) fn build(agent: &Agent, messages: &[Message], body: &mut Fields) -> Result<()> {
    // OpenAI's own servers define Chat and have no `reasoning_details`; the gateways that
    // stream them (OpenRouter, Vercel AI Gateway) take them back.
    let details = !matches!(agent.model.provider.as_str(), "openai" | "azure");
    let mut wire = Array::new();
    for (i, message) in messages.iter().enumerate() {
        wire.push(write_message(message, &index("messages", i), details)?);
    }
    body.set("messages", wire.finish());
    write_tools(body, agent, Api::OpenAiChat)?;
    if let Some(format) = write_response_format(&agent.outputs, false)? {
        body.set("response_format", format);
    }
    write_chat_compatible(&agent.model.options, agent.model.provider(), body);
    Ok(())
}

/// One message: its role, metadata, tool calls and content; an assistant turn with blocks is
/// written from them (docs/design.md, "Reasoning that goes back"), with its `reasoning_details`
/// when `details`.
fn write_message(message: &Message, path: &str, details: bool) -> Result<String> {
    let mut wire = Fields::new();
    wire.str("role", &message.role);
    for (key, value) in &message.metadata {
        // `tool_calls` is written from the calls read below (and left out when there are none).
        if !is_not_metadata(key) {
            wire.value(key, value);
        }
    }
    let blocks = message.blocks(path)?;
    let (calls, from_blocks) = match &blocks {
        Some(blocks) => (blocks_calls(blocks), Some(MessageContent::Text(blocks_text(blocks)))),
        None => (message.tool_call_list(path)?, None),
    };
    if !calls.is_empty() {
        let mut written = Array::new();
        for call in &calls {
            written.push(write_openai_tool_call(call));
        }
        wire.set(TOOL_CALLS, written.finish());
    }
    if let Some(details) = blocks.as_deref().filter(|_| details).and_then(write_reasoning_details) {
        wire.set("reasoning_details", details);
    }
    let content = match from_blocks.as_ref().unwrap_or(&message.content) {
        content if content.is_empty() && !calls.is_empty() => "null".to_owned(),
        content => write_content(content, path, None)?,
    };
    wire.set("content", content);
    Ok(wire.finish())
}

/// The `reasoning_details` of a turn, rebuilt from its blocks that came from them (OpenRouter
/// and Vercel AI Gateway need them back across tool calls); `None` when there are none.
fn write_reasoning_details(blocks: &[Block]) -> Option<String> {
    let mut details = Array::new();
    let mut index = 0;
    for state in blocks.iter().filter_map(ReasoningState::of) {
        let ReasoningState::Details { format, text, signature, data, id } = state else { continue };
        let mut detail = Fields::new();
        detail.str("format", format);
        detail.set("index", index.to_string());
        index += 1;
        if let Some(id) = id {
            detail.str("id", id);
        }
        match data {
            Some(data) => {
                detail.str("data", data);
                detail.str("type", "reasoning.encrypted");
            }
            None => {
                detail.str("text", text);
                if let Some(signature) = signature {
                    detail.str("signature", signature);
                }
                detail.str("type", "reasoning.text");
            }
        }
        details.push(detail.finish());
    }
    (!details.is_empty()).then(|| details.finish())
}

/// A message's content as JSON text: a string for text or a single text part, else its parts
/// ([`write_parts`]).
pub(crate) fn write_content(content: &MessageContent, path: &str, text_type: Option<&'static str>) -> Result<String> {
    let parts = match content {
        MessageContent::Text(value) => return Ok(text(value)),
        MessageContent::Parts(parts) => parts,
    };
    if let [only] = parts.as_slice() {
        if only.is_text() {
            return Ok(text(&only.value));
        }
    }
    write_parts(parts, path, text_type)
}

/// The content parts of the message at `path` as a JSON array (errors name `path.content[j]`),
/// for Chat (`text_type` `None`) and Responses (`input_text` or `output_text`).
pub(crate) fn write_parts(parts: &[ContentPart], path: &str, text_type: Option<&'static str>) -> Result<String> {
    let path = field(path, "content");
    let mut written = Array::new();
    for (j, part) in parts.iter().enumerate() {
        written.push(write_part(part, &index(&path, j), text_type)?);
    }
    Ok(written.finish())
}

/// One content part. Chat nests an image or a file under its type
/// (`{type: "image_url", image_url: {url, detail?}}`); Responses lays every part flat
/// (`{type: "input_image", image_url, detail?}`).
fn write_part(part: &ContentPart, path: &str, text_type: Option<&'static str>) -> Result<String> {
    let chat = text_type.is_none();
    let mut item = Fields::new();
    let (kind, nested) = match part.kind.as_str() {
        "text" => {
            item.str("text", &part.value);
            (text_type.unwrap_or("text"), false)
        }
        "image" => {
            item.str(if chat { "url" } else { "image_url" }, &image_url(part, path)?);
            if let Some(detail) = part.detail.as_deref().filter(|d| !d.is_empty()) {
                item.str("detail", detail);
            }
            (if chat { "image_url" } else { "input_image" }, chat)
        }
        "audio" => {
            item.set("input_audio", write_audio(part, path)?);
            ("input_audio", false)
        }
        "file" => {
            write_file(part, path, chat, &mut item)?;
            (if chat { "file" } else { "input_file" }, chat)
        }
        _ => return Err(unknown_part(&part.kind, path)),
    };
    if nested {
        return Ok(Object::new().json(kind, &item.finish()).str("type", kind).finish());
    }
    item.str("type", kind);
    Ok(item.finish())
}

/// Whether a part's value is a URL (`data:`, `http(s):` or any other scheme) rather than bare
/// base64, whose alphabet has no `:`.
fn is_url(value: &str) -> bool {
    value.contains(':')
}

/// An image's URL: a URL as given; bare base64 as a `data:` URL of its media type, as OpenAI
/// takes no bare base64 (docs/design.md, "OpenAI Chat requests").
fn image_url<'p>(part: &'p ContentPart, path: &str) -> Result<Cow<'p, str>> {
    if is_url(&part.value) {
        return Ok(Cow::Borrowed(&part.value));
    }
    let (media_type, data) = media_and_data(part, path)?;
    Ok(Cow::Owned(format!("data:{media_type};base64,{data}")))
}

/// A file's fields onto `item`: an uploaded file's id (`file-...`) as `file_id`; base64 data (a
/// `data:` URL, or bare with its media type) as a `data:` URL in `file_data`, with a `filename`,
/// which OpenAI wants beside it; a URL as Responses' `file_url`, which Chat does not have.
fn write_file(part: &ContentPart, path: &str, chat: bool, item: &mut Fields) -> Result<()> {
    let value = part.value.as_str();
    if value.starts_with("file-") {
        item.str("file_id", value);
        return Ok(());
    }
    if is_url(value) && !value.starts_with("data:") {
        if chat {
            return Err(Error::invalid_input(
                field(path, "value"),
                "OpenAI Chat takes no file URL: give the file as base64 (a data: URL) or as an uploaded file id (file-...)",
            ));
        }
        item.str("file_url", value);
        return Ok(());
    }
    let (media_type, data) = media_and_data(part, path)?;
    if value.starts_with("data:") {
        item.str("file_data", value);
    } else {
        item.str("file_data", &format!("data:{media_type};base64,{data}"));
    }
    item.str("filename", &file_name(media_type));
    Ok(())
}

/// The name a file sent as data gets, as a part carries none: `file` with the extension its
/// media type names (`application/pdf` → `file.pdf`, `text/plain` → `file.txt`); `file` alone
/// when the subtype is not a plain word.
fn file_name(media_type: &str) -> String {
    let essence = media_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    let subtype = essence.split_once('/').map_or("", |(_, subtype)| subtype);
    let extension = match subtype {
        "plain" => "txt",
        "markdown" => "md",
        other => other,
    };
    if extension.is_empty() || !extension.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return "file".to_owned();
    }
    format!("file.{extension}")
}

/// `{data, format}` of an audio part, as JSON text (Chat and Responses alike).
pub(crate) fn write_audio(part: &ContentPart, path: &str) -> Result<String> {
    let (data, format) = audio_data(part, path)?;
    Ok(Object::new().str("data", data).str("format", &format).finish())
}

/// The structured output format (`None` without outputs): Chat's `response_format`
/// (`{type: "json_schema", json_schema: {name, strict, schema}}`), or, `flat`, the Responses
/// `text.format` (`{type: "json_schema", name, strict, schema}`). An array without `items` is
/// `invalid_input` at them, as strict mode refuses it.
pub(crate) fn write_response_format(outputs: &[Property], flat: bool) -> Result<Option<String>> {
    if outputs.is_empty() {
        return Ok(None);
    }
    check_strict_items(outputs, "agent.outputs", &Map::new())?;
    let schema = json_text(&to_strict_schema(outputs));
    let format = Object::new().str("name", "structured_output").json("schema", &schema).json("strict", "true");
    if flat {
        return Ok(Some(format.str("type", "json_schema").finish()));
    }
    Ok(Some(Object::new().json("json_schema", &format.finish()).str("type", "json_schema").finish()))
}

#[cfg(test)]
mod tests {
    use super::{audio_format, file_name};

    #[test]
    fn a_file_is_named_by_the_extension_its_media_type_names() {
        let cases = [
            ("application/pdf", "file.pdf"),
            ("Application/PDF; x=1", "file.pdf"),
            ("text/plain", "file.txt"),
            ("text/markdown", "file.md"),
            ("text/csv", "file.csv"),
            ("application/vnd.openxmlformats-officedocument.wordprocessingml.document", "file"),
            ("text/x-python", "file"),
            ("pdf", "file"),
            ("", "file"),
            ("application/", "file"),
        ];
        for (media_type, name) in cases {
            assert_eq!(file_name(media_type), name, "{media_type:?}");
        }
    }

    #[test]
    fn audio_format_takes_the_essence_before_the_first_semicolon() {
        let cases = [
            ("audio/wav", "wav"),
            ("audio/x-wav;codecs=1", "wav"),
            (" AUDIO/MPEG ; rate=44100", "mp3"),
            ("audio/flac;", "flac"),
            (";audio/ogg", ""),
            ("", ""),
            (";", ""),
            ("audio/opus;;x", "opus"),
            ("video/mp4", "video/mp4"),
            ("audio/Ünï;x", "Ünï"),
        ];
        for (media_type, format) in cases {
            assert_eq!(audio_format(media_type), format, "{media_type:?}");
        }
    }
}

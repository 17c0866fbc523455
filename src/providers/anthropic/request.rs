//! Anthropic Messages request bodies (§7.5, options §7.6).
//!
//! System (and developer) text is the top-level `system`; content is always an array of blocks.
//! Tool calls of an assistant turn become `tool_use` blocks (after any replayed thinking), and
//! the `tool` messages answering them become `tool_result` blocks of one user turn, as the API
//! requires all results of a turn in the next user message.

use std::borrow::Cow;

use crate::base64;
use crate::error::{Error, Result};
use crate::json::value::parse_value;
use crate::json::{Map, Value};
use crate::model::continuity::{ReasoningState, ANTHROPIC_THINKING};
use crate::model::{Agent, Block, ContentPart, Message, MessageContent, ToolCall};
use crate::options::write_anthropic;
use crate::providers::openai_chat::request::unknown_part;
use crate::request::wire::{field, index, json as json_text, Array, Fields, Object};
use crate::request::{is_system, missing_call_id, percent_decode, read_data_url, split_data_url, system_text, Api};
use crate::tools::write_tools;

/// The content block types of Anthropic's own server tools, which an assistant turn sends back
/// as they came (kept as `other` blocks).
const SERVER_BLOCK_TYPES: &[&str] = &[
    "server_tool_use",
    "web_search_tool_result",
    "web_fetch_tool_result",
    "code_execution_tool_result",
    "bash_code_execution_tool_result",
    "text_editor_code_execution_tool_result",
    "tool_search_tool_result",
    "mcp_tool_use",
    "mcp_tool_result",
    "container_upload",
];

/// Tool-call arguments as the object `tool_use.input` wants; an empty string is `{}`.
fn parse_arguments(arguments: &str) -> Option<Value> {
    if arguments.trim().is_empty() {
        return Some(Value::Object(Map::new()));
    }
    parse_value(arguments).ok().filter(Value::is_object)
}

/// The media type and base64 data of a part that is not a URL: a `data:` URL split, or bare
/// base64 with its `mediaType` (sniffed from the data when not given).
pub(crate) fn media_and_data<'p>(part: &'p ContentPart, path: &str) -> Result<(&'p str, &'p str)> {
    Ok(match split_data_url(&part.value) {
        Some((media_type, data)) => (part.media_type.as_deref().unwrap_or(media_type), data),
        None => {
            let media_type = part.media_type.as_deref().or_else(|| sniff_media_type(&part.value)).ok_or_else(|| {
                Error::invalid_input(
                    field(path, "mediaType"),
                    format!("a base64 {} part needs a mediaType (image/png, application/pdf, ...)", part.kind),
                )
            })?;
            (media_type, part.value.as_str())
        }
    })
}

/// The media type of base64 data from the magic bytes of the formats Anthropic accepts.
pub(crate) fn sniff_media_type(base64: &str) -> Option<&'static str> {
    const MAGIC: &[(&str, &str)] = &[
        ("iVBORw0KGgo", "image/png"),
        ("/9j/", "image/jpeg"),
        ("R0lGOD", "image/gif"),
        ("UklGR", "image/webp"),
        ("JVBERi0", "application/pdf"),
    ];
    MAGIC.iter().find(|(prefix, _)| base64.starts_with(prefix)).map(|(_, media_type)| *media_type)
}

/// A turn of the conversation: its role, its `tool_result` blocks and its other content blocks,
/// each as JSON text (the results go first, as the API requires).
struct WrittenTurn<'m> {
    role: &'m str,
    results: Vec<String>,
    blocks: Vec<String>,
}

impl WrittenTurn<'_> {
    fn is_empty(&self) -> bool {
        self.results.is_empty() && self.blocks.is_empty()
    }
}

/// The request body, as JSON text to be (see `request::wire`), onto `body` (which has the model).
pub(crate) fn build(agent: &Agent, messages: &[Message], body: &mut Fields) -> Result<()> {
    let mut turns: Vec<WrittenTurn> = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        if !is_system(message) {
            write_message(message, &index("messages", i), &mut turns)?;
        }
    }
    if let Some(system) = system_text(messages) {
        body.str("system", &system);
    }
    let mut written = Array::new();
    for turn in without_empty_turns(turns) {
        let mut blocks = Array::new();
        turn.results.into_iter().chain(turn.blocks).for_each(|block| blocks.push(block));
        written.push(Object::new().array("content", &blocks).str("role", turn.role).finish());
    }
    body.set("messages", written.finish());
    write_tools(body, agent, Api::Anthropic)?;
    write_anthropic(&agent.model.options, body);
    Ok(())
}

/// The turns without those that have no content, which the API refuses, except a final
/// assistant turn (a prefill may be empty). The turns on either side of one left out are
/// joined when they share a role.
fn without_empty_turns(turns: Vec<WrittenTurn>) -> Vec<WrittenTurn> {
    let last = turns.len().saturating_sub(1);
    let mut kept: Vec<WrittenTurn> = Vec::with_capacity(turns.len());
    let mut left_out = false;
    for (i, turn) in turns.into_iter().enumerate() {
        if turn.is_empty() && !(i == last && turn.role == "assistant") {
            left_out = true;
            continue;
        }
        match kept.last_mut() {
            Some(previous) if left_out && previous.role == turn.role => {
                previous.results.extend(turn.results);
                previous.blocks.extend(turn.blocks);
            }
            _ => kept.push(turn),
        }
        left_out = false;
    }
    kept
}

/// Adds a message to the turns: a tool result joins the results of the user turn that follows
/// the call (opening one when needed), even when a user message came first, as the API wants the
/// results first in the next user message; a user message after results joins that turn,
/// anything else opens a turn.
fn write_message<'m>(message: &'m Message, path: &str, turns: &mut Vec<WrittenTurn<'m>>) -> Result<()> {
    if message.role == "tool" {
        let id = message.tool_call_id().ok_or_else(|| missing_call_id(path))?;
        let all_text = match &message.content {
            MessageContent::Text(_) => true,
            MessageContent::Parts(parts) => parts.iter().all(ContentPart::is_text),
        };
        let result = if all_text {
            Object::new().str("content", &message.content.text())
        } else {
            let mut blocks = Vec::new();
            write_blocks(message, path, &mut blocks)?;
            Object::new().array("content", &array(blocks))
        };
        let result = result.str("tool_use_id", &wire_id(id)).str("type", "tool_result").finish();
        match turns.last_mut() {
            Some(turn) if turn.role == "user" => turn.results.push(result),
            _ => turns.push(WrittenTurn { role: "user", results: vec![result], blocks: Vec::new() }),
        }
        return Ok(());
    }
    // A user turn after tool results joins the results' turn; anything else starts a turn.
    if !matches!(turns.last(), Some(turn) if !turn.results.is_empty() && message.role == "user") {
        turns.push(WrittenTurn { role: &message.role, results: Vec::new(), blocks: Vec::new() });
    }
    let Some(WrittenTurn { blocks, .. }) = turns.last_mut() else { return Ok(()) };
    if let Some(turn) = message.blocks(path)? {
        return write_turn(&turn, &field(path, "metadata.blocks"), blocks);
    }
    if message.role == "assistant" {
        if let Some(Value::Array(thinking)) = message.metadata.get(ANTHROPIC_THINKING) {
            blocks.extend(thinking.iter().map(json_text));
        }
    }
    write_blocks(message, path, blocks)?;
    for (k, call) in message.tool_call_list(path)?.iter().enumerate() {
        blocks.push(write_tool_use(call, &index(&field(path, "metadata.tool_calls"), k))?);
    }
    Ok(())
}

/// Blocks written as JSON text, as an array.
fn array(blocks: Vec<String>) -> Array {
    let mut written = Array::new();
    blocks.into_iter().for_each(|block| written.push(block));
    written
}

/// A `tool_use` block; its arguments must be a JSON object (`path` names the call).
fn write_tool_use(call: &ToolCall, path: &str) -> Result<String> {
    let input = parse_arguments(&call.arguments).ok_or_else(|| {
        Error::invalid_input(path, format!("the arguments of tool call `{}` are not a JSON object", call.id))
    })?;
    let block = Object::new().str("id", &wire_id(&call.id)).json("input", &json_text(&input)).str("name", &call.name);
    Ok(block.str("type", "tool_use").finish())
}

/// A tool-call id as Anthropic takes it (`^[a-zA-Z0-9_-]+$`): as it is when it is one, else (another
/// provider's, such as Kimi's `functions.get_weather:0`) every other character replaced by `_`,
/// then `_` and the 16 hex digits of the id's 64-bit FNV-1a hash, so two ids become one only if
/// their hashes collide (about one chance in 2^64 for a pair). The same id always maps the same
/// way, so a `tool_use` and its `tool_result` agree.
fn wire_id(id: &str) -> Cow<'_, str> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    if !id.is_empty() && id.chars().all(allowed) {
        return Cow::Borrowed(id);
    }
    let hash =
        id.bytes().fold(0xcbf2_9ce4_8422_2325u64, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3));
    let replaced: String = id.chars().map(|c| if allowed(c) { c } else { '_' }).collect();
    Cow::Owned(format!("{replaced}_{hash:016x}"))
}

/// An assistant turn from its blocks, in order (docs/design.md, "Reasoning that goes back"):
/// signed thinking as `thinking`, redacted as `redacted_thinking`, text, tool calls as
/// `tool_use`, and Anthropic's server tool blocks as they came. Other formats' reasoning state
/// and blocks are left out. `path` is that of the blocks.
fn write_turn(turn: &[Block], path: &str, blocks: &mut Vec<String>) -> Result<()> {
    for (k, block) in turn.iter().enumerate() {
        match block {
            Block::Text { text, .. } if !is_blank(text) => blocks.push(text_block(text)),
            Block::ToolCall { id, name, arguments, .. } => {
                let call = ToolCall { id: id.clone(), name: name.clone(), arguments: arguments.clone() };
                blocks.push(write_tool_use(&call, &index(path, k))?);
            }
            Block::Other { provider_type, data } if SERVER_BLOCK_TYPES.contains(&provider_type.as_str()) => {
                let data = parse_value(data.get())
                    .map_err(|e| Error::invalid_input(index(path, k), format!("unreadable data: {}", e.message())))?;
                blocks.push(json_text(&data));
            }
            _ => match ReasoningState::of(block) {
                Some(ReasoningState::Signed { text, signature }) => {
                    let thinking = Object::new().str("signature", signature).str("thinking", text);
                    blocks.push(thinking.str("type", "thinking").finish());
                }
                Some(ReasoningState::Redacted { data }) => {
                    blocks.push(Object::new().str("data", data).str("type", "redacted_thinking").finish());
                }
                _ => {}
            },
        }
    }
    Ok(())
}

/// The content blocks of a message, onto `blocks` (text that is empty or only whitespace is left
/// out: the API refuses it).
fn write_blocks(message: &Message, path: &str, blocks: &mut Vec<String>) -> Result<()> {
    let parts = match &message.content {
        // A plain string is one text part.
        MessageContent::Text(value) => {
            if !is_blank(value) {
                blocks.push(text_block(value));
            }
            return Ok(());
        }
        MessageContent::Parts(parts) => parts,
    };
    let path = field(path, "content");
    for (j, part) in parts.iter().enumerate() {
        if !(part.is_text() && is_blank(&part.value)) {
            blocks.push(write_block(part, &index(&path, j))?);
        }
    }
    Ok(())
}

/// Whether a text is empty or only whitespace, which Anthropic refuses as a text block.
fn is_blank(text: &str) -> bool {
    text.trim().is_empty()
}

/// `{text, type: "text"}`, a text block.
fn text_block(text: &str) -> String {
    Object::new().str("text", text).str("type", "text").finish()
}

/// One content part as a block: text, or an image or document from a URL or base64 data.
fn write_block(part: &ContentPart, path: &str) -> Result<String> {
    let block_type = match part.kind.as_str() {
        "text" => return Ok(text_block(&part.value)),
        "image" => "image",
        "audio" => {
            return Err(Error::invalid_input(field(path, "kind"), "Anthropic Messages does not accept audio parts"))
        }
        "file" => "document",
        _ => return Err(unknown_part(&part.kind, path)),
    };
    let source = if part.value.starts_with("https://") || part.value.starts_with("http://") {
        Object::new().str("type", "url").str("url", &part.value).finish()
    } else if let Some(text) = plain_text(part, path)? {
        // Anthropic takes base64 documents as PDF only; plain text is sent as its text.
        Object::new().str("data", &text).str("media_type", "text/plain").str("type", "text").finish()
    } else {
        let (media_type, data) = media_and_data(part, path)?;
        Object::new().str("data", data).str("media_type", media_type).str("type", "base64").finish()
    };
    Ok(Object::new().json("source", &source).str("type", block_type).finish())
}

/// The text of a `text/plain` file part (a `data:` URL, base64 or percent-encoded, or bare
/// base64 with its `mediaType`); `None` for any other part. Bytes that are not UTF-8 are
/// `invalid_input`.
fn plain_text(part: &ContentPart, path: &str) -> Result<Option<String>> {
    if part.kind != "file" {
        return Ok(None);
    }
    let (media_type, data, is_base64) = match read_data_url(&part.value) {
        Some(url) => (part.media_type.as_deref().unwrap_or(url.media_type), url.data, url.base64),
        None => (part.media_type.as_deref().unwrap_or_default(), part.value.as_str(), true),
    };
    if !media_type.eq_ignore_ascii_case("text/plain") {
        return Ok(None);
    }
    let value_path = field(path, "value");
    let bytes = if is_base64 {
        base64::decode(data)
            .map_err(|_| Error::invalid_input(&value_path, "a text/plain document is not valid base64"))?
    } else {
        percent_decode(data).0
    };
    let text = String::from_utf8(bytes)
        .map_err(|_| Error::invalid_input(&value_path, "a text/plain document must be UTF-8 text"))?;
    Ok(Some(text))
}

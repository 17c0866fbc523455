//! Bedrock ConverseStream events → builder calls. Each event arrives as one AWS event-stream
//! message (`crate::framing::event_stream`), named by its `:event-type` and carrying its
//! payload as compact JSON, not wrapped in the event's name:
//!
//! - `messageStart {role}`;
//! - `contentBlockStart {contentBlockIndex, start}`, sent only for `toolUse` (and Nova's
//!   `toolResult`) and `image {format}` blocks: text and reasoning blocks begin with their
//!   first delta;
//! - `contentBlockDelta {contentBlockIndex, delta}`: `text`, `toolUse.input` (JSON text in
//!   fragments), `reasoningContent` (`text`, then one `signature`; or one `redactedContent`),
//!   `citation`, `toolResult`, `image {source}`;
//! - `contentBlockStop {contentBlockIndex}`;
//! - `messageStop {stopReason}`, then `metadata {usage, metrics}`, the last event.
//!
//! Every payload carries `p`, random padding, which is skipped like any member not read.
//! Exceptions (`throttlingException`, ...) are event-stream messages of their own, which the
//! accumulator reports before any decoder sees them.
//!
//! The message is complete at `metadata` after `messageStop`: the usage comes after the stop
//! reason, so a stream cut between the two has lost it (docs/design.md, "Formats").

use super::map_stop_reason;
use super::usage::convert_usage;
use super::ToolUse;
use crate::accumulator::{MessageBuilder, ENTRY_BYTES};
use crate::error::{Error, ErrorCode, Result};
use crate::json::{read_document, read_object, JsonError, JsonResult, Reader};
use crate::model::RawJson;
use crate::providers::{Handled, Scalar};
use crate::sse::SseEvent;

/// One event's payload, read whole before any of it is applied. A member of an unexpected
/// kind reads as absent; a repeated key is read again (the last one wins).
#[derive(Default)]
struct Event<'a> {
    index: Option<u64>,
    /// `contentBlockStart.start`.
    start: Option<Start<'a>>,
    delta: Option<Delta<'a>>,
    stop_reason: Scalar<'a>,
    /// The usage object's JSON text.
    usage: Option<&'a str>,
}

impl<'a> Event<'a> {
    fn read(r: &mut Reader<'a>) -> JsonResult<Option<Event<'a>>> {
        read_object(r, |e: &mut Event<'a>, r, key| {
            match key {
                b"contentBlockIndex" => e.index = r.index()?,
                b"start" => e.start = Start::read(r)?,
                b"delta" => e.delta = Delta::read(r)?,
                b"stopReason" => e.stop_reason = Scalar::read(r)?,
                b"usage" => e.usage = r.raw_non_null()?,
                _ => {}
            }
            Ok(())
        })
    }
}

/// `contentBlockStart.start`: a tool call, the start of a server tool's result, or of an image.
#[derive(Default)]
struct Start<'a> {
    tool_use: Option<&'a str>,
    tool_result: Option<&'a str>,
    /// `image`: `{format}`, its `source` streaming in deltas.
    image: Option<&'a str>,
}

impl<'a> Start<'a> {
    fn read(r: &mut Reader<'a>) -> JsonResult<Option<Start<'a>>> {
        read_object(r, |s: &mut Start<'a>, r, key| {
            match key {
                b"toolUse" => s.tool_use = r.raw_non_null()?,
                b"toolResult" => s.tool_result = r.raw_non_null()?,
                b"image" => s.image = r.raw_non_null()?,
                _ => {}
            }
            Ok(())
        })
    }
}

/// `contentBlockDelta.delta`, with `reasoningContent` and `toolUse` read in place.
#[derive(Default)]
struct Delta<'a> {
    text: Scalar<'a>,
    /// `toolUse.input`: a fragment of the call's arguments as JSON text.
    input: Scalar<'a>,
    reasoning: Scalar<'a>,
    signature: Scalar<'a>,
    redacted: Scalar<'a>,
    citation: Option<&'a str>,
    /// `toolResult`: a list of `{json}` or `{text}` items, as JSON text.
    tool_result: Option<&'a str>,
    /// `image`: an object of the image's members (`source`), as JSON text.
    image: Option<&'a str>,
}

impl<'a> Delta<'a> {
    fn read(r: &mut Reader<'a>) -> JsonResult<Option<Delta<'a>>> {
        read_object(r, |d: &mut Delta<'a>, r, key| {
            match key {
                b"text" => d.text = Scalar::read(r)?,
                b"toolUse" => {
                    r.object(|r, key| {
                        if key == b"input" {
                            d.input = Scalar::read(r)?;
                        }
                        Ok(())
                    })?;
                }
                b"reasoningContent" => {
                    r.object(|r, key| {
                        match key {
                            b"text" => d.reasoning = Scalar::read(r)?,
                            b"signature" => d.signature = Scalar::read(r)?,
                            b"redactedContent" => d.redacted = Scalar::read(r)?,
                            _ => {}
                        }
                        Ok(())
                    })?;
                }
                b"citation" => d.citation = r.raw_non_null()?,
                b"toolResult" => d.tool_result = r.raw_non_null()?,
                b"image" => d.image = r.raw_non_null()?,
                _ => {}
            }
            Ok(())
        })
    }
}

/// A block that is not the client's to act on, assembled from its deltas and kept whole as an
/// `other` block when it stops, as a body has it: a server tool's call (Nova's `toolUse` of type
/// `server_tool_use`, whose `input` streams as text), its `toolResult` (whose `content` streams
/// as items), or an `image` (whose members, `source`, stream as objects).
#[derive(Debug)]
struct ServerBlock {
    index: u64,
    /// `"toolUse"`, `"toolResult"` or `"image"`: the Converse content block it is.
    kind: &'static str,
    /// The `contentBlockStart.start` member's JSON text.
    start: String,
    /// The streamed input text, or the result's items or the image's objects as JSON texts
    /// joined by commas.
    streamed: String,
}

impl ServerBlock {
    fn bytes(&self) -> usize {
        ENTRY_BYTES + self.start.len() + self.streamed.len()
    }

    /// The block as Converse has it in a whole body: the start with its `input` object or its
    /// `content` list.
    fn assembled(&self) -> RawJson {
        let assembled = (|| {
            let crate::json::Value::Object(mut block) = crate::json::value::parse_value(&self.start).ok()? else {
                return None;
            };
            let items = || crate::json::value::parse_value(&format!("[{}]", self.streamed)).ok();
            let (key, value) = match self.kind {
                "toolUse" if self.streamed.trim().is_empty() => return Some(block),
                "toolUse" => ("input", crate::json::value::parse_value(&self.streamed).ok()?),
                "image" => {
                    let crate::json::Value::Array(items) = items()? else { return None };
                    for item in items {
                        let crate::json::Value::Object(members) = item else { return None };
                        for (key, value) in members {
                            match (block.get_mut(&key), value) {
                                (Some(crate::json::Value::Object(source)), crate::json::Value::Object(more))
                                    if key == "source" =>
                                {
                                    join_image_bytes(source, more);
                                }
                                (_, value) => {
                                    block.insert(key, value);
                                }
                            }
                        }
                    }
                    return Some(block);
                }
                _ => ("content", items()?),
            };
            block.insert(key.into(), value);
            Some(block)
        })();
        match assembled {
            Some(block) => RawJson::from_valid(&crate::json::write::WriteJson::to_json_text(&block)),
            None => RawJson::from_valid(&self.start),
        }
    }
}

/// An image delta's `source` laid over the one before: its `bytes` are the next of the image's
/// bytes (each delta's base64 decoded, the bytes joined and encoded again, as padding may end
/// each); its other members replace theirs.
fn join_image_bytes(source: &mut crate::json::Map, more: crate::json::Map) {
    for (key, value) in more {
        let joined = match (key.as_str(), source.get(&key), &value) {
            ("bytes", Some(crate::json::Value::String(before)), crate::json::Value::String(next)) => {
                match (crate::base64::decode(before), crate::base64::decode(next)) {
                    (Ok(mut bytes), Ok(next)) => {
                        bytes.extend(next);
                        crate::json::Value::String(crate::base64::encode(&bytes))
                    }
                    _ => crate::json::Value::String(format!("{before}{next}")),
                }
            }
            _ => value,
        };
        source.insert(key, joined);
    }
}

#[derive(Debug, Default)]
pub(crate) struct ConverseStream {
    /// The block index of the last event that carried content: a delta at another index starts
    /// a new block of the message.
    block: Option<u64>,
    /// The tool call open at a block index, and its position in the message's calls.
    tool: Option<(u64, usize)>,
    server: Option<ServerBlock>,
    /// `messageStop` arrived: `metadata` ends the stream.
    stopped: bool,
}

impl ConverseStream {
    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn event(&mut self, event: &SseEvent<'_>, b: &mut MessageBuilder) -> Result<Handled> {
        let parsed = match read_document(event.data, Event::read) {
            Ok(Some(parsed)) => parsed,
            Ok(None) => return Ok(Handled::NotJson(JsonError::not_an_object().message())),
            Err(err) => return Ok(Handled::NotJson(err.message())),
        };
        let index = parsed.index.unwrap_or(0);
        match event.event {
            "contentBlockDelta" => {
                if let Some(delta) = parsed.delta {
                    self.delta(index, delta, b)?;
                }
            }
            "messageStart" => b.start(None, None, None)?,
            "contentBlockStart" => {
                if let Some(start) = parsed.start {
                    self.block_start(index, start, b)?;
                }
            }
            "contentBlockStop" => self.block_stop(index, b)?,
            "messageStop" => {
                if let Some(raw) = parsed.stop_reason.as_deref() {
                    b.finish_reason(0, map_stop_reason(raw), raw)?;
                }
                self.stopped = true;
            }
            "metadata" => {
                if let Some(usage) = parsed.usage.and_then(convert_usage) {
                    b.set_usage(usage)?;
                }
                if self.stopped {
                    b.end_all_choices()?;
                    b.done();
                }
            }
            _ => {} // event types added after this was written
        }
        Ok(Handled::Done)
    }

    /// A delta at block `index`: a new index starts a new block of the message.
    #[cfg_attr(llw_speed, optimize(speed))]
    fn delta(&mut self, index: u64, delta: Delta<'_>, b: &mut MessageBuilder) -> Result<()> {
        self.enter(index, b);
        if let Some(text) = delta.text.0 {
            b.text_taking(0, text)?;
        }
        if let Some(text) = delta.reasoning.0 {
            b.reasoning_taking(0, text)?;
        }
        if let Some(signature) = delta.signature.as_deref() {
            b.reasoning_signature(0, signature)?;
        }
        if let Some(wire) = delta.redacted.as_deref() {
            super::redacted::read(wire, b)?;
        }
        if let Some(citation) = delta.citation {
            b.citation(0, RawJson::from_valid(citation))?;
        }
        if let Some(input) = delta.input.as_deref() {
            match (&mut self.server, self.tool) {
                (Some(server), _) if server.index == index && server.kind == "toolUse" => {
                    keep_streamed(server, input, b)?
                }
                (_, Some((at_index, at))) if at_index == index => b.tool_arguments(0, at, input)?,
                // A call whose start was not seen, or that is not the open one.
                _ => {
                    if let Some(at) = b.find_tool_call(0, Some(index)) {
                        b.tool_arguments(0, at, input)?
                    }
                }
            }
        }
        if let (Some(items), Some(server)) = (delta.tool_result, &mut self.server) {
            if server.index == index && server.kind == "toolResult" {
                // The items of the list, without its brackets, joined to the ones before.
                let items = items.strip_prefix('[').and_then(|i| i.strip_suffix(']')).unwrap_or_default();
                if !items.is_empty() {
                    let joined = if server.streamed.is_empty() { items.to_owned() } else { format!(",{items}") };
                    keep_streamed(server, &joined, b)?;
                }
            }
        }
        if let Some(image) = delta.image {
            // An image whose start was not seen begins with its first delta.
            if !self.server.as_ref().is_some_and(|s| s.index == index && s.kind == "image") {
                self.open_server(index, "image", "{}", b)?;
            }
            if let Some(server) = &mut self.server {
                let joined = if server.streamed.is_empty() { image.to_owned() } else { format!(",{image}") };
                keep_streamed(server, &joined, b)?;
            }
        }
        Ok(())
    }

    /// The next content is at block `index`.
    fn enter(&mut self, index: u64, b: &mut MessageBuilder) {
        if self.block != Some(index) {
            b.break_block(0);
            self.block = Some(index);
        }
    }

    fn block_start(&mut self, index: u64, start: Start<'_>, b: &mut MessageBuilder) -> Result<()> {
        self.enter(index, b);
        if let Some(raw) = start.tool_use {
            let call = ToolUse::read(raw);
            if call.kind.as_deref() == Some("server_tool_use") {
                return self.open_server(index, "toolUse", raw, b);
            }
            let (id, name) = (call.id.as_deref().unwrap_or(""), call.name.as_deref().unwrap_or(""));
            self.tool = Some((index, b.begin_tool_call(0, id, name, Some(index), None)?));
        } else if let Some(raw) = start.tool_result {
            return self.open_server(index, "toolResult", raw, b);
        } else if let Some(raw) = start.image {
            return self.open_server(index, "image", raw, b);
        }
        Ok(())
    }

    fn open_server(&mut self, index: u64, kind: &'static str, start: &str, b: &mut MessageBuilder) -> Result<()> {
        self.close_server(b)?;
        let server = ServerBlock { index, kind, start: start.to_owned(), streamed: String::new() };
        b.keep(server.bytes())?;
        self.server = Some(server);
        Ok(())
    }

    /// Keeps the server block being assembled as an `other` block.
    fn close_server(&mut self, b: &mut MessageBuilder) -> Result<()> {
        let Some(server) = self.server.take() else { return Ok(()) };
        b.release(server.bytes());
        b.other_block(0, server.kind, server.assembled())
    }

    fn block_stop(&mut self, index: u64, b: &mut MessageBuilder) -> Result<()> {
        if self.server.as_ref().is_some_and(|s| s.index == index) {
            self.close_server(b)?;
        }
        if let Some((at_index, at)) = self.tool {
            if at_index == index {
                self.tool = None;
                // A call without arguments streams no input at all.
                b.tool_arguments_done(0, at, "{}")?;
                b.end_tool_call(0, at);
            }
        }
        // A text or reasoning block ends at its stop (its text ends with `text_end` now).
        b.break_block(0);
        Ok(())
    }
}

/// Adds `text` to what a server block streamed, within the tool-argument and message limits.
fn keep_streamed(server: &mut ServerBlock, text: &str, b: &mut MessageBuilder) -> Result<()> {
    if server.streamed.len() + text.len() > b.limits().max_tool_argument_bytes {
        return Err(Error::new(ErrorCode::LimitExceeded, "a server tool block is larger than maxToolArgumentBytes"));
    }
    b.keep(text.len())?;
    server.streamed.push_str(text);
    Ok(())
}

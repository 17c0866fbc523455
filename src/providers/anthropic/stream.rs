//! Anthropic Messages stream events (`message_start`, `content_block_*`, `message_delta`,
//! `message_stop`, `ping`, `error`) → builder calls.
//!
//! Each content block is its own block of the final message. `tool_use` input streams as
//! `input_json_delta` (an empty stream of it means no arguments: `"{}"`); server tool blocks
//! (`server_tool_use`, `web_search_tool_result`, any block type this crate does not model) are
//! kept whole as `other` blocks, a streamed `server_tool_use` with its assembled `input`.

use serde::Deserialize;
use serde_json::value::RawValue;

use super::map_stop_reason;
use super::response::ContentBlock;
use super::usage::Counts;
use crate::accumulator::MessageBuilder;
use crate::error::Result;
use crate::model::RawJson;
use crate::providers::{ErrorBody, Handled, Scalar};
use crate::sse::SseEvent;

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(default, borrow, rename = "type")]
    kind: Scalar<'a>,
    #[serde(default)]
    index: Option<u64>,
    #[serde(default, borrow)]
    message: Option<MessageStart<'a>>,
    #[serde(default, borrow)]
    content_block: Option<&'a RawValue>,
    #[serde(default, borrow)]
    delta: Option<Delta<'a>>,
    #[serde(default, borrow)]
    usage: Option<&'a RawValue>,
    #[serde(default, borrow)]
    error: Option<ErrorBody<'a>>,
}

#[derive(Deserialize)]
struct MessageStart<'a> {
    #[serde(default, borrow)]
    id: Scalar<'a>,
    #[serde(default, borrow)]
    model: Scalar<'a>,
    #[serde(default, borrow)]
    usage: Option<&'a RawValue>,
}

/// A `content_block_delta`'s or `message_delta`'s `delta`.
#[derive(Deserialize)]
struct Delta<'a> {
    #[serde(default, borrow, rename = "type")]
    kind: Scalar<'a>,
    #[serde(default, borrow)]
    text: Scalar<'a>,
    #[serde(default, borrow)]
    thinking: Scalar<'a>,
    #[serde(default, borrow)]
    signature: Scalar<'a>,
    #[serde(default, borrow)]
    partial_json: Scalar<'a>,
    #[serde(default, borrow)]
    citation: Option<&'a RawValue>,
    #[serde(default, borrow)]
    stop_reason: Scalar<'a>,
}

/// What an open content block is, by the stream's block index.
#[derive(Debug)]
enum Open {
    Content,
    Tool(usize),
    /// A server tool call: its start block and its streamed input, joined at `content_block_stop`.
    ServerTool {
        kind: String,
        start: String,
        input: String,
    },
}

#[derive(Debug, Default)]
pub(crate) struct AnthropicStream {
    open: Vec<(u64, Open)>,
    /// `message_start`'s usage, restated count by count by `message_delta`.
    counts: Counts,
}

impl AnthropicStream {
    pub(crate) fn event(&mut self, event: &SseEvent<'_>, b: &mut MessageBuilder) -> Result<Handled> {
        let parsed: Event<'_> = match serde_json::from_slice(event.data) {
            Ok(parsed) => parsed,
            Err(err) => return Ok(Handled::NotJson(err.to_string())),
        };
        let index = parsed.index.unwrap_or(0);
        match parsed.kind.as_deref().unwrap_or(event.event) {
            "message_start" => {
                let message = parsed.message;
                let (id, model) = message.as_ref().map_or((None, None), |m| (m.id.as_deref(), m.model.as_deref()));
                b.start(id, model, None);
                if let Some(raw) = message.and_then(|m| m.usage) {
                    self.usage(raw, b);
                }
            }
            "content_block_start" => {
                if let Some(raw) = parsed.content_block {
                    self.block_start(index, raw, b)?;
                }
            }
            "content_block_delta" => {
                if let Some(delta) = parsed.delta {
                    self.block_delta(index, delta, b)?;
                }
            }
            "content_block_stop" => self.block_stop(index, b)?,
            "message_delta" => {
                if let Some(raw) = parsed.delta.as_ref().and_then(|d| d.stop_reason.as_deref()) {
                    b.finish_reason(0, map_stop_reason(raw), raw)?;
                }
                if let Some(raw) = parsed.usage {
                    self.usage(raw, b);
                }
            }
            "message_stop" => {
                b.end_all_choices()?;
                b.done();
            }
            "error" => b.error(parsed.error.unwrap_or_default().info()),
            _ => {} // `ping`, and event types added after this was written
        }
        Ok(Handled::Done)
    }

    fn usage(&mut self, raw: &RawValue, b: &mut MessageBuilder) {
        if let Some(counts) = Counts::read(raw) {
            self.counts = self.counts.updated(counts);
            b.set_usage(self.counts.usage(raw));
        }
    }

    fn block_start(&mut self, index: u64, raw: &RawValue, b: &mut MessageBuilder) -> Result<()> {
        self.open.retain(|(i, _)| *i != index);
        let Ok(block) = serde_json::from_str::<ContentBlock<'_>>(raw.get()) else {
            b.other_block(0, "unknown", RawJson::from_raw(raw));
            return Ok(());
        };
        b.break_block(0);
        let open = match block.kind.as_deref().unwrap_or("") {
            "text" => {
                b.text(0, block.text.as_deref().unwrap_or(""))?;
                for citation in block.citations.into_iter().flatten() {
                    b.citation(0, RawJson::from_raw(citation));
                }
                Open::Content
            }
            "thinking" => {
                b.reasoning(0, block.thinking.as_deref().unwrap_or(""))?;
                b.reasoning_signature(0, block.signature.as_deref().unwrap_or(""));
                Open::Content
            }
            "redacted_thinking" => {
                b.redacted_reasoning(0, block.data.as_deref().unwrap_or(""));
                Open::Content
            }
            "tool_use" => {
                let (id, name) = (block.id.as_deref().unwrap_or(""), block.name.as_deref().unwrap_or(""));
                Open::Tool(b.begin_tool_call(0, id, name, Some(index), None))
            }
            "server_tool_use" => {
                Open::ServerTool { kind: "server_tool_use".into(), start: raw.get().to_owned(), input: String::new() }
            }
            other => {
                b.other_block(0, other, RawJson::from_raw(raw));
                Open::Content
            }
        };
        self.open.push((index, open));
        Ok(())
    }

    fn block_delta(&mut self, index: u64, delta: Delta<'_>, b: &mut MessageBuilder) -> Result<()> {
        let open = self.open.iter_mut().find(|(i, _)| *i == index).map(|(_, open)| open);
        match delta.kind.as_deref().unwrap_or("") {
            "text_delta" => b.text(0, delta.text.as_deref().unwrap_or(""))?,
            "thinking_delta" => b.reasoning(0, delta.thinking.as_deref().unwrap_or(""))?,
            "signature_delta" => b.reasoning_signature(0, delta.signature.as_deref().unwrap_or("")),
            "citations_delta" => {
                if let Some(citation) = delta.citation {
                    b.citation(0, RawJson::from_raw(citation));
                }
            }
            "input_json_delta" => {
                let partial = delta.partial_json.as_deref().unwrap_or("");
                match open {
                    Some(Open::Tool(at)) => b.tool_arguments(0, *at, partial)?,
                    Some(Open::ServerTool { input, .. }) => {
                        if input.len() + partial.len() > b.limits().max_tool_argument_bytes {
                            return Err(crate::Error::new(
                                crate::ErrorCode::LimitExceeded,
                                "server tool input is larger than maxToolArgumentBytes",
                            ));
                        }
                        input.push_str(partial);
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn block_stop(&mut self, index: u64, b: &mut MessageBuilder) -> Result<()> {
        let Some(at) = self.open.iter().position(|(i, _)| *i == index) else { return Ok(()) };
        match self.open.swap_remove(at).1 {
            Open::Tool(call) => {
                // A tool without arguments streams only `partial_json: ""`.
                b.tool_arguments_done(0, call, "{}")?;
                b.end_tool_call(0, call);
            }
            Open::ServerTool { kind, start, input } => b.other_block(0, &kind, server_block(&start, &input)),
            Open::Content => {}
        }
        Ok(())
    }
}

/// A server tool block with the input its deltas assembled (the start event carries `{}`).
fn server_block(start: &str, input: &str) -> RawJson {
    let assembled = (|| {
        let mut block: serde_json::Map<String, serde_json::Value> = serde_json::from_str(start).ok()?;
        if !input.trim().is_empty() {
            block.insert("input".into(), serde_json::from_str(input).ok()?);
        }
        RawJson::parse(&serde_json::to_string(&block).ok()?)
    })();
    assembled.or_else(|| RawJson::parse(start)).unwrap_or_else(|| RawJson(RawValue::NULL.to_owned()))
}

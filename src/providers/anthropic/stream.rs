//! Anthropic Messages stream events (`message_start`, `content_block_*`, `message_delta`,
//! `message_stop`, `ping`, `error`) → builder calls.
//!
//! Each content block is its own block of the final message. `tool_use` input streams as
//! `input_json_delta` (an empty stream of it means no arguments: `"{}"`); server tool blocks
//! (`server_tool_use`, `web_search_tool_result`, any block type this crate does not model) are
//! kept whole as `other` blocks, a streamed `server_tool_use` with its assembled `input`.

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::map_stop_reason;
use super::response::ContentBlock;
use super::usage::Counts;
use crate::accumulator::{MessageBuilder, ENTRY_BYTES};
use crate::error::{Error, ErrorCode, Result};
use crate::json::{self, read_document, read_object, JsonError, JsonResult, Reader};
use crate::model::RawJson;
use crate::providers::template::{Marked, Span, Template};
use crate::providers::{ErrorBody, Handled, Scalar};
use crate::sse::SseEvent;

/// One event, read whole with [`crate::json`] before any of it is applied.
///
/// Lenient where the serde derives this replaced refused the whole event: an `index` that is not
/// a non-negative whole number (`"1"`, `-1`, `1.5`) reads as absent, so as 0 (`1.0` reads as 1);
/// a `message`, `delta` or `error` that is not an object reads as absent; and a repeated key is
/// read again, the last one winning. An event that is not an object is not JSON to this decoder
/// (serde read an array as the fields in order, here and for the nested objects; nobody sends
/// that).
#[derive(Default)]
struct Event<'a> {
    kind: Scalar<'a>,
    index: Option<u64>,
    message: Option<MessageStart<'a>>,
    /// Raw JSON text, read only by `content_block_start`.
    content_block: Option<&'a str>,
    delta: Option<Delta<'a>>,
    usage: Option<&'a str>,
    error: Option<ErrorBody<'a>>,
}

impl<'a> Event<'a> {
    /// The event, or `None` when the document is not an object.
    #[cfg_attr(llw_speed, optimize(speed))]
    fn read(r: &mut Reader<'a>) -> JsonResult<Option<Event<'a>>> {
        read_object(r, |e: &mut Event<'a>, r, key| {
            match key {
                b"type" => e.kind = Scalar::read(r)?,
                b"index" => e.index = r.index()?,
                b"message" => e.message = MessageStart::read(r)?,
                b"content_block" => e.content_block = r.raw_non_null()?,
                b"delta" => e.delta = Delta::read(r)?,
                b"usage" => e.usage = r.raw_non_null()?,
                b"error" => e.error = ErrorBody::read(r)?,
                _ => {}
            }
            Ok(())
        })
    }
}

#[derive(Default)]
struct MessageStart<'a> {
    id: Scalar<'a>,
    model: Scalar<'a>,
    usage: Option<&'a str>,
}

impl<'a> MessageStart<'a> {
    fn read(r: &mut Reader<'a>) -> JsonResult<Option<MessageStart<'a>>> {
        read_object(r, |m: &mut MessageStart<'a>, r, key| {
            match key {
                b"id" => m.id = Scalar::read(r)?,
                b"model" => m.model = Scalar::read(r)?,
                b"usage" => m.usage = r.raw_non_null()?,
                _ => {}
            }
            Ok(())
        })
    }
}

/// A `content_block_delta`'s or `message_delta`'s `delta`.
#[derive(Default)]
struct Delta<'a> {
    kind: Scalar<'a>,
    text: Marked<'a>,
    thinking: Marked<'a>,
    partial_json: Marked<'a>,
    signature: Scalar<'a>,
    citation: Option<&'a str>,
    stop_reason: Scalar<'a>,
}

impl<'a> Delta<'a> {
    #[cfg_attr(llw_speed, optimize(speed))]
    fn read(r: &mut Reader<'a>) -> JsonResult<Option<Delta<'a>>> {
        read_object(r, |d: &mut Delta<'a>, r, key| {
            match key {
                b"type" => d.kind = Scalar::read(r)?,
                b"text" => d.text = Marked::read(r)?,
                b"thinking" => d.thinking = Marked::read(r)?,
                b"partial_json" => d.partial_json = Marked::read(r)?,
                b"signature" => d.signature = Scalar::read(r)?,
                b"stop_reason" => d.stop_reason = Scalar::read(r)?,
                b"citation" => d.citation = r.raw_non_null()?,
                _ => {}
            }
            Ok(())
        })
    }

    /// The delta's kind when it is one that carries one string, and that string.
    fn text(&self) -> Option<(TextDelta, &Marked<'a>)> {
        let kind = TextDelta::of(self.kind.as_deref()?)?;
        let text = match kind {
            TextDelta::Text => &self.text,
            TextDelta::Thinking => &self.thinking,
            TextDelta::InputJson => &self.partial_json,
        };
        Some((kind, text))
    }
}

/// The kinds of `content_block_delta` that carry one string, which is all they do: a template
/// event is one of them.
#[derive(Debug, Clone, Copy, PartialEq)]
enum TextDelta {
    Text,
    Thinking,
    InputJson,
}

impl TextDelta {
    fn of(kind: &str) -> Option<TextDelta> {
        match kind {
            "text_delta" => Some(TextDelta::Text),
            "thinking_delta" => Some(TextDelta::Thinking),
            "input_json_delta" => Some(TextDelta::InputJson),
            _ => None,
        }
    }
}

impl Event<'_> {
    /// A `content_block_delta` of a [`TextDelta`] kind with its string, as a [`Template`]
    /// action (block index, kind) and the string's span.
    #[cfg_attr(llw_speed, optimize(speed))]
    fn only_text(&self) -> Option<((u64, TextDelta), Span)> {
        if self.kind.as_deref() != Some("content_block_delta") {
            return None;
        }
        let (kind, text) = self.delta.as_ref()?.text()?;
        Some(((self.index.unwrap_or(0), kind), text.span?))
    }
}

/// What an open content block is, by the stream's block index.
#[derive(Debug)]
pub(crate) enum Open {
    Content,
    Tool(usize),
    /// A server tool call (`server_tool_use`): its start block and its streamed input, joined at
    /// `content_block_stop`.
    ServerTool {
        start: String,
        input: String,
    },
}

impl Open {
    /// What keeping it counts against `maxMessageBytes`.
    fn bytes(&self) -> usize {
        match self {
            Open::ServerTool { start, input } => ENTRY_BYTES + start.len() + input.len(),
            Open::Content | Open::Tool(_) => ENTRY_BYTES,
        }
    }
}

#[derive(Debug, Default)]
pub(crate) struct AnthropicStream {
    /// The blocks started and not stopped yet, with their block index, in no particular order.
    open: Vec<(u64, Open)>,
    /// The position in `open` of each open block's index (the stream code's one integer-keyed
    /// map type: values in a `Vec`, the map only to positions).
    open_at: BTreeMap<u64, usize>,
    /// `message_start`'s usage, restated count by count by `message_delta`.
    counts: Counts,
    /// The last text delta (block index, kind), to read the next ones by.
    template: Template<(u64, TextDelta)>,
}

impl AnthropicStream {
    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn event(&mut self, event: &SseEvent<'_>, b: &mut MessageBuilder) -> Result<Handled> {
        if let Some(((index, kind), text)) = self.template.fill(event.data) {
            self.text_delta(index, kind, text, b)?;
            return Ok(Handled::Done);
        }
        let parsed = match read_document(event.data, Event::read) {
            Ok(Some(parsed)) => parsed,
            Ok(None) => return Ok(Handled::NotJson(JsonError::not_an_object().message())),
            Err(err) => return Ok(Handled::NotJson(err.message())),
        };
        self.template.offer(event.data, parsed.only_text(), &[]);
        let index = parsed.index.unwrap_or(0);
        match parsed.kind.as_deref().unwrap_or(event.event) {
            "message_start" => {
                let message = parsed.message;
                let (id, model) = message.as_ref().map_or((None, None), |m| (m.id.as_deref(), m.model.as_deref()));
                b.start(id, model, None)?;
                if let Some(raw) = message.and_then(|m| m.usage) {
                    self.usage(raw, b)?;
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
                    self.usage(raw, b)?;
                }
            }
            "message_stop" => {
                b.end_all_choices()?;
                b.done();
            }
            "error" => b.error(parsed.error.unwrap_or_default().info())?,
            _ => {} // `ping`, and event types added after this was written
        }
        Ok(Handled::Done)
    }

    fn usage(&mut self, raw: &str, b: &mut MessageBuilder) -> Result<()> {
        if let Some(counts) = Counts::read(raw) {
            self.counts = self.counts.updated(counts);
            b.set_usage(self.counts.usage(raw))?;
        }
        Ok(())
    }

    /// Starts the block `raw` at `index`; returns a `tool_use` block's `input` (raw JSON), which
    /// a stream sends as deltas and a whole body has in place.
    pub(crate) fn block_start<'r>(
        &mut self,
        index: u64,
        raw: &'r str,
        b: &mut MessageBuilder,
    ) -> Result<Option<&'r str>> {
        // A block restarted at an open index replaces it.
        self.close(index, b);
        let Some(block) = ContentBlock::read(raw) else {
            b.other_block(0, "unknown", RawJson::from_valid(raw))?;
            return Ok(None);
        };
        b.break_block(0);
        let open = match block.kind.as_deref().unwrap_or("") {
            "text" => {
                b.text(0, block.text.as_deref().unwrap_or(""))?;
                for citation in block.citations.as_deref().unwrap_or_default() {
                    b.citation(0, RawJson::from_valid(citation))?;
                }
                Open::Content
            }
            "thinking" => {
                b.reasoning(0, block.thinking.as_deref().unwrap_or(""))?;
                b.reasoning_signature(0, block.signature.as_deref().unwrap_or(""))?;
                Open::Content
            }
            "redacted_thinking" => {
                b.redacted_reasoning(0, block.data.as_deref().unwrap_or(""))?;
                Open::Content
            }
            "tool_use" => {
                let (id, name) = (block.id.as_deref().unwrap_or(""), block.name.as_deref().unwrap_or(""));
                Open::Tool(b.begin_tool_call(0, id, name, Some(index), None)?)
            }
            "server_tool_use" => Open::ServerTool { start: raw.to_owned(), input: String::new() },
            other => {
                b.other_block(0, other, RawJson::from_valid(raw))?;
                Open::Content
            }
        };
        b.keep(open.bytes())?;
        self.open_at.insert(index, self.open.len());
        self.open.push((index, open));
        Ok(block.input)
    }

    #[cfg_attr(llw_speed, optimize(speed))]
    fn block_delta(&mut self, index: u64, delta: Delta<'_>, b: &mut MessageBuilder) -> Result<()> {
        if let Some((kind, _)) = delta.text() {
            // The string is taken from the delta: the builder may keep it as it is.
            let text = match kind {
                TextDelta::Text => delta.text,
                TextDelta::Thinking => delta.thinking,
                TextDelta::InputJson => delta.partial_json,
            };
            return self.text_delta(index, kind, text.text.0.unwrap_or_default(), b);
        }
        match delta.kind.as_deref().unwrap_or("") {
            "signature_delta" => b.reasoning_signature(0, delta.signature.as_deref().unwrap_or("")),
            "citations_delta" => match delta.citation {
                Some(citation) => b.citation(0, RawJson::from_valid(citation)),
                None => Ok(()),
            },
            _ => Ok(()),
        }
    }

    /// A delta of a [`TextDelta`] kind with its string: all a template event does.
    #[cfg_attr(llw_speed, optimize(speed))]
    fn text_delta(&mut self, index: u64, kind: TextDelta, text: Cow<'_, str>, b: &mut MessageBuilder) -> Result<()> {
        match kind {
            TextDelta::Text => b.text_taking(0, text),
            TextDelta::Thinking => b.reasoning_taking(0, text),
            TextDelta::InputJson => match self.open_at.get(&index).map(|&at| &mut self.open[at].1) {
                Some(Open::Tool(at)) => b.tool_arguments_taking(0, *at, text),
                Some(Open::ServerTool { input, .. }) => {
                    if input.len() + text.len() > b.limits().max_tool_argument_bytes {
                        return Err(Error::new(
                            ErrorCode::LimitExceeded,
                            "server tool input is larger than maxToolArgumentBytes",
                        ));
                    }
                    b.keep(text.len())?;
                    input.push_str(&text);
                    Ok(())
                }
                _ => Ok(()),
            },
        }
    }

    /// Removes the block open at `index` (there is at most one) and returns it.
    pub(crate) fn close(&mut self, index: u64, b: &mut MessageBuilder) -> Option<Open> {
        let at = self.open_at.remove(&index)?;
        let (_, open) = self.open.swap_remove(at);
        // The block that took its place (the last one) moved to `at`.
        if let Some((moved, _)) = self.open.get(at) {
            self.open_at.insert(*moved, at);
        }
        b.release(open.bytes());
        Some(open)
    }

    fn block_stop(&mut self, index: u64, b: &mut MessageBuilder) -> Result<()> {
        let Some(open) = self.close(index, b) else { return Ok(()) };
        match open {
            Open::Tool(call) => {
                // A tool without arguments streams only `partial_json: ""`.
                b.tool_arguments_done(0, call, "{}")?;
                b.end_tool_call(0, call);
            }
            Open::ServerTool { start, input } => b.other_block(0, "server_tool_use", server_block(&start, &input))?,
            // The text or thinking block ends now, not when the next one starts.
            Open::Content => b.break_block(0),
        }
        Ok(())
    }
}

/// A server tool block with the input its deltas assembled (the start event carries `{}`).
fn server_block(start: &str, input: &str) -> RawJson {
    let assembled = (|| {
        let json::Value::Object(mut block) = json::value::parse_value(start).ok()? else { return None };
        if !input.trim().is_empty() {
            block.insert("input".into(), json::value::parse_value(input).ok()?);
        }
        Some(RawJson::from_valid(&crate::json::write::WriteJson::to_json_text(&block)))
    })();
    assembled.or_else(|| RawJson::parse(start)).unwrap_or_else(RawJson::null)
}

#[cfg(test)]
mod tests {
    use super::AnthropicStream;
    use crate::accumulator::MessageBuilder;
    use crate::providers::template::testing::{check_template, Templated};
    use crate::providers::template::Template;
    use crate::providers::Handled;
    use crate::sse::SseEvent;
    use crate::Limits;

    /// Feeds `events` (data only) and returns the builder with whether each was JSON.
    fn feed(events: &[&str]) -> (MessageBuilder, Vec<bool>) {
        let (mut stream, mut b) = (AnthropicStream::default(), MessageBuilder::new(Limits::default(), None));
        let handled = events
            .iter()
            .map(|data| {
                let event = SseEvent { event: "", data: data.as_bytes(), id: b"" };
                matches!(stream.event(&event, &mut b).unwrap(), Handled::Done)
            })
            .collect();
        (b, handled)
    }

    #[test]
    fn an_event_that_is_not_a_json_object_applies_nothing() {
        let untouched = format!("{:?}", feed(&[]).0);
        for data in [
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}"#,
            r#"{"type":"message_start","message":{"id":"m"},"delta":{"text":"\ud800"}}"#,
            r#"{"type":"message_stop","type":"message_stop" "index":0}"#,
            r#"["message_stop"]"#,
            "null",
        ] {
            let (b, handled) = feed(&[data]);
            assert_eq!(handled, [false], "{data}");
            assert_eq!(format!("{b:?}"), untouched, "{data}");
        }
    }

    #[test]
    fn an_index_that_is_not_a_whole_number_reads_as_absent() {
        let (b, handled) = feed(&[
            r#"{"type":"content_block_start","index":"1","content_block":{"type":"text","text":"a"}}"#,
            r#"{"type":"content_block_delta","index":0.0,"delta":{"type":"text_delta","text":"b"}}"#,
            r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2.0}}"#,
            r#"{"type":"message_stop"}"#,
        ]);
        assert_eq!(handled, [true; 4]);
        let message = b.build();
        assert_eq!(message.text, "ab");
        assert_eq!(message.usage.map(|u| u.output_tokens), Some(2));
    }

    impl Templated for AnthropicStream {
        fn event(&mut self, event: &SseEvent<'_>, b: &mut MessageBuilder) -> crate::Result<Handled> {
            AnthropicStream::event(self, event, b)
        }
        fn forget(&mut self) {
            self.template = Template::default();
        }
        fn fills(&self, data: &[u8]) -> bool {
            self.template.fill(data).is_some()
        }
    }

    /// An event that fills the template does exactly what reading it whole does: on every event
    /// of every recorded stream, and on text, thinking and tool input deltas changed at every
    /// position (so that they fill it, or not, or are not JSON).
    #[test]
    fn an_event_filled_into_the_template_does_what_reading_it_whole_does() {
        let start = r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}}"#;
        let delta = |kind: &str, key: &str, value: &str| {
            format!(r#"{{"type":"content_block_delta","index":1,"delta":{{"type":"{kind}","{key}":{value}}}}}"#)
        };
        // (first event, next event, whether the first may serve as a template)
        let cases = [
            (delta("text_delta", "text", r#""a""#), delta("text_delta", "text", r#""b\n\u00e9""#), true),
            (
                delta("thinking_delta", "thinking", r#""a""#),
                delta("thinking_delta", "thinking", r#""\ud83d\ude00""#),
                true,
            ),
            (
                delta("input_json_delta", "partial_json", r#""{""#),
                delta("input_json_delta", "partial_json", r#""\"x\"""#),
                true,
            ),
            (
                r#"{"delta":{"type":"text_delta","text":"a"},"index":1}"#.into(),
                r#"{"delta":{"type":"text_delta","text":"b"},"index":1}"#.into(),
                false,
            ),
            (delta("text_delta", "text", "1"), delta("text_delta", "text", "2"), false),
            (delta("signature_delta", "signature", r#""a""#), delta("signature_delta", "signature", r#""b""#), false),
        ];
        let cases: Vec<_> =
            cases.into_iter().map(|(first, next, fills)| (vec![start.into(), first], next, fills)).collect();
        check_template::<AnthropicStream>(&["anthropic"], "content_block_delta", &cases);
    }
}

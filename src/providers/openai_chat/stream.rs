//! OpenAI Chat Completions chunks (`chat.completion.chunk`) → builder calls.
//!
//! Chunks are read into typed structs that borrow from the event's bytes and skip every field
//! they do not name; text fields are read leniently so one odd field never costs a chunk.

use std::borrow::Cow;

use super::{convert_usage, map_finish_reason};
use crate::accumulator::MessageBuilder;
use crate::error::Result;
use crate::json::{read_document, resume_document, value_at, JsonError, JsonResult, Kind, Reader};
use crate::model::{ErrorInfo, Outcome};
use crate::providers::{ErrorBody, Handled, Scalar};
use crate::sse::SseEvent;

/// A chunk, or (with `message` in place of `delta`) a whole `chat.completion` body: the two
/// have one shape, so both are read here.
#[derive(Default)]
#[cfg_attr(test, derive(Debug, PartialEq))]
pub(crate) struct Chunk<'a> {
    pub(crate) id: Scalar<'a>,
    pub(crate) model: Scalar<'a>,
    object: Scalar<'a>,
    /// OpenRouter and MiniMax name the upstream provider.
    pub(crate) provider: Scalar<'a>,
    pub(crate) choices: Vec<Choice<'a>>,
    usage: Option<&'a str>,
    /// Groq puts the last chunk's usage in `x_groq.usage`.
    groq_usage: Option<&'a str>,
    /// `error`: an object, or a bare message string.
    pub(crate) error: Option<ErrorBody<'a>>,
}

#[derive(Default)]
#[cfg_attr(test, derive(Debug, PartialEq))]
pub(crate) struct Choice<'a> {
    pub(crate) index: Option<u32>,
    /// `delta` in a chunk, `message` in a body.
    pub(crate) delta: Option<Delta<'a>>,
    pub(crate) finish_reason: Scalar<'a>,
}

#[derive(Default)]
#[cfg_attr(test, derive(Debug, PartialEq))]
pub(crate) struct Delta<'a> {
    content: Content<'a>,
    reasoning_content: Scalar<'a>,
    reasoning: Scalar<'a>,
    pub(crate) refusal: Scalar<'a>,
    tool_calls: Vec<ToolCallDelta<'a>>,
}

#[derive(Default)]
#[cfg_attr(test, derive(Debug, PartialEq))]
struct ToolCallDelta<'a> {
    index: Option<u64>,
    id: Scalar<'a>,
    name: Scalar<'a>,
    arguments: Scalar<'a>,
}

/// `delta.content`: a string, or (Mistral's Magistral) an array of `text` and `thinking` parts.
#[derive(Default)]
#[cfg_attr(test, derive(Debug, PartialEq))]
enum Content<'a> {
    #[default]
    None,
    Text(Cow<'a, str>),
    /// `(is thinking, text)` in order.
    Parts(Vec<(bool, Cow<'a, str>)>),
}

/// Reads a chunk (`choice_key` = `delta`) or a completion body (`message`). Values of an
/// unexpected kind (a string where an object was expected, `index: "0"`) read as absent rather
/// than costing the whole chunk; only invalid JSON is an error.
pub(crate) fn read_chunk<'a>(data: &'a [u8], choice_key: &[u8]) -> JsonResult<Chunk<'a>> {
    read_document(data, |r| {
        let mut chunk = Chunk::default();
        if !r.object(|r, key| chunk.member(r, key, choice_key).map(drop))? {
            return Err(JsonError::not_an_object());
        }
        Ok(chunk)
    })
}

impl<'a> Chunk<'a> {
    /// Reads one top-level member; `false` for a key this reader does not use.
    fn member(&mut self, r: &mut Reader<'a>, key: &[u8], choice_key: &[u8]) -> JsonResult<bool> {
        match key {
            b"id" => self.id = Scalar::read(r)?,
            b"model" => self.model = Scalar::read(r)?,
            b"object" => self.object = Scalar::read(r)?,
            b"provider" => self.provider = Scalar::read(r)?,
            b"choices" => {
                r.array(|r| {
                    if let Some(choice) = read_choice(r, choice_key)? {
                        self.choices.push(choice);
                    }
                    Ok(())
                })?;
            }
            b"usage" => self.usage = r.raw_non_null()?,
            b"x_groq" => {
                r.object(|r, key| {
                    if key == b"usage" {
                        self.groq_usage = r.raw_non_null()?;
                    }
                    Ok(())
                })?;
            }
            b"error" => self.error = ErrorBody::read_field(r)?,
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// The start of the last chunk, up to its `choices` key, and where the values this reader uses
/// sit in it. A stream's chunks nearly always begin with the same bytes (`id`, `object`,
/// `created`, `model`, `system_fingerprint`, ... about 60 % of an OpenAI chunk): when a chunk
/// begins with exactly these bytes, which were read and found valid before, reading resumes at
/// `choices`, and only the used values of the prefix are read again, from their offsets.
#[derive(Debug, Default)]
pub(crate) struct PrefixMemo {
    prefix: Vec<u8>,
    /// Key (as a `Chunk` member) and value offset of each used member of the prefix.
    members: Vec<(&'static [u8], usize)>,
}

/// A prefix shorter than this is not worth remembering.
const MIN_PREFIX: usize = 24;

/// Keys of `Chunk::member`, for the memo (which must not borrow the chunk's bytes).
const MEMBER_KEYS: [&[u8]; 7] = [b"id", b"model", b"object", b"provider", b"usage", b"x_groq", b"error"];

/// [`read_chunk`] for a stream chunk, resuming after the remembered prefix when the chunk starts
/// with it, and remembering this chunk's prefix when it does not.
fn read_stream_chunk<'a>(data: &'a [u8], memo: &mut PrefixMemo) -> JsonResult<Chunk<'a>> {
    let at = memo.prefix.len();
    if at >= MIN_PREFIX && data.len() > at && same_bytes(&data[..at], &memo.prefix) {
        let mut chunk = Chunk::default();
        for &(key, value) in &memo.members {
            value_at(data, value, |r| chunk.member(r, key, b"delta"))?;
        }
        resume_document(data, at, |r| r.members(|r, key| chunk.member(r, key, b"delta").map(drop)))?;
        return Ok(chunk);
    }
    let (mut choices_at, mut members) = (None, Vec::new());
    let chunk = read_document(data, |r| {
        let mut chunk = Chunk::default();
        let is_object = r.object(|r, key| {
            if key == b"choices" && choices_at.is_none() {
                choices_at = Some(r.key_at());
            }
            let value = r.pos();
            if chunk.member(r, key, b"delta")? && choices_at.is_none() {
                if let Some(known) = MEMBER_KEYS.iter().find(|k| **k == key) {
                    members.push((*known, value));
                }
            }
            Ok(())
        })?;
        if !is_object {
            return Err(JsonError::not_an_object());
        }
        Ok(chunk)
    })?;
    // Only a chunk read whole and valid may lend its prefix.
    memo.prefix.clear();
    memo.members = members;
    if let Some(at) = choices_at.filter(|at| *at >= MIN_PREFIX) {
        memo.prefix.extend_from_slice(&data[..at]);
    }
    Ok(chunk)
}

/// `a == b` for equal-length slices, eight bytes at a time.
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let words = a.chunks_exact(8).zip(b.chunks_exact(8));
    let tail = a.len() / 8 * 8;
    a.len() == b.len() && words.into_iter().all(|(x, y)| x == y) && a[tail..] == b[tail..]
}

fn read_choice<'a>(r: &mut Reader<'a>, choice_key: &[u8]) -> JsonResult<Option<Choice<'a>>> {
    let mut choice = Choice::default();
    let found = r.object(|r, key| {
        if key == choice_key {
            choice.delta = read_delta(r)?;
        } else if key == b"index" {
            choice.index = r.index()?.and_then(|i| u32::try_from(i).ok());
        } else if key == b"finish_reason" {
            choice.finish_reason = Scalar::read(r)?;
        }
        Ok(())
    })?;
    Ok(found.then_some(choice))
}

fn read_delta<'a>(r: &mut Reader<'a>) -> JsonResult<Option<Delta<'a>>> {
    let mut delta = Delta::default();
    let found = r.object(|r, key| {
        match key {
            b"content" => delta.content = read_content(r)?,
            b"reasoning_content" => delta.reasoning_content = Scalar::read(r)?,
            b"reasoning" => delta.reasoning = Scalar::read(r)?,
            b"refusal" => delta.refusal = Scalar::read(r)?,
            b"tool_calls" => {
                r.array(|r| {
                    let mut call = ToolCallDelta::default();
                    let found = r.object(|r, key| {
                        match key {
                            b"index" => call.index = r.index()?,
                            b"id" => call.id = Scalar::read(r)?,
                            b"function" => {
                                r.object(|r, key| {
                                    match key {
                                        b"name" => call.name = Scalar::read(r)?,
                                        b"arguments" => call.arguments = Scalar::read(r)?,
                                        _ => {}
                                    }
                                    Ok(())
                                })?;
                            }
                            _ => {}
                        }
                        Ok(())
                    })?;
                    if found {
                        delta.tool_calls.push(call);
                    }
                    Ok(())
                })?;
            }
            _ => {}
        }
        Ok(())
    })?;
    Ok(found.then_some(delta))
}

/// A string, or an array of parts `{type:"text", text}` and `{type:"thinking", thinking}` where
/// `thinking` is a string or an array of `{type:"text", text}`; anything else is no content.
fn read_content<'a>(r: &mut Reader<'a>) -> JsonResult<Content<'a>> {
    match r.peek()? {
        Kind::String => return Ok(r.string()?.map_or(Content::None, Content::Text)),
        Kind::Array => {}
        _ => return Ok(Content::None),
    }
    let mut parts = Vec::new();
    r.array(|r| {
        let (mut kind, mut text, mut thinking) = (Scalar::default(), Scalar::default(), Vec::new());
        r.object(|r, key| {
            match key {
                b"type" => kind = Scalar::read(r)?,
                b"text" => text = Scalar::read(r)?,
                b"thinking" => thinking = read_thinking(r)?,
                _ => {}
            }
            Ok(())
        })?;
        match kind.as_deref() {
            Some("thinking") => parts.extend(thinking.into_iter().map(|t| (true, t))),
            _ => parts.extend(text.0.map(|t| (false, t))),
        }
        Ok(())
    })?;
    Ok(Content::Parts(parts))
}

fn read_thinking<'a>(r: &mut Reader<'a>) -> JsonResult<Vec<Cow<'a, str>>> {
    if r.peek()? == Kind::String {
        return Ok(r.string()?.into_iter().collect());
    }
    let mut texts = Vec::new();
    r.array(|r| {
        r.object(|r, key| {
            if key == b"text" {
                texts.extend(Scalar::read(r)?.0);
            }
            Ok(())
        })?;
        Ok(())
    })?;
    Ok(texts)
}

impl Chunk<'_> {
    /// The usage object, from `usage` or Groq's `x_groq.usage`.
    pub(crate) fn usage(&self) -> Option<crate::model::Usage> {
        self.usage.or(self.groq_usage).and_then(convert_usage)
    }
}

/// The state of one OpenAI Chat stream beyond what the builder keeps: nothing yet, the format
/// is stateless per chunk.
#[derive(Debug, Default)]
pub(crate) struct ChatStream {
    memo: PrefixMemo,
}

impl ChatStream {
    pub(crate) fn event(&mut self, event: &SseEvent<'_>, b: &mut MessageBuilder) -> Result<Handled> {
        let data = event.data;
        if data.trim_ascii() == b"[DONE]" {
            b.end_all_choices()?;
            b.done();
            return Ok(Handled::Done);
        }
        if event.event == "error" {
            self.error_event(data, b);
            return Ok(Handled::Done);
        }
        let chunk = match read_stream_chunk(data, &mut self.memo) {
            Ok(chunk) => chunk,
            Err(err) => return Ok(Handled::NotJson(err.to_string())),
        };
        b.start(chunk.id.as_deref(), chunk.model.as_deref(), chunk.provider.as_deref());
        let usage = chunk.usage();
        for choice in chunk.choices {
            let index = choice.index.unwrap_or(0);
            if let Some(delta) = choice.delta {
                apply_delta(b, index, delta)?;
            }
            if let Some(raw) = choice.finish_reason.as_deref() {
                b.finish_reason(index, map_finish_reason(raw), raw)?;
                if b.all_choices_finished() {
                    b.done();
                }
            }
        }
        if let Some(usage) = usage {
            b.set_usage(usage);
        }
        if let Some(error) = chunk.error {
            b.error(error.info());
        }
        if chunk.object.as_deref() == Some("chat.completion.done") {
            b.done();
        }
        Ok(Handled::Done)
    }

    /// `event: error` (Groq): `{"error": {...}}`, or the error object itself.
    fn error_event(&mut self, data: &[u8], b: &mut MessageBuilder) {
        let wrapped = read_chunk(data, b"delta").ok().and_then(|chunk| chunk.error);
        match wrapped {
            Some(error) => b.error(error.info()),
            None => match read_document(data, ErrorBody::read_field) {
                Ok(Some(error)) => b.error(error.info()),
                _ => b.error(ErrorInfo {
                    message: String::from_utf8_lossy(data).into_owned(),
                    code: None,
                    outcome: Outcome::Determinate,
                    retryable: None,
                }),
            },
        }
    }
}

pub(crate) fn apply_delta(b: &mut MessageBuilder, index: u32, delta: Delta<'_>) -> Result<()> {
    if let Some(reasoning) = delta.reasoning_content.as_deref().or(delta.reasoning.as_deref()) {
        b.reasoning(index, reasoning)?;
    }
    match delta.content {
        Content::Text(text) => b.tagged_content(index, &text)?,
        Content::Parts(parts) => {
            for (thinking, text) in parts {
                if thinking {
                    b.reasoning(index, &text)?;
                } else {
                    b.tagged_content(index, &text)?;
                }
            }
        }
        Content::None => {}
    }
    for call in delta.tool_calls {
        b.chat_tool_call(index, call.index, call.id.as_deref(), call.name.as_deref(), call.arguments.as_deref())?;
    }
    if let Some(refusal) = delta.refusal.as_deref() {
        b.refusal(index, refusal);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{read_chunk, read_stream_chunk, PrefixMemo};
    use crate::sse::SseDecoder;
    use crate::Limits;

    /// The `data` of every event of every OpenAI-compatible recorded stream, stream by stream.
    fn recorded_streams() -> Vec<Vec<Vec<u8>>> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let mut streams = Vec::new();
        for dir in ["openai-chat", "groq", "deepseek", "mistral", "openrouter", "azure-openai", "ollama", "minimax"] {
            let Ok(files) = std::fs::read_dir(root.join(dir)) else { continue };
            for file in files.flatten().filter(|f| f.path().extension().is_some_and(|e| e == "sse")) {
                let body = std::fs::read(file.path()).unwrap();
                let mut events = Vec::new();
                let mut sse = SseDecoder::new(&Limits::default());
                let mut keep = |e: crate::sse::SseEvent<'_>| {
                    events.push(e.data.to_vec());
                    Ok(())
                };
                sse.feed(&body, &mut keep).unwrap();
                sse.finish(&mut keep).unwrap();
                streams.push(events);
            }
        }
        streams
    }

    /// Resuming after a remembered prefix reads every chunk exactly as reading it whole does:
    /// on every recorded stream, and on chunks that share a prefix and then differ, break off
    /// or turn invalid at every position after it.
    #[test]
    fn resuming_after_the_prefix_reads_what_reading_whole_reads() {
        let streams = recorded_streams();
        assert!(streams.len() >= 15, "found {} recorded streams", streams.len());
        let mut resumed = 0;
        for events in &streams {
            let mut memo = PrefixMemo::default();
            for data in events.iter().filter(|d| d.as_slice() != b"[DONE]") {
                let primed = memo.prefix.len() >= super::MIN_PREFIX && data.starts_with(&memo.prefix);
                resumed += usize::from(primed);
                let fast = read_stream_chunk(data, &mut memo).map_err(|e| e.to_string());
                assert_eq!(fast, read_chunk(data, b"delta").map_err(|e| e.to_string()));
            }
        }
        assert!(resumed > 100, "the prefix must actually be reused ({resumed} times)");

        let first = br#"{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"}}],"usage":null}"#;
        let next = br#"{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"b\n"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1},"id":"c2"}"#;
        for cut in 0..=next.len() {
            for variant in [next[..cut].to_vec(), [&next[..cut], b"}".as_slice(), &next[cut..]].concat()] {
                let mut memo = PrefixMemo::default();
                read_stream_chunk(first, &mut memo).unwrap();
                assert!(!memo.prefix.is_empty());
                let fast = read_stream_chunk(&variant, &mut memo).map_err(|e| e.to_string());
                let whole = read_chunk(&variant, b"delta").map_err(|e| e.to_string());
                assert_eq!(fast, whole, "{}", String::from_utf8_lossy(&variant));
            }
        }
    }
}

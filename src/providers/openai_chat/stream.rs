//! OpenAI Chat Completions chunks (`chat.completion.chunk`) → builder calls.
//!
//! Chunks are read into typed structs that borrow from the event's bytes and skip every field
//! they do not name; text fields are read leniently so one odd field never costs a chunk.

use std::borrow::Cow;

use super::{convert_usage, map_finish_reason};
use crate::accumulator::{MessageBuilder, ReasoningDetail};
use crate::error::Result;
use crate::json::{read_document, read_list, resume_document, value_at, JsonError, JsonResult, Kind, Reader};
use crate::model::{ErrorInfo, Outcome};
use crate::providers::template::{same_bytes, skip_marked, Marked, Span, Template};
use crate::providers::{annotations_as_citations, ErrorBody, Handled, Scalar};
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
    /// `error`: an object, or a bare message string; or the chunk itself when it is an error
    /// (see [`Chunk::body_error`]).
    pub(crate) error: Option<ErrorBody<'a>>,
    /// FastAPI's `detail`, the message of a body that is an error.
    detail: Scalar<'a>,
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
    reasoning_content: Marked<'a>,
    reasoning: Marked<'a>,
    /// The streaming parser seed's third name for reasoning, after `reasoning_content`
    /// (DeepSeek) and `reasoning` (Ollama, OpenRouter).
    thinking: Marked<'a>,
    pub(crate) refusal: Scalar<'a>,
    tool_calls: Vec<ToolCallDelta<'a>>,
    /// The legacy `function_call` (`{name, arguments}`, before `tool_calls`): one call.
    function_call: Option<ToolCallDelta<'a>>,
    /// `audio.transcript`: the words of an audio answer (`modalities: ["audio"]`), whose content
    /// is null.
    transcript: Scalar<'a>,
    /// Each `url_citation` annotation's JSON text (OpenAI's search models, OpenRouter).
    annotations: Vec<&'a str>,
    /// OpenRouter's and Vercel AI Gateway's reasoning with its signatures and encrypted data.
    reasoning_details: Vec<Detail<'a>>,
}

/// One `reasoning_details` entry: `reasoning.text` (`text`, `signature`), `reasoning.summary`
/// (`summary`) or `reasoning.encrypted` (`data`), each with `format`, `index` and maybe `id`.
#[derive(Default)]
#[cfg_attr(test, derive(Debug, PartialEq))]
struct Detail<'a> {
    index: Option<u64>,
    format: Scalar<'a>,
    text: Scalar<'a>,
    summary: Scalar<'a>,
    signature: Scalar<'a>,
    data: Scalar<'a>,
    id: Scalar<'a>,
}

#[derive(Default)]
#[cfg_attr(test, derive(Debug, PartialEq))]
struct ToolCallDelta<'a> {
    index: Option<u64>,
    id: Scalar<'a>,
    name: Scalar<'a>,
    arguments: Marked<'a>,
}

/// `delta.content`: a string, or (Mistral's Magistral) an array of `text` and `thinking` parts.
#[derive(Default)]
#[cfg_attr(test, derive(Debug, PartialEq))]
enum Content<'a> {
    #[default]
    None,
    /// A string, with its span.
    Text(Cow<'a, str>, Span),
    /// `(is thinking, text)` in order.
    Parts(Vec<(bool, Cow<'a, str>)>),
}

/// Reads a chunk (`choice_key` = `delta`) or a completion body (`message`). Values of an
/// unexpected kind (a string where an object was expected, `index: "0"`) read as absent rather
/// than costing the whole chunk; only invalid JSON is an error.
#[cfg_attr(llw_speed, optimize(speed))]
pub(crate) fn read_chunk<'a>(data: &'a [u8], choice_key: &[u8]) -> JsonResult<Chunk<'a>> {
    read_document(data, |r| {
        let mut chunk = Chunk::default();
        if !r.object(|r, key| chunk.member(r, key, choice_key).map(drop))? {
            return Err(JsonError::not_an_object());
        }
        Ok(chunk)
    })
    .map(|chunk| chunk.body_error(data))
}

/// The top-level members of a chunk this reader uses: the one list of its keys, which reading
/// a chunk and the prefix memo both go by.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Member {
    Id,
    Model,
    Object,
    Provider,
    Choices,
    Usage,
    XGroq,
    Error,
    Detail,
}

impl Member {
    #[cfg_attr(llw_speed, optimize(speed))]
    fn of(key: &[u8]) -> Option<Member> {
        Some(match key {
            b"id" => Member::Id,
            b"model" => Member::Model,
            b"object" => Member::Object,
            b"provider" => Member::Provider,
            b"choices" => Member::Choices,
            b"usage" => Member::Usage,
            b"x_groq" => Member::XGroq,
            b"error" => Member::Error,
            b"detail" => Member::Detail,
            _ => return None,
        })
    }
}

impl<'a> Chunk<'a> {
    /// Reads one top-level member; `None` (nothing read) for a key this reader does not use.
    #[cfg_attr(llw_speed, optimize(speed))]
    fn member(&mut self, r: &mut Reader<'a>, key: &[u8], choice_key: &[u8]) -> JsonResult<Option<Member>> {
        let Some(member) = Member::of(key) else { return Ok(None) };
        self.read(r, member, choice_key)?;
        Ok(Some(member))
    }

    #[cfg_attr(llw_speed, optimize(speed))]
    fn read(&mut self, r: &mut Reader<'a>, member: Member, choice_key: &[u8]) -> JsonResult<()> {
        match member {
            Member::Id => self.id = Scalar::read(r)?,
            Member::Model => self.model = Scalar::read(r)?,
            Member::Object => self.object = Scalar::read(r)?,
            Member::Provider => self.provider = Scalar::read(r)?,
            Member::Choices => {
                r.array(|r| {
                    if let Some(choice) = read_choice(r, choice_key)? {
                        self.choices.push(choice);
                    }
                    Ok(())
                })?;
            }
            Member::Usage => self.usage = r.raw_non_null()?,
            Member::XGroq => {
                r.object(|r, key| {
                    if key == b"usage" {
                        self.groq_usage = r.raw_non_null()?;
                    }
                    Ok(())
                })?;
            }
            Member::Error => self.error = ErrorBody::read_field(r)?,
            Member::Detail => self.detail = ErrorBody::read_message(r)?,
        }
        Ok(())
    }

    /// The chunk (or body) with its error when it is itself one: `{object: "error", message,
    /// type, code}` (Mistral, older vLLM), read by the shared error reader; or FastAPI's
    /// `{"detail": ...}` with no choices. Only these two shapes: an ordinary chunk, whose
    /// `object` is `chat.completion.chunk` and which has choices, never reads as an error.
    fn body_error(mut self, data: &'a [u8]) -> Self {
        if self.error.is_none() {
            if self.object.as_deref() == Some("error") {
                self.error = ErrorBody::read_body(data);
            } else if self.choices.is_empty() && self.detail.0.is_some() {
                self.error = Some(ErrorBody::of_detail(std::mem::take(&mut self.detail)));
            }
        }
        self
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
    /// Each used member of the prefix and the offset of its value.
    members: Vec<(Member, usize)>,
}

/// A prefix shorter than this is not worth remembering.
const MIN_PREFIX: usize = 24;

/// Nor one longer than this: real prefixes are a few hundred bytes, and a longer one is copied
/// on every chunk read whole for a saving that stays the same.
const MAX_PREFIX: usize = 4096;

/// [`read_chunk`] for a stream chunk, resuming after the remembered prefix when the chunk starts
/// with it, and remembering this chunk's prefix when it does not. The spans of the top-level
/// string values it skips (`obfuscation`, ...) go to `skipped`.
#[cfg_attr(llw_speed, optimize(speed))]
fn read_stream_chunk<'a>(data: &'a [u8], memo: &mut PrefixMemo, skipped: &mut Vec<Span>) -> JsonResult<Chunk<'a>> {
    skipped.clear();
    let at = memo.prefix.len();
    if at >= MIN_PREFIX && data.len() > at && same_bytes(&data[..at], &memo.prefix) {
        let mut chunk = Chunk::default();
        for &(member, value) in &memo.members {
            value_at(data, value, |r| chunk.read(r, member, b"delta"))?;
        }
        resume_document(data, at, |r| {
            r.members(|r, key| {
                if chunk.member(r, key, b"delta")?.is_none() {
                    if let Some(span) = skip_marked(r)? {
                        skipped.push(span);
                    }
                }
                Ok(())
            })
        })?;
        return Ok(chunk.body_error(data));
    }
    let (mut choices_at, mut members) = (None, Vec::new());
    let chunk = read_document(data, |r| {
        let mut chunk = Chunk::default();
        let is_object = r.object(|r, key| {
            let (key_at, value) = (r.key_at(), r.pos());
            match chunk.member(r, key, b"delta")? {
                None => {
                    if let Some(span) = skip_marked(r)? {
                        skipped.push(span);
                    }
                }
                Some(Member::Choices) if choices_at.is_none() => choices_at = Some(key_at),
                Some(member) if choices_at.is_none() => members.push((member, value)),
                Some(_) => {}
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
    if let Some(at) = choices_at.filter(|at| (MIN_PREFIX..=MAX_PREFIX).contains(at)) {
        memo.prefix.extend_from_slice(&data[..at]);
    }
    Ok(chunk.body_error(data))
}

#[cfg_attr(llw_speed, optimize(speed))]
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

#[cfg_attr(llw_speed, optimize(speed))]
fn read_delta<'a>(r: &mut Reader<'a>) -> JsonResult<Option<Delta<'a>>> {
    let mut delta = Delta::default();
    let found = r.object(|r, key| {
        match key {
            b"content" => delta.content = read_content(r)?,
            b"reasoning_content" => delta.reasoning_content = Marked::read(r)?,
            b"reasoning" => delta.reasoning = Marked::read(r)?,
            b"thinking" => delta.thinking = Marked::read(r)?,
            b"refusal" => delta.refusal = Scalar::read(r)?,
            b"reasoning_details" => delta.reasoning_details = read_details(r)?,
            b"annotations" if r.peek()? == Kind::Array => delta.annotations = read_list(r, Reader::raw)?,
            b"audio" => {
                r.object(|r, key| {
                    if key == b"transcript" {
                        delta.transcript = Scalar::read(r)?;
                    }
                    Ok(())
                })?;
            }
            b"function_call" => {
                let mut call = ToolCallDelta::default();
                if read_function(r, &mut call)? {
                    delta.function_call = Some(call);
                }
            }
            b"tool_calls" => {
                r.array(|r| {
                    let mut call = ToolCallDelta::default();
                    let found = r.object(|r, key| {
                        match key {
                            b"index" => call.index = r.index()?,
                            b"id" => call.id = Scalar::read(r)?,
                            b"function" => {
                                read_function(r, &mut call)?;
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

/// A `{name, arguments}` function into `call`; whether it was an object.
fn read_function<'a>(r: &mut Reader<'a>, call: &mut ToolCallDelta<'a>) -> JsonResult<bool> {
    r.object(|r, key| {
        match key {
            b"name" => call.name = Scalar::read(r)?,
            b"arguments" => call.arguments = Marked::read(r)?,
            _ => {}
        }
        Ok(())
    })
}

/// `reasoning_details`: the entries that are objects (anything else is no entry).
fn read_details<'a>(r: &mut Reader<'a>) -> JsonResult<Vec<Detail<'a>>> {
    let mut details = Vec::new();
    r.array(|r| {
        let mut detail = Detail::default();
        let found = r.object(|r, key| {
            match key {
                b"index" => detail.index = r.index()?,
                b"format" => detail.format = Scalar::read(r)?,
                b"text" => detail.text = Scalar::read(r)?,
                b"summary" => detail.summary = Scalar::read(r)?,
                b"signature" => detail.signature = Scalar::read(r)?,
                b"data" => detail.data = Scalar::read(r)?,
                b"id" => detail.id = Scalar::read(r)?,
                _ => {}
            }
            Ok(())
        })?;
        if found {
            details.push(detail);
        }
        Ok(())
    })?;
    Ok(details)
}

/// A string, or an array of parts `{type:"text", text}` and `{type:"thinking", thinking}` where
/// `thinking` is a string or an array of `{type:"text", text}`; anything else is no content.
#[cfg_attr(llw_speed, optimize(speed))]
fn read_content<'a>(r: &mut Reader<'a>) -> JsonResult<Content<'a>> {
    match r.peek()? {
        Kind::String => {
            let Marked { text, span } = Marked::read(r)?;
            return Ok(match (text.0, span) {
                (Some(text), Some(span)) => Content::Text(text, span),
                _ => Content::None,
            });
        }
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
            _ => {
                if let Some(t) = text.0 {
                    parts.push((false, t));
                }
            }
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
                if let Some(text) = Scalar::read(r)?.0 {
                    texts.push(text);
                }
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

    /// What [`ChatStream::event`] does with this chunk when that is one call with one string
    /// of it (beside `start`, which does nothing the second time it is given the same values),
    /// and that string's span: the chunk may then serve as a [`Template`]. Every field is named
    /// here, so that a field added to a chunk cannot be left out of this decision.
    #[cfg_attr(llw_speed, optimize(speed))]
    fn only_text(&self) -> Option<(OnlyText, Span)> {
        let Chunk { id: _, model: _, provider: _, object, choices, usage, groq_usage, error, detail: _ } = self;
        let done = object.as_deref() == Some("chat.completion.done");
        if done || usage.is_some() || groq_usage.is_some() || error.is_some() {
            return None;
        }
        let [Choice { index, delta: Some(delta), finish_reason }] = choices.as_slice() else { return None };
        let Delta {
            content,
            reasoning_content,
            reasoning,
            thinking,
            refusal,
            tool_calls,
            function_call,
            transcript,
            annotations,
            reasoning_details,
        } = delta;
        let more = !reasoning_details.is_empty()
            || function_call.is_some()
            || transcript.0.is_some()
            || !annotations.is_empty();
        if finish_reason.0.is_some() || refusal.0.is_some() || more {
            return None;
        }
        let index = index.unwrap_or(0);
        // The same name wins as in `apply_delta`.
        let reasoning = [reasoning_content, reasoning, thinking].into_iter().find(|r| r.text.0.is_some());
        match (content, reasoning, tool_calls.as_slice()) {
            (Content::Text(_, span), None, []) => Some((OnlyText::Content(index), *span)),
            (Content::None, Some(reasoning), []) => Some((OnlyText::Reasoning(index), reasoning.span?)),
            (Content::None, None, [ToolCallDelta { index: call, id, name, arguments }])
                if id.0.is_none() && name.0.is_none() =>
            {
                Some((OnlyText::Arguments(index, *call), arguments.span?))
            }
            _ => None,
        }
    }
}

/// The one builder call a chunk that only adds text makes: content, reasoning or tool call
/// arguments, of a choice (and a call).
#[derive(Debug, Clone, Copy, PartialEq)]
enum OnlyText {
    Content(u32),
    Reasoning(u32),
    Arguments(u32, Option<u64>),
}

/// The state of one OpenAI Chat stream beyond what the builder keeps: the format is stateless
/// per chunk, so only what makes reading the next chunk cheaper.
#[derive(Debug, Default)]
pub(crate) struct ChatStream {
    memo: PrefixMemo,
    template: Template<OnlyText>,
    /// The skipped strings of the last chunk read whole, for the template.
    skipped: Vec<Span>,
}

impl ChatStream {
    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn event(&mut self, event: &SseEvent<'_>, b: &mut MessageBuilder) -> Result<Handled> {
        let data = event.data;
        if data.trim_ascii() == b"[DONE]" {
            b.end_all_choices()?;
            b.done();
            return Ok(Handled::Done);
        }
        if event.event == "error" {
            self.error_event(data, b)?;
            return Ok(Handled::Done);
        }
        if let Some((call, text)) = self.template.fill(data) {
            match call {
                OnlyText::Content(index) => b.tagged_content_taking(index, text)?,
                OnlyText::Reasoning(index) => b.reasoning_taking(index, text)?,
                // The one entry of its list: whatever call it finds was made before it.
                OnlyText::Arguments(index, call) => {
                    b.chat_tool_call(index, usize::MAX, call, None, None, Some(text))?
                }
            }
            return Ok(Handled::Done);
        }
        let chunk = match read_stream_chunk(data, &mut self.memo, &mut self.skipped) {
            Ok(chunk) => chunk,
            Err(err) => return Ok(Handled::NotJson(err.message())),
        };
        self.template.offer(data, chunk.only_text(), &self.skipped);
        b.start(chunk.id.as_deref(), chunk.model.as_deref(), chunk.provider.as_deref())?;
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
            b.set_usage(usage)?;
        }
        if let Some(error) = chunk.error {
            b.error(error.info())?;
        }
        if chunk.object.as_deref() == Some("chat.completion.done") {
            b.done();
        }
        Ok(Handled::Done)
    }

    /// `event: error` (Groq): `{"error": {...}}`, or the error object itself.
    fn error_event(&mut self, data: &[u8], b: &mut MessageBuilder) -> Result<()> {
        let error = read_chunk(data, b"delta")
            .ok()
            .and_then(|chunk| chunk.error)
            .or_else(|| read_document(data, ErrorBody::read_field).ok().flatten());
        b.error(match error {
            Some(error) => error.info(),
            None => ErrorInfo {
                message: String::from_utf8_lossy(data).into_owned(),
                code: None,
                outcome: Outcome::Determinate,
                retryable: None,
                provider_type: None,
                provider_code: None,
            },
        })
    }
}

#[cfg_attr(llw_speed, optimize(speed))]
pub(crate) fn apply_delta(b: &mut MessageBuilder, index: u32, mut delta: Delta<'_>) -> Result<()> {
    // Gateways restate the details' text in `reasoning`: it counts only when they carry none.
    let details_text = delta
        .reasoning_details
        .iter()
        .any(|d| [&d.text, &d.summary].iter().any(|t| t.as_deref().is_some_and(|t| !t.is_empty())));
    // The first of the three names present, in the order the streaming parser seed reads them.
    let reasoning = [&mut delta.reasoning_content, &mut delta.reasoning, &mut delta.thinking]
        .into_iter()
        .find_map(|marked| marked.text.0.take());
    if let Some(reasoning) = reasoning {
        if !details_text {
            b.reasoning_taking(index, reasoning)?;
        }
    }
    for (position, detail) in delta.reasoning_details.iter().enumerate() {
        b.reasoning_detail(
            index,
            ReasoningDetail {
                index: detail.index.unwrap_or(position as u64),
                // OpenRouter's own name for a format it does not know (some of its entries say null).
                format: detail.format.as_deref().unwrap_or("unknown"),
                text: detail.text.as_deref().or(detail.summary.as_deref()).unwrap_or(""),
                signature: detail.signature.as_deref().unwrap_or(""),
                data: detail.data.as_deref().unwrap_or(""),
                id: detail.id.as_deref().unwrap_or(""),
            },
        )?;
    }
    match delta.content {
        Content::Text(text, _) => b.tagged_content_taking(index, text)?,
        Content::Parts(parts) => {
            for (thinking, text) in parts {
                if thinking {
                    b.reasoning_taking(index, text)?;
                } else {
                    b.tagged_content_taking(index, text)?;
                }
            }
        }
        Content::None => {}
    }
    // The text of an audio answer, which has no content beside it (docs/design.md, "Streaming").
    if let Some(transcript) = delta.transcript.0 {
        b.tagged_content_taking(index, transcript)?;
    }
    // After the text they point into, so that they are that text block's citations.
    annotations_as_citations(b, index, &delta.annotations)?;
    if !delta.tool_calls.is_empty() {
        let list_start = b.tool_call_count(index)?;
        for call in delta.tool_calls {
            let (id, name) = (call.id.as_deref(), call.name.as_deref());
            b.chat_tool_call(index, list_start, call.index, id, name, call.arguments.text.0)?;
        }
    }
    if let Some(call) = delta.function_call {
        // A named one opens the call, which has no id (the builder invents one, as for any call
        // without); the deltas after it, with arguments only, continue it (docs/design.md,
        // "Streaming").
        let count = b.tool_call_count(index)?;
        let name = call.name.as_deref().filter(|name| !name.is_empty());
        b.chat_tool_call(index, count, None, None, name, call.arguments.text.0)?;
    }
    if let Some(refusal) = delta.refusal.as_deref() {
        b.refusal(index, refusal)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{read_chunk, read_stream_chunk, ChatStream, PrefixMemo};
    use crate::accumulator::MessageBuilder;
    use crate::providers::template::testing::{check_template, recorded_events, replay_recorded, Templated};
    use crate::providers::template::Template;
    use crate::providers::Handled;
    use crate::sse::SseEvent;

    const DIRS: [&str; 8] =
        ["openai-chat", "groq", "deepseek", "mistral", "openrouter", "azure-openai", "ollama", "minimax"];

    /// The `data` of every event of every OpenAI-compatible recorded stream, stream by stream.
    fn recorded_streams() -> Vec<Vec<Vec<u8>>> {
        let streams = recorded_events(&DIRS);
        streams.into_iter().map(|events| events.into_iter().map(|(_, data)| data).collect()).collect()
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
                let fast = read_stream_chunk(data, &mut memo, &mut Vec::new()).map_err(|e| e.to_string());
                assert_eq!(fast, read_chunk(data, b"delta").map_err(|e| e.to_string()));
            }
        }
        assert!(resumed > 100, "the prefix must actually be reused ({resumed} times)");

        let first = br#"{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"}}],"usage":null}"#;
        let next = br#"{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"b\n"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1},"id":"c2"}"#;
        for cut in 0..=next.len() {
            for variant in [next[..cut].to_vec(), [&next[..cut], b"}".as_slice(), &next[cut..]].concat()] {
                let mut memo = PrefixMemo::default();
                read_stream_chunk(first, &mut memo, &mut Vec::new()).unwrap();
                assert!(!memo.prefix.is_empty());
                let fast = read_stream_chunk(&variant, &mut memo, &mut Vec::new()).map_err(|e| e.to_string());
                let whole = read_chunk(&variant, b"delta").map_err(|e| e.to_string());
                assert_eq!(fast, whole, "{}", String::from_utf8_lossy(&variant));
            }
        }
    }

    impl Templated for ChatStream {
        fn event(&mut self, event: &SseEvent<'_>, b: &mut MessageBuilder) -> crate::Result<Handled> {
            ChatStream::event(self, event, b)
        }
        fn forget(&mut self) {
            self.template = Template::default();
        }
        fn fills(&self, data: &[u8]) -> bool {
            self.template.fill(data).is_some()
        }
    }

    /// A chunk that fills the template does exactly what reading it whole does: on every event
    /// of every recorded stream, and on chunks that add content, reasoning or tool arguments
    /// changed at every position (so that they fill it, or not, or are not JSON).
    #[test]
    fn a_chunk_filled_into_the_template_does_what_reading_it_whole_does() {
        let head = r#"{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":1,"delta":"#;
        // (first chunk's rest, next chunk's rest, whether the first may serve as a template)
        let cases = [
            (r#"{"content":"a"}}],"usage":null}"#, r#"{"content":"b\n"}}],"usage":null}"#, true),
            (r#"{"reasoning_content":"a","content":null}}]}"#, r#"{"reasoning_content":"b","content":null}}]}"#, true),
            (r#"{"reasoning":"a"}}]}"#, r#"{"reasoning":"\u00e9"}}]}"#, true),
            (
                r#"{"tool_calls":[{"index":0,"function":{"arguments":"{"}}]}}]}"#,
                r#"{"tool_calls":[{"index":0,"function":{"arguments":"\"x\""}}]}}]}"#,
                true,
            ),
            (
                r#"{"tool_calls":[{"index":0,"id":"t","function":{"name":"f","arguments":""}}]}}]}"#,
                r#"{"tool_calls":[{"index":0,"id":"t","function":{"name":"f","arguments":"x"}}]}}]}"#,
                false,
            ),
            (r#"{"content":"a"},"finish_reason":"stop"}]}"#, r#"{"content":"b"},"finish_reason":"stop"}]}"#, false),
            (r#"{"content":"a","refusal":"no"}}]}"#, r#"{"content":"b","refusal":"no"}}]}"#, false),
            (r#"{"content":5}}]}"#, r#"{"content":6}}]}"#, false),
            // OpenRouter restates reasoning in `reasoning_details`, which carry signatures.
            (r#"{"reasoning":"a","reasoning_details":[]}}]}"#, r#"{"reasoning":"b","reasoning_details":[]}}]}"#, true),
            (
                r#"{"reasoning":"a","reasoning_details":[{"type":"reasoning.text","signature":"s","index":0}]}}]}"#,
                r#"{"reasoning":"b","reasoning_details":[{"type":"reasoning.text","signature":"s","index":0}]}}]}"#,
                false,
            ),
            // OpenAI's `obfuscation` changes on every chunk: a skipped string may differ.
            (
                r#"{"content":"a"}}],"obfuscation":"abc","usage":null}"#,
                r#"{"content":"b"}}],"obfuscation":"zz\u0041q\"","usage":null}"#,
                true,
            ),
            (r#"{"content":"a"}}],"obfuscation":5}"#, r#"{"content":"b"}}],"obfuscation":"5"}"#, false),
        ];
        let cases: Vec<_> =
            cases.iter().map(|(a, b, fills)| (vec![format!("{head}{a}")], format!("{head}{b}"), *fills)).collect();
        check_template::<ChatStream>(&DIRS, "", &cases);
    }

    /// OpenAI's own chunks, whose `obfuscation` differs every time, fill the template too.
    #[test]
    fn chunks_with_their_own_obfuscation_fill_the_template() {
        let (events, filled) = replay_recorded::<ChatStream>(&["openai-chat"]);
        assert!(filled * 2 > events, "{filled} of {events} chunks filled the template");
    }
}

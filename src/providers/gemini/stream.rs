//! Gemini `GenerateContentResponse` chunks (`streamGenerateContent`, with `alt=sse` or as a
//! JSON array) → builder calls. A non-streamed body is the same object, read as one chunk.
//!
//! Every chunk is a whole response: candidates with their new parts, and `usageMetadata`,
//! `modelVersion` and `responseId` restated. Each candidate is a choice (its `index`, else its
//! place in the list). Parts map to blocks in order: text, thoughts as reasoning, function
//! calls (arriving whole, or on Vertex AI streamed as `partialArgs`), and any other part
//! (`executableCode`, `codeExecutionResult`, `inlineData`, ...) kept whole as an `other` block
//! named by its kind, so it can be sent back as it came. A `thoughtSignature` stays on the
//! block of the part that carried it; a signed thought is also kept whole as an `other` block
//! `thought`, as reasoning signatures are Claude's. The stream is complete when, at its end,
//! every candidate seen has a `finishReason`.

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::args::{Arguments, Leaf};
use super::template::{OnlyText, Range, TextTemplate};
use super::{convert_usage, map_finish_reason};
use crate::accumulator::{MessageBuilder, ENTRY_BYTES};
use crate::error::{Error, ErrorCode, Result};
use crate::json::{read_document, read_list, JsonError, JsonResult, Kind, Reader};
use crate::model::{ErrorInfo, Outcome, RawJson};
use crate::providers::anthropic::response::minify;
use crate::providers::{ErrorBody, Handled, Scalar};
use crate::sse::SseEvent;

/// One chunk, read whole before any of it is applied. A field of an unexpected kind reads as
/// absent; a repeated key is read again (the last one wins).
#[derive(Default)]
pub(crate) struct Chunk<'a> {
    candidates: Vec<Candidate<'a>>,
    /// `usageMetadata` as JSON text.
    usage: Option<&'a str>,
    /// Where the last `usageMetadata` value is, for the template.
    usage_at: Option<Range>,
    model_version: Scalar<'a>,
    response_id: Scalar<'a>,
    /// `promptFeedback.blockReason` and `blockReasonMessage`: the prompt was refused.
    block_reason: Scalar<'a>,
    block_message: Scalar<'a>,
    /// `{"error": {code, message, status}}`, Google's error shape.
    pub(crate) error: Option<ErrorBody<'a>>,
}

#[derive(Default)]
struct Candidate<'a> {
    index: Option<u64>,
    parts: Vec<Part<'a>>,
    finish_reason: Scalar<'a>,
    /// The [`METADATA`] members it has, as JSON text.
    metadata: Vec<(&'static str, &'a str)>,
}

/// What candidate data is kept, as an `other` block of that name when the candidate ends: the
/// metadata restated on every chunk (so only the last one is kept), and `finishMessage`, why it
/// stopped (with `MALFORMED_FUNCTION_CALL`, the only copy of the broken call). Their data is no
/// Gemini part, so they are never sent back.
const METADATA: [&str; 4] = ["groundingMetadata", "urlContextMetadata", "citationMetadata", "finishMessage"];

struct Part<'a> {
    data: PartData<'a>,
    thought: bool,
    signature: Scalar<'a>,
    /// Where the text's string token is, for the template.
    text_at: Option<Range>,
    /// The whole part as JSON: only an `other` part uses it.
    raw: &'a [u8],
}

enum PartData<'a> {
    /// No data member: a part carrying only a signature, or nothing.
    None,
    Text(Cow<'a, str>),
    Call(FunctionCall<'a>),
    /// Any other kind of part, by its member's name.
    Other(String),
}

#[derive(Default)]
struct FunctionCall<'a> {
    id: Scalar<'a>,
    name: Scalar<'a>,
    /// `args` as JSON text.
    args: Option<&'a str>,
    partial_args: Vec<PartialArg<'a>>,
    will_continue: bool,
}

#[derive(Default)]
struct PartialArg<'a> {
    json_path: Scalar<'a>,
    value: Option<ArgValue<'a>>,
    will_continue: bool,
}

enum ArgValue<'a> {
    String(Cow<'a, str>),
    Raw(&'a str),
}

/// Members of a part that describe it rather than carry its data.
fn is_part_attribute(key: &[u8]) -> bool {
    matches!(key, b"thought" | b"thoughtSignature" | b"partMetadata" | b"videoMetadata" | b"mediaResolution")
}

/// `true` when the value is the literal `true`; anything else is false.
fn read_flag(r: &mut Reader<'_>) -> JsonResult<bool> {
    Ok(r.scalar()?.as_deref() == Some("true"))
}

impl<'a> Chunk<'a> {
    /// The chunk in `src`, or `None` when it is not an object.
    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn read(src: &'a [u8]) -> JsonResult<Option<Chunk<'a>>> {
        read_document(src, |r| {
            let mut chunk = Chunk::default();
            let is_object = r.object(|r, key| {
                match key {
                    b"candidates" => chunk.candidates = read_list(r, |r| Candidate::read(r, src))?,
                    b"usageMetadata" => {
                        r.peek()?;
                        let open = r.pos();
                        chunk.usage = r.raw_non_null()?;
                        chunk.usage_at = Some((open, r.pos()));
                    }
                    b"modelVersion" => chunk.model_version = Scalar::read(r)?,
                    b"responseId" => chunk.response_id = Scalar::read(r)?,
                    b"promptFeedback" => {
                        r.object(|r, key| {
                            match key {
                                b"blockReason" => chunk.block_reason = Scalar::read(r)?,
                                b"blockReasonMessage" => chunk.block_message = Scalar::read(r)?,
                                _ => {}
                            }
                            Ok(())
                        })?;
                    }
                    b"error" => chunk.error = read_error(r)?,
                    _ => {}
                }
                Ok(())
            })?;
            Ok(is_object.then_some(chunk))
        })
    }

    /// Whether the chunk answers the request: a candidate, a blocked prompt or an error.
    pub(crate) fn answers(&self) -> bool {
        !self.candidates.is_empty() || self.block_reason.0.is_some() || self.error.is_some()
    }

    /// What the chunk does when its whole effect is one candidate's text and the usage: the
    /// template it can be.
    fn only_text(&self) -> Option<OnlyText> {
        let ([candidate], None) = (&self.candidates[..], &self.error) else { return None };
        let [part] = &candidate.parts[..] else { return None };
        let signed = part.signature.as_deref().is_some_and(|s| !s.is_empty());
        if signed || candidate.finish_reason.0.is_some() || !candidate.metadata.is_empty() {
            return None;
        }
        let (PartData::Text(_), Some(text)) = (&part.data, part.text_at) else { return None };
        let choice = u32::try_from(candidate.index.unwrap_or(0)).unwrap_or(u32::MAX);
        Some(OnlyText { choice, thought: part.thought, text, usage: self.usage_at })
    }
}

/// Google's `{code, message, status}` as an [`ErrorBody`]: the status is its type. A bare
/// string is the message; anything else that is not an object is no error.
pub(crate) fn read_error<'a>(r: &mut Reader<'a>) -> JsonResult<Option<ErrorBody<'a>>> {
    if r.peek()? == Kind::String {
        return Ok(Some(ErrorBody { message: Scalar::read(r)?, ..ErrorBody::default() }));
    }
    let mut error = ErrorBody::default();
    let is_object = r.object(|r, key| {
        match key {
            b"message" => error.message = Scalar::read(r)?,
            b"status" => error.kind = Scalar::read(r)?,
            b"code" => error.code = Scalar::read(r)?,
            _ => {}
        }
        Ok(())
    })?;
    Ok(is_object.then_some(error))
}

impl<'a> Candidate<'a> {
    #[cfg_attr(llw_speed, optimize(speed))]
    fn read(r: &mut Reader<'a>, src: &'a [u8]) -> JsonResult<Candidate<'a>> {
        let mut candidate = Candidate::default();
        r.object(|r, key| {
            match key {
                b"index" => candidate.index = r.index()?,
                b"content" => {
                    r.object(|r, key| {
                        if key == b"parts" {
                            candidate.parts = read_list(r, |r| Part::read(r, src))?;
                        }
                        Ok(())
                    })?;
                }
                b"finishReason" => candidate.finish_reason = Scalar::read(r)?,
                _ => {
                    if let Some(name) = METADATA.iter().find(|name| name.as_bytes() == key) {
                        if let Some(raw) = r.raw_non_null()? {
                            candidate.metadata.retain(|(kept, _)| kept != name);
                            candidate.metadata.push((name, raw));
                        }
                    }
                }
            }
            Ok(())
        })?;
        Ok(candidate)
    }
}

impl<'a> Part<'a> {
    /// A part; one that is not an object reads as a part with no data.
    #[cfg_attr(llw_speed, optimize(speed))]
    fn read(r: &mut Reader<'a>, src: &'a [u8]) -> JsonResult<Part<'a>> {
        let start = r.pos();
        let (mut text, mut call, mut other) = (None, None, None);
        let (mut thought, mut signature, mut text_at) = (false, Scalar::default(), None);
        r.object(|r, key| {
            match key {
                b"text" => {
                    let is_string = r.peek()? == Kind::String;
                    let open = r.pos();
                    text = Scalar::read(r)?.0;
                    text_at = is_string.then(|| (open, r.pos()));
                }
                b"thought" => thought = read_flag(r)?,
                b"thoughtSignature" => signature = Scalar::read(r)?,
                b"functionCall" => call = FunctionCall::read(r)?,
                key if is_part_attribute(key) => {}
                key => {
                    if other.is_none() {
                        other = Some(String::from_utf8_lossy(key).into_owned());
                    }
                }
            }
            Ok(())
        })?;
        let data = match (call, text, other) {
            (Some(call), _, _) => PartData::Call(call),
            (None, Some(text), _) => PartData::Text(text),
            (None, None, Some(kind)) => PartData::Other(kind),
            (None, None, None) => PartData::None,
        };
        Ok(Part { data, thought, signature, text_at, raw: &src[start..r.pos()] })
    }
}

impl<'a> FunctionCall<'a> {
    fn read(r: &mut Reader<'a>) -> JsonResult<Option<FunctionCall<'a>>> {
        crate::json::read_object(r, |call: &mut FunctionCall<'a>, r, key| {
            match key {
                b"id" => call.id = Scalar::read(r)?,
                b"name" => call.name = Scalar::read(r)?,
                b"args" => call.args = r.raw_non_null()?,
                b"partialArgs" => call.partial_args = read_list(r, PartialArg::read)?,
                b"willContinue" => call.will_continue = read_flag(r)?,
                _ => {}
            }
            Ok(())
        })
    }
}

impl<'a> PartialArg<'a> {
    /// A partial argument; a value of the wrong kind for its member reads as absent.
    fn read(r: &mut Reader<'a>) -> JsonResult<PartialArg<'a>> {
        let mut arg = PartialArg::default();
        r.object(|r, key| {
            let wanted = match key {
                b"jsonPath" => return Scalar::read(r).map(|path| arg.json_path = path),
                b"willContinue" => return read_flag(r).map(|flag| arg.will_continue = flag),
                b"stringValue" => Kind::String,
                b"numberValue" => Kind::Number,
                b"boolValue" => Kind::Bool,
                b"nullValue" => Kind::Null,
                _ => return Ok(()),
            };
            let kind = r.peek()?;
            if kind == Kind::String && wanted == Kind::String {
                arg.value = r.string()?.map(ArgValue::String);
            } else if kind == wanted || (wanted == Kind::Null && kind == Kind::String) {
                // `nullValue` is the enum `NULL_VALUE` in proto JSON, or `null`.
                let raw = r.raw()?;
                arg.value = Some(ArgValue::Raw(if wanted == Kind::Null { "null" } else { raw }));
            }
            Ok(())
        })?;
        Ok(arg)
    }
}

/// A Vertex AI streamed call still receiving its arguments.
#[derive(Debug)]
struct OpenCall {
    /// The call's position in the choice's tool calls.
    at: usize,
    arguments: Arguments,
    /// The bytes its partial arguments brought, held to `maxToolArgumentBytes`.
    bytes: usize,
}

/// What the decoder keeps per candidate.
#[derive(Debug, Default)]
struct ChoiceState {
    index: u32,
    /// How many calls the candidate made.
    calls: usize,
    open: Option<OpenCall>,
    /// The last of each kind of candidate metadata, added as blocks when the candidate ends.
    metadata: Vec<(&'static str, String)>,
}

#[derive(Debug, Default)]
pub(crate) struct GeminiStream {
    choices: Vec<ChoiceState>,
    /// The position in `choices` of each candidate index (keyed as `u64`: the one integer-keyed map
    /// type the stream code uses).
    positions: BTreeMap<u64, usize>,
    template: TextTemplate,
}

impl GeminiStream {
    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn event(&mut self, event: &SseEvent<'_>, b: &mut MessageBuilder) -> Result<Handled> {
        if let Some(filled) = self.template.fill(event.data) {
            // What `chunk` does with it; `start` has nothing to add: the template's own id and
            // model were recorded when it was read.
            let at = self.state(filled.choice);
            let part = Part {
                data: PartData::Text(filled.text),
                thought: filled.thought,
                signature: Scalar::default(),
                text_at: None,
                raw: b"",
            };
            self.part(at, filled.choice, part, b)?;
            if let Some((raw, true)) = filled.usage {
                // Made into a usage only when it is wanted; one without counts changes nothing.
                b.set_usage_text(raw, convert_usage)?;
            }
            if b.all_choices_finished() {
                b.done();
            }
            return Ok(Handled::Done);
        }
        match Chunk::read(event.data) {
            Ok(Some(chunk)) => {
                self.template.offer(event.data, chunk.only_text());
                self.chunk(chunk, b).map(|()| Handled::Done)
            }
            Ok(None) => Ok(Handled::NotJson(JsonError::not_an_object().message())),
            Err(err) => Ok(Handled::NotJson(err.message())),
        }
    }

    /// Applies one chunk.
    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn chunk(&mut self, chunk: Chunk<'_>, b: &mut MessageBuilder) -> Result<()> {
        if let Some(error) = &chunk.error {
            return b.error(error.info());
        }
        b.start(chunk.response_id.as_deref(), chunk.model_version.as_deref(), None)?;
        let blocked = chunk.candidates.is_empty();
        for (position, candidate) in chunk.candidates.into_iter().enumerate() {
            let index = candidate.index.unwrap_or(position as u64);
            self.candidate(u32::try_from(index).unwrap_or(u32::MAX), candidate, b)?;
        }
        if let Some(usage) = chunk.usage.and_then(convert_usage) {
            b.set_usage(usage)?;
        }
        if let (true, Some(reason)) = (blocked, chunk.block_reason.as_deref()) {
            b.error(blocked_prompt(reason, chunk.block_message.as_deref()))?;
        }
        Ok(())
    }

    /// The state of candidate `index`, which appears now if it had not.
    fn state(&mut self, index: u32) -> usize {
        if self.choices.last().is_some_and(|c| c.index == index) {
            return self.choices.len() - 1;
        }
        if let Some(&at) = self.positions.get(&u64::from(index)) {
            return at;
        }
        self.positions.insert(u64::from(index), self.choices.len());
        self.choices.push(ChoiceState { index, ..ChoiceState::default() });
        self.choices.len() - 1
    }

    #[cfg_attr(llw_speed, optimize(speed))]
    fn candidate(&mut self, choice: u32, candidate: Candidate<'_>, b: &mut MessageBuilder) -> Result<()> {
        let at = self.state(choice);
        for part in candidate.parts {
            self.part(at, choice, part, b)?;
        }
        for (name, raw) in candidate.metadata {
            let kept = &mut self.choices[at].metadata;
            b.keep(raw.len())?;
            if let Some(slot) = kept.iter_mut().find(|(kept, _)| *kept == name) {
                b.release(slot.1.len());
                slot.1 = raw.to_owned();
            } else {
                kept.push((name, raw.to_owned()));
            }
        }
        if let Some(raw) = candidate.finish_reason.as_deref() {
            self.end_candidate(at, b)?;
            let state = &self.choices[at];
            b.finish_reason(choice, map_finish_reason(raw, state.calls > 0), raw)?;
        }
        Ok(())
    }

    /// One part of candidate `choice`, whose state is at `at`.
    #[cfg_attr(llw_speed, optimize(speed))]
    fn part(&mut self, at: usize, choice: u32, part: Part<'_>, b: &mut MessageBuilder) -> Result<()> {
        let signature = part.signature.as_deref().unwrap_or("");
        // A signed thought is Gemini state, not a Claude signature: the part is kept whole to go
        // back to Gemini as it came (docs/design.md, "Reasoning that goes back").
        let signed_thought = part.thought && !signature.is_empty();
        match part.data {
            PartData::Text(text) if part.thought => {
                b.reasoning_taking(choice, text)?;
                if signed_thought {
                    b.other_block(choice, THOUGHT, raw_part(part.raw))?;
                }
                Ok(())
            }
            PartData::None if signed_thought => b.other_block(choice, THOUGHT, raw_part(part.raw)),
            PartData::Text(text) => {
                // A signed part is not joined to the text before it.
                if !signature.is_empty() && !text.is_empty() {
                    b.break_block(choice);
                }
                b.text_taking(choice, text)?;
                b.text_signature(choice, signature)
            }
            PartData::None => b.text_signature(choice, signature),
            PartData::Call(call) => self.function_call(at, call, signature, b),
            PartData::Other(kind) => b.other_block(choice, &kind, raw_part(part.raw)),
        }
    }

    /// A `functionCall` part of the candidate at `at`: a whole call, or a Vertex streamed call
    /// opening (a name with `willContinue` or `partialArgs`), going on (no name) or closing
    /// (no `willContinue`, as the `{}` part that ends one).
    fn function_call(
        &mut self,
        at: usize,
        call: FunctionCall<'_>,
        signature: &str,
        b: &mut MessageBuilder,
    ) -> Result<()> {
        let choice = self.choices[at].index;
        let name = call.name.as_deref().unwrap_or("");
        if name.is_empty() {
            if self.choices[at].open.is_some() {
                self.partial_args(at, &call.partial_args, b)?;
                if !call.will_continue {
                    self.close_call(at, b)?;
                }
            }
            return Ok(());
        }
        // A new call ends one still open.
        self.close_call(at, b)?;
        // A call without an id gets the builder's invented one (docs/design.md, "Gemini").
        let call_at = b.begin_tool_call(choice, call.id.as_deref().unwrap_or(""), name, None, None)?;
        b.tool_call_signature(choice, signature)?;
        self.choices[at].calls += 1;
        if call.will_continue || !call.partial_args.is_empty() {
            b.keep(ENTRY_BYTES)?;
            self.choices[at].open = Some(OpenCall { at: call_at, arguments: Arguments::default(), bytes: 0 });
            self.partial_args(at, &call.partial_args, b)?;
            if !call.will_continue {
                self.close_call(at, b)?;
            }
            return Ok(());
        }
        // Whole: its `args` with their key order and number spelling kept, or none (`{}`).
        let arguments = call.args.map_or_else(|| "{}".to_owned(), minify);
        b.tool_arguments_taking(choice, call_at, Cow::Owned(arguments))?;
        b.end_tool_call(choice, call_at);
        Ok(())
    }

    /// Sets the partial arguments on the open call of the candidate at `at`. A path that cannot
    /// be read costs that argument, reported as an error.
    fn partial_args(&mut self, at: usize, args: &[PartialArg<'_>], b: &mut MessageBuilder) -> Result<()> {
        let max = b.limits().max_tool_argument_bytes;
        for arg in args {
            let Some(open) = self.choices[at].open.as_mut() else { return Ok(()) };
            let (path, value) = match (&arg.json_path.0, &arg.value) {
                (Some(path), Some(ArgValue::String(text))) => (path, Leaf::String(text)),
                (Some(path), Some(ArgValue::Raw(raw))) => (path, Leaf::Raw(raw)),
                _ => continue,
            };
            let bytes = path.len()
                + match value {
                    Leaf::String(text) | Leaf::Raw(text) => text.len(),
                };
            if open.bytes + bytes > max {
                return Err(Error::new(
                    ErrorCode::LimitExceeded,
                    format!("tool call arguments are larger than maxToolArgumentBytes ({max} bytes)"),
                ));
            }
            b.keep(bytes)?;
            open.bytes += bytes;
            if let Err(why) = open.arguments.set(path, value, arg.will_continue) {
                b.error(ErrorInfo {
                    message: format!("a streamed function call argument was not read: {why}"),
                    code: Some(ErrorCode::InvalidJson.as_str().to_owned()),
                    outcome: Outcome::Indeterminate,
                    retryable: Some(false),
                    provider_type: None,
                    provider_code: None,
                })?;
            }
        }
        Ok(())
    }

    /// Ends the open streamed call of the candidate at `at`, if any: its arguments are written.
    fn close_call(&mut self, at: usize, b: &mut MessageBuilder) -> Result<()> {
        let Some(open) = self.choices[at].open.take() else { return Ok(()) };
        b.release(open.bytes + ENTRY_BYTES);
        let choice = self.choices[at].index;
        b.tool_arguments(choice, open.at, &open.arguments.to_json())?;
        b.end_tool_call(choice, open.at);
        Ok(())
    }

    /// The candidate at `at` ends: its open call closes and its metadata becomes blocks.
    fn end_candidate(&mut self, at: usize, b: &mut MessageBuilder) -> Result<()> {
        self.close_call(at, b)?;
        let choice = self.choices[at].index;
        for (name, raw) in std::mem::take(&mut self.choices[at].metadata) {
            b.release(raw.len());
            if let Some(data) = RawJson::parse(&raw) {
                b.other_block(choice, name, data)?;
            }
        }
        Ok(())
    }

    /// The input ended: every candidate ends as it would at its finish reason, in the order
    /// the candidates appeared. The stream is done when every candidate seen has finished,
    /// judged only now: a candidate may first appear after the others have finished.
    pub(crate) fn flush(&mut self, b: &mut MessageBuilder) -> Result<()> {
        for at in 0..self.choices.len() {
            self.end_candidate(at, b)?;
        }
        if b.all_choices_finished() {
            b.done();
        }
        Ok(())
    }
}

/// The `other` block kind of a signed `thought: true` part, named by its `thought` member so
/// that it goes back to Gemini as a Gemini part.
const THOUGHT: &str = "thought";

/// A part's bytes as the JSON they are.
fn raw_part(raw: &[u8]) -> RawJson {
    // The reader validated these bytes as one JSON value, so they are UTF-8.
    RawJson::from_valid(std::str::from_utf8(raw).unwrap_or("null"))
}

/// A prompt refused before any candidate (`promptFeedback.blockReason`): a determinate error
/// whose code is the reason.
fn blocked_prompt(reason: &str, message: Option<&str>) -> ErrorInfo {
    let message = match message.filter(|m| !m.is_empty()) {
        Some(message) => format!("the prompt was blocked ({reason}): {message}"),
        None => format!("the prompt was blocked ({reason})"),
    };
    ErrorInfo {
        message,
        code: Some(reason.to_owned()),
        outcome: Outcome::Determinate,
        retryable: Some(false),
        provider_type: None,
        provider_code: Some(reason.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::GeminiStream;
    use crate::accumulator::MessageBuilder;
    use crate::providers::gemini::template::TextTemplate;
    use crate::providers::template::testing::{replay_recorded, same_as_whole, variants, Templated};
    use crate::providers::Handled;
    use crate::sse::SseEvent;

    const DIRS: [&str; 2] = ["gemini", "vertex"];

    impl Templated for GeminiStream {
        fn event(&mut self, event: &SseEvent<'_>, b: &mut MessageBuilder) -> crate::Result<Handled> {
            GeminiStream::event(self, event, b)
        }
        fn forget(&mut self) {
            self.template = TextTemplate::default();
        }
        fn fills(&self, data: &[u8]) -> bool {
            self.template.fill(data).is_some()
        }
    }

    /// A chunk that fills the template does exactly what reading it whole does: on every event
    /// of every recorded stream, and on chunks with a new text and usage changed at every
    /// position (so that they fill it, or not, or are not JSON).
    #[test]
    fn a_chunk_filled_into_the_template_does_what_reading_it_whole_does() {
        let usage =
            |n: u32| format!(r#"{{"promptTokenCount":3,"candidatesTokenCount":{n},"totalTokenCount":{}}}"#, n + 3);
        let chunk = |part: &str, candidate: &str, n: u32| {
            format!(
                r#"{{"candidates":[{{"content":{{"parts":[{part}],"role":"model"}}{candidate}}}],"usageMetadata":{},"modelVersion":"m","responseId":"r"}}"#,
                usage(n)
            )
        };
        // (first chunk, next chunk, whether the first may serve as a template)
        let mut cases = vec![
            (chunk(r#"{"text":"a"}"#, r#","index":0"#, 1), chunk(r#"{"text":"b\n"}"#, r#","index":0"#, 2), true),
            (chunk(r#"{"text":"a","thought":true}"#, "", 1), chunk(r#"{"text":"\u00e9","thought":true}"#, "", 2), true),
            (chunk(r#"{"text":"a"}"#, r#","index":1"#, 1), chunk(r#"{"text":"b"}"#, r#","index":1"#, 1), true),
            (
                chunk(r#"{"text":"a"}"#, r#","finishReason":"STOP""#, 1),
                chunk(r#"{"text":"b"}"#, r#","finishReason":"STOP""#, 2),
                false,
            ),
            (
                chunk(r#"{"text":"a","thoughtSignature":"s"}"#, "", 1),
                chunk(r#"{"text":"b","thoughtSignature":"s"}"#, "", 2),
                false,
            ),
            (chunk(r#"{"text":"a"},{"text":"b"}"#, "", 1), chunk(r#"{"text":"c"},{"text":"d"}"#, "", 2), false),
            (chunk(r#"{"text":5}"#, "", 1), chunk(r#"{"text":6}"#, "", 2), false),
            (
                chunk(r#"{"functionCall":{"name":"f","args":{}}}"#, "", 1),
                chunk(r#"{"functionCall":{"name":"f","args":{}}}"#, "", 2),
                false,
            ),
        ];
        // The usage first, restated as `null`, or absent.
        let text =
            |t: &str, usage: &str| format!(r#"{{{usage}"candidates":[{{"content":{{"parts":[{{"text":"{t}"}}]}}}}]}}"#);
        let restated = |n: u32| format!(r#""usageMetadata":{},"#, usage(n));
        cases.push((text("a", &restated(1)), text("b", &restated(2)), true));
        cases.push((text("a", r#""usageMetadata":null,"#), text("b", &restated(2)), true));
        cases.push((text("a", ""), text("b", ""), true));
        // A usage of another kind, or with counts of other kinds, fills it too.
        for usage in [r#"{"promptTokenCount":"4","x":[true,null],"totalTokenCount":1.5}"#, "5", r#""u""#, "[]"] {
            cases.push((text("a", &restated(1)), text("b", &format!(r#""usageMetadata":{usage},"#)), true));
        }
        // Counts changed to other integers fill it without a read; other numbers and integers
        // past 15 digits are read as reading whole reads them; a leading zero is not JSON, so
        // that chunk is read whole and refused.
        for count in ["7", "0", "123456789012345", "1234567890123456", "05", "-1", "1.0", "1e400", "1E2", "\"1\""] {
            let next = format!(
                r#""usageMetadata":{{"promptTokenCount":3,"candidatesTokenCount":{count},"totalTokenCount":9}},"#
            );
            let fills = count != "05";
            cases.push((text("a", &restated(1)), text("b", &next), fills));
        }
        // Digits inside a string of the usage may change too: it stays the same string token.
        let quoted = |n: u32| format!(r#""usageMetadata":{{"note":"a:{n},b","candidatesTokenCount":{n}}},"#);
        cases.push((text("a", &quoted(1)), text("b", &quoted(22)), true));
        // A usage without counts as the template: the next one's counts are still counted.
        let vertex = r#""usageMetadata":{"trafficType":"ON_DEMAND"},"#;
        cases.push((text("a", vertex), text("b", vertex), true));
        cases.push((text("a", vertex), text("b", &restated(2)), true));
        for (first, next, fills) in cases {
            let filled_after = |last: &[u8]| same_as_whole::<GeminiStream>(&[("", first.as_bytes()), ("", last)]);
            assert_eq!(filled_after(next.as_bytes()), usize::from(fills), "{next}");
            let variants_filled: usize = variants(next.as_bytes()).iter().map(|v| filled_after(v)).sum();
            assert!(!fills || variants_filled > 3, "{next}: filled by {variants_filled} variants");
        }
    }

    /// A chunk whose usage is the template's own, after one with another usage, still gives
    /// that usage again.
    #[test]
    fn the_template_usage_after_another_usage_is_a_new_usage() {
        let chunk = |text: &str, n: u32| {
            format!(
                r#"{{"candidates":[{{"content":{{"parts":[{{"text":"{text}"}}]}}}}],"usageMetadata":{{"candidatesTokenCount":{n}}}}}"#
            )
        };
        let events = [chunk("a", 1), chunk("b", 2), chunk("c", 1), chunk("d", 1)];
        let events: Vec<(&str, &[u8])> = events.iter().map(|e| ("", e.as_bytes())).collect();
        assert_eq!(same_as_whole::<GeminiStream>(&events), 3);
    }

    /// Every event of every recorded stream does the same filled into the template as read
    /// whole; the recordings are short (their first and finishing chunks cannot fill it), and
    /// about a third of their chunks fill it.
    #[test]
    fn recorded_chunks_filled_into_the_template_do_what_reading_them_whole_does() {
        let (events, filled) = replay_recorded::<GeminiStream>(&DIRS);
        assert!(filled * 4 > events, "{filled} of {events} chunks filled the template");
    }
}

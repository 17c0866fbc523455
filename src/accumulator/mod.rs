//! The streaming accumulator: raw streamed bytes of any supported format in, normalised events
//! and one final message out.
//!
//! Bytes go through a framing ([`crate::framing`]: SSE, a streamed JSON array or AWS event-stream
//! messages, detected from the first bytes) and each frame to its format's decoder.

mod builder;
mod detect;
pub(crate) mod ids;
mod live;
mod think;
mod tool_calls;

pub(crate) use builder::{MessageBuilder, ReasoningDetail, ENTRY_BYTES};

use crate::error::{Error, ErrorCode, Result};
use crate::framing::{Frame, FrameDecoder, FrameKind, Framing};
use crate::model::{ErrorInfo, FinalMessage, Outcome, Property, StreamEvent};
use crate::providers::{
    anthropic, bedrock, gemini, invalid_chunk, openai_chat, openai_responses, repair_lone_surrogates, Handled,
};
use crate::sse::SseEvent;
use crate::Limits;

/// The wire format of a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// Detected from the first event (its `event:` name when present, its shape otherwise).
    #[default]
    Auto,
    /// OpenAI Chat Completions and every OpenAI-compatible server.
    OpenAiChat,
    /// Anthropic Messages.
    Anthropic,
    /// OpenAI Responses API.
    OpenAiResponses,
    /// Amazon Bedrock: ConverseStream, or InvokeModelWithResponseStream (whose chunks carry
    /// another format's events), in AWS event-stream messages.
    Bedrock,
    /// Gemini's `streamGenerateContent` (the Gemini API and Vertex AI), SSE or a JSON array.
    Gemini,
}

impl Format {
    /// Parses the JS name (`"auto"`, `"openai-chat"`, `"anthropic"`, `"openai-responses"`,
    /// `"bedrock"`, `"gemini"`).
    pub fn from_name(name: &str) -> Option<Format> {
        match name {
            "auto" => Some(Format::Auto),
            "openai-chat" => Some(Format::OpenAiChat),
            "anthropic" => Some(Format::Anthropic),
            "openai-responses" => Some(Format::OpenAiResponses),
            "bedrock" => Some(Format::Bedrock),
            "gemini" => Some(Format::Gemini),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Format::Auto => "auto",
            Format::OpenAiChat => "openai-chat",
            Format::Anthropic => "anthropic",
            Format::OpenAiResponses => "openai-responses",
            Format::Bedrock => "bedrock",
            Format::Gemini => "gemini",
        }
    }
}

/// Options of an [`Accumulator`].
#[derive(Debug, Clone, Default)]
pub struct AccumulatorOptions {
    pub format: Format,
    /// Reported as `provider` on the start event and the final message when the stream does
    /// not name one itself.
    pub provider: Option<String>,
    pub limits: Limits,
    /// Live partial JSON (docs/design.md, "Streaming"): each streamed tool call's arguments are
    /// read as they grow, giving `tool_call_partial` events, and with `outputs` so is the answer
    /// text (`output_partial` events).
    pub partial_json: bool,
    /// The agent's `outputs`: with `partial_json`, the answer text is read as the structured
    /// output, the way the lenient `parse_structured_output` reads it, and checked against them.
    pub outputs: Vec<Property>,
}

/// The per-format decoding state.
enum Decoder {
    Pending,
    Chat(openai_chat::ChatStream),
    Anthropic(anthropic::AnthropicStream),
    Responses(openai_responses::ResponsesStream),
    /// Bedrock, before its first event says which of its two streams it is.
    BedrockPending,
    Converse(bedrock::ConverseStream),
    /// InvokeModelWithResponseStream: each chunk's bytes are an event for the inner decoder.
    Invoke(Box<Decoder>),
    Gemini(gemini::GeminiStream),
}

/// Raw streamed bytes in, normalised events and one final message out.
///
/// ```
/// use llm_wire::{Accumulator, AccumulatorOptions};
///
/// let mut acc = Accumulator::new(AccumulatorOptions::default());
/// let body = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n\
///              data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"stop\"}]}\n\n\
///              data: [DONE]\n\n";
/// for piece in body.chunks(7) {
///     acc.push(piece).unwrap();
/// }
/// let message = acc.finish();
/// assert_eq!(message.text, "Hello");
/// assert!(message.complete);
/// ```
pub struct Accumulator {
    frames: FrameDecoder,
    builder: MessageBuilder,
    decoder: Decoder,
    /// A fatal error (a limit): further input is refused with it.
    failed: Option<Error>,
    flushed: bool,
}

impl Accumulator {
    pub fn new(options: AccumulatorOptions) -> Self {
        let decoder = match options.format {
            Format::Auto => Decoder::Pending,
            format => new_decoder(format),
        };
        let mut builder = MessageBuilder::new(options.limits, options.provider);
        builder.set_live(live::LiveOptions::new(options.partial_json, &options.outputs));
        Accumulator { frames: FrameDecoder::new(&options.limits), builder, decoder, failed: None, flushed: false }
    }

    /// The format in use: the configured one, or the detected one once the first event arrived.
    pub fn format(&self) -> Format {
        match self.decoder {
            Decoder::Pending => Format::Auto,
            Decoder::Chat(_) => Format::OpenAiChat,
            Decoder::Anthropic(_) => Format::Anthropic,
            Decoder::Responses(_) => Format::OpenAiResponses,
            Decoder::BedrockPending | Decoder::Converse(_) | Decoder::Invoke(_) => Format::Bedrock,
            Decoder::Gemini(_) => Format::Gemini,
        }
    }

    /// Whether the stream is binary (AWS event-stream messages, by its format or its first
    /// bytes): text, such as a JS string's UTF-8, cannot carry it.
    pub fn is_binary(&self) -> bool {
        self.format() == Format::Bedrock || self.frames.framing() == Some(Framing::EventStream)
    }

    /// Feeds the next bytes, split anywhere, and returns the events they complete.
    ///
    /// A malformed event becomes an `error` event and decoding goes on. Exceeding a limit gives
    /// an `error` event with code `limit_exceeded`; every later call returns that error.
    /// Cost: linear in `chunk`; the events slice is reused by the next call.
    #[cfg_attr(llw_speed, optimize(speed))]
    pub fn push(&mut self, chunk: &[u8]) -> Result<&[StreamEvent]> {
        self.push_lending(chunk)?;
        self.builder.fill_lent();
        Ok(&self.builder.events)
    }

    /// [`Self::push`] with the long strings of its events left in the message: they are empty
    /// in [`Self::events`] and given by [`Self::lent`]. For the wasm module, which makes a JS
    /// string of each straight from the message and so never copies one in wasm memory.
    #[doc(hidden)]
    #[cfg_attr(llw_speed, optimize(speed))]
    pub fn push_lending(&mut self, chunk: &[u8]) -> Result<()> {
        self.ready()?;
        self.builder.clear_events();
        let Accumulator { frames, builder, decoder, .. } = self;
        let outcome = frames.feed(chunk, &mut |frame| on_frame(decoder, builder, &frame));
        self.settle(outcome);
        self.builder.send_usage();
        Ok(())
    }

    /// The events of the last [`Self::push_lending`], lent strings empty.
    #[doc(hidden)]
    pub fn events(&self) -> &[StreamEvent] {
        &self.builder.events
    }

    /// Each event of [`Self::events`] whose string is lent, by position, with that string.
    #[doc(hidden)]
    pub fn lent(&self) -> impl Iterator<Item = (usize, &str)> + '_ {
        self.builder.lent()
    }

    /// Feeds one already-decoded event object of a supported format, as JSON text (from
    /// another SDK, a WebSocket, a log), and returns the events its bytes would give: a Chat
    /// chunk, a Gemini response, an Anthropic or Responses event (named by its `type`), or a
    /// Bedrock ConverseStream event as the AWS SDKs give it, `{"contentBlockDelta": {...}}`.
    /// Text that is not JSON is an `invalid_json` error event, as a bad event in bytes is.
    /// Cost: linear in `event`.
    pub fn push_json(&mut self, event: &str) -> Result<&[StreamEvent]> {
        self.ready()?;
        self.builder.clear_events();
        let (name, data) = event_of(event);
        let Accumulator { builder, decoder, .. } = self;
        let outcome = on_event(decoder, builder, &SseEvent { event: &name, data: data.as_bytes(), id: b"" });
        self.settle(outcome);
        Ok(self.call_events())
    }

    /// Feeds normalised events made by the caller's own converter (for a format llm-wire does
    /// not read) and returns the events they give: the same message, result and limits as if
    /// llm-wire had decoded them. The stream is complete once every choice has a `finish`.
    pub fn apply(&mut self, events: &[StreamEvent]) -> Result<&[StreamEvent]> {
        self.ready()?;
        self.builder.clear_events();
        let mut outcome = Ok(());
        for event in events {
            outcome = self.builder.apply(event);
            if outcome.is_err() {
                break;
            }
        }
        self.settle(outcome);
        Ok(self.call_events())
    }

    /// Ends the input: an unterminated last event is decoded, held-back text is released and
    /// open tool calls end. Returns the last events. Later `push` calls fail with `finished`.
    pub fn flush(&mut self) -> &[StreamEvent] {
        self.builder.clear_events();
        self.end();
        self.call_events()
    }

    /// What `flush` does, adding to the events rather than replacing them.
    fn end(&mut self) {
        if self.flushed {
            return;
        }
        self.flushed = true;
        if self.failed.is_none() {
            let Accumulator { frames, builder, decoder, .. } = self;
            let outcome = frames.finish(&mut |frame| on_frame(decoder, builder, &frame));
            self.settle(outcome);
        }
        // What a Gemini stream holds until a candidate ends (a streamed call, its metadata).
        if let (None, Decoder::Gemini(gemini)) = (&self.failed, &mut self.decoder) {
            let outcome = gemini.flush(&mut self.builder);
            self.settle(outcome);
        }
        let outcome = self.builder.flush();
        self.settle(outcome);
    }

    /// The transport failed (a reader error, a reset connection): the outcome upstream is
    /// unknown. The text so far is kept and the message is marked incomplete.
    pub fn abort(&mut self, message: &str) -> &[StreamEvent] {
        self.builder.clear_events();
        if !self.flushed {
            self.builder.fatal_error(ErrorInfo {
                message: message.to_owned(),
                code: Some(ErrorCode::TransportError.as_str().to_owned()),
                outcome: Outcome::Indeterminate,
                retryable: Some(true),
                provider_type: None,
                provider_code: None,
            });
        }
        self.end();
        self.call_events()
    }

    /// The message so far, without ending the stream: `complete` is false until the stream has
    /// ended (text held back to tell a thinking tag is not in it yet). Costs one copy of the
    /// message, so calling it on every push of a long stream is quadratic: call it when the
    /// view is needed (a UI frame, a checkpoint).
    pub fn snapshot(&self) -> FinalMessage {
        self.builder.snapshot()
    }

    /// The consolidated message (flushing first if needed).
    pub fn finish(mut self) -> FinalMessage {
        // The last events are not returned: they go before the message is built.
        self.builder.clear_events();
        self.end();
        self.builder.clear_events();
        self.builder.build()
    }

    fn ready(&self) -> Result<()> {
        if let Some(err) = &self.failed {
            return Err(err.clone());
        }
        if self.flushed {
            return Err(Error::new(ErrorCode::Finished, "the accumulator has ended: push after flush or finish"));
        }
        Ok(())
    }

    /// The events of a call other than `push_lending`, ending with the usage if it changed,
    /// lent strings filled in.
    fn call_events(&mut self) -> &[StreamEvent] {
        self.builder.send_usage();
        self.builder.fill_lent();
        &self.builder.events
    }

    /// A fatal error is recorded once as an `error` event and refuses all later input.
    fn settle(&mut self, outcome: Result<()>) {
        if let Err(err) = outcome {
            self.builder.fatal_error(ErrorInfo {
                message: err.message.clone(),
                code: Some(err.code.as_str().to_owned()),
                outcome: Outcome::Indeterminate,
                retryable: Some(false),
                provider_type: None,
                provider_code: None,
            });
            self.failed = Some(err);
        }
    }
}

/// The event name and data the bytes of one decoded event object would have carried: an object
/// with one member named by a Bedrock event type is that event with the member as its payload
/// (the AWS SDKs' shape, and the bytes of a Nova InvokeModel chunk, whose last one also has
/// Bedrock's `amazon-bedrock-invocationMetrics`, not counted); an object with a string `type`
/// is named by it (Anthropic and Responses servers name each event by its type); anything else
/// is an unnamed event.
fn event_of(text: &str) -> (String, &str) {
    let members = crate::json::read_document(text.as_bytes(), |r| {
        let (mut count, mut named, mut kind) = (0, None, None);
        r.object(|r, key| {
            match key {
                b"amazon-bedrock-invocationMetrics" => return r.skip(),
                b"type" => kind = r.string()?.map(|k| k.into_owned()),
                _ if count == 0 && detect::is_bedrock_event(&String::from_utf8_lossy(key)) => {
                    named = Some((String::from_utf8_lossy(key).into_owned(), r.raw()?));
                }
                _ => r.skip()?,
            }
            count += 1;
            Ok(())
        })?;
        Ok((count, named, kind))
    });
    match members {
        Ok((1, Some((name, payload)), _)) => (name, payload),
        Ok((_, _, Some(kind))) => (kind, text),
        _ => ("message".to_owned(), text),
    }
}

fn new_decoder(format: Format) -> Decoder {
    match format {
        Format::Anthropic => Decoder::Anthropic(anthropic::AnthropicStream::default()),
        Format::OpenAiResponses => Decoder::Responses(openai_responses::ResponsesStream::default()),
        Format::Bedrock => Decoder::BedrockPending,
        Format::Gemini => Decoder::Gemini(gemini::GeminiStream::default()),
        _ => Decoder::Chat(openai_chat::ChatStream::default()),
    }
}

/// One frame: an event goes to its format's decoder; a failure the framing itself reports (an
/// AWS event-stream exception or error message) becomes the stream's error.
#[cfg_attr(llw_speed, optimize(speed))]
fn on_frame(decoder: &mut Decoder, builder: &mut MessageBuilder, frame: &Frame<'_>) -> Result<()> {
    match frame.kind {
        FrameKind::Event => on_event(decoder, builder, &SseEvent { event: frame.name, data: frame.data, id: b"" }),
        FrameKind::Exception | FrameKind::Error => {
            // Only AWS event streams carry these: a stream that fails at once is still Bedrock's.
            if let Decoder::Pending = decoder {
                *decoder = Decoder::BedrockPending;
            }
            builder.error(framing_error(frame))
        }
    }
}

/// The error an event-stream exception or error message reports: its type (or code) as the
/// code, and as the provider's type spelled as a body or header names it; its message (an
/// exception's JSON `message`) as the message; retryable when AWS documents the exception as
/// transient (throttling, service unavailable, internal server, model stream error, model not
/// ready, model timeout).
fn framing_error(frame: &Frame<'_>) -> ErrorInfo {
    let message = match frame.kind {
        FrameKind::Error => Some(frame.message.to_owned()),
        _ => crate::json::read_document(frame.data, |r| {
            let mut message = None;
            r.object(|r, key| {
                if key.eq_ignore_ascii_case(b"message") {
                    message = r.scalar()?.map(|m| m.into_owned());
                }
                Ok(())
            })?;
            Ok(message)
        })
        .ok()
        .flatten(),
    };
    ErrorInfo {
        message: message.filter(|m| !m.is_empty()).unwrap_or_else(|| frame.name.to_owned()),
        code: Some(frame.name.to_owned()),
        outcome: Outcome::Determinate,
        retryable: Some(bedrock::is_retryable_exception(frame.name)),
        provider_type: Some(bedrock::error_type_name(frame.name)).filter(|t| !t.is_empty()),
        provider_code: None,
    }
}

fn on_event(decoder: &mut Decoder, builder: &mut MessageBuilder, event: &SseEvent<'_>) -> Result<()> {
    let Handled::NotJson(err) = dispatch(decoder, builder, event)? else { return Ok(()) };
    // Rare, so off the hot path: a lone surrogate escape (a pair cut by a server that slices by
    // UTF-16 units) is the one fault worth repairing rather than losing the whole event.
    let err = match repair_lone_surrogates(event.data) {
        Some(data) => match dispatch(decoder, builder, &SseEvent { data: &data, ..*event })? {
            Handled::NotJson(err) => err,
            Handled::Done => return Ok(()),
        },
        None => err,
    };
    builder.error(invalid_chunk(&err))
}

fn dispatch(decoder: &mut Decoder, builder: &mut MessageBuilder, event: &SseEvent<'_>) -> Result<Handled> {
    if let Decoder::Pending = decoder {
        *decoder = new_decoder(detect::detect(event));
    }
    if let Decoder::BedrockPending = decoder {
        *decoder = match event.event {
            "chunk" => Decoder::Invoke(Box::new(Decoder::Pending)),
            _ => Decoder::Converse(bedrock::ConverseStream::default()),
        };
    }
    match decoder {
        Decoder::Chat(chat) => chat.event(event, builder),
        Decoder::Anthropic(anthropic) => anthropic.event(event, builder),
        Decoder::Responses(responses) => responses.event(event, builder),
        Decoder::Converse(converse) => converse.event(event, builder),
        Decoder::Invoke(inner) => invoke_chunk(inner, builder, event),
        Decoder::Gemini(gemini) => gemini.event(event, builder),
        Decoder::Pending | Decoder::BedrockPending => Ok(Handled::Done),
    }
}

/// An InvokeModelWithResponseStream `chunk`: its base64 `bytes` are one event of the model's own
/// format, read by the inner decoder (detected from the first chunk) as if it had arrived alone,
/// named as `push_json` names an event object (Nova's bytes are ConverseStream events in the
/// AWS SDKs' shape). Any other event of that stream carries nothing to read.
fn invoke_chunk(inner: &mut Decoder, builder: &mut MessageBuilder, event: &SseEvent<'_>) -> Result<Handled> {
    if event.event != "chunk" {
        return Ok(Handled::Done);
    }
    match bedrock::chunk_bytes(event.data) {
        Ok(Some(bytes)) => match std::str::from_utf8(&bytes) {
            Ok(text) => {
                let (name, data) = event_of(text);
                on_event(inner, builder, &SseEvent { event: &name, data: data.as_bytes(), id: b"" })?
            }
            Err(_) => on_event(inner, builder, &SseEvent { event: "message", data: &bytes, id: b"" })?,
        },
        Ok(None) => {}
        Err(err) => builder.error(invalid_chunk(&err))?,
    }
    Ok(Handled::Done)
}

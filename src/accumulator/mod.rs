//! The streaming accumulator: raw SSE bytes of any supported format in, normalised events and
//! one final message out.

mod builder;
mod detect;
mod think;
mod tool_calls;

pub(crate) use builder::{MessageBuilder, ReasoningDetail, ENTRY_BYTES};

use crate::error::{Error, ErrorCode, Result};
use crate::model::{ErrorInfo, FinalMessage, Outcome, StreamEvent};
use crate::providers::{anthropic, invalid_chunk, openai_chat, openai_responses, repair_lone_surrogates, Handled};
use crate::sse::{SseDecoder, SseEvent};
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
}

impl Format {
    /// Parses the JS name (`"auto"`, `"openai-chat"`, `"anthropic"`, `"openai-responses"`).
    pub fn from_name(name: &str) -> Option<Format> {
        match name {
            "auto" => Some(Format::Auto),
            "openai-chat" => Some(Format::OpenAiChat),
            "anthropic" => Some(Format::Anthropic),
            "openai-responses" => Some(Format::OpenAiResponses),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Format::Auto => "auto",
            Format::OpenAiChat => "openai-chat",
            Format::Anthropic => "anthropic",
            Format::OpenAiResponses => "openai-responses",
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
}

/// The per-format decoding state.
enum Decoder {
    Pending,
    Chat(openai_chat::ChatStream),
    Anthropic(anthropic::AnthropicStream),
    Responses(openai_responses::ResponsesStream),
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
    sse: SseDecoder,
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
        Accumulator {
            sse: SseDecoder::new(&options.limits),
            builder: MessageBuilder::new(options.limits, options.provider),
            decoder,
            failed: None,
            flushed: false,
        }
    }

    /// The format in use: the configured one, or the detected one once the first event arrived.
    pub fn format(&self) -> Format {
        match self.decoder {
            Decoder::Pending => Format::Auto,
            Decoder::Chat(_) => Format::OpenAiChat,
            Decoder::Anthropic(_) => Format::Anthropic,
            Decoder::Responses(_) => Format::OpenAiResponses,
        }
    }

    /// Feeds the next bytes, split anywhere, and returns the events they complete.
    ///
    /// A malformed event becomes an `error` event and decoding goes on. Exceeding a limit gives
    /// an `error` event with code `limit_exceeded`; every later call returns that error.
    /// Cost: linear in `chunk`; the events slice is reused by the next call.
    #[cfg_attr(llw_speed, optimize(speed))]
    pub fn push(&mut self, chunk: &[u8]) -> Result<&[StreamEvent]> {
        self.ready()?;
        self.builder.events.clear();
        let Accumulator { sse, builder, decoder, .. } = self;
        let outcome = sse.feed(chunk, &mut |event| on_event(decoder, builder, &event));
        self.settle(outcome);
        Ok(&self.builder.events)
    }

    /// Ends the input: an unterminated last event is decoded, held-back text is released and
    /// open tool calls end. Returns the last events. Later `push` calls fail with `finished`.
    pub fn flush(&mut self) -> &[StreamEvent] {
        self.builder.events.clear();
        self.end();
        &self.builder.events
    }

    /// What `flush` does, adding to the events rather than replacing them.
    fn end(&mut self) {
        if self.flushed {
            return;
        }
        self.flushed = true;
        if self.failed.is_none() {
            let Accumulator { sse, builder, decoder, .. } = self;
            let outcome = sse.finish(&mut |event| on_event(decoder, builder, &event));
            self.settle(outcome);
        }
        let outcome = self.builder.flush();
        self.settle(outcome);
    }

    /// The transport failed (a reader error, a reset connection): the outcome upstream is
    /// unknown. The text so far is kept and the message is marked incomplete.
    pub fn abort(&mut self, message: &str) -> &[StreamEvent] {
        self.builder.events.clear();
        if !self.flushed {
            self.builder.fatal_error(ErrorInfo {
                message: message.to_owned(),
                code: Some(ErrorCode::TransportError.as_str().to_owned()),
                outcome: Outcome::Indeterminate,
                retryable: Some(true),
            });
        }
        self.end();
        &self.builder.events
    }

    /// The consolidated message (flushing first if needed).
    pub fn finish(mut self) -> FinalMessage {
        self.flush();
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

    /// A fatal error is recorded once as an `error` event and refuses all later input.
    fn settle(&mut self, outcome: Result<()>) {
        if let Err(err) = outcome {
            self.builder.fatal_error(ErrorInfo {
                message: err.message.clone(),
                code: Some(err.code.as_str().to_owned()),
                outcome: Outcome::Indeterminate,
                retryable: Some(false),
            });
            self.failed = Some(err);
        }
    }
}

fn new_decoder(format: Format) -> Decoder {
    match format {
        Format::Anthropic => Decoder::Anthropic(anthropic::AnthropicStream::default()),
        Format::OpenAiResponses => Decoder::Responses(openai_responses::ResponsesStream::default()),
        _ => Decoder::Chat(openai_chat::ChatStream::default()),
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
    match decoder {
        Decoder::Chat(chat) => chat.event(event, builder),
        Decoder::Anthropic(anthropic) => anthropic.event(event, builder),
        Decoder::Responses(responses) => responses.event(event, builder),
        Decoder::Pending => Ok(Handled::Done),
    }
}

//! A non-streamed Chat Completions body (`chat.completion`, §8.1) → the normalised message.
//!
//! `choices[].message` has the shape of a stream `delta`, so it is read by the stream's own
//! `Delta` and fed through the stream's own `apply_delta`: a body and its streamed form give
//! the same message by construction (reasoning fields, Magistral parts, `<think>` tags, tool
//! calls, refusals).

use super::map_finish_reason;
use super::stream::{apply_delta, read_chunk, Chunk};
use crate::accumulator::MessageBuilder;
use crate::error::Result;
use crate::json::JsonResult;
use crate::process::errors::provider_error;

/// A `chat.completion` body: a chunk whose choices carry `message` where a chunk's carry `delta`.
pub(crate) struct Completion<'a>(Chunk<'a>);

impl<'a> Completion<'a> {
    pub(crate) fn read(text: &'a str) -> JsonResult<Self> {
        read_chunk(text.as_bytes(), b"message").map(Completion)
    }
}

/// What only `process` needs beyond the message.
#[derive(Default)]
pub(crate) struct ChatExtras {
    /// The refusal of the first choice: §8.1 returns it as the result, where the stream reports
    /// it as an error.
    pub(crate) refusal: Option<String>,
    pub(crate) has_choices: bool,
}

impl Completion<'_> {
    /// Feeds the whole body to `b` as if it were one chunk followed by `[DONE]` (the caller
    /// then ends the stream); a provider error body is `Err(provider_error)`.
    pub(crate) fn feed(self, b: &mut MessageBuilder) -> Result<ChatExtras> {
        let body = self.0;
        if let Some(error) = &body.error {
            return Err(provider_error(error));
        }
        b.start(body.id.as_deref(), body.model.as_deref(), body.provider.as_deref())?;
        let usage = body.usage();
        let mut extras = ChatExtras { has_choices: !body.choices.is_empty(), ..ChatExtras::default() };
        for (position, choice) in body.choices.into_iter().enumerate() {
            // A choice without `index` is numbered by its place.
            let index = choice.index.unwrap_or(position as u32);
            if let Some(message) = choice.delta {
                if position == 0 {
                    extras.refusal = message.refusal.as_deref().map(str::to_owned);
                }
                apply_delta(b, index, message, body.id.as_deref())?;
            }
            if let Some(raw) = choice.finish_reason.as_deref() {
                b.finish_reason(index, map_finish_reason(raw), raw)?;
            }
        }
        if let Some(usage) = usage {
            b.set_usage(usage)?;
        }
        Ok(extras)
    }
}

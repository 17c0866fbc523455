//! A non-streamed Chat Completions body (`chat.completion`, §8.1) → the normalised message.
//!
//! `choices[].message` has the shape of a stream `delta`, so it is read by the stream's own
//! `Delta` and fed through the stream's own `apply_delta`: a body and its streamed form give
//! the same message by construction (reasoning fields, Magistral parts, `<think>` tags, tool
//! calls, refusals).

use super::map_finish_reason;
use super::stream::{apply_delta, read_chunk, Choice, Chunk};
/// The usage reader the Responses API shares (its module is private to this provider).
use crate::accumulator::MessageBuilder;
use crate::error::Result;
use crate::json::JsonResult;

/// A `chat.completion` body: a chunk whose choices carry `message` where a chunk's carry `delta`.
pub(crate) struct Completion<'a>(Chunk<'a>);

impl<'a> Completion<'a> {
    pub(crate) fn read(text: &'a str) -> JsonResult<Self> {
        read_chunk(text.as_bytes(), b"message").map(Completion)
    }
}

/// What only `process` needs beyond the message: the refusal of the first choice (§8.1 returns
/// it as the result, where the stream reports it as an error).
#[derive(Default)]
pub(crate) struct ChatExtras {
    pub(crate) refusal: Option<String>,
    pub(crate) has_choices: bool,
}

impl Completion<'_> {
    /// Feeds the whole body to `b` as if it were one chunk followed by `[DONE]` (which the caller
    /// then ends).
    pub(crate) fn feed(self, b: &mut MessageBuilder) -> Result<ChatExtras> {
        let mut body = self.0;
        crate::process::start(b, body.error.as_ref(), &body.id, &body.model, &body.provider)?;
        let usage = body.usage();
        let choices = std::mem::take(&mut body.choices);
        drop(body);
        // The loop breaks on an error rather than returning from it: the remaining choices are
        // dropped once, not on every exit.
        let mut extras = ChatExtras::default();
        let mut fed = Ok(());
        for (position, choice) in choices.into_iter().enumerate() {
            extras.has_choices = true;
            fed = feed_choice(b, position, choice, &mut extras.refusal);
            if fed.is_err() {
                break;
            }
        }
        fed?;
        if let Some(usage) = usage {
            b.set_usage(usage)?;
        }
        Ok(extras)
    }
}

/// The `position`th choice replayed into `b`; the first one's refusal goes to `refusal`.
fn feed_choice(
    b: &mut MessageBuilder,
    position: usize,
    choice: Choice<'_>,
    refusal: &mut Option<String>,
) -> Result<()> {
    let index = choice.index.unwrap_or(position as u32);
    if let Some(message) = choice.delta {
        if position == 0 {
            *refusal = message.refusal.as_deref().map(str::to_owned);
        }
        apply_delta(b, index, message)?;
    }
    if let Some(raw) = choice.finish_reason.as_deref() {
        b.finish_reason(index, map_finish_reason(raw), raw)?;
    }
    Ok(())
}

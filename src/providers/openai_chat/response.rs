//! A non-streamed Chat Completions body (`chat.completion`, §8.1) → the normalised message.
//!
//! `choices[].message` has the shape of a stream `delta`, so it is read by the stream's own
//! `Delta` and fed through the stream's own `apply_delta`: a body and its streamed form give
//! the same message by construction (reasoning fields, Magistral parts, `<think>` tags, tool
//! calls, refusals).

use serde::Deserialize;
use serde_json::value::RawValue;

use super::stream::{apply_delta, Delta, XGroq};
use super::{convert_usage, map_finish_reason};
use crate::accumulator::MessageBuilder;
use crate::error::Result;
use crate::process::errors::ErrorField;
use crate::providers::Scalar;

#[derive(Deserialize)]
pub(crate) struct Completion<'a> {
    #[serde(default, borrow)]
    id: Scalar<'a>,
    #[serde(default, borrow)]
    model: Scalar<'a>,
    /// OpenRouter and MiniMax name the upstream provider.
    #[serde(default, borrow)]
    provider: Scalar<'a>,
    #[serde(default, borrow)]
    choices: Option<Vec<Choice<'a>>>,
    #[serde(default, borrow)]
    usage: Option<&'a RawValue>,
    #[serde(default, borrow)]
    x_groq: Option<XGroq<'a>>,
    #[serde(default, borrow)]
    pub(crate) error: ErrorField<'a>,
}

#[derive(Deserialize)]
struct Choice<'a> {
    #[serde(default)]
    index: Option<u32>,
    #[serde(default, borrow)]
    message: Option<Delta<'a>>,
    #[serde(default, borrow)]
    finish_reason: Scalar<'a>,
}

/// What only `process` needs beyond the message: the refusal of the first choice (§8.1 returns
/// it as the result, where the stream reports it as an error).
#[derive(Default)]
pub(crate) struct ChatExtras {
    pub(crate) refusal: Option<String>,
    pub(crate) has_choices: bool,
}

impl<'a> Completion<'a> {
    /// Feeds the whole body to `b` as if it were one chunk followed by `[DONE]`.
    pub(crate) fn feed(self, b: &mut MessageBuilder) -> Result<ChatExtras> {
        self.error.check()?;
        b.start(self.id.as_deref(), self.model.as_deref(), self.provider.as_deref());
        let mut extras = ChatExtras::default();
        for (position, choice) in self.choices.into_iter().flatten().enumerate() {
            extras.has_choices = true;
            let index = choice.index.unwrap_or(position as u32);
            if let Some(message) = choice.message {
                if position == 0 {
                    extras.refusal = message.refusal.as_deref().map(str::to_owned);
                }
                apply_delta(b, index, message)?;
            }
            if let Some(raw) = choice.finish_reason.as_deref() {
                b.finish_reason(index, map_finish_reason(raw), raw)?;
            }
        }
        if let Some(usage) = self.usage.or(self.x_groq.and_then(|x| x.usage)).and_then(convert_usage) {
            b.set_usage(usage);
        }
        b.end_all_choices()?;
        b.done();
        Ok(extras)
    }
}

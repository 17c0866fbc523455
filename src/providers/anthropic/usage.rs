//! Anthropic usage → [`Usage`]. `input_tokens` excludes cached tokens, which are counted apart
//! as reads (`cache_read_input_tokens`) and writes (`cache_creation_input_tokens`): the input
//! count is all three added up, as other providers count it (docs/design.md, "Streaming").
//! `output_tokens` already includes the thinking tokens, which
//! `output_tokens_details.thinking_tokens` gives as the reasoning count.

use crate::json::{read_document, read_object};
use crate::model::{RawJson, Usage};
use crate::providers::{read_count, read_detail_count};

/// The counts of one usage object; a stream restates some of them in `message_delta`.
#[derive(Default, Clone, Copy, Debug, PartialEq)]
pub(crate) struct Counts {
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    cache_read_input_tokens: Option<u64>,
    cache_creation_input_tokens: Option<u64>,
    /// `output_tokens_details.thinking_tokens`, the part of `output_tokens` spent thinking.
    thinking_tokens: Option<u64>,
}

impl Counts {
    /// The counts of a usage object's JSON text, each read by [`read_count`] (integers, floats such
    /// as `12.0`, numeric strings; null or anything else is absent). `None` when the text is not
    /// an object; a repeated key is read again (the last one wins).
    pub(crate) fn read(text: &str) -> Option<Counts> {
        let counts = read_document(text.as_bytes(), |r| {
            read_object(r, |counts: &mut Counts, r, key| {
                let slot = match key {
                    b"input_tokens" => &mut counts.input_tokens,
                    b"output_tokens" => &mut counts.output_tokens,
                    b"cache_read_input_tokens" => &mut counts.cache_read_input_tokens,
                    b"cache_creation_input_tokens" => &mut counts.cache_creation_input_tokens,
                    b"output_tokens_details" => {
                        counts.thinking_tokens = read_detail_count(r, b"thinking_tokens")?;
                        return Ok(());
                    }
                    _ => return Ok(()),
                };
                *slot = read_count(r)?;
                Ok(())
            })
        });
        counts.ok()?
    }

    /// `later` restated over `self`: every count it carries wins, the others are kept.
    pub(crate) fn updated(self, later: Counts) -> Counts {
        Counts {
            input_tokens: later.input_tokens.or(self.input_tokens),
            output_tokens: later.output_tokens.or(self.output_tokens),
            cache_read_input_tokens: later.cache_read_input_tokens.or(self.cache_read_input_tokens),
            cache_creation_input_tokens: later.cache_creation_input_tokens.or(self.cache_creation_input_tokens),
            thinking_tokens: later.thinking_tokens.or(self.thinking_tokens),
        }
    }

    /// The usage these counts make; an absent count adds nothing.
    pub(crate) fn usage(self, raw: &str) -> Usage {
        let input = [self.input_tokens, self.cache_read_input_tokens, self.cache_creation_input_tokens]
            .into_iter()
            .flatten()
            .fold(0, u64::saturating_add);
        let output = self.output_tokens.unwrap_or(0);
        Usage {
            input_tokens: input,
            output_tokens: output,
            total_tokens: input.saturating_add(output),
            reasoning_tokens: self.thinking_tokens,
            cache_read_tokens: self.cache_read_input_tokens,
            cache_write_tokens: self.cache_creation_input_tokens,
            raw: RawJson::from_valid(raw),
        }
    }
}

pub(crate) fn convert_usage(raw: &str) -> Option<Usage> {
    Counts::read(raw).map(|counts| counts.usage(raw))
}

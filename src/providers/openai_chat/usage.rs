//! OpenAI Chat `usage` (and Groq's `x_groq.usage`, DeepSeek's cache counters) → [`Usage`], and
//! the reader it shares with the Responses API, whose usage differs only in its key names.

use crate::json::{read_document, read_object, JsonResult, Reader};
use crate::model::{RawJson, Usage};
use crate::providers::{read_count, read_detail_count};

/// Normalises a usage object (its raw JSON text); `None` when it is not an object.
pub(crate) fn convert_usage(raw: &str) -> Option<Usage> {
    let mut cache_hit = None;
    let mut usage = read_usage(raw, |counts, r, key| {
        match key {
            b"prompt_tokens" => counts.input = read_count(r)?,
            b"completion_tokens" => counts.output = read_count(r)?,
            b"total_tokens" => counts.total = read_count(r)?,
            b"prompt_tokens_details" => counts.cached = read_detail_count(r, b"cached_tokens")?,
            b"completion_tokens_details" => counts.reasoning = read_detail_count(r, b"reasoning_tokens")?,
            // DeepSeek's name for cached prompt tokens.
            b"prompt_cache_hit_tokens" => cache_hit = read_count(r)?,
            _ => {}
        }
        Ok(())
    })?;
    usage.cache_read_tokens = usage.cache_read_tokens.or(cache_hit);
    Some(usage)
}

/// The counts of an OpenAI usage object, as [`read_usage`] hands them to its reader.
#[derive(Default)]
pub(crate) struct Counts {
    pub(crate) input: Option<u64>,
    pub(crate) output: Option<u64>,
    pub(crate) total: Option<u64>,
    /// The input details' `cached_tokens`.
    pub(crate) cached: Option<u64>,
    /// The output details' `reasoning_tokens`.
    pub(crate) reasoning: Option<u64>,
}

/// A usage object read key by key by `field` into [`Counts`]; `None` when it is not an object.
///
/// Each count is read on its own (see [`read_count`]): one that is not a finite non-negative
/// number is absent, and the others are kept; a repeated key is read again (the last one
/// wins). An absent input or output count is 0; without a total, the total is their sum, at
/// most `u64::MAX`. `raw` is kept as the provider sent it.
pub(crate) fn read_usage(
    raw: &str,
    field: impl FnMut(&mut Counts, &mut Reader<'_>, &[u8]) -> JsonResult<()>,
) -> Option<Usage> {
    let counts = read_document(raw.as_bytes(), |r| read_object(r, field)).ok()??;
    let input = counts.input.unwrap_or(0);
    let output = counts.output.unwrap_or(0);
    Some(Usage {
        input_tokens: input,
        output_tokens: output,
        total_tokens: counts.total.unwrap_or(input.saturating_add(output)),
        reasoning_tokens: counts.reasoning,
        cache_read_tokens: counts.cached,
        cache_write_tokens: None,
        raw: RawJson::from_valid(raw),
    })
}

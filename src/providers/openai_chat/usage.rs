//! OpenAI Chat `usage` (and Groq's `x_groq.usage`, DeepSeek's and OpenRouter's cache counters)
//! → [`Usage`], and the reader it shares with the Responses API, whose usage differs only in
//! its key names.
//!
//! OpenAI's counts already follow the crate's rule (docs/design.md, "Streaming"): the input
//! count includes cached tokens and the output count includes reasoning. Of the compatible
//! servers, DeepSeek and OpenRouter name their cache counts differently, and xAI counts
//! reasoning beside the output instead of in it; each is brought to the same rule here.

use crate::json::{read_document, read_object, JsonResult, Reader};
use crate::model::{RawJson, Usage};
use crate::providers::{read_count, read_detail_count};

/// Normalises a usage object (its raw JSON text); `None` when it is not an object.
pub(crate) fn convert_usage(raw: &str) -> Option<Usage> {
    read_usage(raw, |counts, r, key| {
        match key {
            b"prompt_tokens" => counts.input = read_count(r)?,
            b"completion_tokens" => counts.output = read_count(r)?,
            b"total_tokens" => counts.total = read_count(r)?,
            b"prompt_tokens_details" => {
                // A repeated details object replaces the first, as a repeated count does.
                (counts.cached, counts.cache_write) = (None, None);
                r.object(|r, key| {
                    match key {
                        b"cached_tokens" => counts.cached = read_count(r)?,
                        // OpenRouter's prompt tokens written to the provider's cache.
                        b"cache_write_tokens" => counts.cache_write = read_count(r)?,
                        _ => {}
                    }
                    Ok(())
                })?;
            }
            b"completion_tokens_details" => counts.reasoning = read_detail_count(r, b"reasoning_tokens")?,
            // DeepSeek's name for the prompt tokens found in its cache (part of `prompt_tokens`).
            b"prompt_cache_hit_tokens" => counts.cache_hit = read_count(r)?,
            _ => {}
        }
        Ok(())
    })
}

/// The counts of an OpenAI usage object, as [`read_usage`] hands them to its reader.
#[derive(Default)]
pub(crate) struct Counts {
    pub(crate) input: Option<u64>,
    pub(crate) output: Option<u64>,
    pub(crate) total: Option<u64>,
    /// The input details' `cached_tokens`.
    pub(crate) cached: Option<u64>,
    /// DeepSeek's `prompt_cache_hit_tokens`, the cache reads when `cached` is absent.
    pub(crate) cache_hit: Option<u64>,
    /// OpenRouter's `cache_write_tokens`.
    pub(crate) cache_write: Option<u64>,
    /// The output details' `reasoning_tokens`.
    pub(crate) reasoning: Option<u64>,
}

/// A usage object read key by key by `field` into [`Counts`]; `None` when it is not an object.
///
/// Each count is read on its own (see [`read_count`]): one that is not a finite non-negative
/// number is absent, and the others are kept; a repeated key is read again (the last one
/// wins). An absent input or output count is 0. The total is always their sum (at most
/// `u64::MAX`), whatever total the server sent: when that total is the input, the output and
/// the reasoning added up (xAI), the output count left reasoning out, and reasoning is added to
/// it. `raw` is kept as the provider sent it.
pub(crate) fn read_usage(
    raw: &str,
    field: impl FnMut(&mut Counts, &mut Reader<'_>, &[u8]) -> JsonResult<()>,
) -> Option<Usage> {
    let counts = read_document(raw.as_bytes(), |r| read_object(r, field)).ok()??;
    let input = counts.input.unwrap_or(0);
    let mut output = counts.output.unwrap_or(0);
    if let (Some(reasoning @ 1..), Some(total)) = (counts.reasoning, counts.total) {
        if input.checked_add(output).and_then(|n| n.checked_add(reasoning)) == Some(total) {
            output += reasoning;
        }
    }
    Some(Usage {
        input_tokens: input,
        output_tokens: output,
        total_tokens: input.saturating_add(output),
        reasoning_tokens: counts.reasoning,
        cache_read_tokens: counts.cached.or(counts.cache_hit),
        cache_write_tokens: counts.cache_write,
        raw: RawJson::from_valid(raw),
    })
}

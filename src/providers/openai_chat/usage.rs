//! OpenAI Chat `usage` (and Groq's `x_groq.usage`, DeepSeek's cache counters) → [`Usage`], and
//! the reader it shares with the Responses API, whose usage differs only in its key names.

use crate::json::read_document;
use crate::model::{RawJson, Usage};
use crate::providers::{read_count, read_detail_count};

const CHAT_KEYS: &[&[u8]] = &[
    b"prompt_tokens",
    b"completion_tokens",
    b"total_tokens",
    b"prompt_tokens_details",
    b"completion_tokens_details",
    // DeepSeek's name for cached prompt tokens.
    b"prompt_cache_hit_tokens",
];

/// Normalises a usage object (its raw JSON text); `None` when it is not an object.
pub(crate) fn convert_usage(raw: &str) -> Option<Usage> {
    // The sum wraps as the plain `+` this replaces did in a release build.
    read_usage(raw, CHAT_KEYS, u64::wrapping_add)
}

/// A usage object read with `keys`, named in this order: input, output and total tokens, the
/// input details (their `cached_tokens`), the output details (their `reasoning_tokens`), and
/// optionally a second count of cached input tokens. `None` when it is not an object; a
/// `*_details` that is not an object reads as absent; a repeated key is read again (the last
/// one wins). Without a total, the total is `sum` of input and output.
pub(crate) fn read_usage(raw: &str, keys: &[&[u8]], sum: fn(u64, u64) -> u64) -> Option<Usage> {
    let mut counts = [None; 6];
    let is_object = read_document(raw.as_bytes(), |r| {
        r.object(|r, key| {
            let Some(at) = keys.iter().position(|k| *k == key) else { return Ok(()) };
            counts[at] = match at {
                3 => read_detail_count(r, b"cached_tokens")?,
                4 => read_detail_count(r, b"reasoning_tokens")?,
                _ => read_count(r)?,
            };
            Ok(())
        })
    });
    if is_object != Ok(true) {
        return None;
    }
    let [input, output, total, cached, reasoning, cache_hit] = counts;
    let input = input.unwrap_or(0);
    let output = output.unwrap_or(0);
    Some(Usage {
        input_tokens: input,
        output_tokens: output,
        total_tokens: total.unwrap_or_else(|| sum(input, output)),
        reasoning_tokens: reasoning,
        cache_read_tokens: cached.or(cache_hit),
        cache_write_tokens: None,
        raw: RawJson::from_valid(raw),
    })
}

//! OpenAI Chat `usage` (and Groq's `x_groq.usage`, DeepSeek's cache counters) → [`Usage`].

use crate::json::read_document;
use crate::model::{RawJson, Usage};
use crate::providers::{read_count, read_detail_count};

/// Normalises a usage object (its raw JSON text); `None` when it is not an object.
pub(crate) fn convert_usage(raw: &str) -> Option<Usage> {
    let (mut prompt, mut completion, mut total) = (None, None, None);
    let (mut cached, mut reasoning, mut cache_hit) = (None, None, None);
    let is_object = read_document(raw.as_bytes(), |r| {
        r.object(|r, key| {
            match key {
                b"prompt_tokens" => prompt = read_count(r)?,
                b"completion_tokens" => completion = read_count(r)?,
                b"total_tokens" => total = read_count(r)?,
                // DeepSeek's name for cached prompt tokens.
                b"prompt_cache_hit_tokens" => cache_hit = read_count(r)?,
                b"prompt_tokens_details" => cached = read_detail_count(r, b"cached_tokens")?,
                b"completion_tokens_details" => reasoning = read_detail_count(r, b"reasoning_tokens")?,
                _ => {}
            }
            Ok(())
        })
    });
    if is_object != Ok(true) {
        return None;
    }
    let input = prompt.unwrap_or(0);
    let output = completion.unwrap_or(0);
    Some(Usage {
        input_tokens: input,
        output_tokens: output,
        total_tokens: total.unwrap_or(input + output),
        reasoning_tokens: reasoning,
        cache_read_tokens: cached.or(cache_hit),
        cache_write_tokens: None,
        raw: RawJson::from_valid(raw),
    })
}

//! Responses API usage → [`Usage`]: cached input and reasoning output tokens sit in `*_details`.

use crate::json::read_document;
use crate::model::{RawJson, Usage};
use crate::providers::{read_count, read_detail_count};

/// Responses usage: cached input tokens and reasoning output tokens sit in `*_details`. `None`
/// when it is not an object; a `*_details` that is not an object reads as absent (the serde
/// derive this replaces dropped the whole usage).
pub(crate) fn convert_usage(raw: &str) -> Option<Usage> {
    let (mut input, mut output, mut total) = (None, None, None);
    let (mut cached, mut reasoning) = (None, None);
    let is_object = read_document(raw.as_bytes(), |r| {
        r.object(|r, key| {
            match key {
                b"input_tokens" => input = read_count(r)?,
                b"output_tokens" => output = read_count(r)?,
                b"total_tokens" => total = read_count(r)?,
                b"input_tokens_details" => cached = read_detail_count(r, b"cached_tokens")?,
                b"output_tokens_details" => reasoning = read_detail_count(r, b"reasoning_tokens")?,
                _ => {}
            }
            Ok(())
        })
    });
    if is_object != Ok(true) {
        return None;
    }
    let input = input.unwrap_or(0);
    let output = output.unwrap_or(0);
    Some(Usage {
        input_tokens: input,
        output_tokens: output,
        total_tokens: total.unwrap_or(input.saturating_add(output)),
        reasoning_tokens: reasoning,
        cache_read_tokens: cached,
        cache_write_tokens: None,
        raw: RawJson::from_valid(raw),
    })
}

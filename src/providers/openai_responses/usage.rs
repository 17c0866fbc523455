//! Responses API usage → [`Usage`]: cached input and reasoning output tokens sit in `*_details`.

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::model::{RawJson, Usage};
use crate::providers::count;

#[derive(Deserialize)]
struct ResponsesUsage {
    #[serde(default, deserialize_with = "count")]
    input_tokens: Option<u64>,
    #[serde(default, deserialize_with = "count")]
    output_tokens: Option<u64>,
    #[serde(default, deserialize_with = "count")]
    total_tokens: Option<u64>,
    #[serde(default)]
    input_tokens_details: Option<InputDetails>,
    #[serde(default)]
    output_tokens_details: Option<OutputDetails>,
}

#[derive(Deserialize)]
struct InputDetails {
    #[serde(default, deserialize_with = "count")]
    cached_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct OutputDetails {
    #[serde(default, deserialize_with = "count")]
    reasoning_tokens: Option<u64>,
}

/// Responses usage: cached input tokens and reasoning output tokens sit in `*_details`.
pub(crate) fn convert_usage(raw: &RawValue) -> Option<Usage> {
    let usage: ResponsesUsage = serde_json::from_str(raw.get()).ok()?;
    let input = usage.input_tokens.unwrap_or(0);
    let output = usage.output_tokens.unwrap_or(0);
    Some(Usage {
        input_tokens: input,
        output_tokens: output,
        total_tokens: usage.total_tokens.unwrap_or(input.saturating_add(output)),
        reasoning_tokens: usage.output_tokens_details.and_then(|d| d.reasoning_tokens),
        cache_read_tokens: usage.input_tokens_details.and_then(|d| d.cached_tokens),
        cache_write_tokens: None,
        raw: RawJson::from_raw(raw),
    })
}

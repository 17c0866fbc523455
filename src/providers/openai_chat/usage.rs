//! OpenAI Chat `usage` (and Groq's `x_groq.usage`, DeepSeek's cache counters) → [`Usage`].

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::model::{RawJson, Usage};
use crate::providers::count;

#[derive(Deserialize, Default)]
struct ChatUsage {
    #[serde(default, deserialize_with = "count")]
    prompt_tokens: Option<u64>,
    #[serde(default, deserialize_with = "count")]
    completion_tokens: Option<u64>,
    #[serde(default, deserialize_with = "count")]
    total_tokens: Option<u64>,
    #[serde(default)]
    prompt_tokens_details: Option<PromptDetails>,
    #[serde(default)]
    completion_tokens_details: Option<CompletionDetails>,
    /// DeepSeek's name for cached prompt tokens.
    #[serde(default, deserialize_with = "count")]
    prompt_cache_hit_tokens: Option<u64>,
}

#[derive(Deserialize, Default)]
struct PromptDetails {
    #[serde(default, deserialize_with = "count")]
    cached_tokens: Option<u64>,
}

#[derive(Deserialize, Default)]
struct CompletionDetails {
    #[serde(default, deserialize_with = "count")]
    reasoning_tokens: Option<u64>,
}

/// Normalises a usage object; `None` when it is not an object.
pub(crate) fn convert_usage(raw: &RawValue) -> Option<Usage> {
    let usage: ChatUsage = serde_json::from_str(raw.get()).ok()?;
    let input = usage.prompt_tokens.unwrap_or(0);
    let output = usage.completion_tokens.unwrap_or(0);
    Some(Usage {
        input_tokens: input,
        output_tokens: output,
        total_tokens: usage.total_tokens.unwrap_or(input + output),
        reasoning_tokens: usage.completion_tokens_details.and_then(|d| d.reasoning_tokens),
        cache_read_tokens: usage.prompt_tokens_details.and_then(|d| d.cached_tokens).or(usage.prompt_cache_hit_tokens),
        cache_write_tokens: None,
        raw: RawJson::from_raw(raw),
    })
}

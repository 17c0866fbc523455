//! Responses API usage → [`Usage`]: cached input and reasoning output tokens sit in `*_details`.

use crate::model::Usage;
use crate::providers::openai_chat::read_usage;

/// Responses usage: cached input tokens and reasoning output tokens sit in `*_details`. `None`
/// when it is not an object; a `*_details` that is not an object reads as absent (the serde
/// derive this replaces dropped the whole usage).
pub(crate) fn convert_usage(raw: &str) -> Option<Usage> {
    let keys: &[&[u8]] =
        &[b"input_tokens", b"output_tokens", b"total_tokens", b"input_tokens_details", b"output_tokens_details"];
    read_usage(raw, keys, u64::saturating_add)
}

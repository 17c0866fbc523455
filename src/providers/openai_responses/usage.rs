//! Responses API usage → [`Usage`]: cached input and reasoning output tokens sit in `*_details`.

use crate::model::Usage;
use crate::providers::openai_chat::read_usage;
use crate::providers::{read_count, read_detail_count};

/// Responses usage, read as Chat's is (see [`read_usage`]) with the Responses API's key names.
/// `None` when it is not an object; a `*_details` that is not an object reads as absent.
pub(crate) fn convert_usage(raw: &str) -> Option<Usage> {
    read_usage(raw, |counts, r, key| {
        match key {
            b"input_tokens" => counts.input = read_count(r)?,
            b"output_tokens" => counts.output = read_count(r)?,
            b"total_tokens" => counts.total = read_count(r)?,
            b"input_tokens_details" => counts.cached = read_detail_count(r, b"cached_tokens")?,
            b"output_tokens_details" => counts.reasoning = read_detail_count(r, b"reasoning_tokens")?,
            _ => {}
        }
        Ok(())
    })
}

//! Responses API `status` (and `incomplete_details.reason`) → the unified [`FinishReason`].

use crate::model::FinishReason;

/// The unified reason of a response: its `status`, refined by `incomplete_details.reason`.
/// `raw` is that reason when the response is incomplete, the status otherwise.
pub(crate) fn map_status(status: &str, incomplete: Option<&str>, has_calls: bool) -> FinishReason {
    match (status, incomplete) {
        ("completed", _) if has_calls => FinishReason::ToolCalls,
        ("completed", _) => FinishReason::Stop,
        ("incomplete", Some("max_output_tokens")) => FinishReason::Length,
        ("incomplete", Some("content_filter")) => FinishReason::ContentFilter,
        ("failed", _) => FinishReason::Error,
        _ => FinishReason::Other,
    }
}

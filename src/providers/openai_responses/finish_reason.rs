//! Responses API `status` (and `incomplete_details.reason`) → the unified [`FinishReason`].

use crate::accumulator::MessageBuilder;
use crate::error::{ErrorCode, Result};
use crate::model::{ErrorInfo, FinishReason, Outcome};

/// The unified reason of a response: its `status`, refined by `incomplete_details.reason`.
/// `raw` is that reason when the response is incomplete, the status otherwise.
fn map_status(status: &str, incomplete: Option<&str>, has_calls: bool) -> FinishReason {
    match (status, incomplete) {
        ("completed", _) if has_calls => FinishReason::ToolCalls,
        ("completed", _) => FinishReason::Stop,
        ("incomplete", Some("max_output_tokens")) => FinishReason::Length,
        ("incomplete", Some("content_filter")) => FinishReason::ContentFilter,
        ("failed", _) => FinishReason::Error,
        _ => FinishReason::Other,
    }
}

/// The error of a status that carries no answer (docs/design.md, "Processing a response that
/// is not streamed"), when the response gave no `error` of its own: `failed`, a provider error;
/// `queued` and `in_progress` (a background response polled before it ended), which may still
/// give one, and `cancelled`, which never will, `empty_response`.
pub(crate) fn status_error(status: &str) -> Option<ErrorInfo> {
    let empty = Some(ErrorCode::EmptyResponse.as_str().to_owned());
    let (message, code, outcome, retryable) = match status {
        "failed" => ("the response failed without an error".to_owned(), None, Outcome::Determinate, Some(false)),
        "queued" | "in_progress" => {
            (format!("the response is {status}: it has no answer yet"), empty, Outcome::Indeterminate, None)
        }
        "cancelled" => {
            ("the response was cancelled: it has no answer".to_owned(), empty, Outcome::Determinate, Some(false))
        }
        _ => return None,
    };
    Some(ErrorInfo { message, code, outcome, retryable, provider_type: None, provider_code: None })
}

/// The end of a response onto `b`: the error of a status with no answer (unless `error`, the
/// response's own, is given), then its finish reason, `raw` being the incomplete reason or
/// the status. A body and its stream end through here alike.
pub(crate) fn end_response(
    b: &mut MessageBuilder,
    status: &str,
    incomplete: Option<&str>,
    has_calls: bool,
    error: Option<ErrorInfo>,
) -> Result<()> {
    if let Some(error) = error.or_else(|| status_error(status)) {
        b.error(error)?;
    }
    b.finish_reason(0, map_status(status, incomplete, has_calls), incomplete.unwrap_or(status))
}

//! OpenAI Responses API stream events → builder calls.

use crate::accumulator::MessageBuilder;
use crate::error::{ErrorCode, Result};
use crate::model::{ErrorInfo, Outcome};
use crate::sse::SseEvent;

#[derive(Debug, Default)]
pub(crate) struct ResponsesStream;

impl ResponsesStream {
    pub(crate) fn event(&mut self, _event: &SseEvent<'_>, b: &mut MessageBuilder) -> Result<()> {
        b.error(ErrorInfo {
            message: "this stream format is not decoded yet".into(),
            code: Some(ErrorCode::InvalidInput.as_str().into()),
            outcome: Outcome::Indeterminate,
            retryable: Some(false),
        });
        Ok(())
    }
}

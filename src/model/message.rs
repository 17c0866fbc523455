//! The one consolidated message a stream (or a non-streamed body) ends as.

use serde::Serialize;

use super::{ErrorInfo, FinishReason, RawJson, Usage};

/// A tool call (§8.7): `arguments` is always a JSON string.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

/// One content block of the final message, in stream order.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block {
    Text {
        text: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        citations: Option<Vec<RawJson>>,
    },
    ToolCall {
        id: String,
        name: String,
        arguments: String,
    },
    Reasoning {
        text: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        redacted: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    Other {
        provider_type: String,
        data: RawJson,
    },
}

/// The consolidated assistant message (DESIGN.md §4).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FinalMessage {
    pub role: &'static str,
    pub content: Vec<Block>,
    pub text: String,
    pub reasoning: String,
    pub tool_calls: Vec<ToolCall>,
    pub usage: Option<Usage>,
    pub finish_reason: FinishReason,
    pub raw_finish_reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorInfo>,
    pub complete: bool,
    /// Present only when the stream carried more than one choice (`n > 1`): one message per
    /// choice index, in index order. The top-level fields are those of the first choice.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub choices: Option<Vec<FinalMessage>>,
}

impl FinalMessage {
    /// The §8.6 view of the message: its tool calls when it has any (they win over text), else
    /// its text, JSON-parsed when `has_outputs` (falling back to the raw string, §7.7).
    /// A refusal fails with `model_refused`; any other stream error fails with its own code
    /// (`provider_error` for a provider's), so a caller never mistakes partial text for an answer.
    pub fn result(&self, has_outputs: bool) -> crate::Result<super::ProcessResult> {
        use crate::error::{Error, ErrorCode};
        if let Some(error) = &self.error {
            let code = match error.code.as_deref() {
                Some("model_refused") => ErrorCode::ModelRefused,
                Some("limit_exceeded") => ErrorCode::LimitExceeded,
                Some("transport_error") => ErrorCode::TransportError,
                Some("invalid_json") => ErrorCode::InvalidJson,
                _ => ErrorCode::ProviderError,
            };
            return Err(Error::new(code, error.message.clone()));
        }
        if !self.tool_calls.is_empty() {
            return Ok(super::ProcessResult::ToolCalls(self.tool_calls.clone()));
        }
        if has_outputs && !self.text.is_empty() {
            if let Ok(value) = serde_json::from_str(&self.text) {
                return Ok(super::ProcessResult::Json(value));
            }
        }
        Ok(super::ProcessResult::Text(self.text.clone()))
    }
}

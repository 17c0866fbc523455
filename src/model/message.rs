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

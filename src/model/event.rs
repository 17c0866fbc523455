//! The closed set of normalised stream events every format is reduced to.

use serde::Serialize;

use super::{is_zero, Usage};

/// Why generation stopped, unified across providers; the provider's own value travels beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    Stop,
    Length,
    ToolCalls,
    ContentFilter,
    Refusal,
    Error,
    Other,
}

/// Whether the provider's side of a failure is known (`determinate`: it told us it failed or
/// refused) or not (`indeterminate`: the bytes stopped or could not be read, so the request may
/// still have completed upstream and needs reconciling).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Determinate,
    Indeterminate,
}

/// An error reported inside a stream, and kept on the final message.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ErrorInfo {
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    pub outcome: Outcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retryable: Option<bool>,
}

/// One normalised stream event (DESIGN.md §4). `choice` is omitted for the first choice.
/// `index` on tool-call events is the call's position in the message's `toolCalls`, not the
/// provider's own index (which some providers omit or reuse).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamEvent {
    Start {
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        model: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        provider: Option<String>,
    },
    Text {
        text: String,
        #[serde(skip_serializing_if = "is_zero")]
        choice: u32,
    },
    Reasoning {
        text: String,
        #[serde(skip_serializing_if = "is_zero")]
        choice: u32,
    },
    ReasoningSignature {
        signature: String,
        #[serde(skip_serializing_if = "is_zero")]
        choice: u32,
    },
    ToolCallStart {
        index: u32,
        id: String,
        name: String,
        #[serde(skip_serializing_if = "is_zero")]
        choice: u32,
    },
    #[serde(rename_all = "camelCase")]
    ToolCallDelta {
        index: u32,
        arguments_delta: String,
        #[serde(skip_serializing_if = "is_zero")]
        choice: u32,
    },
    ToolCallEnd {
        index: u32,
        id: String,
        name: String,
        arguments: String,
        #[serde(skip_serializing_if = "is_zero")]
        choice: u32,
    },
    Usage {
        usage: Usage,
    },
    #[serde(rename_all = "camelCase")]
    Finish {
        reason: FinishReason,
        raw_reason: Option<String>,
        #[serde(skip_serializing_if = "is_zero")]
        choice: u32,
    },
    Error {
        #[serde(flatten)]
        error: ErrorInfo,
    },
}

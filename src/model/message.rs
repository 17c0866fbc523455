//! The one consolidated message a stream (or a non-streamed body) ends as.

use serde::Serialize;

use super::{ErrorInfo, FinishReason, RawJson, Usage};
use crate::error::{Error, ErrorCode, ProviderDetail};
use crate::json::write::{Object, WriteJson};

/// A tool call (§8.7): `arguments` is always a JSON string.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

/// One content block of the final message, in stream order. The optional fields carry what a
/// provider needs back to continue from this turn (docs/design.md, "Reasoning that goes back").
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block {
    Text {
        text: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        citations: Option<Vec<RawJson>>,
        /// Gemini's `thoughtSignature` on this text part.
        #[serde(skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
    },
    ToolCall {
        id: String,
        name: String,
        arguments: String,
        /// Gemini's `thoughtSignature` on this `functionCall` part.
        #[serde(skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    Reasoning {
        text: String,
        /// Anthropic and Bedrock thinking signatures; a `reasoning_details` text's signature.
        #[serde(skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
        /// Opaque reasoning: Anthropic `redacted_thinking` data, Bedrock `redactedContent`
        /// decoded, a `reasoning_details` `reasoning.encrypted` item's data.
        #[serde(skip_serializing_if = "Option::is_none")]
        redacted: Option<String>,
        /// The id of the OpenAI Responses reasoning item this block belongs to.
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// That item's `encrypted_content`.
        #[serde(skip_serializing_if = "Option::is_none")]
        encrypted_content: Option<String>,
        /// The `format` of a chat `reasoning_details` item; set only on blocks read from one.
        #[serde(skip_serializing_if = "Option::is_none")]
        format: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    Other { provider_type: String, data: RawJson },
}

impl Block {
    /// A text block with nothing but its text.
    pub fn text(text: impl Into<String>) -> Block {
        Block::Text { text: text.into(), citations: None, signature: None }
    }

    /// A reasoning block with nothing but its text.
    pub fn reasoning(text: impl Into<String>) -> Block {
        Block::Reasoning {
            text: text.into(),
            signature: None,
            redacted: None,
            id: None,
            encrypted_content: None,
            format: None,
        }
    }

    /// A tool call's block.
    pub fn tool_call(call: ToolCall) -> Block {
        let ToolCall { id, name, arguments } = call;
        Block::ToolCall { id, name, arguments, signature: None }
    }
}

/// The consolidated assistant message (docs/design.md, "Streaming").
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
    /// (`provider_error` for a provider's), and a stream whose bytes stopped before its end with
    /// `transport_error`, so a caller never mistakes partial text for an answer.
    pub fn result(&self, has_outputs: bool) -> crate::Result<super::ProcessResult> {
        if let Some(error) = &self.error {
            return Err(error.to_error());
        }
        if !self.complete {
            return Err(Error::new(
                ErrorCode::TransportError,
                "the stream stopped before its end (no finish reason or end event came): what it gave is partial",
            ));
        }
        if !self.tool_calls.is_empty() {
            return Ok(super::ProcessResult::ToolCalls(self.tool_calls.clone()));
        }
        Ok(super::ProcessResult::of_text(self.text.clone(), has_outputs))
    }
}

impl ErrorInfo {
    /// The error a message that failed with this one throws: its own code for a refusal, an
    /// exceeded limit, a transport failure, data that is not JSON or no answer; else a `provider_error`
    /// with the provider's type, code and retryability, as `process` throws for its body.
    pub(crate) fn to_error(&self) -> Error {
        let code = match self.code.as_deref() {
            Some("model_refused") => ErrorCode::ModelRefused,
            Some("limit_exceeded") => ErrorCode::LimitExceeded,
            Some("transport_error") => ErrorCode::TransportError,
            Some("invalid_json") => ErrorCode::InvalidJson,
            Some("empty_response") => ErrorCode::EmptyResponse,
            _ => {
                let detail = ProviderDetail {
                    kind: self.provider_type.clone(),
                    code: self.provider_code.clone(),
                    retryable: self.retryable == Some(true),
                };
                return Error::provider(self.message.clone(), detail);
            }
        };
        Error::new(code, self.message.clone())
    }
}

// The JSON text of these types, written by hand: byte for byte what their `Serialize` gives
// through `serde_json::to_string` (the tests hold them to it), without serde's serializer.

impl WriteJson for ToolCall {
    #[cfg_attr(llw_speed, optimize(speed))]
    fn write_json(&self, out: &mut String) {
        let mut o = Object::new(out);
        o.str("id", &self.id);
        o.str("name", &self.name);
        o.str("arguments", &self.arguments);
        o.end();
    }
}

impl WriteJson for Block {
    #[cfg_attr(llw_speed, optimize(speed))]
    fn write_json(&self, out: &mut String) {
        let mut o = Object::new(out);
        match self {
            Block::Text { text, citations, signature } => {
                o.str("type", "text");
                o.str("text", text);
                if let Some(citations) = citations {
                    citations.write_json(o.key("citations"));
                }
                o.opt_str("signature", signature.as_deref());
            }
            Block::ToolCall { id, name, arguments, signature } => {
                o.str("type", "tool_call");
                o.str("id", id);
                o.str("name", name);
                o.str("arguments", arguments);
                o.opt_str("signature", signature.as_deref());
            }
            Block::Reasoning { text, signature, redacted, id, encrypted_content, format } => {
                o.str("type", "reasoning");
                o.str("text", text);
                o.opt_str("signature", signature.as_deref());
                o.opt_str("redacted", redacted.as_deref());
                o.opt_str("id", id.as_deref());
                o.opt_str("encryptedContent", encrypted_content.as_deref());
                o.opt_str("format", format.as_deref());
            }
            Block::Other { provider_type, data } => {
                o.str("type", "other");
                o.str("providerType", provider_type);
                data.write_json(o.key("data"));
            }
        }
        o.end();
    }
}

impl WriteJson for FinalMessage {
    #[cfg_attr(llw_speed, optimize(speed))]
    fn write_json(&self, out: &mut String) {
        let mut o = Object::new(out);
        o.str("role", self.role);
        self.content.write_json(o.key("content"));
        o.str("text", &self.text);
        o.str("reasoning", &self.reasoning);
        self.tool_calls.write_json(o.key("toolCalls"));
        match &self.usage {
            Some(usage) => usage.write_json(o.key("usage")),
            None => o.key("usage").push_str("null"),
        }
        o.str("finishReason", self.finish_reason.as_str());
        match &self.raw_finish_reason {
            Some(raw) => o.str("rawFinishReason", raw),
            None => o.key("rawFinishReason").push_str("null"),
        }
        o.opt_str("id", self.id.as_deref());
        o.opt_str("model", self.model.as_deref());
        o.opt_str("provider", self.provider.as_deref());
        if let Some(error) = &self.error {
            error.write_json(o.key("error"));
        }
        o.bool("complete", self.complete);
        if let Some(choices) = &self.choices {
            choices.write_json(o.key("choices"));
        }
        o.end();
    }
}

impl FinalMessage {
    /// The message as JSON text, its buffer sized by [`Self::json_len`]: a message of many
    /// choices or calls is not copied again and again as its buffer grows.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub(crate) fn json_text(&self) -> String {
        let mut out = String::with_capacity(self.json_len());
        self.write_json(&mut out);
        out
    }

    /// About how long the message's JSON text is: the strings it carries (the text and the tool
    /// arguments appear twice: at the top and in their blocks) and about the keys around them.
    fn json_len(&self) -> usize {
        let blocks: usize = self
            .content
            .iter()
            .map(|b| match b {
                Block::Text { text, .. } => text.len(),
                Block::Reasoning { text, signature, redacted, encrypted_content, .. } => {
                    let opaque = [signature, redacted, encrypted_content].into_iter().flatten().map(String::len);
                    text.len() + opaque.sum::<usize>()
                }
                Block::ToolCall { arguments, .. } => arguments.len() + 32,
                Block::Other { data, .. } => data.get().len(),
            })
            .sum::<usize>()
            + 32 * self.content.len();
        let calls: usize = self.tool_calls.iter().map(|c| c.arguments.len() + 32).sum();
        let choices: usize = self.choices.iter().flatten().map(FinalMessage::json_len).sum();
        blocks + calls + choices + self.text.len() + self.reasoning.len() + 256
    }
}

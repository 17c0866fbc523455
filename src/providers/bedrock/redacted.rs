//! Redacted reasoning on the Bedrock wire (docs/design.md, "Reasoning that goes back"):
//! `redactedContent` is base64 of opaque bytes, which for Claude are the text of Anthropic's
//! `redacted_thinking` data. A reasoning block keeps that text, so the same turn goes back to
//! either API; bytes that are not text (another model's) stay a Bedrock-only `other` block.

use crate::accumulator::MessageBuilder;
use crate::error::Result;
use crate::model::RawJson;
use crate::request::wire::Object;

/// The Converse member that holds redacted reasoning, and the name of its `other` block.
pub(crate) const REASONING_CONTENT: &str = "reasoningContent";

/// A `redactedContent` value as it arrived: the redacted reasoning block of its bytes' text, or
/// (bytes that are not UTF-8, or a value that is not base64) `{redactedContent}` kept whole as
/// an `other` block named `reasoningContent`.
pub(crate) fn read(wire: &str, b: &mut MessageBuilder) -> Result<()> {
    match crate::base64::decode(wire).ok().and_then(|bytes| String::from_utf8(bytes).ok()) {
        Some(data) => b.redacted_reasoning(0, &data),
        None => {
            let kept = Object::new().str("redactedContent", wire).finish();
            b.other_block(0, REASONING_CONTENT, RawJson::from_valid(&kept))
        }
    }
}

/// `{reasoningContent: {redactedContent}}` for a redacted block's data: base64 of its bytes.
pub(crate) fn write(data: &str) -> String {
    let inner = Object::new().str("redactedContent", &crate::base64::encode(data.as_bytes())).finish();
    Object::new().json(REASONING_CONTENT, &inner).finish()
}

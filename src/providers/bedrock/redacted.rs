//! Redacted reasoning on the Bedrock wire (docs/design.md, "Reasoning that goes back"):
//! `redactedContent` is base64 of opaque bytes, which for Claude are the text of Anthropic's
//! `redacted_thinking` data. A reasoning block keeps that text, so the same turn goes back to
//! either API; bytes that are not text (another model's) stay a Bedrock-only `other` block.

use super::invoke::decode_base64;
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
    match decode_base64(wire).ok().and_then(|bytes| String::from_utf8(bytes).ok()) {
        Some(data) => b.redacted_reasoning(0, &data),
        None => {
            let kept = Object::new().str("redactedContent", wire).finish();
            b.other_block(0, REASONING_CONTENT, RawJson::from_valid(&kept))
        }
    }
}

/// `{reasoningContent: {redactedContent}}` for a redacted block's data: base64 of its bytes.
pub(crate) fn write(data: &str) -> String {
    let inner = Object::new().str("redactedContent", &encode_base64(data.as_bytes())).finish();
    Object::new().json(REASONING_CONTENT, &inner).finish()
}

/// Standard base64 with padding, as AWS writes a blob.
pub(crate) fn encode_base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for group in bytes.chunks(3) {
        let n = group.iter().enumerate().fold(0u32, |n, (i, &byte)| n | u32::from(byte) << (16 - 8 * i));
        for k in 0..4 {
            let sextet = (n >> (18 - 6 * k)) & 63;
            out.push(if k <= group.len() { char::from(ALPHABET[sextet as usize]) } else { '=' });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_encodes_every_tail_length_and_decodes_back() {
        let cases: [(&[u8], &str); 5] =
            [(b"", ""), (b"f", "Zg=="), (b"fo", "Zm8="), (b"foo", "Zm9v"), (&[0xFF, 0xEF, 0x00, 0x7F], "/+8Afw==")];
        for (bytes, want) in cases {
            assert_eq!(encode_base64(bytes), want);
            assert_eq!(decode_base64(want).unwrap(), bytes);
        }
    }
}

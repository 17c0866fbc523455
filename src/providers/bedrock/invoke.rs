//! InvokeModelWithResponseStream: each `chunk` event's payload is `{"bytes": "<base64>"}`, the
//! base64 of one event of the model's own stream format (Anthropic Messages events for Claude,
//! OpenAI Chat chunks for gpt-oss, ...). The accumulator decodes the bytes here and reads them
//! with that format's decoder, detected from the first chunk.

use crate::base64::DecodeError;
use crate::json::read_document;
use crate::providers::Scalar;

/// The decoded `bytes` of a `chunk` payload: `Ok(None)` when the payload has none (nothing to
/// read), `Err` with the reason when the payload is not a JSON object or the bytes are not
/// base64.
pub(crate) fn chunk_bytes(payload: &[u8]) -> Result<Option<Vec<u8>>, String> {
    let mut bytes = Scalar::default();
    let is_object = read_document(payload, |r| {
        r.object(|r, key| {
            if key == b"bytes" {
                bytes = Scalar::read(r)?;
            }
            Ok(())
        })
    })
    .map_err(|err| err.message())?;
    if !is_object {
        return Err("an InvokeModel chunk is not a JSON object".to_owned());
    }
    bytes
        .as_deref()
        .map(|text| {
            crate::base64::decode(text).map_err(|err| match err {
                DecodeError::Invalid(at) => format!("an InvokeModel chunk's bytes are not base64 (at {at})"),
                DecodeError::Truncated => "an InvokeModel chunk's bytes are truncated base64".to_owned(),
            })
        })
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_bytes_decode_base64_with_or_without_padding_and_refuse_anything_else() {
        // (payload, the decoded bytes, or `Err` for an error)
        type Decoded = Result<Option<&'static [u8]>, ()>;
        let cases: [(&str, Decoded); 9] = [
            (r#"{"bytes":"eyJhIjoxfQ=="}"#, Ok(Some(br#"{"a":1}"#))),
            (r#"{"bytes":"eyJhIjoxfQ"}"#, Ok(Some(br#"{"a":1}"#))),
            (r#"{"bytes":"","p":"abc"}"#, Ok(Some(b""))),
            (r#"{"bytes":"/+8="}"#, Ok(Some(&[0xFF, 0xEF]))),
            (r#"{"p":"abc"}"#, Ok(None)),
            (r#"{"bytes":"e$"}"#, Err(())),
            (r#"{"bytes":"eyJhI"}"#, Err(())),
            (r#"["bytes"]"#, Err(())),
            (r#"{"bytes":"#, Err(())),
        ];
        for (payload, want) in cases {
            let got = chunk_bytes(payload.as_bytes());
            assert_eq!(got.as_ref().map(|b| b.as_deref()).map_err(|_| ()), want, "{payload}");
        }
    }
}

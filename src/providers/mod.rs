//! One folder per provider API, with the same file names in each; the pieces they share
//! (lenient scalar reading, provider error classification) are here.

pub mod anthropic;
pub mod bedrock;
pub mod gemini;
pub mod openai_chat;
pub mod openai_embeddings;
pub mod openai_images;
pub mod openai_responses;
pub(crate) mod template;

use std::borrow::Cow;

use crate::accumulator::MessageBuilder;
use crate::error::{ErrorCode, Result};
use crate::json::{read_document, read_object, JsonResult, Kind, Reader};
use crate::model::{ErrorInfo, Outcome, RawJson};

/// A JSON scalar read leniently as text: strings borrow from the input where they can, numbers
/// and booleans become their text, and anything else (null, objects, arrays) is `None`. Real
/// servers put numbers where others put strings (`"code": 400`) and objects where a string was
/// documented; one odd field must not cost the whole event.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Scalar<'a>(pub Option<Cow<'a, str>>);

impl<'a> Scalar<'a> {
    pub(crate) fn as_deref(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

impl<'a> Scalar<'a> {
    /// The next value read leniently (see [`Scalar`]) by the crate's JSON reader.
    pub(crate) fn read(r: &mut Reader<'a>) -> JsonResult<Self> {
        r.scalar().map(Scalar)
    }
}

/// The count `name` of a `*_details` object (`{"cached_tokens": 5}`); `None` when the value is
/// not an object or lacks it.
pub(crate) fn read_detail_count(r: &mut Reader<'_>, name: &[u8]) -> JsonResult<Option<u64>> {
    let mut count = None;
    r.object(|r, key| {
        if key == name {
            count = read_count(r)?;
        }
        Ok(())
    })?;
    Ok(count)
}

/// A token count read leniently: integers, floats (`12.0`), numeric strings; `None` for null,
/// anything else, and negative or non-finite values, a literal beyond the double range (`1e400`)
/// included: that count alone is absent, the object it is in is still read.
#[cfg_attr(llw_speed, optimize(speed))]
pub(crate) fn read_count(r: &mut Reader<'_>) -> JsonResult<Option<u64>> {
    if let Some(count) = r.short_uint() {
        return Ok(Some(count)); // what nearly every count is
    }
    let text = match r.peek()? {
        // The literal itself: `Reader::scalar` refuses one beyond the double range.
        Kind::Number => Some(Cow::Borrowed(r.raw()?)),
        _ => r.scalar()?,
    };
    let value = text.as_deref().and_then(crate::json::float::parse);
    Ok(value.filter(|v| v.is_finite() && *v >= 0.0).map(|v| v as u64))
}

/// `{message, type, code}` as OpenAI-compatible servers (and Anthropic, nested) send it, inside
/// an `error` member or as the whole body.
#[derive(Debug, Default)]
#[cfg_attr(test, derive(PartialEq))]
pub(crate) struct ErrorBody<'a> {
    pub message: Scalar<'a>,
    /// The error's `type`.
    pub kind: Scalar<'a>,
    pub code: Scalar<'a>,
}

impl<'a> ErrorBody<'a> {
    /// An `error` field: an object is the error, a string its message alone (some local
    /// servers), anything else (`null`, `false`, a list) no error.
    pub(crate) fn read_field(r: &mut Reader<'a>) -> JsonResult<Option<Self>> {
        if r.peek()? == Kind::String {
            let message = Scalar::read(r)?;
            return Ok(Some(ErrorBody { message, ..ErrorBody::default() }));
        }
        Self::read(r)
    }

    /// A body that is the error itself, `{object: "error", message, type, code}` (Mistral, older
    /// vLLM and other OpenAI-compatible servers), whose `object` was found to be `"error"`.
    pub(crate) fn read_body(data: &'a [u8]) -> Option<Self> {
        read_document(data, Self::read).ok().flatten()
    }

    /// A FastAPI `{"detail": ...}` body (a server's route or validation error, as vLLM's
    /// unknown paths give): the detail is the message.
    pub(crate) fn of_detail(detail: Scalar<'a>) -> Self {
        ErrorBody { message: detail, ..ErrorBody::default() }
    }

    /// An `{message, type, code}` object, or `None` (the value skipped) when it is not one.
    pub(crate) fn read(r: &mut Reader<'a>) -> JsonResult<Option<Self>> {
        read_object(r, |body: &mut ErrorBody<'a>, r, key| {
            match key {
                b"message" => body.message = Self::read_message(r)?,
                b"type" => body.kind = Scalar::read(r)?,
                b"code" => body.code = Scalar::read(r)?,
                _ => {}
            }
            Ok(())
        })
    }

    /// A message: a scalar read leniently, or the JSON text of an object or a list (Mistral's
    /// validation errors are `{"detail": [...]}` there), so that what the server said is kept.
    pub(crate) fn read_message(r: &mut Reader<'a>) -> JsonResult<Scalar<'a>> {
        match r.peek()? {
            Kind::Object | Kind::Array => Ok(Scalar(Some(Cow::Borrowed(r.raw()?)))),
            _ => Scalar::read(r),
        }
    }

    /// The error as a stream error: the provider's message and code (its type when it has no
    /// code), determinate, with retryability from the type or code, and the type and code
    /// themselves beside, as the `provider_error` thrown for the same body has them.
    pub(crate) fn info(&self) -> ErrorInfo {
        let (kind, code) = (self.kind.as_deref(), self.code.as_deref());
        ErrorInfo {
            message: self.message.as_deref().unwrap_or("the provider reported an error").to_owned(),
            code: code.or(kind).map(str::to_owned),
            outcome: Outcome::Determinate,
            retryable: Some(is_retryable(kind) || is_retryable(code)),
            provider_type: kind.map(str::to_owned),
            provider_code: code.map(str::to_owned),
        }
    }
}

/// Whether an error type or code names a transient condition (overload, rate limit, server).
pub(crate) fn is_retryable(kind_or_code: Option<&str>) -> bool {
    let Some(value) = kind_or_code else { return false };
    // A number is an HTTP status only in its range: Mistral's own codes (`1500`, `3505`) are not.
    if let Ok(status) = value.parse::<u16>() {
        return matches!(status, 408 | 409 | 429 | 500..=599);
    }
    matches!(
        value,
        "overloaded_error"
            | "api_error"
            | "server_error"
            | "internal_server_error"
            | "internal_error"
            | "service_unavailable"
            | "service_unavailable_error"
            | "rate_limit_error"
            | "rate_limit_exceeded"
            // Mistral's 429 when its capacity for the model is used up.
            | "service_tier_capacity_exceeded"
            | "timeout"
            | "timeout_error"
            // Google's status names for 503, 429, 500 and 504, for an error without its HTTP code.
            | "UNAVAILABLE"
            | "RESOURCE_EXHAUSTED"
            | "INTERNAL"
            | "DEADLINE_EXCEEDED"
            // AWS event-stream exceptions (Bedrock) that AWS documents as worth retrying.
            | "throttlingException"
            | "serviceUnavailableException"
            | "internalServerException"
            | "modelStreamErrorException"
            | "modelNotReadyException"
            | "modelTimeoutException"
    )
}

/// Annotations (a Responses `output_text` part's, a Chat message's `url_citation`s) as citations
/// of the choice's current text block, each kept as its JSON text.
pub(crate) fn annotations_as_citations(b: &mut MessageBuilder, choice: u32, annotations: &[&str]) -> Result<()> {
    for annotation in annotations {
        b.citation(choice, RawJson::from_valid(annotation))?;
    }
    Ok(())
}

/// What a format's handler made of one event.
#[cfg_attr(test, derive(Debug))]
pub(crate) enum Handled {
    Done,
    /// The event's data is not JSON; nothing was recorded (the accumulator reports it, after
    /// trying the lone-surrogate repair).
    NotJson(String),
}

/// A chunk that is not JSON: reported, and the stream goes on.
pub(crate) fn invalid_chunk(err: &str) -> ErrorInfo {
    ErrorInfo {
        message: format!("a stream event is not valid JSON: {err}"),
        code: Some(ErrorCode::InvalidJson.as_str().to_owned()),
        outcome: Outcome::Indeterminate,
        retryable: Some(false),
        provider_type: None,
        provider_code: None,
    }
}

/// JSON text with every lone UTF-16 surrogate escape (`\ud83c` without its pair) replaced by
/// `\ufffd`, or `None` when there is none. A server that cuts text by UTF-16 code units can
/// split a pair across two events; serde_json rightly refuses a lone surrogate, and without
/// this the whole event, with all its other fields, would be lost.
pub(crate) fn repair_lone_surrogates(data: &[u8]) -> Option<Vec<u8>> {
    fn surrogate_at(data: &[u8], at: usize) -> Option<u16> {
        let hex = data.get(at + 2..at + 6)?;
        if data[at] != b'\\' || data[at + 1] != b'u' {
            return None;
        }
        let value = u16::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?;
        (0xD800..=0xDFFF).contains(&value).then_some(value)
    }
    let mut out: Option<Vec<u8>> = None;
    let mut at = 0;
    let mut copied = 0;
    while at < data.len() {
        if data[at] != b'\\' {
            at += 1;
            continue;
        }
        let Some(unit) = surrogate_at(data, at) else {
            at += 2; // any other escape, `\\` included, is skipped whole
            continue;
        };
        let paired = unit < 0xDC00 && surrogate_at(data, at + 6).is_some_and(|low| low >= 0xDC00);
        if paired {
            at += 12;
            continue;
        }
        let buf = out.get_or_insert_with(|| Vec::with_capacity(data.len()));
        buf.extend_from_slice(&data[copied..at]);
        buf.extend_from_slice(b"\\ufffd");
        at += 6;
        copied = at;
    }
    let mut buf = out?;
    buf.extend_from_slice(&data[copied..]);
    Some(buf)
}

#[cfg(test)]
mod tests {
    use super::{read_count, repair_lone_surrogates};
    use crate::json::read_document;

    #[test]
    fn a_count_is_the_literal_read_as_a_double_and_kept_when_whole_and_not_negative() {
        // (the value, the count); the one-pass path takes plain integers of up to 15 digits,
        // the rest go through the double, so both sides of that line are here.
        let cases: &[(&str, Option<u64>)] = &[
            ("0", Some(0)),
            ("7", Some(7)),
            (" 120 ", Some(120)),
            ("999999999999999", Some(999_999_999_999_999)),
            ("9999999999999999", Some(10_000_000_000_000_000)),
            ("9007199254740993", Some(9_007_199_254_740_992)),
            ("18446744073709551616", Some(u64::MAX)),
            ("1e400", None),
            ("12.5", Some(12)),
            ("12.0", Some(12)),
            ("1e3", Some(1000)),
            ("1E3", Some(1000)),
            ("-3", None),
            ("-0", Some(0)),
            ("\"42\"", Some(42)),
            ("\"4.5\"", Some(4)),
            ("null", None),
            ("true", None),
            ("[1]", None),
            ("{}", None),
        ];
        for (text, count) in cases {
            assert_eq!(read_document(text.as_bytes(), read_count).ok(), Some(*count), "{text}");
        }
        // Not JSON numbers: refused, as the double path refuses them.
        for text in ["01", "1.", ".5", "1e", "-"] {
            assert!(read_document(text.as_bytes(), read_count).is_err(), "{text}");
        }
    }

    #[test]
    fn lone_surrogate_escapes_become_replacement_characters_and_pairs_stay() {
        let fixed = |s: &str| repair_lone_surrogates(s.as_bytes()).map(|v| String::from_utf8(v).unwrap());
        assert_eq!(fixed(r#"{"a":"x\ud83c"}"#).as_deref(), Some(r#"{"a":"x\ufffd"}"#));
        assert_eq!(fixed(r#"{"a":"\udf89y"}"#).as_deref(), Some(r#"{"a":"\ufffdy"}"#));
        assert_eq!(fixed(r#"{"a":"\ud83c\udf89"}"#), None, "a whole pair is left alone");
        assert_eq!(fixed(r#"{"a":"\\ud83c"}"#), None, "an escaped backslash is not an escape");
        assert_eq!(fixed(r#"{"a":"\u0041\n"}"#), None);
        assert_eq!(fixed(r#"{"a":"\ud8"#), None, "a cut escape is left for the parser to refuse");
    }
}

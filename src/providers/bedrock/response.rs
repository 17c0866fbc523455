//! A non-streamed Bedrock Converse body → the normalised message, and Bedrock's error bodies.
//!
//! `{output: {message: {role, content}}, stopReason, usage, metrics}`. Each content block is a
//! union with one member, replayed into the builder the way its streamed form arrives: `text`;
//! `toolUse` (its `input` object becomes the arguments JSON string, key order and number
//! spelling kept; a server tool's call is kept whole); `reasoningContent` with its signature,
//! or its `redactedContent` (decoded, see `redacted`); `citationsContent` as text with its citations; any other block
//! (`toolResult`, `image`, `document`, ...) kept whole as an `other` block named by its member.
//!
//! An error is an HTTP error status with `{"message": "..."}`; its type travels in the
//! `x-amzn-ErrorType` header, and is read from the body only when the body carries it
//! (`__type`, as AWS's JSON protocols write it).

use super::usage::convert_usage;
use super::{map_stop_reason, ToolUse};
use crate::accumulator::MessageBuilder;
use crate::error::{Error, ProviderDetail, Result};
use crate::json::{read_document, read_list, JsonResult, Reader};
use crate::model::RawJson;
use crate::process::read_body;
use crate::providers::anthropic::response::minify;
use crate::providers::{is_retryable, Scalar};

/// A Converse body. Members of an unexpected kind read as absent; a repeated key is read again
/// (the last one wins).
#[derive(Default)]
pub(crate) struct ConverseBody<'a> {
    /// Each content block's JSON text.
    content: Vec<&'a str>,
    has_output: bool,
    stop_reason: Scalar<'a>,
    /// The usage object's JSON text.
    usage: Option<&'a str>,
    /// An error body's `message` (AWS writes it `Message` in some services), `__type` and `code`.
    message: Scalar<'a>,
    error_type: Scalar<'a>,
    code: Scalar<'a>,
}

impl<'a> ConverseBody<'a> {
    /// The body of `text`, which must be one JSON object ("expected an object" otherwise).
    pub(crate) fn read(text: &'a str) -> JsonResult<Self> {
        let mut body = ConverseBody::default();
        read_body(text, &mut |r, key| {
            match key {
                b"output" => {
                    body.has_output = true;
                    r.object(|r, key| {
                        if key == b"message" {
                            r.object(|r, key| {
                                if key == b"content" {
                                    body.content = read_list(r, Reader::raw)?;
                                }
                                Ok(())
                            })?;
                        }
                        Ok(())
                    })?;
                }
                b"stopReason" => body.stop_reason = Scalar::read(r)?,
                b"usage" => body.usage = r.raw_non_null()?,
                b"message" | b"Message" => body.message = Scalar::read(r)?,
                b"__type" => body.error_type = Scalar::read(r)?,
                b"code" => body.code = Scalar::read(r)?,
                _ => {}
            }
            Ok(())
        })?;
        Ok(body)
    }

    /// Feeds the body to `b` as if it were the stream from `messageStart` to `metadata` (the
    /// caller then ends the stream); an error body is `Err(provider_error)`.
    pub(crate) fn feed(&self, b: &mut MessageBuilder) -> Result<()> {
        if !self.has_output && (self.message.as_deref().is_some() || self.error_type.as_deref().is_some()) {
            return Err(error_of(self.message.as_deref(), self.error_type.as_deref(), self.code.as_deref()));
        }
        b.start(None, None, None)?;
        for (index, raw) in self.content.iter().enumerate() {
            b.break_block(0);
            block(index as u64, raw, b)?;
        }
        if let Some(raw) = self.stop_reason.as_deref() {
            b.finish_reason(0, map_stop_reason(raw), raw)?;
        }
        if let Some(usage) = self.usage.and_then(convert_usage) {
            b.set_usage(usage)?;
        }
        Ok(())
    }
}

/// One content block, its one member read; anything else is kept whole.
fn block(index: u64, raw: &str, b: &mut MessageBuilder) -> Result<()> {
    let Some((key, value)) = member(raw) else {
        return b.other_block(0, "unknown", RawJson::from_valid(raw));
    };
    match key.as_str() {
        "text" => match read_document(value.as_bytes(), Scalar::read) {
            Ok(text) => b.text(0, text.as_deref().unwrap_or("")),
            Err(_) => b.other_block(0, "text", RawJson::from_valid(value)),
        },
        "toolUse" => {
            let call = ToolUse::read(value);
            if call.kind.as_deref() == Some("server_tool_use") {
                return b.other_block(0, "toolUse", RawJson::from_valid(value));
            }
            let (id, name) = (call.id.as_deref().unwrap_or(""), call.name.as_deref().unwrap_or(""));
            let at = b.begin_tool_call(0, id, name, Some(index), None)?;
            b.tool_arguments(0, at, &call.input.map_or_else(|| "{}".to_owned(), minify))?;
            b.end_tool_call(0, at);
            Ok(())
        }
        "reasoningContent" => reasoning(value, b),
        "citationsContent" => citations(value, b),
        other => b.other_block(0, other, RawJson::from_valid(value)),
    }
}

/// The one member of a union object, its key and its value's JSON text; `None` when the text is
/// not an object with a member.
fn member(raw: &str) -> Option<(String, &str)> {
    let mut found = None;
    read_document(raw.as_bytes(), |r| {
        r.object(|r, key| {
            if found.is_none() {
                found = Some((String::from_utf8_lossy(key).into_owned(), r.raw()?));
            }
            Ok(())
        })
    })
    .ok()?;
    found
}

/// `{reasoningText: {text, signature}}` or `{redactedContent}`.
fn reasoning(value: &str, b: &mut MessageBuilder) -> Result<()> {
    let (mut text, mut signature, mut redacted) = (Scalar::default(), Scalar::default(), Scalar::default());
    let read = read_document(value.as_bytes(), |r| {
        r.object(|r, key| {
            match key {
                b"reasoningText" => {
                    r.object(|r, key| {
                        match key {
                            b"text" => text = Scalar::read(r)?,
                            b"signature" => signature = Scalar::read(r)?,
                            _ => {}
                        }
                        Ok(())
                    })?;
                }
                b"redactedContent" => redacted = Scalar::read(r)?,
                _ => {}
            }
            Ok(())
        })
    });
    if read.is_err() {
        return b.other_block(0, "reasoningContent", RawJson::from_valid(value));
    }
    if let Some(wire) = redacted.as_deref() {
        return super::redacted::read(wire, b);
    }
    b.reasoning(0, text.as_deref().unwrap_or(""))?;
    b.reasoning_signature(0, signature.as_deref().unwrap_or(""))
}

/// `{content: [{text}], citations: [...]}`: the text, with its citations.
fn citations(value: &str, b: &mut MessageBuilder) -> Result<()> {
    let (mut texts, mut citations) = (Vec::new(), Vec::new());
    let read = read_document(value.as_bytes(), |r| {
        r.object(|r, key| {
            match key {
                b"content" => {
                    r.array(|r| {
                        r.object(|r, key| {
                            if key == b"text" {
                                texts.push(Scalar::read(r)?);
                            }
                            Ok(())
                        })?;
                        Ok(())
                    })?;
                }
                b"citations" => citations = read_list(r, Reader::raw)?,
                _ => {}
            }
            Ok(())
        })
    });
    if read.is_err() {
        return b.other_block(0, "citationsContent", RawJson::from_valid(value));
    }
    for citation in citations {
        b.citation(0, RawJson::from_valid(citation))?;
    }
    for text in &texts {
        b.text(0, text.as_deref().unwrap_or(""))?;
    }
    Ok(())
}

/// An AWS error as a thrown `provider_error`: its message, its type (`ThrottlingException`,
/// the name alone when given with a namespace or a URL) as the provider's type, retryable when
/// AWS documents it as transient, and its `code`, when it has one, as the provider's code.
pub(crate) fn error_of(message: Option<&str>, error_type: Option<&str>, code: Option<&str>) -> Error {
    let kind = error_type.map(exception_name).filter(|k| !k.is_empty());
    let retryable = kind.as_deref().is_some_and(is_retryable_exception) || is_retryable(code);
    let message = message.filter(|m| !m.is_empty()).unwrap_or("the provider reported an error");
    Error::provider(message, ProviderDetail { kind, code: code.map(str::to_owned), retryable })
}

/// `ThrottlingException` from `com.amazonaws.bedrock#ThrottlingException` or
/// `ThrottlingException:http://internal.amazon.com/...` (the header's form).
fn exception_name(error_type: &str) -> String {
    let name = error_type.split(':').next().unwrap_or_default();
    name.rsplit('#').next().unwrap_or_default().to_owned()
}

/// An event stream's exception name as AWS spells the error type in a header, a body and its
/// SDKs (`throttlingException` → `ThrottlingException`), so a caller branches on one name.
pub(crate) fn error_type_name(name: &str) -> String {
    let mut chars = name.chars();
    chars.next().map_or_else(String::new, |first| first.to_uppercase().chain(chars).collect())
}

/// Whether an AWS exception, in either spelling (`ThrottlingException` in a header or body,
/// `throttlingException` in an event stream), is one AWS documents as worth retrying.
pub(crate) fn is_retryable_exception(name: &str) -> bool {
    let mut chars = name.chars();
    let Some(first) = chars.next() else { return false };
    let event_name: String = first.to_lowercase().chain(chars).collect();
    is_retryable(Some(&event_name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_aws_error_type_is_named_without_namespace_or_url_and_retryable_when_transient() {
        // (__type, kind, retryable)
        let cases = [
            ("ThrottlingException", Some("ThrottlingException"), true),
            ("com.amazonaws.bedrock#ServiceUnavailableException", Some("ServiceUnavailableException"), true),
            ("InternalServerException:http://internal.amazon.com/coral/", Some("InternalServerException"), true),
            ("ModelTimeoutException", Some("ModelTimeoutException"), true),
            ("ModelNotReadyException", Some("ModelNotReadyException"), true),
            ("ValidationException", Some("ValidationException"), false),
            ("AccessDeniedException", Some("AccessDeniedException"), false),
            ("", None, false),
        ];
        for (error_type, kind, retryable) in cases {
            let err = error_of(Some("m"), Some(error_type), None);
            let detail = err.provider.clone().unwrap();
            assert_eq!((detail.kind.as_deref(), detail.retryable), (kind, retryable), "{error_type}");
            assert_eq!(err.message, "m");
        }
    }
}

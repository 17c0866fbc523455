//! A non-streamed Anthropic Messages body (§8.5) → the normalised message.
//!
//! Each content block is replayed into the builder the way its streamed form arrives
//! (`content_block_start`, deltas, `content_block_stop`): text with its citations, thinking with
//! its signature, redacted thinking, `tool_use` (its `input` object becomes the arguments JSON
//! string, key order and number spelling kept), and server blocks kept whole.

use super::stream::{AnthropicStream, Open};
use super::{convert_usage, map_stop_reason};
use crate::accumulator::MessageBuilder;
use crate::error::Result;
use crate::json::{read_list, JsonResult, Kind, Reader};
use crate::model::RawJson;
use crate::process::errors::provider_error;
use crate::process::read_body;
use crate::providers::{ErrorBody, Scalar};

/// A Messages body. A `content` that is not an array reads as absent (no content) rather than
/// refusing the body, and a repeated key is read again (the last one wins). `usage` is kept as
/// raw text and read as the stream reads it.
#[derive(Default)]
pub(crate) struct MessageBody<'a> {
    id: Scalar<'a>,
    model: Scalar<'a>,
    stop_reason: Scalar<'a>,
    /// `message`, or `error` for an error body.
    kind: Scalar<'a>,
    /// Each content block's JSON text.
    content: Vec<&'a str>,
    /// The usage object's JSON text.
    usage: Option<&'a str>,
    /// `{"type": "error", "error": {...}}`: an object, or a bare message string.
    error: Option<ErrorBody<'a>>,
}

impl<'a> MessageBody<'a> {
    /// The body of `text`, which must be one JSON object ("expected an object" otherwise).
    pub(crate) fn read(text: &'a str) -> JsonResult<Self> {
        let mut body = MessageBody::default();
        read_body(text, &mut |r, key| {
            match key {
                b"id" => body.id = Scalar::read(r)?,
                b"model" => body.model = Scalar::read(r)?,
                b"stop_reason" => body.stop_reason = Scalar::read(r)?,
                b"type" => body.kind = Scalar::read(r)?,
                // Anything but an array is skipped: no blocks.
                b"content" => body.content = read_list(r, Reader::raw)?,
                b"usage" => body.usage = r.raw_non_null()?,
                b"error" => body.error = ErrorBody::read_field(r)?,
                _ => {}
            }
            Ok(())
        })?;
        Ok(body)
    }

    /// Feeds the body to `b` as if it were the stream from `message_start` to `message_stop`
    /// (the caller then ends the stream); a provider error body is `Err(provider_error)`.
    pub(crate) fn feed(&self, b: &mut MessageBuilder) -> Result<()> {
        match (&self.error, self.kind.as_deref()) {
            (Some(error), _) => return Err(provider_error(error)),
            // `type: "error"` without an error object: the provider's error with the default
            // message, no type or code.
            (None, Some("error")) => return Err(provider_error(&ErrorBody::default())),
            _ => {}
        }
        b.start(self.id.as_deref(), self.model.as_deref(), None)?;
        // Each block is started as the stream starts it, then closed here: a tool call with its
        // whole `input`, a server block kept as the body has it (the stream reassembles it
        // from its deltas).
        let mut stream = AnthropicStream::default();
        for (index, raw) in self.content.iter().enumerate() {
            let index = index as u64;
            let input = stream.block_start(index, raw, b)?;
            match stream.close(index, b) {
                Some(Open::Tool(at)) => {
                    b.tool_arguments(0, at, &input.map_or_else(|| "{}".to_owned(), minify))?;
                    b.end_tool_call(0, at);
                }
                Some(Open::ServerTool { .. }) => b.other_block(0, "server_tool_use", RawJson::from_valid(raw))?,
                _ => {}
            }
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

/// One content block, read from its JSON text by [`ContentBlock::read`].
#[derive(Default)]
pub(crate) struct ContentBlock<'a> {
    pub(crate) kind: Scalar<'a>,
    pub(crate) text: Scalar<'a>,
    /// Each citation's raw JSON text.
    pub(crate) citations: Option<Vec<&'a str>>,
    pub(crate) thinking: Scalar<'a>,
    pub(crate) signature: Scalar<'a>,
    pub(crate) data: Scalar<'a>,
    pub(crate) id: Scalar<'a>,
    pub(crate) name: Scalar<'a>,
    /// Raw JSON text.
    pub(crate) input: Option<&'a str>,
}

impl<'a> ContentBlock<'a> {
    /// The block, or `None` (kept whole as an `unknown` block by the callers) when the text is
    /// not an object, is not JSON (a lone surrogate escape in a string it reads), or has
    /// `citations` that are neither an array nor null. A repeated key is read again (the last
    /// one wins).
    pub(crate) fn read(text: &'a str) -> Option<ContentBlock<'a>> {
        let (mut block, mut citations_ok) = (ContentBlock::default(), true);
        let read = read_body(text, &mut |r, key| {
            match key {
                b"type" => block.kind = Scalar::read(r)?,
                b"text" => block.text = Scalar::read(r)?,
                b"thinking" => block.thinking = Scalar::read(r)?,
                b"signature" => block.signature = Scalar::read(r)?,
                b"data" => block.data = Scalar::read(r)?,
                b"id" => block.id = Scalar::read(r)?,
                b"name" => block.name = Scalar::read(r)?,
                b"citations" => match r.peek()? {
                    Kind::Null => block.citations = None,
                    Kind::Array => block.citations = Some(read_list(r, Reader::raw)?),
                    _ => citations_ok = false,
                },
                b"input" => block.input = r.raw_non_null()?,
                _ => {}
            }
            Ok(())
        });
        (read.is_ok() && citations_ok).then_some(block)
    }
}

/// Valid JSON text without the whitespace between tokens: what `JSON.stringify` gives for the
/// same object, with its key order and number spelling kept (re-serialising would sort keys).
pub(crate) fn minify(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in json.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if !c.is_ascii_whitespace() {
            in_string = c == '"';
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::minify;

    #[test]
    fn minify_drops_whitespace_between_tokens_only() {
        assert_eq!(
            minify("{ \"a b\" : [1, 2.50e3] ,\n \"c\\\" d\": \" x \" }"),
            "{\"a b\":[1,2.50e3],\"c\\\" d\":\" x \"}"
        );
    }
}

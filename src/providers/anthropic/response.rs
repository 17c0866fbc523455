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
use crate::json::key_index;
use crate::json::{read_list, Kind, Reader};
use crate::model::RawJson;
use crate::process::{read_body, Body};
use crate::providers::Scalar;

/// The keys of a Messages body, read as a [`Body`] (see there for the order): its texts after
/// `id` and `model` are `stop_reason` and `type`, its items `content`.
///
/// Lenient where the serde derive this replaced refused the whole body: a `content` that is
/// neither an array nor null reads as absent (no content), and a repeated key is read again (the
/// last one wins). `usage` is kept as raw text and read as the stream reads it.
pub(crate) const KEYS: &str = "id model stop_reason type content usage error";

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
            const KEYS: &str = "type text thinking signature data id name citations input";
            let slot = match key_index(key, KEYS) {
                0 => &mut block.kind,
                1 => &mut block.text,
                2 => &mut block.thinking,
                3 => &mut block.signature,
                4 => &mut block.data,
                5 => &mut block.id,
                6 => &mut block.name,
                7 => {
                    match r.peek()? {
                        Kind::Null => block.citations = None,
                        Kind::Array => block.citations = Some(read_list(r, Reader::raw)?),
                        _ => citations_ok = false,
                    }
                    return Ok(());
                }
                8 => return r.raw_non_null().map(|input| block.input = input),
                _ => return Ok(()),
            };
            *slot = Scalar::read(r)?;
            Ok(())
        });
        (read.is_ok() && citations_ok).then_some(block)
    }
}

/// Feeds a whole Messages body that is not an error to `b` as if it were the stream from
/// `message_start` (which the caller has given) to `message_stop` (which the caller then ends).
pub(crate) fn feed(body: &Body<'_>, b: &mut MessageBuilder) -> Result<()> {
    // Each block is started as the stream starts it, then closed here: a tool call with its
    // whole `input`, a server block kept as the body has it (the stream reassembles it
    // from its deltas).
    let mut stream = AnthropicStream::default();
    for (index, raw) in body.items.iter().enumerate() {
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
    if let Some(raw) = body.texts[2].as_deref() {
        b.finish_reason(0, map_stop_reason(raw), raw)?;
    }
    if let Some(usage) = body.usage.and_then(convert_usage) {
        b.set_usage(usage)?;
    }
    Ok(())
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

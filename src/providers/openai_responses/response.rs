//! A non-streamed Responses API body (§8.4) → the normalised message.
//!
//! Output items are replayed in order: reasoning summaries (and `reasoning_text` content) as
//! reasoning blocks, message `output_text` parts as text with their annotations as citations,
//! `refusal` parts as a refusal, `function_call` items as tool calls keyed by `call_id`, and every
//! other item (web search, code interpreter, image generation, ...) kept whole.

use super::{convert_usage, end_response, status_error};
use crate::accumulator::MessageBuilder;
use crate::error::Result;
use crate::json::{read_document, read_list, JsonError, JsonResult, Kind, Reader};
use crate::model::{ErrorInfo, RawJson};
use crate::process::errors::provider_error;
use crate::process::read_body;
use crate::providers::{annotations_as_citations, ErrorBody, Scalar};

/// A non-streamed Responses body. A field of the wrong kind reads as absent rather than refusing
/// the body (`output` not a list, `incomplete_details` not an object); a repeated key keeps its
/// last value.
#[derive(Default)]
pub(crate) struct Response<'a> {
    id: Scalar<'a>,
    model: Scalar<'a>,
    status: Scalar<'a>,
    /// The SDKs' convenience accessor, present in some recorded bodies, absent on the wire.
    pub(crate) output_text: Scalar<'a>,
    /// Each output item's JSON text.
    output: Vec<&'a str>,
    /// The usage object's JSON text.
    usage: Option<&'a str>,
    /// An object, or a bare message string.
    error: Option<ErrorBody<'a>>,
    incomplete_details: Option<Incomplete<'a>>,
}

impl<'a> Response<'a> {
    /// The body of `text`, which must be one JSON object ("expected an object" otherwise).
    pub(crate) fn read(text: &'a str) -> JsonResult<Self> {
        let mut body = Response::default();
        read_body(text, &mut |r, key| {
            match key {
                b"id" => body.id = Scalar::read(r)?,
                b"model" => body.model = Scalar::read(r)?,
                b"status" => body.status = Scalar::read(r)?,
                b"output_text" => body.output_text = Scalar::read(r)?,
                // Anything but an array is skipped: no items.
                b"output" => body.output = read_list(r, Reader::raw)?,
                b"usage" => body.usage = r.raw_non_null()?,
                b"error" => body.error = ErrorBody::read_field(r)?,
                b"incomplete_details" => body.incomplete_details = Incomplete::read(r)?,
                _ => {}
            }
            Ok(())
        })?;
        Ok(body)
    }
}

#[derive(Default)]
pub(crate) struct Incomplete<'a> {
    pub(crate) reason: Scalar<'a>,
}

impl<'a> Incomplete<'a> {
    /// `incomplete_details` of a body or stream event, or `None` when the value is not an object.
    pub(crate) fn read(r: &mut Reader<'a>) -> JsonResult<Option<Incomplete<'a>>> {
        let mut reason = Scalar::default();
        let is_object = r.object(|r, key| {
            if key == b"reason" {
                reason = Scalar::read(r)?;
            }
            Ok(())
        })?;
        Ok(is_object.then_some(Incomplete { reason }))
    }
}

/// One output item, of a body or of a stream's `output_item.*` event.
#[derive(Default)]
pub(crate) struct Item<'a> {
    pub(crate) kind: Scalar<'a>,
    pub(crate) id: Scalar<'a>,
    pub(crate) call_id: Scalar<'a>,
    pub(crate) name: Scalar<'a>,
    pub(crate) arguments: Scalar<'a>,
    /// A reasoning item's state, needed to send it back with `store: false`.
    pub(crate) encrypted_content: Scalar<'a>,
    pub(crate) summary: Option<Vec<Part<'a>>>,
    pub(crate) content: Option<Vec<Part<'a>>>,
}

#[derive(Default)]
pub(crate) struct Part<'a> {
    pub(crate) kind: Scalar<'a>,
    pub(crate) text: Scalar<'a>,
    pub(crate) refusal: Scalar<'a>,
    /// Each annotation's JSON text.
    pub(crate) annotations: Option<Vec<&'a str>>,
}

/// The shape error of an item that is JSON but not an item.
fn not_an_item() -> JsonError {
    JsonError { what: "not an output item", at: 0 }
}

impl<'a> Item<'a> {
    /// Reads an item from its JSON text; `None`, and the item is kept whole as an unknown
    /// block, when [`Self::read_value`] refuses it.
    pub(crate) fn read(text: &'a str) -> Option<Item<'a>> {
        read_document(text.as_bytes(), Item::read_value).ok()
    }

    /// Reads the next value as an item; an error when it is not an object or its `summary`,
    /// `content` or a part's `annotations` is neither null nor an array, or a part is not an
    /// object. A repeated key keeps its last value.
    pub(crate) fn read_value(r: &mut Reader<'a>) -> JsonResult<Item<'a>> {
        let mut item = Item::default();
        let is_object = r.object(|r, key| {
            match key {
                b"type" => item.kind = Scalar::read(r)?,
                b"id" => item.id = Scalar::read(r)?,
                b"call_id" => item.call_id = Scalar::read(r)?,
                b"name" => item.name = Scalar::read(r)?,
                b"arguments" => item.arguments = Scalar::read(r)?,
                b"encrypted_content" => item.encrypted_content = Scalar::read(r)?,
                b"summary" => item.summary = read_parts(r)?,
                b"content" => item.content = read_parts(r)?,
                _ => {}
            }
            Ok(())
        })?;
        if !is_object {
            return Err(not_an_item());
        }
        Ok(item)
    }
}

/// A list of parts, `None` for null; anything else refuses the item.
fn read_parts<'a>(r: &mut Reader<'a>) -> JsonResult<Option<Vec<Part<'a>>>> {
    if is_list(r)? {
        read_list(r, Part::read).map(Some)
    } else {
        Ok(None)
    }
}

impl<'a> Part<'a> {
    pub(crate) fn read(r: &mut Reader<'a>) -> JsonResult<Part<'a>> {
        let mut part = Part::default();
        let is_object = r.object(|r, key| {
            match key {
                b"type" => part.kind = Scalar::read(r)?,
                b"text" => part.text = Scalar::read(r)?,
                b"refusal" => part.refusal = Scalar::read(r)?,
                b"annotations" => {
                    part.annotations = if is_list(r)? { Some(read_list(r, Reader::raw)?) } else { None };
                }
                _ => {}
            }
            Ok(())
        })?;
        if !is_object {
            return Err(not_an_item());
        }
        Ok(part)
    }
}

/// Whether the next value is a list (read then with `read_list`): `false` for null (left
/// unread, and skipped), an error for anything else (which refuses the whole item unread).
fn is_list(r: &mut Reader<'_>) -> JsonResult<bool> {
    match r.peek()? {
        Kind::Null => Ok(false),
        Kind::Array => Ok(true),
        _ => Err(not_an_item()),
    }
}

impl Response<'_> {
    /// Feeds the body to `b` as if it were the stream from its start up to
    /// `response.completed` (the caller then ends the stream); a provider error body is
    /// `Err(provider_error)`.
    pub(crate) fn feed(&self, b: &mut MessageBuilder) -> Result<Fed> {
        if let Some(error) = &self.error {
            return Err(provider_error(error));
        }
        b.start(self.id.as_deref(), self.model.as_deref(), None)?;
        let (mut has_calls, mut refusal) = (false, None::<String>);
        for (index, raw) in self.output.iter().enumerate() {
            let Some(item) = Item::read(raw) else {
                b.other_block(0, "unknown", RawJson::from_valid(raw))?;
                continue;
            };
            match item.kind.as_deref().unwrap_or("") {
                "reasoning" => item.feed_reasoning(b)?,
                "message" => {
                    if let Some(text) = item.feed_message(b)? {
                        refusal.get_or_insert_with(String::new).push_str(&text);
                    }
                }
                "function_call" => {
                    has_calls = true;
                    item.feed_function_call(b, index)?;
                }
                other => b.other_block(0, other, RawJson::from_valid(raw))?,
            }
        }
        let incomplete = self.incomplete_details.as_ref().and_then(|d| d.reason.as_deref());
        let failed = self.status.as_deref().and_then(status_error);
        if let Some(status) = self.status.as_deref() {
            end_response(b, status, incomplete, has_calls, failed.clone())?;
        }
        if let Some(usage) = self.usage.and_then(convert_usage) {
            b.set_usage(usage)?;
        }
        Ok(Fed { refusal, failed })
    }
}

/// What `process` needs of a body beyond its message.
pub(crate) struct Fed {
    /// The text of any refusal parts: `process` returns it, the message reports it as an error.
    pub(crate) refusal: Option<String>,
    /// The error of a status with no answer (`failed` without an error, `queued`,
    /// `in_progress`, `cancelled`): `process` throws it.
    pub(crate) failed: Option<ErrorInfo>,
}

impl Item<'_> {
    /// Each summary part, then each `reasoning_text` content part, as a reasoning block, all
    /// marked with the item's id and encrypted content (one empty block when there is no text).
    fn feed_reasoning(&self, b: &mut MessageBuilder) -> Result<()> {
        let from = b.block_count(0);
        for parts in [&self.summary, &self.content] {
            for part in parts.as_deref().unwrap_or_default() {
                b.break_block(0);
                b.reasoning(0, part.text.as_deref().unwrap_or(""))?;
            }
        }
        self.mark_reasoning(from, b)
    }

    /// A reasoning item's id and encrypted content onto the blocks it gave since block `from`.
    pub(crate) fn mark_reasoning(&self, from: usize, b: &mut MessageBuilder) -> Result<()> {
        match self.id.as_deref() {
            Some(id) => b.reasoning_item(0, from, id, self.encrypted_content.as_deref()),
            None => Ok(()),
        }
    }

    /// Each content part as text with its annotations as citations, or as a refusal; returns
    /// the refusal parts' text, when there are any.
    fn feed_message(&self, b: &mut MessageBuilder) -> Result<Option<String>> {
        let mut refusal = None::<String>;
        for part in self.content.as_deref().unwrap_or_default() {
            if part.kind.as_deref() == Some("refusal") {
                let text = part.refusal.as_deref().unwrap_or("");
                refusal.get_or_insert_with(String::new).push_str(text);
                b.refusal(0, text)?;
                continue;
            }
            b.break_block(0);
            b.text(0, part.text.as_deref().unwrap_or(""))?;
            annotations_as_citations(b, 0, part.annotations.as_deref().unwrap_or_default())?;
        }
        Ok(refusal)
    }

    /// The item, the `index`th of the body, as a whole tool call keyed by its `call_id`.
    fn feed_function_call(&self, b: &mut MessageBuilder, index: usize) -> Result<()> {
        let id = self.call_id.as_deref().or(self.id.as_deref()).unwrap_or("");
        let name = self.name.as_deref().unwrap_or("");
        let at = b.begin_tool_call(0, id, name, Some(index as u64), self.id.as_deref())?;
        b.tool_arguments(0, at, self.arguments.as_deref().unwrap_or(""))?;
        b.end_tool_call(0, at);
        Ok(())
    }
}

//! A non-streamed Responses API body (§8.4) → the normalised message.
//!
//! Output items are replayed in order: reasoning summaries (and `reasoning_text` content) as
//! reasoning blocks, message `output_text` parts as text with their annotations as citations,
//! `refusal` parts as a refusal, `function_call` items as tool calls keyed by `call_id`, and every
//! other item (web search, code interpreter, image generation, ...) kept whole.

use super::{convert_usage, map_status};
use crate::accumulator::MessageBuilder;
use crate::error::Result;
use crate::json::key_index;
use crate::json::{read_list, JsonError, JsonResult, Kind, Reader};
use crate::model::RawJson;
use crate::process::{read_body, Body};
use crate::providers::Scalar;

/// The keys of a non-streamed Responses body, read as a [`Body`] (see there for the order): its
/// texts after `id` and `model` are `status` and the SDKs' convenience accessor `output_text`
/// (present in some recorded bodies, absent on the wire), its items `output`. A field of the wrong kind reads as absent
/// where the serde derive this replaces refused the whole body (`output` or
/// `incomplete_details` not an object or list); a repeated key keeps its last value.
pub(crate) const KEYS: &str = "id model status output_text output usage error incomplete_details";

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
    /// block, when it is not an object or its `summary`, `content` or a part's `annotations`
    /// is neither null nor an array, or a part is not an object (as the serde derive this
    /// replaces refused them; an array where an object belongs, which the derive read by
    /// position, is refused too). A repeated key keeps its last value (the derive refused it).
    pub(crate) fn read(text: &'a str) -> Option<Item<'a>> {
        let mut item = Item::default();
        read_body(text, &mut |r, key| {
            const KEYS: &str = "type id call_id name arguments summary content";
            let slot = match key_index(key, KEYS) {
                0 => &mut item.kind,
                1 => &mut item.id,
                2 => &mut item.call_id,
                3 => &mut item.name,
                4 => &mut item.arguments,
                5 => {
                    item.summary = if is_list(r)? { Some(read_list(r, Part::read)?) } else { None };
                    return Ok(());
                }
                6 => {
                    item.content = if is_list(r)? { Some(read_list(r, Part::read)?) } else { None };
                    return Ok(());
                }
                _ => return Ok(()),
            };
            *slot = Scalar::read(r)?;
            Ok(())
        })
        .ok()?;
        Some(item)
    }
}

impl<'a> Part<'a> {
    fn read(r: &mut Reader<'a>) -> JsonResult<Part<'a>> {
        let mut part = Part::default();
        let is_object = r.object(|r, key| {
            let slot = match key_index(key, "type text refusal annotations") {
                0 => &mut part.kind,
                1 => &mut part.text,
                2 => &mut part.refusal,
                3 => {
                    part.annotations = if is_list(r)? { Some(read_list(r, Reader::raw)?) } else { None };
                    return Ok(());
                }
                _ => return Ok(()),
            };
            *slot = Scalar::read(r)?;
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

/// Feeds a whole Responses body that is not an error to `b` as if it were the stream from its
/// start (which the caller has given) up to `response.completed`; returns the text of any
/// refusal parts (`process` returns it, the message reports it as an error). The caller then
/// ends the stream. Each item is read by reference and dropped once, so no early return carries
/// drops of its own.
pub(crate) fn feed(body: &Body<'_>, b: &mut MessageBuilder) -> Result<Option<String>> {
    let mut calls = 0;
    let mut refusal: Option<String> = None;
    for (index, raw) in body.items.iter().enumerate() {
        match Item::read(raw) {
            Some(item) => {
                let fed = item.feed(b, raw, index, &mut calls, &mut refusal);
                drop(item);
                fed?
            }
            None => b.other_block(0, "unknown", RawJson::from_valid(raw))?,
        }
    }
    let incomplete = body.incomplete_details.as_ref().and_then(|d| d.reason.as_deref());
    if let Some(status) = body.texts[2].as_deref() {
        let raw = incomplete.unwrap_or(status);
        b.finish_reason(0, map_status(status, incomplete, calls > 0), raw)?;
    }
    if let Some(usage) = body.usage.and_then(convert_usage) {
        b.set_usage(usage)?;
    }
    Ok(refusal)
}

impl Item<'_> {
    /// The item, the `index`th of the body, replayed into `b`; `raw` is its text. Counts
    /// function calls in `calls` and appends refusal text to `refusal`.
    fn feed(
        &self,
        b: &mut MessageBuilder,
        raw: &str,
        index: usize,
        calls: &mut usize,
        refusal: &mut Option<String>,
    ) -> Result<()> {
        let kind = self.kind.as_deref().unwrap_or("");
        match key_index(kind.as_bytes(), "reasoning message function_call") {
            0 => {
                for parts in [&self.summary, &self.content] {
                    for part in parts.as_deref().unwrap_or_default() {
                        b.break_block(0);
                        b.reasoning(0, part.text.as_deref().unwrap_or(""))?;
                    }
                }
            }
            1 => {
                for part in self.content.as_deref().unwrap_or_default() {
                    match part.kind.as_deref() {
                        Some("refusal") => {
                            let text = part.refusal.as_deref().unwrap_or("");
                            refusal.get_or_insert_with(String::new).push_str(text);
                            b.refusal(0, text)?;
                        }
                        _ => {
                            b.break_block(0);
                            b.text(0, part.text.as_deref().unwrap_or(""))?;
                            for annotation in part.annotations.as_deref().unwrap_or_default() {
                                b.citation(0, RawJson::from_valid(annotation))?;
                            }
                        }
                    }
                }
            }
            2 => {
                *calls += 1;
                let id = self.call_id.as_deref().or(self.id.as_deref()).unwrap_or("");
                let at = b.begin_tool_call(
                    0,
                    id,
                    self.name.as_deref().unwrap_or(""),
                    Some(index as u64),
                    self.id.as_deref(),
                )?;
                b.tool_arguments(0, at, self.arguments.as_deref().unwrap_or(""))?;
                b.end_tool_call(0, at);
            }
            _ => b.other_block(0, kind, RawJson::from_valid(raw))?,
        }
        Ok(())
    }
}

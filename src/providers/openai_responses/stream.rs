//! OpenAI Responses API stream events (`response.*`, `error`) → builder calls.
//!
//! The `type` in each event's data is authoritative, so streams without `event:` lines decode
//! the same. Deltas are matched to their item by `item_id`, then `output_index` (never by
//! `call_id`, which delta events do not carry). The `.done` events fill in only what no delta
//! sent, so a server that sends no deltas at all still gives the whole message.

use super::response::{Incomplete, Item};
use super::{convert_usage, map_status};
use crate::accumulator::MessageBuilder;
use crate::error::Result;
use crate::json::key_index;
use crate::json::{read_object, read_object_document, JsonResult, Reader};
use crate::model::RawJson;
use crate::providers::{ErrorBody, Handled, Scalar};
use crate::sse::SseEvent;

/// One event, read whole before anything is applied.
///
/// Read by hand with [`crate::json`] rather than a serde derive, and more leniently than the
/// derive was on valid JSON of an odd shape: an index that is not a non-negative integer
/// (`"3"`, `-1`) reads as absent (`3.0` as 3), `response`, `error` and `incomplete_details`
/// that are not objects read as absent, and a repeated key keeps its last value; the derive
/// refused the whole event for each of these. (It also read a struct from an array, by
/// position; an array there now reads as absent.) Data that is not an object is still
/// refused, as `NotJson`.
#[derive(Default)]
struct Event<'a> {
    kind: Scalar<'a>,
    response: Option<Response<'a>>,
    /// The item's JSON text (`output_item.*`, rare), read into an [`Item`] when acted on.
    item: Option<&'a str>,
    output_index: Option<u64>,
    content_index: Option<u64>,
    summary_index: Option<u64>,
    item_id: Scalar<'a>,
    delta: Scalar<'a>,
    text: Scalar<'a>,
    arguments: Scalar<'a>,
    refusal: Scalar<'a>,
    /// `error` events: `{code, message}` on top, or nested in `error`.
    code: Scalar<'a>,
    message: Scalar<'a>,
    error: Option<ErrorBody<'a>>,
}

#[derive(Default)]
struct Response<'a> {
    id: Scalar<'a>,
    model: Scalar<'a>,
    status: Scalar<'a>,
    /// The usage object's JSON text.
    usage: Option<&'a str>,
    incomplete_details: Option<Incomplete<'a>>,
    error: Option<ErrorBody<'a>>,
}

impl<'a> Event<'a> {
    /// Reads the event's data; an error when it is not JSON, or not an object.
    #[cfg_attr(llw_speed, optimize(speed))]
    fn read(data: &'a [u8]) -> JsonResult<Event<'a>> {
        read_object_document(data, |e: &mut Event<'a>, r, key| {
            // One read for every text field and one for every index: the match only picks
            // where it goes.
            const KEYS: &str = "type item_id delta text arguments refusal code message \
                output_index content_index summary_index response item error";
            let slot = match key_index(key, KEYS) {
                0 => &mut e.kind,
                1 => &mut e.item_id,
                2 => &mut e.delta,
                3 => &mut e.text,
                4 => &mut e.arguments,
                5 => &mut e.refusal,
                6 => &mut e.code,
                7 => &mut e.message,
                i @ 8..=10 => {
                    let index = match i {
                        8 => &mut e.output_index,
                        9 => &mut e.content_index,
                        _ => &mut e.summary_index,
                    };
                    *index = r.index()?;
                    return Ok(());
                }
                11 => return Response::read(r).map(|response| e.response = response),
                12 => return r.raw_non_null().map(|item| e.item = item),
                13 => return ErrorBody::read(r).map(|error| e.error = error),
                _ => return Ok(()),
            };
            *slot = Scalar::read(r)?;
            Ok(())
        })
    }
}

impl<'a> Response<'a> {
    /// The `response` object, or `None` when the value is not an object.
    fn read(r: &mut Reader<'a>) -> JsonResult<Option<Response<'a>>> {
        read_object(r, |response: &mut Response<'a>, r, key| {
            let slot = match key_index(key, "id model status usage incomplete_details error") {
                0 => &mut response.id,
                1 => &mut response.model,
                2 => &mut response.status,
                3 => return r.raw_non_null().map(|usage| response.usage = usage),
                4 => return Incomplete::read(r).map(|details| response.incomplete_details = details),
                5 => return ErrorBody::read(r).map(|error| response.error = error),
                _ => return Ok(()),
            };
            *slot = Scalar::read(r)?;
            Ok(())
        })
    }
}

/// What the stream has said of one output item.
#[derive(Debug, Default)]
struct ItemState {
    id: String,
    output_index: Option<u64>,
    /// Content (or summary) parts that already gave their text, by index.
    parts_seen: Vec<u64>,
}

#[derive(Debug, Default)]
pub(crate) struct ResponsesStream {
    items: Vec<ItemState>,
    has_calls: bool,
}

impl ResponsesStream {
    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn event(&mut self, event: &SseEvent<'_>, b: &mut MessageBuilder) -> Result<Handled> {
        let e = match Event::read(event.data) {
            Ok(e) => e,
            Err(err) => return Ok(Handled::NotJson(err.message())),
        };
        let kind = e.kind.as_deref().unwrap_or(event.event);
        // The kinds by position: a text, reasoning or refusal delta (0-3) or done (4-7), each
        // marking its part as seen; the rest one by one.
        const KINDS: &str = "response.output_text.delta response.reasoning_summary_text.delta \
            response.reasoning_text.delta response.refusal.delta response.output_text.done \
            response.reasoning_summary_text.done response.reasoning_text.done response.refusal.done \
            response.function_call_arguments.delta response.function_call_arguments.done \
            response.output_item.added response.output_item.done response.reasoning_summary_part.added \
            response.created response.in_progress response.queued response.completed response.incomplete \
            response.failed error";
        match key_index(kind.as_bytes(), KINDS) {
            i @ 0..=7 => {
                let (sink, done) = (i % 4, i >= 4);
                let part = if sink == 0 || sink == 3 { e.content_index } else { e.summary_index.or(e.content_index) };
                // A done event gives its part's text only when no delta gave it.
                if self.seen(&e, part) || !done {
                    let s = match (done, sink) {
                        (false, _) => &e.delta,
                        (true, 3) => &e.refusal,
                        (true, _) => &e.text,
                    };
                    let s = s.as_deref().unwrap_or("");
                    match sink {
                        0 => b.text(0, s)?,
                        3 => b.refusal(0, s),
                        _ => b.reasoning(0, s)?,
                    }
                }
            }
            i @ 8..=9 => {
                if let Some(at) = b.find_tool_call(0, e.item_id.as_deref(), e.output_index) {
                    if i == 8 {
                        b.tool_arguments(0, at, e.delta.as_deref().unwrap_or(""))?;
                    } else {
                        b.tool_arguments_done(0, at, e.arguments.as_deref().unwrap_or(""))?;
                    }
                }
            }
            i @ 10..=11 => self.item(&e, i == 11, b)?,
            12 => b.break_block(0),
            13..=15 => {
                if let Some(r) = &e.response {
                    b.start(r.id.as_deref(), r.model.as_deref(), None);
                }
            }
            i @ 16..=17 => {
                if let Some(r) = e.response {
                    let status = r.status.as_deref().unwrap_or(if i == 16 { "completed" } else { "incomplete" });
                    let reason = r.incomplete_details.as_ref().and_then(|d| d.reason.as_deref());
                    b.finish_reason(0, map_status(status, reason, self.has_calls), reason.unwrap_or(status))?;
                    if let Some(usage) = r.usage.and_then(convert_usage) {
                        b.set_usage(usage);
                    }
                }
                b.end_all_choices()?;
                b.done();
            }
            18 => {
                if let Some(r) = e.response {
                    if let Some(error) = r.error {
                        b.error(error.info());
                    }
                    if let Some(usage) = r.usage.and_then(convert_usage) {
                        b.set_usage(usage);
                    }
                }
                b.end_all_choices()?;
            }
            19 => {
                let info = match e.error {
                    Some(nested) => nested.info(),
                    None => ErrorBody { message: e.message, code: e.code, kind: Scalar::default() }.info(),
                };
                b.error(info);
            }
            _ => {} // content_part.*, annotations (taken from output_item.done), in-progress markers
        }
        Ok(Handled::Done)
    }

    /// Marks a part of the event's item as having given its text; true when it had not before.
    fn seen(&mut self, e: &Event<'_>, part: Option<u64>) -> bool {
        self.seen_in(e.item_id.as_deref(), e.output_index, part)
    }

    fn seen_in(&mut self, item_id: Option<&str>, output_index: Option<u64>, part: Option<u64>) -> bool {
        let item = self.item_of(item_id, output_index);
        let part = part.unwrap_or(0);
        if item.parts_seen.contains(&part) {
            return false;
        }
        item.parts_seen.push(part);
        true
    }

    fn item_of(&mut self, id: Option<&str>, output_index: Option<u64>) -> &mut ItemState {
        let found = self
            .items
            .iter()
            .position(|i| id.is_some_and(|id| i.id == id))
            .or_else(|| output_index.and_then(|ix| self.items.iter().position(|i| i.output_index == Some(ix))));
        let at = match found {
            Some(at) => at,
            None => {
                self.items.push(ItemState { id: id.unwrap_or("").to_owned(), output_index, parts_seen: Vec::new() });
                self.items.len() - 1
            }
        };
        &mut self.items[at]
    }

    /// `output_item.added` (`done` false): opens a call or a block. `output_item.done`: gives
    /// what no delta gave (a call's arguments, parts' text) and the annotations, and keeps any
    /// other item whole.
    fn item(&mut self, e: &Event<'_>, done: bool, b: &mut MessageBuilder) -> Result<()> {
        let Some(text) = e.item else { return Ok(()) };
        let Some(item) = Item::read(text) else {
            if done {
                b.other_block(0, "unknown", RawJson::from_valid(text));
            }
            return Ok(());
        };
        let id = item.id.as_deref();
        if !done {
            self.item_of(id, e.output_index);
        }
        match (item.kind.as_deref().unwrap_or(""), done) {
            ("function_call", _) => {
                self.has_calls = true;
                let found = if done { b.find_tool_call(0, id, e.output_index) } else { None };
                let at = match found {
                    Some(at) => at,
                    None => {
                        let call_id = item.call_id.as_deref().or(id).unwrap_or("");
                        b.begin_tool_call(0, call_id, item.name.as_deref().unwrap_or(""), e.output_index, id)
                    }
                };
                // A call just opened has no arguments: they are the item's.
                b.tool_arguments_done(0, at, item.arguments.as_deref().unwrap_or(""))?;
                if done {
                    b.end_tool_call(0, at);
                }
            }
            ("message" | "reasoning", false) => b.break_block(0),
            (_, false) => {}
            ("message", true) => {
                for (index, part) in item.content.as_deref().unwrap_or_default().iter().enumerate() {
                    let fresh = self.seen_in(id, e.output_index, Some(index as u64));
                    match part.kind.as_deref() {
                        Some("refusal") if fresh => b.refusal(0, part.refusal.as_deref().unwrap_or("")),
                        Some("refusal") => {}
                        _ => {
                            if fresh {
                                b.text(0, part.text.as_deref().unwrap_or(""))?;
                            }
                            for annotation in part.annotations.as_deref().unwrap_or_default() {
                                b.citation(0, RawJson::from_valid(annotation));
                            }
                        }
                    }
                }
            }
            ("reasoning", true) => {
                for (index, part) in item.summary.as_deref().unwrap_or_default().iter().enumerate() {
                    if self.seen_in(id, e.output_index, Some(index as u64)) {
                        b.break_block(0);
                        b.reasoning(0, part.text.as_deref().unwrap_or(""))?;
                    }
                }
            }
            (other, true) => b.other_block(0, other, RawJson::from_valid(text)),
        }
        Ok(())
    }
}

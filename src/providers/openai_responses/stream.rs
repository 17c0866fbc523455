//! OpenAI Responses API stream events (`response.*`, `error`) → builder calls.
//!
//! The `type` in each event's data is authoritative, so streams without `event:` lines decode
//! the same. Deltas are matched to their item by `item_id`, then `output_index` (never by
//! `call_id`, which delta events do not carry). The `.done` events fill in only what no delta
//! sent, so a server that sends no deltas at all still gives the whole message.

use std::collections::btree_map::Entry;
use std::collections::BTreeMap;

use super::response::{Incomplete, Item, Part};
use super::{convert_usage, end_response};
use crate::accumulator::ids::IdMap;
use crate::accumulator::{MessageBuilder, ENTRY_BYTES};
use crate::error::Result;
use crate::json::{read_object, read_object_document, JsonResult, Kind as JsonKind, Reader};
use crate::model::RawJson;
use crate::providers::{annotations_as_citations, ErrorBody, Handled, Scalar};
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
    /// Boxed, as the item: most events have none.
    response: Option<Box<Response<'a>>>,
    /// The item (`output_item.*`) with its JSON text, which an item of no known shape (`None`)
    /// is kept as. Boxed: every event is moved a few times while it is read, and most have none.
    item: Option<TextAndItem<'a>>,
    /// A `content_part.done` event's part (`None` when it is not one of a known shape). Boxed,
    /// as the item.
    part: Option<Box<Part<'a>>>,
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
            match key {
                b"type" => e.kind = Scalar::read(r)?,
                b"item_id" => e.item_id = Scalar::read(r)?,
                b"delta" => e.delta = Scalar::read(r)?,
                b"text" => e.text = Scalar::read(r)?,
                b"arguments" => e.arguments = Scalar::read(r)?,
                b"refusal" => e.refusal = Scalar::read(r)?,
                b"code" => e.code = Scalar::read(r)?,
                b"message" => e.message = Scalar::read(r)?,
                b"output_index" => e.output_index = r.index()?,
                b"content_index" => e.content_index = r.index()?,
                b"summary_index" => e.summary_index = r.index()?,
                b"response" => e.response = Response::read(r)?.map(Box::new),
                b"item" => e.item = read_item(r)?,
                b"part" => e.part = r.raw_read(Part::read)?.1.map(Box::new),
                b"error" => e.error = ErrorBody::read(r)?,
                _ => {}
            }
            Ok(())
        })
    }
}

/// An item's JSON text, and the item when it has a known shape.
type TextAndItem<'a> = (&'a str, Option<Box<Item<'a>>>);

/// An event's `item`, read once: `None` for null.
fn read_item<'a>(r: &mut Reader<'a>) -> JsonResult<Option<TextAndItem<'a>>> {
    if r.peek()? == JsonKind::Null {
        r.skip()?;
        return Ok(None);
    }
    r.raw_read(|r| Item::read_value(r).map(Box::new)).map(Some)
}

impl<'a> Response<'a> {
    /// The `response` object, or `None` when the value is not an object.
    fn read(r: &mut Reader<'a>) -> JsonResult<Option<Response<'a>>> {
        read_object(r, |response: &mut Response<'a>, r, key| {
            match key {
                b"id" => response.id = Scalar::read(r)?,
                b"model" => response.model = Scalar::read(r)?,
                b"status" => response.status = Scalar::read(r)?,
                b"usage" => response.usage = r.raw_non_null()?,
                b"incomplete_details" => response.incomplete_details = Incomplete::read(r)?,
                b"error" => response.error = ErrorBody::read(r)?,
                _ => {}
            }
            Ok(())
        })
    }
}

/// What an event does, by its `type`.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    /// A text part growing (`*.delta`) or given whole (`*.done`).
    Part {
        sink: Sink,
        done: bool,
    },
    Arguments {
        done: bool,
    },
    Item {
        done: bool,
    },
    SummaryPartAdded,
    /// `content_part.done`: a message part whole, with its annotations.
    ContentPartDone,
    /// `response.created`, `in_progress`, `queued`: the response, without a verdict yet.
    Started,
    /// `response.completed` and `response.incomplete`, with the status each implies.
    Ended {
        status: &'static str,
    },
    Failed,
    Error,
    /// `content_part.added`, annotations (taken from `content_part.done` or `output_item.done`),
    /// in-progress markers, and kinds added after this was written.
    Other,
}

/// Where the text of a part goes.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Sink {
    Text,
    Summary,
    ReasoningText,
    Refusal,
}

impl Kind {
    fn of(kind: &str) -> Kind {
        let part = |sink, done| Kind::Part { sink, done };
        match kind {
            "response.output_text.delta" => part(Sink::Text, false),
            "response.reasoning_summary_text.delta" => part(Sink::Summary, false),
            "response.reasoning_text.delta" => part(Sink::ReasoningText, false),
            "response.refusal.delta" => part(Sink::Refusal, false),
            "response.output_text.done" => part(Sink::Text, true),
            "response.reasoning_summary_text.done" => part(Sink::Summary, true),
            "response.reasoning_text.done" => part(Sink::ReasoningText, true),
            "response.refusal.done" => part(Sink::Refusal, true),
            "response.function_call_arguments.delta" => Kind::Arguments { done: false },
            "response.function_call_arguments.done" => Kind::Arguments { done: true },
            "response.output_item.added" => Kind::Item { done: false },
            "response.output_item.done" => Kind::Item { done: true },
            "response.reasoning_summary_part.added" => Kind::SummaryPartAdded,
            "response.content_part.done" => Kind::ContentPartDone,
            "response.created" | "response.in_progress" | "response.queued" => Kind::Started,
            "response.completed" => Kind::Ended { status: "completed" },
            "response.incomplete" => Kind::Ended { status: "incomplete" },
            "response.failed" => Kind::Failed,
            "error" => Kind::Error,
            _ => Kind::Other,
        }
    }
}

/// Which list of an item a part index counts in: a reasoning item's summary part 0 and
/// content part 0 are two parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum List {
    Content,
    Summary,
}

/// In `ResponsesStream::parts_seen`: the part's annotations are on the message.
const ANNOTATED: usize = 1;

/// In `ResponsesStream::item_blocks`: the item's reasoning state is on its blocks already.
const MARKED: usize = usize::MAX;

/// What an id names: the first item with it, and the latest tool call opened with it as its
/// item key (found by it, never by its `call_id`).
#[derive(Debug, Default, Clone, Copy)]
struct Named {
    item: Option<usize>,
    call: Option<usize>,
}

/// How [`ResponsesStream::item_of`] found an id: known (its entry in `named`), new (with the
/// place for it), or none given.
enum IdEntry<'i> {
    Known(usize),
    New(&'i str),
    None,
}

/// What a map gave for the key looked up last, with that key: streams name the same item or
/// call many times in a row, and one comparison is far cheaper than a search of a map with
/// many keys. Whoever changes what the map gives for a key sets it again.
#[derive(Debug, Default)]
struct LastKey {
    key: String,
    value: Option<usize>,
}

impl LastKey {
    /// What the map gives for `key`, when `key` is the one looked up last.
    fn get(&self, key: &str) -> Option<usize> {
        self.value.filter(|_| self.key == key)
    }

    fn set(&mut self, key: &str, value: usize) {
        self.key.clear();
        self.key.push_str(key);
        self.value = Some(value);
    }
}

#[derive(Debug, Default)]
pub(crate) struct ResponsesStream {
    /// For each output item the stream has named (an item is its number), its content and
    /// summary parts that gave their text, each [`ANNOTATED`] once its annotations are given.
    parts_seen: Vec<BTreeMap<(List, u64), usize>>,
    /// The entry in `named` of each id the stream has given an item or a tool call (`""` for
    /// items named only by their output index): one search finds an id's item and call.
    by_id: IdMap,
    named: Vec<Named>,
    /// What `by_id` gave last.
    last_id: LastKey,
    /// The first item at each output index.
    by_output_index: BTreeMap<u64, usize>,
    /// For each item, the number of blocks the message had when the item was first named
    /// (where a reasoning item's blocks start), or [`MARKED`] once its reasoning state is kept.
    item_blocks: Vec<usize>,
    has_calls: bool,
}

impl ResponsesStream {
    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn event(&mut self, event: &SseEvent<'_>, b: &mut MessageBuilder) -> Result<Handled> {
        let mut e = match Event::read(event.data) {
            Ok(e) => e,
            Err(err) => return Ok(Handled::NotJson(err.message())),
        };
        match Kind::of(e.kind.as_deref().unwrap_or(event.event)) {
            Kind::Part { sink, done } => self.part(&mut e, sink, done, b)?,
            Kind::Arguments { done } => {
                if let Some(at) = self.find_call(e.item_id.as_deref(), e.output_index, b) {
                    if done {
                        b.tool_arguments_done(0, at, e.arguments.as_deref().unwrap_or(""))?;
                    } else {
                        b.tool_arguments(0, at, e.delta.as_deref().unwrap_or(""))?;
                    }
                }
            }
            Kind::Item { done } => self.item(&e, done, b)?,
            Kind::SummaryPartAdded => b.break_block(0),
            Kind::ContentPartDone => {
                if let Some(part) = e.part.as_ref().filter(|p| p.kind.as_deref() == Some("output_text")) {
                    let key = (List::Content, e.content_index);
                    self.text_part(e.item_id.as_deref(), e.output_index, key, part, b)?;
                }
            }
            Kind::Started => {
                if let Some(r) = &e.response {
                    b.start(r.id.as_deref(), r.model.as_deref(), None)?;
                }
            }
            Kind::Ended { status } => {
                if let Some(r) = e.response {
                    let status = r.status.as_deref().unwrap_or(status);
                    let reason = r.incomplete_details.as_ref().and_then(|d| d.reason.as_deref());
                    end_response(b, status, reason, self.has_calls, None)?;
                    if let Some(usage) = r.usage.and_then(convert_usage) {
                        b.set_usage(usage)?;
                    }
                }
                b.end_all_choices()?;
                b.done();
            }
            // Failed with or without the response's `error`, as its body is.
            Kind::Failed => {
                let response = e.response.unwrap_or_default();
                let error = response.error.map(|error| error.info());
                end_response(b, "failed", None, self.has_calls, error)?;
                if let Some(usage) = response.usage.and_then(convert_usage) {
                    b.set_usage(usage)?;
                }
                b.end_all_choices()?;
            }
            Kind::Error => {
                let info = match e.error {
                    Some(nested) => nested.info(),
                    None => ErrorBody { message: e.message, code: e.code, kind: Scalar::default() }.info(),
                };
                b.error(info)?;
            }
            Kind::Other => {}
        }
        Ok(Handled::Done)
    }

    /// A part's text: every delta, and a done event's text when no delta of its part gave it.
    fn part(&mut self, e: &mut Event<'_>, sink: Sink, done: bool, b: &mut MessageBuilder) -> Result<()> {
        let part = match sink {
            Sink::Summary => (List::Summary, e.summary_index),
            _ => (List::Content, e.content_index),
        };
        // Marked as seen by deltas too, so that its done event adds nothing.
        let fresh = self.seen(e.item_id.as_deref(), e.output_index, part, b)?;
        if done && !fresh {
            return Ok(());
        }
        // Each reasoning or text part is a block of its own, as in a body.
        if fresh && sink != Sink::Refusal {
            b.break_block(0);
        }
        // Taken, not copied: a long decoded one becomes the block's text as it is.
        let text = match (done, sink) {
            (false, _) => &mut e.delta,
            (true, Sink::Refusal) => &mut e.refusal,
            (true, _) => &mut e.text,
        };
        let text = text.0.take().unwrap_or_default();
        match sink {
            Sink::Text => b.text_taking(0, text),
            Sink::Refusal => b.refusal(0, &text),
            Sink::Summary | Sink::ReasoningText => b.reasoning_taking(0, text),
        }
    }

    /// Marks a part of an item as having given its text; true when it had not before.
    fn seen(
        &mut self,
        item_id: Option<&str>,
        output_index: Option<u64>,
        (list, part): (List, Option<u64>),
        b: &mut MessageBuilder,
    ) -> Result<bool> {
        let item = self.item_of(item_id, output_index, b)?;
        match self.parts_seen[item].entry((list, part.unwrap_or(0))) {
            Entry::Occupied(_) => Ok(false),
            Entry::Vacant(entry) => {
                b.keep(ENTRY_BYTES)?;
                entry.insert(0);
                Ok(true)
            }
        }
    }

    /// A text part given whole (`content_part.done`, a done message item's part): its text when
    /// no event gave it, as a block of its own, and its annotations once, onto the block that is
    /// current (its own, unless a later part of the item began before it was given whole).
    fn text_part(
        &mut self,
        item_id: Option<&str>,
        output_index: Option<u64>,
        key: (List, Option<u64>),
        part: &Part<'_>,
        b: &mut MessageBuilder,
    ) -> Result<()> {
        if self.seen(item_id, output_index, key, b)? {
            b.break_block(0);
            b.text(0, part.text.as_deref().unwrap_or(""))?;
        }
        let item = self.item_of(item_id, output_index, b)?;
        let Some(given) = self.parts_seen[item].get_mut(&(key.0, key.1.unwrap_or(0))) else { return Ok(()) };
        if std::mem::replace(given, ANNOTATED) == ANNOTATED {
            return Ok(());
        }
        annotations_as_citations(b, 0, part.annotations.as_deref().unwrap_or_default())
    }

    /// The item named by `id`, else by `output_index`; a new one when neither names one yet.
    /// The id named last is checked first: events name the same item many times in a row.
    fn item_of(&mut self, id: Option<&str>, output_index: Option<u64>, b: &mut MessageBuilder) -> Result<usize> {
        let id_entry = match id {
            Some(id) => match self.last_id.get(id) {
                Some(at) => IdEntry::Known(at),
                None => match self.by_id.get(id) {
                    Some(at) => {
                        self.last_id.set(id, at);
                        IdEntry::Known(at)
                    }
                    None => IdEntry::New(id),
                },
            },
            None => IdEntry::None,
        };
        if let Some(item) = match id_entry {
            IdEntry::Known(at) => self.named[at].item,
            _ => None,
        } {
            return Ok(item);
        }
        // One search both finds a known output index and places a new one.
        let index_entry = match output_index.map(|index| self.by_output_index.entry(index)) {
            Some(Entry::Occupied(found)) => return Ok(*found.get()),
            Some(Entry::Vacant(entry)) => Some(entry),
            None => None,
        };
        b.keep(ENTRY_BYTES + id.map_or(0, str::len))?;
        let item = self.parts_seen.len();
        self.parts_seen.push(BTreeMap::new());
        self.item_blocks.push(b.block_count(0));
        match id_entry {
            IdEntry::Known(at) => self.named[at].item = Some(item),
            IdEntry::New(id) => {
                self.by_id.insert(id, self.named.len());
                self.last_id.set(id, self.named.len());
                self.named.push(Named { item: Some(item), call: None });
            }
            IdEntry::None => {
                let at = self.by_id.get_or_insert("", self.named.len());
                if at == self.named.len() {
                    self.named.push(Named::default());
                }
                self.named[at].item.get_or_insert(item);
            }
        }
        if let Some(entry) = index_entry {
            entry.insert(item);
        }
        Ok(item)
    }

    /// The entry in `named` of `id`, when the stream has given it an item or a call.
    fn known_id(&mut self, id: &str) -> Option<usize> {
        if let Some(at) = self.last_id.get(id) {
            return Some(at);
        }
        let at = self.by_id.get(id)?;
        self.last_id.set(id, at);
        Some(at)
    }

    /// The latest tool call opened with the item key `key`, else the latest at `output_index`.
    fn find_call(&mut self, key: Option<&str>, output_index: Option<u64>, b: &mut MessageBuilder) -> Option<usize> {
        let keyed = key.and_then(|key| self.known_id(key)).and_then(|at| self.named[at].call);
        keyed.or_else(|| b.find_tool_call(0, output_index))
    }

    /// Opens a tool call, found by its item key `key` from then on.
    fn begin_call(
        &mut self,
        call_id: &str,
        name: &str,
        output_index: Option<u64>,
        key: Option<&str>,
        b: &mut MessageBuilder,
    ) -> Result<usize> {
        // The builder counts the key's bytes, for the entry kept here.
        let call = b.begin_tool_call(0, call_id, name, output_index, key)?;
        if let Some(key) = key {
            let at = match self.known_id(key) {
                Some(at) => at,
                None => {
                    let at = self.named.len();
                    self.named.push(Named::default());
                    self.by_id.insert(key, at);
                    self.last_id.set(key, at);
                    at
                }
            };
            self.named[at].call = Some(call);
        }
        Ok(call)
    }

    /// `output_item.added` (`done` false): opens a call or a block. `output_item.done`: gives
    /// what no delta gave (a call's arguments, parts' text) and the annotations, and keeps any
    /// other item whole.
    fn item(&mut self, e: &Event<'_>, done: bool, b: &mut MessageBuilder) -> Result<()> {
        let Some((text, item)) = &e.item else { return Ok(()) };
        let Some(item) = item else {
            if done {
                b.other_block(0, "unknown", RawJson::from_valid(text))?;
            }
            return Ok(());
        };
        let id = item.id.as_deref();
        if !done {
            self.item_of(id, e.output_index, b)?;
        }
        match (item.kind.as_deref().unwrap_or(""), done) {
            ("function_call", _) => {
                self.has_calls = true;
                let found = if done { self.find_call(id, e.output_index, b) } else { None };
                let at = match found {
                    Some(at) => at,
                    None => {
                        let call_id = item.call_id.as_deref().or(id).unwrap_or("");
                        self.begin_call(call_id, item.name.as_deref().unwrap_or(""), e.output_index, id, b)?
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
                    let key = (List::Content, Some(index as u64));
                    if part.kind.as_deref() != Some("refusal") {
                        self.text_part(id, e.output_index, key, part, b)?;
                    } else if self.seen(id, e.output_index, key, b)? {
                        b.refusal(0, part.refusal.as_deref().unwrap_or(""))?;
                    }
                }
            }
            ("reasoning", true) => {
                let number = self.item_of(id, e.output_index, b)?;
                // Summary parts, then content (`reasoning_text`) parts, as a body gives them.
                for (list, parts) in [(List::Summary, &item.summary), (List::Content, &item.content)] {
                    for (index, part) in parts.as_deref().unwrap_or_default().iter().enumerate() {
                        if self.seen(id, e.output_index, (list, Some(index as u64)), b)? {
                            b.break_block(0);
                            b.reasoning(0, part.text.as_deref().unwrap_or(""))?;
                        }
                    }
                }
                // The done item's encrypted content supersedes the added one's; a repeated
                // done event adds nothing.
                let from = std::mem::replace(&mut self.item_blocks[number], MARKED);
                if from != MARKED {
                    item.mark_reasoning(from, b)?;
                }
            }
            (other, true) => b.other_block(0, other, RawJson::from_valid(text))?,
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::accumulator::{Accumulator, AccumulatorOptions, Format};

    /// Deltas find their call by `item_id` before `output_index`; an id opened again names its
    /// latest call; an id first given to a call (by a `.done` with no `.added`) still gets an
    /// item of its own for the text that names it after.
    #[test]
    fn deltas_find_the_latest_call_with_their_item_id_before_their_output_index() {
        let added = |id: &str, index: u32, call_id: &str| {
            format!(
                r#"{{"type":"response.output_item.added","output_index":{index},"item":{{"type":"function_call","id":"{id}","call_id":"{call_id}","name":"f","arguments":""}}}}"#
            )
        };
        let delta = |item_id: Option<&str>, index: u32, delta: &str| {
            let item_id = item_id.map(|id| format!(r#""item_id":"{id}","#)).unwrap_or_default();
            format!(
                r#"{{"type":"response.function_call_arguments.delta",{item_id}"output_index":{index},"delta":"{delta}"}}"#
            )
        };
        let done = r#"{"type":"response.output_item.done","output_index":5,"item":{"type":"function_call","id":"fc_5","call_id":"c5","name":"f","arguments":"{}"}}"#;
        let text =
            r#"{"type":"response.output_text.delta","item_id":"fc_5","output_index":6,"content_index":0,"delta":"t"}"#;
        let events = [
            added("fc_1", 0, "c1"),
            added("fc_2", 1, "c2"),
            delta(Some("fc_1"), 1, "a"),
            delta(Some("fc_9"), 1, "b"),
            added("fc_1", 2, "c3"),
            delta(Some("fc_1"), 0, "c"),
            delta(Some("fc_2"), 0, "d"),
            delta(None, 0, "e"),
            done.to_owned(),
            text.to_owned(),
            done.to_owned(),
        ];
        let body: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
        let mut acc = Accumulator::new(AccumulatorOptions { format: Format::OpenAiResponses, ..Default::default() });
        acc.push(body.as_bytes()).unwrap();
        let message = acc.finish();
        let calls: Vec<(&str, &str)> =
            message.tool_calls.iter().map(|c| (c.id.as_str(), c.arguments.as_str())).collect();
        assert_eq!(calls, [("c1", "ae"), ("c2", "bd"), ("c3", "c"), ("c5", "{}")]);
        assert_eq!(message.text, "t");
    }
}

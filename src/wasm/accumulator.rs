//! The wasm `Accumulator` class: one copy of the bytes into wasm memory and one `JSON.parse` of
//! the events per `push`; the message itself stays in Rust until `finish()`.

use wasm_bindgen::prelude::*;

use super::convert::{result_to_js, string_argument, to_js, to_json};
use super::js::{self, CopyFailure, Uint8Array};
use super::message::{set, LONG};
use crate::accumulator::{Accumulator, AccumulatorOptions, Format};
use crate::error::Error;
use crate::json::write::WriteJson;
use crate::json::Value;
use crate::model::{Agent, FinalMessage, StreamEvent};
use crate::partial_json::{change_strings, Change};
use crate::process::message_span;

#[wasm_bindgen(typescript_custom_section)]
const STREAM_TYPES: &'static str = r#"
/** The provider's wire format of a stream; `"auto"` detects it from the first event. */
export type StreamFormat = "auto" | "openai-chat" | "anthropic" | "openai-responses" | "bedrock" | "gemini";
/** A finished trace span: `{name: "process", attributes}` with `gen_ai.*` response attributes. */
export interface Span { name: "process"; attributes: { [name: string]: string | number | string[] } }
/** Options of `new Accumulator(...)`. Limits are in bytes (see the README for the defaults). */
export interface AccumulatorOptions {
  format?: StreamFormat;
  /** Reported as `provider` when the stream does not name one. */
  provider?: string;
  /** The agent, for `result()` (its `outputs` make the text JSON-parsed) and the trace span. */
  agent?: Agent;
  /** Receives the `process` trace span (`gen_ai.*` response attributes) on the first `finish()` (also after `result()`). */
  onSpan?: (span: Span) => void;
  /** Live partial JSON: `tool_call_partial` events as each tool call's arguments stream, and `output_partial` events for the answer text when the agent has `outputs` (read as `parseStructuredOutput` reads it leniently). Each value only grows, and keeps the identity of every subtree a delta did not touch. */
  partialJson?: boolean;
  maxEventBytes?: number;
  maxBufferedBytes?: number;
  maxToolArgumentBytes?: number;
  maxMessageBytes?: number;
}
export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter" | "refusal" | "error" | "other";
export type Outcome = "determinate" | "indeterminate";
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export interface Usage {
  inputTokens: number; outputTokens: number; totalTokens: number;
  reasoningTokens?: number; cacheReadTokens?: number; cacheWriteTokens?: number;
  /** The provider's own usage object, untouched. */
  raw: JsonValue;
}
/** A stream's error; a provider's also carries the provider's own error type and code. */
export interface StreamError { message: string; code?: string; outcome: Outcome; retryable?: boolean; providerType?: string; providerCode?: string }
export type StreamEvent =
  | { type: "start"; id?: string; model?: string; provider?: string }
  | { type: "text"; text: string; choice?: number }
  | { type: "reasoning"; text: string; choice?: number }
  | { type: "reasoning_signature"; signature: string; choice?: number }
  | { type: "tool_call_start"; index: number; id: string; name: string; choice?: number }
  | { type: "tool_call_delta"; index: number; argumentsDelta: string; choice?: number }
  | { type: "tool_call_end"; index: number; id: string; name: string; arguments: string; choice?: number }
  | { type: "text_end"; choice?: number }
  | { type: "reasoning_end"; choice?: number }
  | { type: "tool_call_partial"; index: number; value: JsonValue; choice?: number }
  | { type: "output_partial"; value: JsonValue; choice?: number }
  | { type: "usage"; usage: Usage }
  | { type: "finish"; reason: FinishReason; rawReason: string | null; choice?: number }
  | ({ type: "error" } & StreamError);
export type Block =
  | { type: "text"; text: string; citations?: JsonValue[]; signature?: string }
  | { type: "tool_call"; id: string; name: string; arguments: string; signature?: string }
  | { type: "reasoning"; text: string; signature?: string; redacted?: string; id?: string; encryptedContent?: string; format?: string }
  | { type: "other"; providerType: string; data: JsonValue };
/** A tool call (§8.7): `arguments` is always a JSON string. */
export interface ToolCall { id: string; name: string; arguments: string }
export interface FinalMessage {
  role: "assistant";
  content: Block[];
  text: string;
  reasoning: string;
  toolCalls: ToolCall[];
  usage: Usage | null;
  finishReason: FinishReason;
  rawFinishReason: string | null;
  id?: string; model?: string; provider?: string;
  error?: StreamError;
  /** True when the stream reached its format's own end with no error. */
  complete: boolean;
  /** With `n > 1`: one message per choice, in index order. */
  choices?: FinalMessage[];
}
/** What `process` and `Accumulator.result()` return (§8). */
export type Result = string | JsonValue | ToolCall[] | number[] | number[][] | string[];
"#;

/// Raw SSE bytes in, normalised events and one final message out.
#[wasm_bindgen(js_name = Accumulator)]
pub struct JsAccumulator {
    inner: Option<Accumulator>,
    finished: Option<FinalMessage>,
    /// The format of the stream once `inner` has finished (it is gone then).
    format: Format,
    agent: Option<Agent>,
    on_span: Option<js::Function>,
    scratch: Vec<u8>,
    /// The JS string "length", made once (see [`Uint8Array::copy_into`]).
    length_key: JsValue,
    /// The JSON text of the events of one call, reused across calls.
    out: String,
}

#[wasm_bindgen(js_class = Accumulator)]
impl JsAccumulator {
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "AccumulatorOptions | undefined")] options: JsValue,
    ) -> Result<JsAccumulator, JsValue> {
        // Each known option is read by itself: cheaper than turning the whole object into JSON
        // (and `onSpan`, a function, is not JSON data). A getter that throws throws out of here.
        let mut on_span = None;
        let options = if options.is_object() && !js::Array::is_array(&options) {
            on_span = js::on_span(&options)?;
            let mut map = crate::json::Map::new();
            for key in OPTION_KEYS {
                let value = js::get(&options, &key.into())?;
                if !value.is_undefined() {
                    map.insert(key.to_owned(), option_json(value, key)?);
                }
            }
            Value::Object(map)
        } else {
            to_json(options, "options")?
        };
        let (options, agent) = read_options(&options)?;
        Ok(JsAccumulator {
            inner: Some(open(options)),
            finished: None,
            format: Format::Auto,
            agent,
            on_span,
            scratch: Vec::new(),
            length_key: JsValue::from_str("length"),
            out: String::new(),
        })
    }

    /// Feeds the next bytes (split anywhere) and returns the events they complete, as the flat
    /// list [`Shape::Flat`] describes; when they are one `text` event of the first choice, its
    /// text alone. The package's `Accumulator` makes both into event objects.
    #[wasm_bindgen(unchecked_return_type = "unknown[] | string")]
    #[cfg_attr(llw_speed, optimize(speed))]
    pub fn push(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array | ArrayBuffer | string")] chunk: JsValue,
    ) -> Result<JsValue, JsValue> {
        let Some(inner) = self.inner.as_mut() else {
            return Err(finished_error().into());
        };
        // The common case first, and no more calls into JS than needed: each costs.
        // Pushed lending: each long string of the events is made a JS string from the message.
        if let Some(array) = chunk.dyn_ref::<Uint8Array>() {
            inner.push_lending(chunk_bytes(array, &mut self.scratch, &self.length_key)?)
        } else if let Some(text) = chunk.as_string() {
            // A string is text: an AWS event stream's bytes do not survive becoming one. Its
            // first byte, the high byte of a message length, is zero.
            if inner.is_binary() || (inner.format() == Format::Auto && text.starts_with('\0')) {
                return Err(Error::invalid_input(
                    "chunk",
                    "a Bedrock stream is binary (AWS event stream): push its bytes as a Uint8Array, not a string",
                )
                .into());
            }
            inner.push_lending(text.as_bytes())
        } else if let Some(buffer) = chunk.dyn_ref::<js::ArrayBuffer>() {
            let array = Uint8Array::new(buffer).map_err(|_| unreadable_chunk())?;
            inner.push_lending(chunk_bytes(&array, &mut self.scratch, &self.length_key)?)
        } else {
            return Err(Error::invalid_input("chunk", "push takes a Uint8Array, an ArrayBuffer or a string").into());
        }?;
        if self.scratch.capacity() > SCRATCH_KEPT {
            // A huge chunk (a whole body) does not pin its copy for the stream's life.
            self.scratch = Vec::new();
        }
        let events = inner.events();
        if events.is_empty() {
            return Ok(js::Array::new().into());
        }
        // The commonest push, a text delta alone, skips writing and parsing JSON: an OpenAI text
        // stream in 813 pushes of 64 B to 4 KB took 0.77 of the time (bench/FINDINGS.md).
        if let [StreamEvent::Text { text, choice: 0 }] = events {
            let text = inner.lent().next().map_or(text.as_str(), |(_, lent)| lent);
            return Ok(JsValue::from_str(text));
        }
        events_to_js(&mut self.out, events, &mut inner.lent(), Shape::Flat)
    }

    /// One already-decoded event object of a supported format (a Chat chunk, a Gemini response,
    /// an Anthropic or Responses event, a Bedrock ConverseStream event as the AWS SDK gives it);
    /// the events its bytes would give. Read through `JSON.stringify`, so members keep their
    /// order, a `Uint8Array` (an SDK's blob) as its base64; a string is taken as the event's
    /// JSON text.
    #[wasm_bindgen(js_name = pushJson, unchecked_return_type = "StreamEvent[]")]
    pub fn push_json(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "object | string")] event: JsValue,
    ) -> Result<JsValue, JsValue> {
        let Some(inner) = self.inner.as_mut() else {
            return Err(finished_error().into());
        };
        let text = match js::string_text(&event) {
            Some(text) => text,
            None if event.is_object() => js::stringify_wire(&event).ok_or_else(|| {
                Error::invalid_input("event", "the event cannot be written as JSON (a cycle, or a BigInt)")
            })?,
            None => return Err(Error::invalid_input("event", "pushJson takes an event object or its JSON text").into()),
        };
        let events = inner.push_json(&text)?;
        events_to_js(&mut self.out, events, &mut std::iter::empty(), Shape::Objects)
    }

    /// Normalised events from the caller's own converter (for a format llm-wire does not read):
    /// the events they give, and the same message, result and limits as if llm-wire had decoded
    /// them. A bad event is `invalid_input` at `events[i]...`, before any is applied.
    #[wasm_bindgen(unchecked_return_type = "StreamEvent[]")]
    pub fn apply(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "StreamEvent[]")] events: JsValue,
    ) -> Result<JsValue, JsValue> {
        let Some(inner) = self.inner.as_mut() else {
            return Err(finished_error().into());
        };
        let Value::Array(list) = to_json(events, "events")? else {
            return Err(Error::invalid_input("events", "apply takes an array of events").into());
        };
        let events = list
            .iter()
            .enumerate()
            .map(|(i, event)| StreamEvent::from_json(event, &["events[", &i.to_string(), "]"].concat()))
            .collect::<crate::Result<Vec<_>>>()?;
        let events = inner.apply(&events)?;
        events_to_js(&mut self.out, events, &mut std::iter::empty(), Shape::Objects)
    }

    /// Ends the input and returns the last events (an unterminated event, held-back text,
    /// tool-call ends). `push` is refused afterwards.
    #[wasm_bindgen(unchecked_return_type = "StreamEvent[]")]
    pub fn flush(&mut self) -> Result<JsValue, JsValue> {
        match self.inner.as_mut() {
            Some(inner) => events_to_js(&mut self.out, inner.flush(), &mut std::iter::empty(), Shape::Objects),
            None => Ok(js::Array::new().into()),
        }
    }

    /// Reports a transport failure (a reader error): the message keeps its text and ends
    /// incomplete with an `indeterminate` error. Returns the last events.
    #[wasm_bindgen(unchecked_return_type = "StreamEvent[]")]
    pub fn abort(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string")] message: JsValue,
    ) -> Result<JsValue, JsValue> {
        // Taken as any value and checked here: the glue's own string check throws an error with no
        // `code`, and differs between engines.
        let message = string_argument(message, "message")?;
        match self.inner.as_mut() {
            Some(inner) => events_to_js(&mut self.out, inner.abort(&message), &mut std::iter::empty(), Shape::Objects),
            None => Ok(js::Array::new().into()),
        }
    }

    /// The consolidated message (flushing first when needed). May be called again.
    #[wasm_bindgen(unchecked_return_type = "FinalMessage")]
    pub fn finish(&mut self) -> Result<JsValue, JsValue> {
        let message = self.final_message();
        let json = super::message::message_to_js(message)?;
        // The first `finish()` sends the span, also when `result()` built the message before.
        if let (Some(on_span), Some(message)) = (self.on_span.take(), &self.finished) {
            on_span.call1(&JsValue::NULL, &to_js(&message_span(self.agent.as_ref(), message))?)?;
        }
        Ok(json)
    }

    /// The message so far, without ending the stream (`complete: false` until it has ended).
    /// Costs one copy of the message: call it when a view is needed, not on every push.
    #[wasm_bindgen(unchecked_return_type = "FinalMessage")]
    pub fn snapshot(&mut self) -> Result<JsValue, JsValue> {
        match (self.inner.as_ref(), self.finished.as_mut()) {
            (Some(inner), _) => super::message::message_to_js(&mut inner.snapshot()),
            (None, Some(message)) => super::message::message_to_js(message),
            (None, None) => Err(finished_error().into()),
        }
    }

    /// The §8.6 view: tool calls, or the text (JSON-parsed when the agent has outputs).
    /// Throws `model_refused` on a refusal and the stream's error on a failed stream.
    #[wasm_bindgen(unchecked_return_type = "Result")]
    pub fn result(&mut self) -> Result<JsValue, JsValue> {
        let has_outputs = self.agent.as_ref().is_some_and(Agent::has_outputs);
        let result = self.final_message().result(has_outputs)?;
        result_to_js(&result)
    }

    /// The format in use: the configured one, or the detected one once known (`"auto"` before).
    #[wasm_bindgen(getter, unchecked_return_type = "StreamFormat")]
    pub fn format(&self) -> JsValue {
        // A JS string made from the name in place: no Rust `String` copied out for the glue.
        JsValue::from_str(self.inner.as_ref().map_or(self.format, Accumulator::format).name())
    }
}

impl JsAccumulator {
    fn final_message(&mut self) -> &mut FinalMessage {
        if let Some(inner) = self.inner.take() {
            // Only the message is needed from now on: the input buffers go back to the allocator
            // before it is built, not when the object is freed or collected.
            self.scratch = Vec::new();
            self.out = String::new();
            self.format = inner.format();
            self.finished = Some(inner.finish());
        }
        self.finished.get_or_insert_with(|| open(AccumulatorOptions::default()).finish())
    }
}

/// A new core accumulator, for the constructor and `final_message`'s fallback.
fn open(options: AccumulatorOptions) -> Accumulator {
    Accumulator::new(options)
}

/// The largest `scratch` and `out` kept from one push to the next: a network read's size.
const SCRATCH_KEPT: usize = 1 << 16;

fn finished_error() -> Error {
    Error::new(crate::ErrorCode::Finished, "the accumulator has ended: push after finish")
}

/// The options of `AccumulatorOptions` that are data (`onSpan` is read apart).
const OPTION_KEYS: [&str; 8] = [
    "format",
    "provider",
    "agent",
    "maxEventBytes",
    "maxBufferedBytes",
    "maxToolArgumentBytes",
    "maxMessageBytes",
    "partialJson",
];

/// One option as JSON, as `JSON.stringify` would give it: strings and numbers read directly
/// (whole numbers as integers), anything else through `to_json` (`partialJson`, a boolean,
/// included).
fn option_json(value: JsValue, key: &str) -> Result<Value, JsValue> {
    if let Some(text) = value.as_string() {
        return Ok(Value::String(text));
    }
    if let Some(n) = value.as_f64() {
        // Up to 2^53 a whole number is exact; `Value::from(i64)` is an unsigned integer when not
        // negative, as the parser makes it.
        const EXACT: f64 = 9_007_199_254_740_992.0;
        return Ok(if n.fract() == 0.0 && n.abs() <= EXACT { Value::from(n as i64) } else { Value::from(n) });
    }
    to_json(value, &["options.", key].concat())
}

/// Reads `AccumulatorOptions`; every bad value is an `invalid_input` at its path.
fn read_options(options: &Value) -> crate::Result<(AccumulatorOptions, Option<Agent>)> {
    let mut out = AccumulatorOptions::default();
    let mut agent_out = None;
    let Some(map) = options.as_object() else {
        return match options {
            Value::Null => Ok((out, None)),
            _ => Err(Error::invalid_input("options", "options must be an object")),
        };
    };
    // Each limit stays its default (`AccumulatorOptions::default()`) when absent or null.
    let limits = &mut out.limits;
    for (name, slot) in [
        ("maxEventBytes", &mut limits.max_event_bytes),
        ("maxBufferedBytes", &mut limits.max_buffered_bytes),
        ("maxToolArgumentBytes", &mut limits.max_tool_argument_bytes),
        ("maxMessageBytes", &mut limits.max_message_bytes),
    ] {
        match map.get(name) {
            None | Some(Value::Null) => {}
            Some(v) => {
                *slot = v.as_u64().filter(|n| *n > 0).and_then(|n| usize::try_from(n).ok()).ok_or_else(|| {
                    Error::invalid_input(["options.", name].concat(), "a limit must be a positive integer")
                })?
            }
        }
    }
    match map.get("format") {
        None | Some(Value::Null) => {}
        Some(Value::String(name)) => {
            out.format = Format::from_name(name).ok_or_else(|| {
                Error::invalid_input(
                    "options.format",
                    [
                        "unknown format ",
                        &crate::json::write::quoted(name),
                        ": use auto, openai-chat, anthropic, openai-responses, bedrock or gemini",
                    ]
                    .concat(),
                )
            })?
        }
        Some(_) => return Err(Error::invalid_input("options.format", "format must be a string")),
    }
    match map.get("provider") {
        None | Some(Value::Null) => {}
        Some(Value::String(p)) => out.provider = Some(p.clone()),
        Some(_) => return Err(Error::invalid_input("options.provider", "provider must be a string")),
    }
    if let Some(agent) = map.get("agent").filter(|a| !a.is_null()) {
        let agent = Agent::from_json(agent).map_err(|mut e| {
            if let Some(path) = &mut e.path {
                *path = ["options.", path].concat();
            }
            e
        })?;
        agent_out = Some(agent);
    }
    match map.get("partialJson") {
        None | Some(Value::Null) => {}
        Some(Value::Bool(on)) => out.partial_json = *on,
        Some(_) => return Err(Error::invalid_input("options.partialJson", "partialJson must be a boolean")),
    }
    if out.partial_json {
        out.outputs = agent_out.as_ref().map(|agent: &Agent| agent.outputs.clone()).unwrap_or_default();
    }
    Ok((out, agent_out))
}

/// How events reach JS.
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    /// A JSON list of event objects, as `StreamEvent` writes them.
    Objects,
    /// One flat JSON list that the package's `Accumulator` makes into event objects
    /// (pkg-template/helpers.mjs, `eventsOf`): the commonest events as their code (`FLAT_*`) and
    /// their fields in order, `choice` always (0 when the event has none), and any other event
    /// as 0 and its object. The engine's `JSON.parse` makes objects several times slower than a
    /// loop of object literals does, and a flat list of strings and numbers is parsed fast:
    /// paired, streams of 100,000 tool calls, Responses items or Anthropic blocks took 0.86-0.90
    /// of the time (bench/FINDINGS.md, "Many items in one stream").
    Flat,
}

// The codes of the flat list; `eventsOf` in pkg-template/helpers.mjs reads the same.
const FLAT_OTHER: u64 = 0;
const FLAT_TEXT: u64 = 1;
const FLAT_REASONING: u64 = 2;
const FLAT_TEXT_END: u64 = 3;
const FLAT_REASONING_END: u64 = 4;
const FLAT_TOOL_CALL_START: u64 = 5;
const FLAT_TOOL_CALL_DELTA: u64 = 6;
const FLAT_TOOL_CALL_END: u64 = 7;
const FLAT_FINISH: u64 = 8;

/// Events as plain JS data: JSON text written into `out` (kept for the next call, so a push
/// allocates nothing for it once warm) and parsed once by the engine, in the `shape` asked. A
/// long string (a large delta, a tool call's whole arguments, a string in a partial event's
/// changes) is left out of the JSON and set in its place after, as a JS string made straight
/// from the event's bytes: it is not escaped into `out`, which would copy it once more in wasm
/// memory, and the engine does not parse it. A `lent` string (by event position) is one the
/// event has left empty and the message holds: it is set the same way.
#[cfg_attr(llw_speed, optimize(speed))]
fn events_to_js<'a>(
    out: &mut String,
    events: &[StreamEvent],
    lent: &mut dyn Iterator<Item = (usize, &'a str)>,
    shape: Shape,
) -> Result<JsValue, JsValue> {
    out.clear();
    let mut lent = lent.peekable();
    let lifted = lent.peek().is_some()
        || events.iter().any(|event| long_string(event).is_some() || long_changes(event).next().is_some());
    // Where each event starts in the flat list, wanted only to set long strings.
    let mut starts = Vec::new();
    match shape {
        Shape::Flat => write_events_flat(out, events, lifted.then_some(&mut starts)),
        Shape::Objects if lifted => write_events_lifted(out, events),
        Shape::Objects => crate::model::write_events(out, events),
    }
    let parsed = js::parse(out);
    if out.capacity() > SCRATCH_KEPT {
        // One huge push (a whole body) does not pin its buffer for the stream's life.
        *out = String::new();
    }
    let array = parsed?;
    if lifted {
        // The places are own data properties of what `JSON.parse` has just made (see
        // `message.rs`): reading and setting them runs no code of the caller's. An event's
        // object is the list's item `i`, or in the flat list the item after its code `0`; a
        // string of a flat event is an item of the list itself.
        let at = |i: usize| JsValue::from_f64(i as f64);
        let object_of = |i: usize| match shape {
            Shape::Objects => js::get(&array, &at(i)),
            Shape::Flat => js::get(&array, &at(starts[i] + 1)),
        };
        let set_string = |i: usize, key: &str, text: &str| {
            let value = JsValue::from_str(text);
            match (shape, flat_string_offset(&events[i])) {
                (Shape::Flat, Some(offset)) => {
                    let _ = js::set(&array, &at(starts[i] + offset), &value);
                }
                _ => {
                    if let Ok(object) = object_of(i) {
                        set(&object, key, &value);
                    }
                }
            }
        };
        for (i, event) in events.iter().enumerate() {
            if let Some((key, text)) = long_string(event) {
                set_string(i, key, text);
            }
            let mut long = long_changes(event).peekable();
            if long.peek().is_some() {
                if let Ok(list) = object_of(i).and_then(|object| js::get(&object, &"changes".into())) {
                    for (at, text) in long {
                        let _ = js::set(&list, &JsValue::from_f64(at as f64), &JsValue::from_str(text));
                    }
                }
            }
        }
        for (i, text) in lent {
            if let Some((key, _)) = events.get(i).and_then(string_of) {
                set_string(i, key, text);
            }
        }
    }
    Ok(array)
}

/// A string of an event as the JSON gives it: empty when long (it is set after the parse; a lent
/// one is empty in the event already).
fn short(text: &str) -> &str {
    if text.len() >= LONG {
        ""
    } else {
        text
    }
}

/// `events` as the flat list of [`Shape::Flat`], each long string written empty; `starts`, when
/// given, gets where each event starts in it.
#[cfg_attr(llw_speed, optimize(speed))]
fn write_events_flat(out: &mut String, events: &[StreamEvent], mut starts: Option<&mut Vec<usize>>) {
    let mut list = FlatList { out, len: 0 };
    list.out.push('[');
    for event in events {
        if let Some(starts) = starts.as_deref_mut() {
            starts.push(list.len);
        }
        match event {
            StreamEvent::Text { text: t, choice } | StreamEvent::Reasoning { text: t, choice } => {
                let code = if matches!(event, StreamEvent::Text { .. }) { FLAT_TEXT } else { FLAT_REASONING };
                list.uint(code);
                list.str(short(t));
                list.uint((*choice).into());
            }
            StreamEvent::TextEnd { choice } => {
                list.uint(FLAT_TEXT_END);
                list.uint((*choice).into());
            }
            StreamEvent::ReasoningEnd { choice } => {
                list.uint(FLAT_REASONING_END);
                list.uint((*choice).into());
            }
            StreamEvent::ToolCallStart { index, id, name, choice } => {
                list.uint(FLAT_TOOL_CALL_START);
                list.uint((*index).into());
                list.str(id);
                list.str(name);
                list.uint((*choice).into());
            }
            StreamEvent::ToolCallDelta { index, arguments_delta, choice } => {
                list.uint(FLAT_TOOL_CALL_DELTA);
                list.uint((*index).into());
                list.str(short(arguments_delta));
                list.uint((*choice).into());
            }
            StreamEvent::ToolCallEnd { index, id, name, arguments, choice } => {
                list.uint(FLAT_TOOL_CALL_END);
                list.uint((*index).into());
                list.str(id);
                list.str(name);
                list.str(short(arguments));
                list.uint((*choice).into());
            }
            StreamEvent::Finish { reason, raw_reason, choice } => {
                list.uint(FLAT_FINISH);
                list.str(reason.as_str());
                match raw_reason {
                    Some(raw) => list.str(raw),
                    None => list.item().push_str("null"),
                }
                list.uint((*choice).into());
            }
            _ => {
                list.uint(FLAT_OTHER);
                match without_long_string(event) {
                    Some(emptied) => emptied.write_json(list.item()),
                    None => event.write_json(list.item()),
                }
            }
        }
    }
    list.out.push(']');
}

/// Where a flat event's string that may be long is, from the event's start; `None` for an event
/// written as its object.
fn flat_string_offset(event: &StreamEvent) -> Option<usize> {
    match event {
        StreamEvent::Text { .. } | StreamEvent::Reasoning { .. } => Some(1),
        StreamEvent::ToolCallDelta { .. } => Some(2),
        StreamEvent::ToolCallEnd { .. } => Some(4),
        _ => None,
    }
}

/// A JSON list written item by item, counted.
struct FlatList<'o> {
    out: &'o mut String,
    len: usize,
}

impl FlatList<'_> {
    /// Starts an item; the caller writes it into the returned buffer.
    #[cfg_attr(llw_speed, optimize(speed))]
    fn item(&mut self) -> &mut String {
        if self.len > 0 {
            self.out.push(',');
        }
        self.len += 1;
        self.out
    }

    #[cfg_attr(llw_speed, optimize(speed))]
    fn str(&mut self, text: &str) {
        crate::json::write::string(self.item(), text);
    }

    #[cfg_attr(llw_speed, optimize(speed))]
    fn uint(&mut self, n: u64) {
        crate::json::write::uint(self.item(), n);
    }
}

/// `events` as a JSON array with every long string written empty.
fn write_events_lifted(out: &mut String, events: &[StreamEvent]) {
    out.push('[');
    for (i, event) in events.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        match without_long_string(event) {
            Some(emptied) => emptied.write_json(out),
            None => event.write_json(out),
        }
    }
    out.push(']');
}

/// The key and text of an event's string that may be long, when it is at least [`LONG`] bytes.
fn long_string(event: &StreamEvent) -> Option<(&'static str, &str)> {
    string_of(event).filter(|(_, text)| text.len() >= LONG)
}

/// The key and text of an event's string that may be long.
fn string_of(event: &StreamEvent) -> Option<(&'static str, &str)> {
    let (key, text) = match event {
        StreamEvent::Text { text, .. } | StreamEvent::Reasoning { text, .. } => ("text", text),
        StreamEvent::ReasoningSignature { signature, .. } => ("signature", signature),
        StreamEvent::ToolCallDelta { arguments_delta, .. } => ("argumentsDelta", arguments_delta),
        StreamEvent::ToolCallEnd { arguments, .. } => ("arguments", arguments),
        _ => return None,
    };
    Some((key, text.as_str()))
}

/// The long strings of a partial event's changes, by their position in its `changes` list.
fn long_changes(event: &StreamEvent) -> impl Iterator<Item = (usize, &str)> {
    let changes: &[Change] = match event {
        StreamEvent::ToolCallPartial { changes, .. } | StreamEvent::OutputPartial { changes, .. } => changes,
        _ => &[],
    };
    change_strings(changes).filter(|(_, text)| text.len() >= LONG)
}

/// A partial event's changes with each long string empty (the rest copied: keys, numbers and
/// short strings).
fn without_long_changes(changes: &[Change]) -> Vec<Change> {
    let emptied = |text: &String| if text.len() >= LONG { String::new() } else { text.clone() };
    let change = |change: &Change| match change {
        Change::Append(text) => Change::Append(emptied(text)),
        Change::Add { key, value: Value::String(text), open } => {
            Change::Add { key: key.clone(), value: Value::String(emptied(text)), open: *open }
        }
        other => other.clone(),
    };
    changes.iter().map(change).collect()
}

/// The event with its long strings empty (the rest copied: short ids and names), when it has
/// any.
fn without_long_string(event: &StreamEvent) -> Option<StreamEvent> {
    if long_string(event).is_none() && long_changes(event).next().is_none() {
        return None;
    }
    Some(match event {
        StreamEvent::Text { choice, .. } => StreamEvent::Text { text: String::new(), choice: *choice },
        StreamEvent::Reasoning { choice, .. } => StreamEvent::Reasoning { text: String::new(), choice: *choice },
        StreamEvent::ReasoningSignature { choice, .. } => {
            StreamEvent::ReasoningSignature { signature: String::new(), choice: *choice }
        }
        StreamEvent::ToolCallDelta { index, choice, .. } => {
            StreamEvent::ToolCallDelta { index: *index, arguments_delta: String::new(), choice: *choice }
        }
        StreamEvent::ToolCallEnd { index, id, name, choice, .. } => StreamEvent::ToolCallEnd {
            index: *index,
            id: id.clone(),
            name: name.clone(),
            arguments: String::new(),
            choice: *choice,
        },
        StreamEvent::ToolCallPartial { index, changes, choice } => {
            StreamEvent::ToolCallPartial { index: *index, changes: without_long_changes(changes), choice: *choice }
        }
        StreamEvent::OutputPartial { changes, choice } => {
            StreamEvent::OutputPartial { changes: without_long_changes(changes), choice: *choice }
        }
        _ => return None,
    })
}

/// The bytes of a chunk, copied into `scratch`. Every failure is an error before anything is
/// pushed, and leaves the accumulator as it was: a view of a detached buffer, an object that only
/// inherits from `Uint8Array.prototype`, or more bytes than the module can take.
fn chunk_bytes<'s>(array: &Uint8Array, scratch: &'s mut Vec<u8>, length_key: &JsValue) -> Result<&'s [u8], Error> {
    array.copy_into(scratch, length_key).map_err(|failure| match failure {
        CopyFailure::Unreadable => unreadable_chunk(),
        CopyFailure::NoMemory => Error::invalid_input("chunk", "no memory left to copy the chunk"),
    })
}

fn unreadable_chunk() -> Error {
    Error::invalid_input(
        "chunk",
        "the chunk's bytes cannot be read: its buffer is detached, or it is not a real Uint8Array",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wasm::test_support::{field, js, text};
    use wasm_bindgen_test::wasm_bindgen_test;

    /// The messages and paths built from parts read as the `format!` strings they replace did.
    #[wasm_bindgen_test]
    fn bad_options_name_the_option_in_the_message_and_the_path() {
        let error = |options: JsValue| JsAccumulator::new(options).err().unwrap();
        let bad_format = error(js(r#"{"format": "x\"ml"}"#));
        let expected =
            r#"unknown format "x\"ml": use auto, openai-chat, anthropic, openai-responses, bedrock or gemini"#;
        assert_eq!(field(&bad_format, "message"), expected);
        assert_eq!(field(&bad_format, "path"), "options.format");
        let bad_limit = error(js(r#"{"maxEventBytes": 0}"#));
        assert_eq!(field(&bad_limit, "message"), "a limit must be a positive integer");
        assert_eq!(field(&bad_limit, "path"), "options.maxEventBytes");
        let options = js("{}");
        js_sys::Reflect::set(&options, &"agent".into(), &js_sys::Function::new_no_args("")).unwrap();
        let not_data = error(options);
        assert_eq!(field(&not_data, "message"), "not JSON data: a function or a symbol is not data");
        assert_eq!(field(&not_data, "path"), "options.agent");
    }

    /// Events with long strings left out of the JSON and set after give exactly the array the
    /// JSON of all of them gives, short strings and other fields included.
    #[wasm_bindgen_test]
    fn long_strings_lifted_out_of_the_events_give_the_same_array_as_json() {
        let long = |seed: &str| [seed, " é \"quoted\" \\ \u{1F642} \u{2028}"].concat().repeat(200);
        let events = vec![
            StreamEvent::Start { id: Some("r".into()), model: None, provider: Some("p".into()) },
            StreamEvent::Text { text: long("text"), choice: 0 },
            StreamEvent::Reasoning { text: long("thinking"), choice: 2 },
            StreamEvent::Text { text: "short".into(), choice: 1 },
            StreamEvent::ReasoningSignature { signature: long("sig"), choice: 0 },
            StreamEvent::ToolCallStart { index: 0, id: "c".into(), name: "f".into(), choice: 0 },
            StreamEvent::ToolCallDelta { index: 0, arguments_delta: long("{\"q\":"), choice: 3 },
            StreamEvent::ToolCallEnd { index: 0, id: "c".into(), name: "f".into(), arguments: long("args"), choice: 0 },
            StreamEvent::ToolCallDelta { index: 1, arguments_delta: "{}".into(), choice: 0 },
            StreamEvent::ToolCallPartial {
                index: 0,
                changes: vec![
                    Change::Add { key: None, value: Value::Object(Default::default()), open: true },
                    Change::Add { key: Some("q".into()), value: Value::String(long("value")), open: true },
                    Change::Append(long("more")),
                    Change::Close,
                    Change::Add { key: Some("n".into()), value: Value::String("short".into()), open: false },
                ],
                choice: 0,
            },
            StreamEvent::OutputPartial { changes: vec![Change::Append(long("answer")), Change::Close], choice: 1 },
        ];
        let as_json = |events: &[StreamEvent]| {
            let mut plain = String::new();
            crate::model::write_events(&mut plain, events);
            text(&js(&plain))
        };
        let mut out = String::new();
        let none = std::iter::empty;
        assert_eq!(text(&events_to_js(&mut out, &events, &mut none(), Shape::Objects).unwrap()), as_json(&events));
        assert!(out.len() < 1000, "the long strings are not in the JSON text");
        assert_eq!(
            text(&events_to_js(&mut out, &events[3..6], &mut none(), Shape::Objects).unwrap()),
            as_json(&events[3..6])
        );
    }

    /// Regression: `format` read "auto" again after `finish()`; it keeps the detected format.
    #[wasm_bindgen_test]
    fn the_detected_format_is_kept_after_finish() {
        let mut acc = JsAccumulator::new(JsValue::UNDEFINED).unwrap();
        assert_eq!(acc.format().as_string().as_deref(), Some("auto"));
        acc.push(JsValue::from_str("event: message_start\ndata: {\"type\":\"message_start\"}\n\n")).unwrap();
        assert_eq!(acc.format().as_string().as_deref(), Some("anthropic"));
        acc.finish().unwrap();
        assert_eq!(acc.format().as_string().as_deref(), Some("anthropic"));
        acc.finish().unwrap();
        assert_eq!(acc.format().as_string().as_deref(), Some("anthropic"));
    }

    /// A chunk whose bytes cannot be read is an `invalid_input` at `chunk` that leaves the
    /// accumulator usable; a `length` redefined on a real chunk is not believed.
    #[wasm_bindgen_test]
    fn unreadable_chunks_are_errors_and_a_redefined_length_is_not_believed() {
        let make = |body: &str| js_sys::Function::new_no_args(body).call0(&JsValue::NULL).unwrap();
        let mut acc = JsAccumulator::new(JsValue::UNDEFINED).unwrap();
        for bad in [
            "return Object.create(Uint8Array.prototype)",
            "const b = new ArrayBuffer(8); structuredClone(b, {transfer: [b]}); return b",
            "const u = new Uint8Array(8); structuredClone(u.buffer, {transfer: [u.buffer]}); return u",
        ] {
            let err = acc.push(make(bad)).unwrap_err();
            assert_eq!(field(&err, "code"), "invalid_input", "{bad}");
            assert_eq!(field(&err, "path"), "chunk", "{bad}");
        }
        for (i, length) in ["2 ** 31", "3", "0"].iter().enumerate() {
            let chunk = make(
                &[
                    "const u = new TextEncoder().encode('data: {\"choices\":[{\"delta\":{\"content\":\"",
                    &i.to_string(),
                    "\"}}]}\\n\\n'); Object.defineProperty(u, 'length', {value: ",
                    length,
                    "}); return u",
                ]
                .concat(),
            );
            acc.push(chunk).unwrap();
        }
        let message = acc.finish().unwrap();
        assert_eq!(field(&message, "text"), "012");
    }
}

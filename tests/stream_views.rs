//! Views of a stream while it runs: live partial JSON of tool-call arguments and structured
//! output, block ends, and the message so far. Checked on every recorded stream, at every
//! split.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use common::{format_of, pieces, random_cuts, STREAM_EXTENSIONS};
use llm_wire::partial_json::{PartialTree, PartialValue};
use llm_wire::{Accumulator, AccumulatorOptions, FinalMessage, Format, Property, StreamEvent};
use serde_json::Value;

/// Every recorded stream: its path and format.
fn streams() -> Vec<(PathBuf, Format)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut out = Vec::new();
    for dir in fs::read_dir(root).unwrap().flatten() {
        let name = dir.file_name().to_string_lossy().into_owned();
        let Some(format) = format_of(&name) else { continue };
        for file in fs::read_dir(dir.path()).unwrap().flatten() {
            let path = file.path();
            if path.extension().and_then(|e| e.to_str()).is_some_and(|e| STREAM_EXTENSIONS.contains(&e)) {
                out.push((path, Format::from_name(format).unwrap()));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(out.len() >= 30, "found {} recorded streams", out.len());
    out
}

/// What the partial events of one run built, checked as they came.
#[derive(Default)]
struct Views {
    calls: BTreeMap<(u32, u32), PartialTree>,
    outputs: BTreeMap<u32, PartialTree>,
    errors: Vec<String>,
    events: Vec<StreamEvent>,
}

impl Views {
    fn take(&mut self, events: &[StreamEvent]) {
        for event in events {
            match event {
                StreamEvent::ToolCallPartial { index, changes, choice } => {
                    assert!(!changes.is_empty(), "a partial event changes something");
                    let tree = self.calls.entry((*choice, *index)).or_default();
                    let before = tree.value().cloned();
                    let after = tree.apply(changes).cloned();
                    assert_ne!(before, after, "an event comes only when the value changed");
                    assert_grows(before.as_ref(), after.as_ref());
                }
                StreamEvent::OutputPartial { changes, choice } => {
                    assert!(!changes.is_empty(), "a partial event changes something");
                    let tree = self.outputs.entry(*choice).or_default();
                    let before = tree.value().cloned();
                    let after = tree.apply(changes).cloned();
                    assert_ne!(before, after, "an event comes only when the value changed");
                    assert_grows(before.as_ref(), after.as_ref());
                }
                StreamEvent::Error { error } => self.errors.push(error.message.clone()),
                _ => {}
            }
        }
        self.events.extend_from_slice(events);
    }
}

/// A value once shown only grows: strings at their end, arrays and objects by members, whose
/// values grow in turn; scalars never change.
fn assert_grows(before: Option<&PartialValue>, after: Option<&PartialValue>) {
    let Some(before) = before else { return };
    let after = after.expect("a value once shown stays");
    match (before, after) {
        (PartialValue::String(a), PartialValue::String(b)) => assert!(b.starts_with(a.as_str()), "{a:?} -> {b:?}"),
        (PartialValue::Array(a), PartialValue::Array(b)) => {
            assert!(b.len() >= a.len());
            a.iter().zip(b).for_each(|(a, b)| assert_grows(Some(a), Some(b)));
        }
        (PartialValue::Object(a), PartialValue::Object(b)) => {
            for (key, value) in a {
                assert_grows(Some(value), Some(after.get(key).unwrap_or_else(|| panic!("{key} stays"))));
            }
            assert!(b.len() >= a.len());
        }
        (a, b) => assert_eq!(a, b, "a scalar does not change"),
    }
}

fn run(pieces: &[&[u8]], options: AccumulatorOptions) -> (FinalMessage, Views) {
    let mut acc = Accumulator::new(options);
    let mut views = Views::default();
    for piece in pieces {
        if let Ok(events) = acc.push(piece) {
            views.take(events);
        }
    }
    views.take(acc.flush());
    (acc.finish(), views)
}

fn live(format: Format) -> AccumulatorOptions {
    AccumulatorOptions { format, partial_json: true, ..Default::default() }
}

fn json(text: &str) -> Option<Value> {
    serde_json::from_str(text).ok()
}

/// The splits a body is checked at: whole, one byte at a time, every cut in two (for bodies up
/// to 8 KB, a sample of 200 cuts beyond), and 20 random splits.
fn splits(body: &[u8]) -> Vec<Vec<&[u8]>> {
    let mut out = vec![vec![body], body.chunks(1).collect()];
    let step = (body.len() / 200).max(1);
    let step = if body.len() <= 8192 { 1 } else { step };
    for cut in (0..=body.len()).step_by(step) {
        let (a, b) = body.split_at(cut);
        out.push(vec![a, b]);
    }
    for seed in 0..20 {
        out.push(pieces(body, &random_cuts(body.len(), seed)));
    }
    out
}

#[test]
fn the_live_value_of_each_streamed_tool_call_ends_as_its_parsed_arguments_at_every_split() {
    let mut calls_checked = 0;
    for (path, format) in streams() {
        let body = fs::read(&path).unwrap();
        let (plain, _) = run(&[&body], AccumulatorOptions { format, ..Default::default() });
        if plain.tool_calls.is_empty() && plain.choices.iter().flatten().all(|c| c.tool_calls.is_empty()) {
            continue;
        }
        let name = path.display();
        for split in splits(&body) {
            let (message, views) = run(&split, live(format));
            assert_eq!(message, plain, "{name}: partial JSON leaves the message as it is");
            let choices: Vec<&FinalMessage> = match &message.choices {
                Some(choices) => choices.iter().collect(),
                None => vec![&message],
            };
            for (c, choice) in choices.iter().enumerate() {
                for (i, call) in choice.tool_calls.iter().enumerate() {
                    let shown = views.calls.get(&(c as u32, i as u32)).and_then(PartialTree::value);
                    match json(&call.arguments) {
                        Some(parsed) => {
                            let shown = shown.unwrap_or_else(|| panic!("{name}: call {i} has a value"));
                            assert_eq!(json(&shown.to_string()), Some(parsed), "{name}: call {i}");
                        }
                        None => assert!(
                            views.errors.iter().any(|e| e.starts_with(&format!("the arguments of tool call {i}"))),
                            "{name}: call {i}'s arguments are not JSON, and an error event says so"
                        ),
                    }
                }
            }
        }
        calls_checked += plain.tool_calls.len();
    }
    assert!(calls_checked >= 8, "checked {calls_checked} calls");
}

#[test]
fn without_partial_json_no_partial_events_come() {
    for (path, format) in streams() {
        let body = fs::read(&path).unwrap();
        let (_, views) = run(&[&body], AccumulatorOptions { format, ..Default::default() });
        assert!(views.calls.is_empty() && views.outputs.is_empty(), "{}", path.display());
    }
}

/// A chat stream whose content is `text` in deltas of `size` characters.
fn chat_stream(text: &str, size: usize) -> Vec<u8> {
    let chars: Vec<char> = text.chars().collect();
    let mut body = String::new();
    for piece in chars.chunks(size) {
        let piece: String = piece.iter().collect();
        let delta = serde_json::json!({"choices": [{"index": 0, "delta": {"content": piece}}]});
        body.push_str(&format!("data: {delta}\n\n"));
    }
    body.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
    body.into_bytes()
}

fn property(name: &str, kind: &str) -> Property {
    Property { name: name.into(), kind: kind.into(), required: true, ..Property::default() }
}

/// The answer texts of the recorded structured-output bodies, and their outputs.
fn structured_answers() -> Vec<(String, Vec<Property>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let read = |path: &str| -> Value { serde_json::from_slice(&fs::read(root.join(path)).unwrap()).unwrap() };
    let deepseek = read("deepseek/vercel-json-output.json");
    let gemini = read("gemini/pyd-structured-output.json");
    vec![
        (
            deepseek["choices"][0]["message"]["content"].as_str().unwrap().to_owned(),
            vec![property("location", "string"), property("condition", "string"), property("temperature", "integer")],
        ),
        (
            gemini["candidates"][0]["content"]["parts"][0]["text"].as_str().unwrap().to_owned(),
            vec![property("city", "string"), property("country", "string")],
        ),
    ]
}

#[test]
fn the_live_structured_output_ends_as_the_parsed_output_at_every_split_even_wrapped_in_prose() {
    for (answer, outputs) in structured_answers() {
        let expected = llm_wire::parse_structured_output(&answer, &outputs, Default::default()).unwrap();
        let expected = json(&expected.to_string()).unwrap();
        let wrapped = format!("Here is the answer:\n```json\n{answer}\n```\nDone.");
        for text in [answer.clone(), wrapped] {
            for size in [1, 3, 17] {
                let body = chat_stream(&text, size);
                for split in splits(&body) {
                    let options = AccumulatorOptions { outputs: outputs.clone(), ..live(Format::OpenAiChat) };
                    let (message, views) = run(&split, options);
                    assert_eq!(message.text, text);
                    assert!(views.errors.is_empty(), "{:?}", views.errors);
                    let shown = views.outputs.get(&0).and_then(PartialTree::value).expect("an output value");
                    assert_eq!(json(&shown.to_string()), Some(expected.clone()), "{text:?} in deltas of {size}");
                }
            }
        }
    }
}

#[test]
fn structured_output_that_breaks_the_schema_is_an_error_event_as_soon_as_it_is_read_and_the_value_stays() {
    let outputs = vec![property("city", "string")];
    let cases: &[(&str, &str, &str)] = &[
        // (text, what the last value shows, the start of the error)
        (r#"{"city": "Paris", "zip": 75}"#, r#"{"city":"Paris"}"#, "the structured output: \"zip\" is not a property"),
        (r#"{"city": 12, "x": 1}"#, r#"{}"#, "the structured output: expected string, got a number"),
        (r#"{"city": "Lyon"} trailing"#, r#"{"city":"Lyon"}"#, ""),
    ];
    for (text, shown, error) in cases {
        let body = chat_stream(text, 2);
        let options = AccumulatorOptions { outputs: outputs.clone(), ..live(Format::OpenAiChat) };
        let (message, views) = run(&[&body], options);
        assert!(message.complete && message.error.is_none(), "the message itself is not failed: {text}");
        let value = views.outputs.get(&0).and_then(PartialTree::value).map(ToString::to_string);
        assert_eq!(value.as_deref(), Some(*shown), "{text}");
        match *error {
            "" => assert!(views.errors.is_empty(), "{text}: {:?}", views.errors),
            start => {
                assert_eq!(views.errors.len(), 1, "{text}: reported once: {:?}", views.errors);
                assert!(views.errors[0].starts_with(start), "{text}: {}", views.errors[0]);
            }
        }
    }
}

#[test]
fn tool_arguments_that_stop_being_json_are_one_error_event_and_the_last_good_value_stays() {
    let delta = |args: &str| {
        let chunk = serde_json::json!({"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "id": "c1", "type": "function", "function": {"name": "f", "arguments": args}}]}}]});
        format!("data: {chunk}\n\n")
    };
    let body = [delta(r#"{"a": [1, "#), delta("2], "), delta(r#""b" oops"#), delta(r#": 3}"#)].concat()
        + "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n";
    for split in splits(body.as_bytes()) {
        let (message, views) = run(&split, live(Format::OpenAiChat));
        assert_eq!(message.tool_calls[0].arguments, r#"{"a": [1, 2], "b" oops: 3}"#);
        assert!(message.complete, "the message is not failed by it");
        assert_eq!(views.errors.len(), 1, "{:?}", views.errors);
        assert!(views.errors[0].starts_with("the arguments of tool call 0: "), "{}", views.errors[0]);
        let shown = views.calls[&(0, 0)].value().unwrap().to_string();
        assert_eq!(shown, r#"{"a":[1,2]}"#);
    }
}

#[test]
fn what_the_live_readers_keep_counts_against_max_message_bytes() {
    // Deeply nested arguments keep little text but one open container per level.
    let args = "[".repeat(120);
    let chunk = serde_json::json!({"choices": [{"index": 0, "delta": {"tool_calls": [
        {"index": 0, "id": "c", "function": {"name": "f", "arguments": args}}]}}]});
    let body = format!("data: {chunk}\n\n");
    let limit = |partial_json| {
        let limits = llm_wire::Limits { max_message_bytes: 1024, ..Default::default() };
        let options = AccumulatorOptions { format: Format::OpenAiChat, partial_json, limits, ..Default::default() };
        let mut acc = Accumulator::new(options);
        acc.push(body.as_bytes()).unwrap();
        acc.finish().error.and_then(|e| e.code)
    };
    assert_eq!(limit(false), None);
    assert_eq!(limit(true).as_deref(), Some("limit_exceeded"));
}

/// The blocks of each choice whose ends the events must report: text and reasoning blocks
/// that got text (a block of only a signature or redacted data streams no delta to end).
fn ended_blocks(message: &FinalMessage) -> BTreeMap<u32, (usize, usize)> {
    let choices: Vec<&FinalMessage> = match &message.choices {
        Some(choices) => choices.iter().collect(),
        None => vec![message],
    };
    let mut out = BTreeMap::new();
    for (c, choice) in choices.iter().enumerate() {
        let mut counts = (0, 0);
        for block in &choice.content {
            match block {
                llm_wire::Block::Text { text, .. } if !text.is_empty() => counts.0 += 1,
                llm_wire::Block::Reasoning { text, .. } if !text.is_empty() => counts.1 += 1,
                _ => {}
            }
        }
        if counts != (0, 0) {
            out.insert(c as u32, counts);
        }
    }
    out
}

/// Walks the events: a `text_end` (`reasoning_end`) must close a text (reasoning) block that
/// deltas opened, and no delta may come for a block after its end; at the end every block is
/// closed. The number of blocks ended per choice.
fn block_ends(events: &[StreamEvent]) -> Result<BTreeMap<u32, (usize, usize)>, String> {
    let mut open: BTreeMap<u32, Option<bool>> = BTreeMap::new();
    let mut ended: BTreeMap<u32, (usize, usize)> = BTreeMap::new();
    for (i, event) in events.iter().enumerate() {
        let (choice, text, end) = match event {
            StreamEvent::Text { choice, .. } => (*choice, true, false),
            StreamEvent::Reasoning { choice, .. } => (*choice, false, false),
            StreamEvent::TextEnd { choice } => (*choice, true, true),
            StreamEvent::ReasoningEnd { choice } => (*choice, false, true),
            _ => continue,
        };
        let slot = open.entry(choice).or_default();
        match (*slot, end) {
            (None, false) => *slot = Some(text),
            (Some(kind), false) if kind == text => {}
            (Some(_), false) => return Err(format!("event {i}: a delta of another kind before the block ended")),
            (Some(kind), true) if kind == text => {
                *slot = None;
                let counts = ended.entry(choice).or_default();
                if text {
                    counts.0 += 1;
                } else {
                    counts.1 += 1;
                }
            }
            (_, true) => return Err(format!("event {i}: an end with no such block open")),
        }
    }
    match open.iter().find(|(_, kind)| kind.is_some()) {
        Some((choice, _)) => Err(format!("choice {choice}: a block never ended")),
        None => Ok(ended),
    }
}

#[test]
fn each_text_and_reasoning_block_ends_exactly_once_after_its_last_delta_in_every_format() {
    let mut formats = std::collections::BTreeSet::new();
    for (path, format) in streams() {
        let body = fs::read(&path).unwrap();
        let name = path.display();
        let mut splits = vec![vec![&body[..]], body.chunks(1).collect()];
        splits.extend((0..10).map(|seed| pieces(&body, &random_cuts(body.len(), seed))));
        for split in splits {
            let (message, views) = run(&split, AccumulatorOptions { format, ..Default::default() });
            let ended = block_ends(&views.events).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(ended, ended_blocks(&message), "{name}: one end per text and reasoning block");
            if !ended.is_empty() {
                formats.insert(format!("{format:?}"));
            }
        }
    }
    assert_eq!(formats.len(), 5, "blocks ended in every format: {formats:?}");
}

#[test]
fn a_snapshot_is_the_message_so_far_and_the_final_message_once_the_stream_has_ended() {
    for (path, format) in streams() {
        let body = fs::read(&path).unwrap();
        let name = path.display();
        let mut acc = Accumulator::new(AccumulatorOptions { format, ..Default::default() });
        let mut text = String::new();
        for piece in body.chunks(body.len() / 7 + 1) {
            for event in acc.push(piece).unwrap_or_default() {
                if let StreamEvent::Text { text: t, choice: 0 } = event {
                    text.push_str(t);
                }
            }
            let snapshot = acc.snapshot();
            assert!(!snapshot.complete, "{name}: not complete before the end");
            assert_eq!(snapshot.text, text, "{name}: the text the events gave so far");
        }
        acc.flush();
        let snapshot = acc.snapshot();
        assert_eq!(snapshot, acc.finish(), "{name}: after the end, the final message");
    }
}

/// The decoded event objects of a recorded stream, as JSON text, the way another SDK hands them
/// over: each SSE event's data (not `[DONE]`), each AWS event-stream event as
/// `{"<event type>": payload}`.
fn event_objects(body: &[u8], format: Format) -> Vec<String> {
    let mut out = Vec::new();
    let limits = llm_wire::Limits::default();
    if format == Format::Bedrock {
        let mut frames = llm_wire::framing::FrameDecoder::new(&limits);
        let mut take = |frame: llm_wire::framing::Frame<'_>| {
            if frame.kind == llm_wire::framing::FrameKind::Event {
                out.push(format!("{{\"{}\":{}}}", frame.name, String::from_utf8_lossy(frame.data)));
            }
            Ok(())
        };
        frames.feed(body, &mut take).unwrap();
        frames.finish(&mut take).unwrap();
    } else {
        let mut sse = llm_wire::sse::SseDecoder::new(&limits);
        let mut take = |event: llm_wire::sse::SseEvent<'_>| {
            let data = String::from_utf8_lossy(event.data).into_owned();
            if serde_json::from_str::<Value>(&data).is_ok_and(|v| v.is_object()) {
                out.push(data);
            }
            Ok(())
        };
        sse.feed(body, &mut take).unwrap();
        sse.finish(&mut take).unwrap();
    }
    out
}

#[test]
fn decoded_event_objects_pushed_one_by_one_give_the_message_their_bytes_give_in_every_format() {
    let mut formats = std::collections::BTreeSet::new();
    for (path, format) in streams() {
        let body = fs::read(&path).unwrap();
        let (from_bytes, _) = run(&[&body], AccumulatorOptions { format, ..Default::default() });
        let mut acc = Accumulator::new(AccumulatorOptions::default());
        for object in event_objects(&body, format) {
            let _ = acc.push_json(&object);
        }
        assert_eq!(acc.format(), format, "{}: detected from the objects", path.display());
        let mut message = acc.finish();
        // `[DONE]` is not an object: a Chat stream ends there only in its bytes.
        if format == Format::OpenAiChat && !message.complete && from_bytes.complete {
            message.complete = true;
        }
        assert_eq!(message, from_bytes, "{}", path.display());
        formats.insert(format!("{format:?}"));
    }
    assert_eq!(formats.len(), 5, "{formats:?}");
}

#[test]
fn normalised_events_applied_give_the_message_the_bytes_give_in_every_format() {
    for (path, format) in streams() {
        let body = fs::read(&path).unwrap();
        let (from_bytes, views) = run(&[&body], AccumulatorOptions { format, ..Default::default() });
        // The events as the caller's converter would make them: plain JSON data, read back.
        let events: Vec<StreamEvent> = views
            .events
            .iter()
            .enumerate()
            .map(|(i, event)| {
                let json = serde_json::to_string(event).unwrap();
                let value: llm_wire::Value = serde_json::from_str(&json).unwrap();
                StreamEvent::from_json(&value, &format!("events[{i}]")).unwrap()
            })
            .collect();
        let mut acc =
            Accumulator::new(AccumulatorOptions { provider: from_bytes.provider.clone(), ..Default::default() });
        let _ = acc.apply(&events);
        let message = acc.finish();
        // Only a format's own end marker makes its bytes complete with a choice unfinished.
        assert!(!message.complete || from_bytes.complete, "{}: complete only when the bytes are", path.display());
        // What the events carry; citations, `other` blocks and signatures on text and calls are
        // in no event, so they cannot come through a converter's events.
        let carried = |m: &FinalMessage| {
            // The usage's `raw` compared as data: read into a map, its members may reorder.
            let usage = serde_json::to_value(&m.usage).unwrap();
            (m.text.clone(), m.reasoning.clone(), m.tool_calls.clone(), usage, m.raw_finish_reason.clone())
        };
        assert_eq!(carried(&message), carried(&from_bytes), "{}", path.display());
        // The id and model are what the `start` event gave (a stream may name them later).
        assert_eq!(message.error, from_bytes.error, "{}", path.display());
        if from_bytes.complete == message.complete {
            assert_eq!(message.finish_reason, from_bytes.finish_reason, "{}", path.display());
        }
    }
}

#[test]
fn a_bad_applied_event_is_invalid_input_at_its_path() {
    let cases = [
        (r#"{"type": "text"}"#, "events[0].text"),
        (r#"{"type": "nope"}"#, "events[0].type"),
        (r#"{"type": "finish", "reason": "done", "rawReason": null}"#, "events[0].reason"),
        (r#"{"type": "tool_call_delta", "index": -1, "argumentsDelta": ""}"#, "events[0].index"),
        (r#"[]"#, "events[0]"),
    ];
    for (json, path) in cases {
        let value: llm_wire::Value = serde_json::from_str(json).unwrap();
        let error = StreamEvent::from_json(&value, "events[0]").unwrap_err();
        assert_eq!((error.code, error.path.as_deref()), (llm_wire::ErrorCode::InvalidInput, Some(path)), "{json}");
    }
}

#[test]
fn an_anthropic_text_block_ends_at_its_stop_and_text_after_it_is_a_new_block() {
    let event = |name: &str, data: &str| format!("event: {name}\ndata: {data}\n\n");
    let body = [
        event(
            "message_start",
            r#"{"type":"message_start","message":{"id":"m","model":"c","usage":{"input_tokens":1,"output_tokens":1}}}"#,
        ),
        event(
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        ),
        event(
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}"#,
        ),
        event("content_block_stop", r#"{"type":"content_block_stop","index":0}"#),
        // A start lost on the way: the next block's text still does not join the stopped one.
        event(
            "content_block_delta",
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"b"}}"#,
        ),
    ]
    .concat();
    for split in splits(body.as_bytes()) {
        let (message, views) = run(&split, AccumulatorOptions { format: Format::Anthropic, ..Default::default() });
        let texts: Vec<&str> = message
            .content
            .iter()
            .filter_map(|b| match b {
                llm_wire::Block::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(texts, ["a", "b"]);
        let kinds: Vec<&str> = views
            .events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::Text { .. } => Some("text"),
                StreamEvent::TextEnd { .. } => Some("end"),
                _ => None,
            })
            .collect();
        assert_eq!(kinds, ["text", "end", "text", "end"], "the end comes at the stop");
    }
}

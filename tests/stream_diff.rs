//! Differential check for changes to the stream side (run by hand, ignored otherwise):
//! `DIFF_OUT=/tmp/a.txt cargo test --release --test stream_diff -- --ignored` writes one hash
//! line per input: every recorded stream, and every stream with one event's JSON changed (each
//! node replaced by other values, deleted or doubled), each through an `Accumulator` in `auto`
//! and in its own format, hashing every event and the final message. Run it on a copy of the
//! tree before a change (`git archive REV | tar -x -C DIR`, this file copied in) and after, and
//! `cmp` the two files; `DIFF_SHOW=N` prints input N and its outputs.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::io::Write as _;

use llm_wire::sse::SseDecoder;
use llm_wire::{Accumulator, AccumulatorOptions, Format, Limits};
use serde_json::{json, Value};

mod common;
use common::mutate::{delete, node, paths};

fn replacements() -> Vec<Value> {
    vec![
        json!(null),
        json!(true),
        json!(0),
        json!(2),
        json!(-1),
        json!(1.5),
        json!("x"),
        json!(""),
        json!([]),
        json!({}),
        json!({"type": "text", "text": "t"}),
        json!("<think>a</think>b"),
    ]
}

/// A stream: its events as (name, data).
type Events = Vec<(String, Vec<u8>)>;

fn events_of(body: &[u8]) -> Events {
    let mut events = Vec::new();
    let mut sse = SseDecoder::new(&Limits::default());
    let mut keep = |e: llm_wire::sse::SseEvent<'_>| {
        events.push((e.event.to_owned(), e.data.to_vec()));
        Ok(())
    };
    sse.feed(body, &mut keep).unwrap();
    sse.finish(&mut keep).unwrap();
    events
}

fn body_of(events: &Events) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, data) in events {
        if name != "message" {
            out.extend_from_slice(format!("event: {name}\n").as_bytes());
        }
        for line in data.split(|b| *b == b'\n') {
            out.extend_from_slice(b"data: ");
            out.extend_from_slice(line);
            out.push(b'\n');
        }
        out.push(b'\n');
    }
    out
}

fn format_of(dir: &str) -> Format {
    match common::format_of(dir) {
        Some("anthropic") => Format::Anthropic,
        Some("openai-responses") => Format::OpenAiResponses,
        Some("gemini") => Format::Gemini,
        _ => Format::OpenAiChat,
    }
}

/// Calls `each` with (stream body, its own format) for every input, in order.
fn inputs(each: &mut dyn FnMut(&[u8], Format)) {
    let mut files = Vec::new();
    for dir in std::fs::read_dir("tests/fixtures").unwrap() {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&dir).unwrap() {
            let file = file.unwrap().path();
            if file.extension().is_some_and(|e| e == "sse") {
                files.push(file);
            }
        }
    }
    files.sort();
    let reps = replacements();
    for file in files {
        let dir = file.parent().unwrap().file_name().unwrap().to_string_lossy().into_owned();
        let format = format_of(&dir);
        let body = std::fs::read(&file).unwrap();
        each(&body, format);
        let events = events_of(&body);
        for (at, (_, data)) in events.iter().enumerate() {
            let Ok(value) = serde_json::from_slice::<Value>(data) else { continue };
            let mut with = |v: Value| {
                let mut changed = events.clone();
                changed[at].1 = v.to_string().into_bytes();
                each(&body_of(&changed), format);
            };
            for p in &paths(&value) {
                for r in &reps {
                    let mut v = value.clone();
                    *node(&mut v, p) = r.clone();
                    with(v);
                }
                if !p.is_empty() {
                    let mut v = value.clone();
                    delete(&mut v, p);
                    with(v);
                    let mut v = value.clone();
                    let n = node(&mut v, p);
                    let old = n.take();
                    *n = Value::Array(vec![old.clone(), old]);
                    with(v);
                }
            }
        }
    }
}

/// Every event (as JSON) of the body pushed whole, then flushed, and the final message.
fn outputs(body: &[u8], format: Format) -> String {
    let mut acc = Accumulator::new(AccumulatorOptions { format, ..Default::default() });
    let mut out = match acc.push(body) {
        Ok(events) => serde_json::to_string(events).unwrap(),
        Err(e) => format!("push error {e:?}"),
    };
    out.push_str(&serde_json::to_string(acc.flush()).unwrap());
    out.push_str(&serde_json::to_string(&acc.finish()).unwrap());
    out
}

#[test]
#[ignore]
fn stream_diff() {
    let show: Option<usize> = std::env::var("DIFF_SHOW").ok().and_then(|s| s.parse().ok());
    let mut lines = String::new();
    let mut n = 0;
    inputs(&mut |body, format| {
        for format in [Format::Auto, format] {
            let got = outputs(body, format);
            if show == Some(n) {
                println!("input {n}:\n{}\n{format:?} → {got}", String::from_utf8_lossy(body));
            }
            let mut h = DefaultHasher::new();
            got.hash(&mut h);
            lines.push_str(&format!("{n} {:016x}\n", h.finish()));
        }
        n += 1;
    });
    if let Ok(path) = std::env::var("DIFF_OUT") {
        std::fs::File::create(path).unwrap().write_all(lines.as_bytes()).unwrap();
    }
}

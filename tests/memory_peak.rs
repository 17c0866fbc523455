//! Peak live heap while one large event streams through an accumulator, counted by this test
//! binary's own global allocator (docs/design.md, "Speed, size and memory").
//!
//! The bytes pushed are counted too, as the wasm module holds its copy of them: each case starts
//! from nothing and reports the most bytes live at once, over the size of the large event.
//! `bench/memory-peak.mjs` measures the same cases as wasm memory.
// Native only: the wasm module names its own global allocator.
#![cfg(not(target_arch = "wasm32"))]

#[path = "common/counting.rs"]
mod counting;

use counting::{peak_of, turn, Counting};
use llm_wire::{Accumulator, AccumulatorOptions, Format, Limits};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Text with multi-byte characters and characters JSON escapes, as model output has (the words
/// of `bench/memory-peak.mjs`).
fn text_of(bytes: usize) -> String {
    const WORDS: [&str; 10] =
        [" the", " stream", " café", " 日本語", " 🙂", " \"quoted\"", "\n", " back\\slash", " of", " bytes"];
    let mut text = String::with_capacity(bytes + 16);
    let mut i: u32 = 1;
    while text.len() < bytes {
        text.push_str(WORDS[((i >> 16) % 10) as usize]);
        i = i.wrapping_mul(1_103_515_245).wrapping_add(12_345);
    }
    text
}

fn json(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

const MB: usize = 1_000_000;

struct Case {
    name: &'static str,
    format: Format,
    /// The stream's bytes and the string the message must end with.
    stream: fn(usize) -> (String, String),
    /// Reads that string from the final message.
    read: fn(&llm_wire::FinalMessage) -> &str,
}

fn chat(delta: &str, finish: &str) -> String {
    format!("data: {{\"id\":\"c\",\"choices\":[{{\"index\":0,\"delta\":{delta},\"finish_reason\":{finish}}}]}}\n\n")
}

fn chat_text(bytes: usize) -> (String, String) {
    let text = text_of(bytes);
    let body = chat(&format!("{{\"content\":{}}}", json(&text)), "null") + &chat("{}", "\"stop\"") + "data: [DONE]\n\n";
    (body, text)
}

fn chat_arguments(bytes: usize) -> (String, String) {
    let arguments = format!("{{\"q\":{}}}", json(&text_of(bytes - 10)));
    let call = format!(
        "{{\"tool_calls\":[{{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{{\"name\":\"f\",\"arguments\":{}}}}}]}}",
        json(&arguments)
    );
    let body = chat(&call, "null") + &chat("{}", "\"tool_calls\"") + "data: [DONE]\n\n";
    (body, arguments)
}

fn anthropic(events: &[(&str, String)]) -> String {
    events.iter().map(|(name, data)| format!("event: {name}\ndata: {data}\n\n")).collect()
}

fn anthropic_stream(block: &str, delta: &str, stop: &str) -> String {
    anthropic(&[
        (
            "message_start",
            r#"{"type":"message_start","message":{"id":"m","model":"c","usage":{"input_tokens":1,"output_tokens":1}}}"#
                .into(),
        ),
        ("content_block_start", format!(r#"{{"type":"content_block_start","index":0,"content_block":{block}}}"#)),
        ("content_block_delta", format!(r#"{{"type":"content_block_delta","index":0,"delta":{delta}}}"#)),
        ("content_block_stop", r#"{"type":"content_block_stop","index":0}"#.into()),
        (
            "message_delta",
            format!(r#"{{"type":"message_delta","delta":{{"stop_reason":"{stop}"}},"usage":{{"output_tokens":2}}}}"#),
        ),
        ("message_stop", r#"{"type":"message_stop"}"#.into()),
    ])
}

fn anthropic_text(bytes: usize) -> (String, String) {
    let text = text_of(bytes);
    let body = anthropic_stream(
        r#"{"type":"text","text":""}"#,
        &format!(r#"{{"type":"text_delta","text":{}}}"#, json(&text)),
        "end_turn",
    );
    (body, text)
}

fn anthropic_arguments(bytes: usize) -> (String, String) {
    let arguments = format!("{{\"q\":{}}}", json(&text_of(bytes - 10)));
    let body = anthropic_stream(
        r#"{"type":"tool_use","id":"toolu_1","name":"f","input":{}}"#,
        &format!(r#"{{"type":"input_json_delta","partial_json":{}}}"#, json(&arguments)),
        "tool_use",
    );
    (body, arguments)
}

const CASES: [Case; 4] = [
    Case { name: "chat text", format: Format::OpenAiChat, stream: chat_text, read: |m| &m.text },
    Case {
        name: "chat arguments",
        format: Format::OpenAiChat,
        stream: chat_arguments,
        read: |m| &m.tool_calls[0].arguments,
    },
    Case { name: "anthropic text", format: Format::Anthropic, stream: anthropic_text, read: |m| &m.text },
    Case {
        name: "anthropic arguments",
        format: Format::Anthropic,
        stream: anthropic_arguments,
        read: |m| &m.tool_calls[0].arguments,
    },
];

/// How the stream's bytes reach the accumulator: as a network reader hands them, through `push`;
/// and as one chunk through `push_lending`, the wasm module's path, whose events leave their long
/// strings in the message (the module makes each a JS string from there).
#[derive(Clone, Copy, Debug)]
enum Split {
    Chunks64KiB,
    OneChunkLending,
}

fn options(format: Format) -> AccumulatorOptions {
    let limits = Limits { max_tool_argument_bytes: 64 << 20, ..Limits::default() };
    AccumulatorOptions { format, limits, ..AccumulatorOptions::default() }
}

/// Streams the case's body; returns the peak over the size of the largest event, and that size.
fn run(case: &Case, bytes: usize, split: Split) -> (f64, usize) {
    let (body, expected) = (case.stream)(bytes);
    let event = body.split("\n\n").map(str::len).max().unwrap_or(0);
    let body = body.into_bytes();
    let (mut lends, mut kept) = (false, false);
    // The body is made before counting; each chunk is copied first, as wasm copies it.
    let peak = peak_of(|| {
        let mut acc = Accumulator::new(options(case.format));
        match split {
            Split::Chunks64KiB => {
                for piece in body.chunks(64 * 1024) {
                    let chunk = piece.to_vec();
                    acc.push(&chunk).unwrap();
                }
            }
            Split::OneChunkLending => {
                let chunk = body.clone();
                acc.push_lending(&chunk).unwrap();
                // The module lets its copy go after the push.
                drop(chunk);
                // The delta's string, as the module reads it.
                lends = acc.lent().next().is_some_and(|(_, text)| text == expected);
            }
        }
        let message = acc.finish();
        kept = (case.read)(&message) == expected;
    });
    assert!(kept, "{} ({split:?}): the message keeps what was streamed", case.name);
    if let Split::OneChunkLending = split {
        assert!(lends, "{} ({split:?}): the delta event lends what was streamed", case.name);
    }
    (peak as f64 / event as f64, event)
}

#[test]
fn one_large_event_costs_at_most_three_times_its_size_in_live_memory() {
    let _one = turn();
    let mut over = Vec::new();
    for case in &CASES {
        for split in [Split::Chunks64KiB, Split::OneChunkLending] {
            let (ratio, size) = run(case, 10 * MB, split);
            eprintln!("{} event of {size} bytes ({split:?}): peak {ratio:.2}x", case.name);
            if ratio > 3.0 {
                over.push(format!("{} ({split:?}): {ratio:.2}x", case.name));
            }
        }
    }
    assert!(over.is_empty(), "peak live memory over 3x one 10 MB event: {over:?}");
}

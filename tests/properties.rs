//! Properties over generated streams, in every format: random text with multi-byte characters
//! and look-alike tags, random `<think>` sections cut anywhere, random tool calls, random
//! splits. For every stream: the final message is the same for every split, the concatenated
//! text events equal the final text (and reasoning events the reasoning), and the content
//! survives the trip exactly.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{pieces, random_cuts, Rng};
use llm_wire::{Accumulator, AccumulatorOptions, FinalMessage, Format, StreamEvent};
use serde_json::json;

const ALPHABET: &[&str] = &[
    "a", "b", " ", "\n", "é", "世界", "🎉", "<", ">", "</", "<b>", "\"", "\\", "{", "}", "<thi", "nk>", "<|im_",
    "end|>",
];

/// Random text full of tag look-alikes, but never a whole tag (a whole tag is a tag, by rule).
fn text(rng: &mut Rng, max: u64) -> String {
    loop {
        let s: String = (0..1 + rng.below(max)).map(|_| ALPHABET[rng.below(ALPHABET.len() as u64) as usize]).collect();
        let lower = s.to_ascii_lowercase();
        if !["<think>", "</think>", "<|im_start|>thinking", "<|im_end|>"].iter().any(|tag| lower.contains(tag)) {
            return s;
        }
    }
}

/// Cuts `s` into pieces at char boundaries.
fn cut(rng: &mut Rng, s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut at = 0;
    while at < chars.len() {
        let n = 1 + rng.below(6) as usize;
        out.push(chars[at..(at + n).min(chars.len())].iter().collect());
        at += n;
    }
    out
}

/// What a stream says: (reasoning, text, tool calls as (id, name, arguments)).
type Intent = (String, String, Vec<(String, String, String)>);

fn intent(rng: &mut Rng) -> Intent {
    let reasoning = if rng.below(2) == 0 { text(rng, 20).replace('<', "(") } else { String::new() };
    let answer = text(rng, 40);
    let calls = (0..rng.below(3))
        .map(|i| {
            (format!("call_{i}"), format!("tool_{i}"), json!({"q": text(rng, 8), "n": rng.below(1000)}).to_string())
        })
        .collect();
    (reasoning, answer, calls)
}

fn sse_data(events: &[serde_json::Value]) -> Vec<u8> {
    events.iter().map(|e| format!("data: {e}\n\n")).collect::<String>().into_bytes()
}

/// OpenAI Chat: reasoning inline as `<think>…</think>` in content, cut anywhere.
fn chat(rng: &mut Rng, (reasoning, answer, calls): &Intent) -> Vec<u8> {
    let content = if reasoning.is_empty() { answer.clone() } else { format!("<think>{reasoning}</think>{answer}") };
    let mut events: Vec<_> =
        cut(rng, &content).into_iter().map(|c| json!({"choices": [{"index": 0, "delta": {"content": c}}]})).collect();
    for (i, (id, name, args)) in calls.iter().enumerate() {
        events.push(json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": i, "id": id, "function": {"name": name, "arguments": ""}}]}}]}));
        for piece in cut(rng, args) {
            events.push(json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": i, "id": "", "function": {"arguments": piece}}]}}]}));
        }
    }
    events.push(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": if calls.is_empty() { "stop" } else { "tool_calls" }}]}));
    let mut body = sse_data(&events);
    body.extend_from_slice(b"data: [DONE]\n\n");
    body
}

fn anthropic(rng: &mut Rng, (reasoning, answer, calls): &Intent) -> Vec<u8> {
    let mut events = vec![json!({"type": "message_start", "message": {"id": "m", "usage": {"input_tokens": 1}}})];
    let mut index = 0;
    let mut block = |events: &mut Vec<serde_json::Value>, start: serde_json::Value, deltas: Vec<serde_json::Value>| {
        events.push(json!({"type": "content_block_start", "index": index, "content_block": start}));
        for d in deltas {
            events.push(json!({"type": "content_block_delta", "index": index, "delta": d}));
        }
        events.push(json!({"type": "content_block_stop", "index": index}));
        index += 1;
    };
    if !reasoning.is_empty() {
        let deltas =
            cut(rng, reasoning).into_iter().map(|t| json!({"type": "thinking_delta", "thinking": t})).collect();
        block(&mut events, json!({"type": "thinking", "thinking": "", "signature": ""}), deltas);
    }
    let deltas = cut(rng, answer).into_iter().map(|t| json!({"type": "text_delta", "text": t})).collect();
    block(&mut events, json!({"type": "text", "text": ""}), deltas);
    for (id, name, args) in calls {
        let deltas =
            cut(rng, args).into_iter().map(|p| json!({"type": "input_json_delta", "partial_json": p})).collect();
        block(&mut events, json!({"type": "tool_use", "id": id, "name": name, "input": {}}), deltas);
    }
    events.push(json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}}));
    events.push(json!({"type": "message_stop"}));
    let named: String =
        events.iter().map(|e| format!("event: {}\r\ndata: {e}\r\n\r\n", e["type"].as_str().unwrap())).collect();
    named.into_bytes()
}

fn responses(rng: &mut Rng, (reasoning, answer, calls): &Intent) -> Vec<u8> {
    let mut events = vec![json!({"type": "response.created", "response": {"id": "r", "model": "m"}})];
    let mut output_index = 0;
    if !reasoning.is_empty() {
        events.push(json!({"type": "response.output_item.added", "output_index": output_index, "item": {"type": "reasoning", "id": "rs"}}));
        for t in cut(rng, reasoning) {
            events.push(json!({"type": "response.reasoning_summary_text.delta", "item_id": "rs", "output_index": output_index, "summary_index": 0, "delta": t}));
        }
        output_index += 1;
    }
    events.push(json!({"type": "response.output_item.added", "output_index": output_index, "item": {"type": "message", "id": "msg"}}));
    for t in cut(rng, answer) {
        events.push(json!({"type": "response.output_text.delta", "item_id": "msg", "output_index": output_index, "content_index": 0, "delta": t}));
    }
    output_index += 1;
    for (id, name, args) in calls {
        let item = format!("fc_{id}");
        events.push(json!({"type": "response.output_item.added", "output_index": output_index, "item": {"type": "function_call", "id": item, "call_id": id, "name": name, "arguments": ""}}));
        for p in cut(rng, args) {
            events.push(json!({"type": "response.function_call_arguments.delta", "item_id": item, "output_index": output_index, "delta": p}));
        }
        output_index += 1;
    }
    events.push(json!({"type": "response.completed", "response": {"id": "r", "status": "completed"}}));
    sse_data(&events) // no `event:` lines: the data's type is enough
}

fn run(pieces: &[&[u8]], format: Format) -> (FinalMessage, String, String) {
    let mut acc = Accumulator::new(AccumulatorOptions { format, ..Default::default() });
    let (mut text, mut reasoning) = (String::new(), String::new());
    let mut take = |events: &[StreamEvent]| {
        for e in events {
            match e {
                StreamEvent::Text { text: t, .. } => text.push_str(t),
                StreamEvent::Reasoning { text: t, .. } => reasoning.push_str(t),
                _ => {}
            }
        }
    };
    for p in pieces {
        take(acc.push(p).unwrap());
    }
    take(acc.flush());
    (acc.finish(), text, reasoning)
}

fn check(name: &str, generate: fn(&mut Rng, &Intent) -> Vec<u8>, format: Format) {
    for seed in 0..300 {
        let mut rng = Rng::new(seed);
        let want = intent(&mut rng);
        let body = generate(&mut rng, &want);
        let (whole, text, reasoning) = run(&[&body], format);
        assert_eq!(whole.text, want.1, "{name} seed {seed}: the text survives exactly");
        assert_eq!(whole.reasoning, want.0, "{name} seed {seed}: the reasoning survives exactly");
        let calls: Vec<_> =
            whole.tool_calls.iter().map(|c| (c.id.clone(), c.name.clone(), c.arguments.clone())).collect();
        assert_eq!(calls, want.2, "{name} seed {seed}: tool calls");
        assert!(whole.complete && whole.error.is_none(), "{name} seed {seed}: {:?}", whole.error);
        assert_eq!(
            (text.as_str(), reasoning.as_str()),
            (whole.text.as_str(), whole.reasoning.as_str()),
            "{name} seed {seed}: events add up"
        );
        for split in 0..20 {
            let cuts = random_cuts(body.len(), seed * 100 + split);
            let (message, text, reasoning) = run(&pieces(&body, &cuts), format);
            assert_eq!(message, whole, "{name} seed {seed}: differs at cuts {cuts:?}");
            assert_eq!(
                (text, reasoning),
                (whole.text.clone(), whole.reasoning.clone()),
                "{name} seed {seed}: events at cuts {cuts:?}"
            );
        }
        let bytes: Vec<&[u8]> = body.chunks(1).collect();
        assert_eq!(run(&bytes, Format::Auto).0, whole, "{name} seed {seed}: byte by byte, detected");
    }
}

#[test]
fn generated_openai_chat_streams_with_think_tags_are_split_invariant_and_exact() {
    check("chat", chat, Format::OpenAiChat);
}

#[test]
fn generated_anthropic_streams_are_split_invariant_and_exact() {
    check("anthropic", anthropic, Format::Anthropic);
}

#[test]
fn generated_responses_streams_are_split_invariant_and_exact() {
    check("responses", responses, Format::OpenAiResponses);
}

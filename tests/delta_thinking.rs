//! `delta.thinking` (the streaming parser seed's third name for reasoning, beside
//! `reasoning_content` and `reasoning`): reasoning in a Chat stream's deltas and in a Chat
//! body's `message`, checked on recorded DeepSeek answers with the name changed, and on
//! generated chunks.
#![cfg(not(target_arch = "wasm32"))]

use llm_wire::{to_message, Accumulator, AccumulatorOptions, Agent, FinalMessage, Format};
use serde_json::{json, Value};

fn fixture(path: &str) -> String {
    let path = format!("{}/tests/fixtures/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn finish_with(pieces: &[&[u8]]) -> FinalMessage {
    let mut acc = Accumulator::new(AccumulatorOptions { format: Format::OpenAiChat, ..Default::default() });
    for piece in pieces {
        acc.push(piece).unwrap();
    }
    acc.finish()
}

/// The final message of a stream, checked to be the same at every cut and byte by byte.
fn finish(body: &[u8]) -> FinalMessage {
    let whole = finish_with(&[body]);
    for cut in 0..=body.len() {
        let (a, b) = body.split_at(cut);
        assert_eq!(finish_with(&[a, b]), whole, "differs when cut at byte {cut}");
    }
    let bytes: Vec<&[u8]> = body.chunks(1).collect();
    assert_eq!(finish_with(&bytes), whole, "differs fed byte by byte");
    whole
}

fn sse(deltas: &[Value]) -> Vec<u8> {
    let mut body = String::new();
    for delta in deltas {
        let chunk = json!({"id": "c1", "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": null}]});
        body.push_str(&format!("data: {chunk}\n\n"));
    }
    body.push_str(
        "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
    );
    body.into_bytes()
}

#[test]
fn a_recorded_stream_gives_the_same_message_when_its_reasoning_comes_as_delta_thinking() {
    for path in ["deepseek/vercel-reasoning.sse", "deepseek/vercel-reasoning-tool-call.sse"] {
        let recorded = fixture(path);
        let renamed = recorded.replace("\"reasoning_content\":", "\"thinking\":");
        assert_ne!(renamed, recorded, "{path} has reasoning_content");
        let want = finish_with(&[recorded.as_bytes()]);
        assert!(!want.reasoning.is_empty(), "{path} reasons");
        assert_eq!(finish_with(&[renamed.as_bytes()]), want, "{path}");
        // Fed in pieces of 7 bytes, every chunk is read again through the one-text template.
        let pieces: Vec<&[u8]> = renamed.as_bytes().chunks(7).collect();
        assert_eq!(finish_with(&pieces), want, "{path} in pieces");
    }
}

#[test]
fn a_recorded_body_gives_the_same_message_when_its_reasoning_is_message_thinking() {
    let agent =
        Agent::from_json(&json!({"model": {"id": "deepseek-reasoner", "provider": "deepseek"}}).into()).unwrap();
    for path in ["deepseek/vercel-reasoning.json", "deepseek/vercel-json-output.json"] {
        let recorded = fixture(path);
        let renamed = recorded.replace("\"reasoning_content\":", "\"thinking\":");
        assert_ne!(renamed, recorded, "{path} has reasoning_content");
        let want = to_message(recorded.as_str(), Some(&agent)).unwrap();
        assert!(!want.reasoning.is_empty(), "{path} reasons");
        assert_eq!(to_message(renamed.as_str(), Some(&agent)).unwrap(), want, "{path}");
    }
}

#[test]
fn delta_thinking_is_reasoning_beside_text_and_after_the_other_two_names() {
    // (deltas, reasoning, text)
    let cases: Vec<(Vec<Value>, &str, &str)> = vec![
        (vec![json!({"thinking": "plan"}), json!({"content": "Hi"})], "plan", "Hi"),
        (vec![json!({"thinking": "a"}), json!({"thinking": "b"}), json!({"thinking": "c"})], "abc", ""),
        // With content in the same delta (the seed reads `thinking` only without content; both
        // are kept here, as for the other two names).
        (vec![json!({"thinking": "plan", "content": "Hi"})], "plan", "Hi"),
        // One name per delta: `reasoning_content`, then `reasoning`, then `thinking`.
        (vec![json!({"reasoning_content": "r", "thinking": "t"})], "r", ""),
        (vec![json!({"thinking": "t", "reasoning": "r"})], "r", ""),
        (vec![json!({"thinking": "t", "reasoning_content": null})], "t", ""),
        // Absent or null: no reasoning.
        (vec![json!({"thinking": null, "content": "Hi"})], "", "Hi"),
        // Beside thinking tags in the content, both are reasoning.
        (vec![json!({"thinking": "a"}), json!({"content": "<think>b</think>Hi"})], "ab", "Hi"),
    ];
    for (deltas, reasoning, text) in cases {
        let message = finish(&sse(&deltas));
        assert_eq!((message.reasoning.as_str(), message.text.as_str()), (reasoning, text), "{deltas:?}");
        assert!(message.complete, "{deltas:?}");
    }
}

#[test]
fn message_thinking_in_a_body_is_reasoning_as_its_streamed_form_is() {
    let body = json!({"id": "c1", "model": "m", "choices": [{"index": 0, "finish_reason": "stop",
        "message": {"role": "assistant", "thinking": "plan", "content": "Hi"}}]});
    let message = to_message(body.to_string().as_str(), None).unwrap();
    assert_eq!((message.reasoning.as_str(), message.text.as_str()), ("plan", "Hi"));
    let streamed = finish(&sse(&[json!({"thinking": "plan", "content": "Hi"})]));
    assert_eq!(message.content, streamed.content);
}

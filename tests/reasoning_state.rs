//! The reasoning state a provider needs back is kept on the reasoning blocks, streamed and in
//! bodies: OpenAI Responses reasoning items (`id`, `encrypted_content`) and chat
//! `reasoning_details` (OpenRouter, Vercel AI Gateway) with their signatures and encrypted data.
#![cfg(not(target_arch = "wasm32"))]

use std::path::{Path, PathBuf};

use llm_wire::{to_message, Accumulator, AccumulatorOptions, Agent, FinalMessage, StreamEvent};
use serde_json::{json, Value};

fn fixtures(dir: &str, extension: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(dir);
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == extension))
        .collect();
    found.sort();
    found
}

/// The JSON `data:` of every event of an SSE file.
fn events_of(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines().filter_map(|l| l.strip_prefix("data: ")).filter_map(|d| serde_json::from_str(d).ok()).collect()
}

/// The message of a stream pushed whole and one byte at a time (the two must agree), with
/// its events.
fn stream(body: &[u8]) -> (FinalMessage, Vec<StreamEvent>) {
    let mut acc = Accumulator::new(AccumulatorOptions::default());
    let events = acc.push(body).unwrap().to_vec();
    let whole = acc.finish();
    let mut acc = Accumulator::new(AccumulatorOptions::default());
    for byte in body.chunks(1) {
        acc.push(byte).unwrap();
    }
    assert_eq!(acc.finish(), whole, "byte by byte");
    (whole, events)
}

fn sse(events: &[Value]) -> Vec<u8> {
    events.iter().map(|e| format!("data: {e}\n\n")).collect::<String>().into_bytes()
}

/// The message's blocks as JSON.
fn blocks(message: &FinalMessage) -> Vec<Value> {
    serde_json::to_value(&message.content).unwrap().as_array().unwrap().clone()
}

/// The reasoning blocks of `message` that carry `id`.
fn blocks_of_item(message: &FinalMessage, id: &str) -> Vec<Value> {
    blocks(message).into_iter().filter(|b| b["type"] == "reasoning" && b["id"] == id).collect()
}

/// What a reasoning item must leave on the message: at least one block, all with its id, the
/// first with its encrypted content and no other with any, and the summary's text.
fn check_item(message: &FinalMessage, item: &Value, context: &str) {
    let id = item["id"].as_str().unwrap();
    let of_item = blocks_of_item(message, id);
    assert!(!of_item.is_empty(), "{context}: no block for {id}");
    assert_eq!(of_item[0].get("encryptedContent"), item.get("encrypted_content").filter(|e| !e.is_null()), "{context}");
    assert!(of_item[1..].iter().all(|b| b.get("encryptedContent").is_none()), "{context}: encrypted content twice");
    let text: String = of_item.iter().map(|b| b["text"].as_str().unwrap()).collect();
    let summary: String = item["summary"].as_array().unwrap().iter().map(|p| p["text"].as_str().unwrap()).collect();
    assert_eq!(text, summary, "{context}");
}

#[test]
fn every_recorded_responses_reasoning_item_keeps_its_id_and_encrypted_content() {
    let mut items = 0;
    for path in fixtures("openai-responses", "sse") {
        let done: Vec<Value> = events_of(&path)
            .into_iter()
            .filter(|e| e["type"] == "response.output_item.done" && e["item"]["type"] == "reasoning")
            .map(|e| e["item"].clone())
            .collect();
        let (message, _) = stream(&std::fs::read(&path).unwrap());
        for item in &done {
            check_item(&message, item, &path.display().to_string());
            items += 1;
        }
    }
    for path in fixtures("openai-responses", "json") {
        let body: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let Ok(message) = to_message(&body.to_string(), None) else { continue };
        for item in body["output"].as_array().into_iter().flatten().filter(|i| i["type"] == "reasoning") {
            check_item(&message, item, &path.display().to_string());
            items += 1;
        }
    }
    assert!(items >= 3, "only {items} reasoning items recorded");
}

/// A reasoning item as OpenAI sends it with `include: ["reasoning.encrypted_content"]`.
fn reasoning_item(summary: &[&str], encrypted: &str) -> Value {
    let parts: Vec<Value> = summary.iter().map(|t| json!({"type": "summary_text", "text": t})).collect();
    json!({"id": "rs_1", "type": "reasoning", "encrypted_content": encrypted, "summary": parts})
}

/// The events of a Responses stream with the one reasoning item, then a function call.
fn responses_events(summary: &[&str]) -> Vec<Value> {
    let mut added = reasoning_item(&[], "gAAA-added");
    added["summary"] = json!([]);
    let mut events = vec![
        json!({"type": "response.created", "response": {"id": "resp_1", "model": "gpt-5", "status": "in_progress"}}),
        json!({"type": "response.output_item.added", "output_index": 0, "item": added}),
    ];
    for (i, text) in summary.iter().enumerate() {
        events.push(json!({"type": "response.reasoning_summary_part.added", "item_id": "rs_1", "output_index": 0, "summary_index": i, "part": {"type": "summary_text", "text": ""}}));
        events.push(json!({"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "output_index": 0, "summary_index": i, "delta": text}));
    }
    let call = json!({"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "f", "arguments": "{}"});
    events.extend([
        json!({"type": "response.output_item.done", "output_index": 0, "item": reasoning_item(summary, "gAAA-done")}),
        json!({"type": "response.output_item.added", "output_index": 1, "item": call}),
        json!({"type": "response.output_item.done", "output_index": 1, "item": call}),
        json!({"type": "response.completed", "response": {"id": "resp_1", "model": "gpt-5", "status": "completed",
            "output": [reasoning_item(summary, "gAAA-done"), call]}}),
    ]);
    events
}

#[test]
fn a_reasoning_item_keeps_its_state_whatever_its_summary_holds() {
    // (summary parts, the reasoning blocks expected)
    let cases: [(&[&str], Value); 3] = [
        (&[], json!([{"type": "reasoning", "text": "", "id": "rs_1", "encryptedContent": "gAAA-done"}])),
        (&["A"], json!([{"type": "reasoning", "text": "A", "id": "rs_1", "encryptedContent": "gAAA-done"}])),
        (
            &["A", "B"],
            json!([
                {"type": "reasoning", "text": "A", "id": "rs_1", "encryptedContent": "gAAA-done"},
                {"type": "reasoning", "text": "B", "id": "rs_1"},
            ]),
        ),
    ];
    for (summary, expected) in cases {
        let events = responses_events(summary);
        let (streamed, _) = stream(&sse(&events));
        let body = events.last().unwrap()["response"].to_string();
        let agent = Agent {
            model: llm_wire::Model { id: "m".into(), api_type: "responses".into(), ..Default::default() },
            ..Default::default()
        };
        let from_body = to_message(&body, Some(&agent)).unwrap();
        for message in [&streamed, &from_body] {
            let reasoning: Vec<Value> = blocks(message).into_iter().filter(|b| b["type"] == "reasoning").collect();
            assert_eq!(Value::from(reasoning), expected, "{summary:?}");
            assert_eq!(message.reasoning, summary.concat());
            assert_eq!(message.tool_calls.len(), 1);
        }
    }
}

#[test]
fn a_repeated_output_item_done_adds_nothing() {
    let events = responses_events(&["A", "B"]);
    let mut repeated = events.clone();
    assert_eq!(events[6]["type"], "response.output_item.done");
    repeated.insert(7, events[6].clone());
    assert_eq!(stream(&sse(&repeated)).0, stream(&sse(&events)).0);
}

#[test]
fn reasoning_after_a_finished_item_opens_a_block_of_its_own() {
    // A server that names the next item only by its deltas (no `output_item.added`).
    let mut events = responses_events(&["A"]);
    assert_eq!(events[4]["type"], "response.output_item.done");
    let delta = json!({"type": "response.reasoning_summary_text.delta", "item_id": "rs_2", "output_index": 5, "summary_index": 0, "delta": "C"});
    events.insert(5, delta);
    let (message, _) = stream(&sse(&events));
    let texts: Vec<Value> =
        blocks(&message).iter().filter(|b| b["type"] == "reasoning").map(|b| b["text"].clone()).collect();
    assert_eq!(texts, [json!("A"), json!("C")]);
}

/// The details of every chunk of a recorded chat stream, in order.
fn recorded_details(path: &Path) -> Vec<Value> {
    let chunks = events_of(path);
    let details = chunks
        .iter()
        .flat_map(|c| c["choices"][0]["delta"]["reasoning_details"].as_array().cloned().unwrap_or_default());
    details.collect()
}

#[test]
fn openrouter_reasoning_details_keep_their_format_and_signature() {
    let mut checked = 0;
    for path in fixtures("openrouter", "sse") {
        let details = recorded_details(&path);
        if details.is_empty() {
            continue;
        }
        let (message, events) = stream(&std::fs::read(&path).unwrap());
        let joined = |key: &str| details.iter().filter_map(|d| d[key].as_str()).collect::<String>();
        let reasoning: Vec<Value> = blocks(&message).into_iter().filter(|b| b["type"] == "reasoning").collect();
        assert_eq!(reasoning.len(), 1, "{}: one detail index, one block", path.display());
        let format = details.iter().find_map(|d| d["format"].as_str()).unwrap_or("unknown");
        assert_eq!(reasoning[0]["format"], format);
        assert_eq!(reasoning[0]["text"], joined("text"));
        assert_eq!(message.reasoning, joined("text"), "the restated `reasoning` is not counted twice");
        let signature = joined("signature");
        assert_eq!(reasoning[0].get("signature").and_then(Value::as_str).unwrap_or(""), signature);
        let signed: String = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::ReasoningSignature { signature, .. } => Some(signature.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(signed, signature);
        checked += usize::from(!signature.is_empty());
    }
    assert!(checked >= 1, "no recorded stream has a signed detail");
}

/// A chat stream of one choice whose deltas are `deltas`, and the body with the same message.
fn chat_forms(deltas: &[Value], message: Value) -> (Vec<u8>, String) {
    let mut chunks: Vec<Value> =
        deltas.iter().map(|d| json!({"id": "g1", "choices": [{"index": 0, "delta": d}]})).collect();
    chunks.push(json!({"id": "g1", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}));
    let mut body = sse(&chunks);
    body.extend_from_slice(b"data: [DONE]\n\n");
    let completion = json!({"id": "g1", "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]});
    (body, completion.to_string())
}

#[test]
fn reasoning_details_become_one_block_per_index_streamed_and_in_bodies() {
    let text =
        |t: &str, i: u64| json!({"type": "reasoning.text", "text": t, "format": "anthropic-claude-v1", "index": i});
    let signed = json!({"type": "reasoning.text", "signature": "sig", "format": "anthropic-claude-v1", "index": 0});
    let encrypted = json!({"type": "reasoning.encrypted", "data": "opaque", "format": "openai-responses-v1", "index": 1, "id": "rs_9"});
    let summary =
        json!({"type": "reasoning.summary", "summary": "S", "format": "openai-responses-v1", "index": 0, "id": "rs_9"});
    let nameless = json!({"type": "reasoning.text", "text": "N", "format": null, "index": 0});
    let reasoning = |t: &str, format: &str| json!({"type": "reasoning", "text": t, "format": format});
    // (stream deltas, the same as a body's message, the reasoning blocks expected)
    let cases = [
        (
            vec![
                json!({"reasoning": "ab", "reasoning_details": [text("ab", 0)]}),
                json!({"reasoning_details": [signed]}),
            ],
            json!({"reasoning": "ab", "reasoning_details": [text("ab", 0), signed]}),
            json!([{"type": "reasoning", "text": "ab", "signature": "sig", "format": "anthropic-claude-v1"}]),
        ),
        (
            vec![json!({"reasoning_details": [summary.clone()]}), json!({"reasoning_details": [encrypted.clone()]})],
            json!({"reasoning_details": [summary, encrypted]}),
            json!([
                {"type": "reasoning", "text": "S", "id": "rs_9", "format": "openai-responses-v1"},
                {"type": "reasoning", "text": "", "redacted": "opaque", "id": "rs_9", "format": "openai-responses-v1"},
            ]),
        ),
        (
            vec![json!({"reasoning_details": [text("a", 0)]}), json!({"reasoning_details": [text("b", 1)]})],
            json!({"reasoning_details": [text("a", 0), text("b", 1)]}),
            json!([reasoning("a", "anthropic-claude-v1"), reasoning("b", "anthropic-claude-v1")]),
        ),
        (
            vec![json!({"reasoning": "N", "reasoning_details": [nameless.clone()]})],
            json!({"reasoning": "N", "reasoning_details": [nameless]}),
            json!([reasoning("N", "unknown")]),
        ),
        (
            // Details that carry no text leave the text to `reasoning`.
            vec![json!({"reasoning": "r", "reasoning_details": []}), json!({"reasoning_details": [signed]})],
            json!({"reasoning": "r", "reasoning_details": [signed]}),
            json!([
                {"type": "reasoning", "text": "r"},
                {"type": "reasoning", "text": "", "signature": "sig", "format": "anthropic-claude-v1"},
            ]),
        ),
    ];
    for (deltas, message, expected) in cases {
        let (body, completion) = chat_forms(&deltas, message);
        let (streamed, _) = stream(&body);
        let from_body = to_message(&completion, None).unwrap();
        for got in [&streamed, &from_body] {
            let reasoning: Vec<Value> = blocks(got).into_iter().filter(|b| b["type"] == "reasoning").collect();
            assert_eq!(Value::from(reasoning), expected, "{deltas:?}");
        }
    }
}

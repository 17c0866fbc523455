//! Every `processStream` vector of `tests/conformance/prompty-vectors.json` (§8.6): provider
//! chunks are framed as SSE `data:` events and pushed, a `transportError` is reported through
//! `abort`, and the chunks, partial text, reconciliation and commit flags are compared.
#![cfg(not(target_arch = "wasm32"))]

use llm_wire::{Accumulator, AccumulatorOptions, Outcome, StreamEvent};
use serde_json::{json, Value};

fn vectors() -> Vec<Value> {
    let text = include_str!("conformance/prompty-vectors.json");
    let all: Value = serde_json::from_str(text).unwrap();
    all["vectors"].as_array().unwrap().iter().filter(|v| v["operation"] == "processStream").cloned().collect()
}

/// The §8.6 chunks of some events: text deltas and failures (tool calls come at the end).
fn chunks_of(events: &[StreamEvent], out: &mut Vec<Value>) {
    for event in events {
        match event {
            StreamEvent::Text { text, .. } => match out.last_mut() {
                // Coalescing is allowed: compare text runs, not delta counts.
                Some(last) if last["kind"] == "text" => {
                    let joined = format!("{}{}", last["value"].as_str().unwrap(), text);
                    last["value"] = json!(joined);
                }
                _ => out.push(json!({"kind": "text", "value": text})),
            },
            StreamEvent::Error { error } => out.push(json!({"kind": "failure", "failure": {
                "outcome": match error.outcome { Outcome::Determinate => "determinate", Outcome::Indeterminate => "indeterminate" },
                "message": error.message,
            }})),
            _ => {}
        }
    }
}

#[test]
fn every_process_stream_vector_passes() {
    let vectors = vectors();
    assert!(!vectors.is_empty());
    for vector in vectors {
        let vector = &vector["vector"];
        let name = vector["name"].as_str().unwrap();
        let mut acc = Accumulator::new(AccumulatorOptions::default());
        let mut chunks = Vec::new();
        for event in vector["input"]["events"].as_array().unwrap() {
            match event["kind"].as_str().unwrap() {
                "provider" => {
                    let framed = format!("data: {}\n\n", event["value"]);
                    chunks_of(acc.push(framed.as_bytes()).unwrap(), &mut chunks);
                }
                "transportError" => chunks_of(acc.abort(event["message"].as_str().unwrap()), &mut chunks),
                other => panic!("{name}: unknown event kind {other}"),
            }
        }
        chunks_of(acc.flush(), &mut chunks);
        let message = acc.finish();
        let expected = &vector["expected"];
        assert_eq!(Value::Array(chunks), expected["chunks"], "{name}: chunks");
        assert_eq!(json!(message.text), expected["partialText"], "{name}: partialText");
        let reconcile = message.error.as_ref().is_some_and(|e| e.outcome == Outcome::Indeterminate);
        assert_eq!(json!(reconcile), expected["requiresReconciliation"], "{name}: requiresReconciliation");
        assert_eq!(json!(message.complete), expected["completionCommitted"], "{name}: completionCommitted");
    }
}

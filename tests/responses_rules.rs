//! OpenAI Responses rules that no recorded fixture covers, body and stream together: every
//! stream is checked at every cut and one byte at a time, and against the body of the same
//! response where there is one.
#![cfg(not(target_arch = "wasm32"))]

use llm_wire::{
    process, to_message, Accumulator, AccumulatorOptions, Agent, ErrorCode, FinalMessage, FinishReason, Format,
    Outcome, ProcessResult,
};
use serde_json::{json, Value};

fn once(pieces: &[&[u8]]) -> FinalMessage {
    let mut acc = Accumulator::new(AccumulatorOptions { format: Format::OpenAiResponses, ..Default::default() });
    for p in pieces {
        acc.push(p).unwrap();
    }
    acc.finish()
}

/// The final message of these events (each named by its `type`), the same at every cut and
/// byte by byte.
fn stream(events: &[Value]) -> FinalMessage {
    let body: String =
        events.iter().map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap())).collect();
    let body = body.as_bytes();
    let whole = once(&[body]);
    for cut in 0..=body.len() {
        let (a, b) = body.split_at(cut);
        assert_eq!(once(&[a, b]), whole, "differs when cut at byte {cut}");
    }
    let bytes: Vec<&[u8]> = body.chunks(1).collect();
    assert_eq!(once(&bytes), whole, "differs byte by byte");
    whole
}

fn agent() -> Agent {
    let mut agent = Agent::default();
    agent.model.api_type = "responses".into();
    agent
}

/// A body's message and `process` result.
fn body(body: &Value) -> (FinalMessage, llm_wire::Result<ProcessResult>) {
    let text = body.to_string();
    (to_message(text.as_str(), Some(&agent())).unwrap(), process(&agent(), text.as_str()))
}

fn response(status: &str, output: Value) -> Value {
    json!({"id": "resp_1", "object": "response", "model": "gpt-5", "status": status, "error": null,
           "incomplete_details": null, "output": output, "usage": {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5}})
}

fn message_item(text: &str) -> Value {
    json!({"type": "message", "id": "msg_1", "role": "assistant", "content": [{"type": "output_text", "text": text, "annotations": []}]})
}

/// The events of a stream that gives `output` (each item by its done event alone), ended by
/// `end`.
fn events_of(output: &[Value], end: Value) -> Vec<Value> {
    let mut events = vec![
        json!({"type": "response.created", "response": {"id": "resp_1", "model": "gpt-5", "status": "in_progress"}}),
    ];
    for (index, item) in output.iter().enumerate() {
        events.push(json!({"type": "response.output_item.done", "output_index": index, "item": item}));
    }
    events.push(end);
    events
}

#[test]
fn a_responses_body_that_has_not_finished_or_was_cancelled_has_no_answer() {
    for (status, outcome) in [
        ("queued", Outcome::Indeterminate),
        ("in_progress", Outcome::Indeterminate),
        ("cancelled", Outcome::Determinate),
    ] {
        for output in [json!([]), json!([message_item("so far")])] {
            let (m, result) = body(&response(status, output.clone()));
            let error = m.error.clone().unwrap_or_else(|| panic!("{status}: no error"));
            assert_eq!((error.code.as_deref(), error.outcome), (Some("empty_response"), outcome), "{status}");
            assert!(!m.complete, "{status}");
            assert_eq!((m.finish_reason, m.raw_finish_reason.as_deref()), (FinishReason::Error, Some(status)));
            assert_eq!(m.text, if output == json!([]) { "" } else { "so far" }, "{status}: what came is kept");
            assert_eq!(result.unwrap_err().code, ErrorCode::EmptyResponse, "{status}");
            assert_eq!(m.result(false).unwrap_err().code, ErrorCode::EmptyResponse, "{status}");
        }
    }
    let (m, result) = body(&response("completed", json!([message_item("done")])));
    assert!(m.complete && m.error.is_none());
    assert_eq!(result.unwrap(), ProcessResult::Text("done".into()));
}

#[test]
fn a_responses_failed_event_without_an_error_fails_as_its_body_does() {
    let output = [message_item("part")];
    let failed = response("failed", json!(output));
    let streamed = stream(&events_of(&output, json!({"type": "response.failed", "response": failed})));
    let (m, result) = body(&failed);
    assert_eq!(streamed, m, "the stream and the body agree");
    assert_eq!((m.finish_reason, m.raw_finish_reason.as_deref()), (FinishReason::Error, Some("failed")));
    assert_eq!((m.text.as_str(), m.complete), ("part", false));
    assert_eq!(m.error.as_ref().map(|e| e.outcome), Some(Outcome::Determinate));
    assert_eq!(result.unwrap_err().code, ErrorCode::ProviderError);
    assert_eq!(streamed.result(false).unwrap_err().code, ErrorCode::ProviderError);
    // With no response object at all the event still says the response failed.
    let bare = stream(&events_of(&output, json!({"type": "response.failed"})));
    assert_eq!((bare.finish_reason, bare.raw_finish_reason.as_deref()), (FinishReason::Error, Some("failed")));
    assert!(bare.error.is_some());
}

#[test]
fn a_responses_failed_event_with_an_error_keeps_failed_as_its_raw_reason() {
    let mut failed = response("failed", json!([]));
    failed["error"] = json!({"code": "server_error", "message": "The server had an error"});
    let m = stream(&events_of(&[], json!({"type": "response.failed", "response": failed})));
    assert_eq!((m.finish_reason, m.raw_finish_reason.as_deref()), (FinishReason::Error, Some("failed")));
    let error = m.error.unwrap();
    assert_eq!((error.message.as_str(), error.retryable), ("The server had an error", Some(true)));
}

/// The `response.completed` event of a response giving `output`, and its body.
fn completed(output: &[Value]) -> (Value, Value) {
    let body = response("completed", json!(output));
    (json!({"type": "response.completed", "response": body}), body)
}

#[test]
fn responses_reasoning_text_given_only_by_its_done_item_is_kept() {
    let reasoning = json!({"type": "reasoning", "id": "rs_1", "summary": [], "content": [{"type": "reasoning_text", "text": "raw thought"}]});
    let output = [reasoning, message_item("ok")];
    let (end, body_of) = completed(&output);
    let streamed = stream(&events_of(&output, end));
    let (m, _) = body(&body_of);
    assert_eq!(streamed.reasoning, "raw thought");
    assert_eq!(streamed, m, "the stream and the body agree");
}

#[test]
fn responses_summary_part_0_and_reasoning_text_part_0_are_two_parts() {
    let reasoning = json!({"type": "reasoning", "id": "rs_1", "encrypted_content": "E",
        "summary": [{"type": "summary_text", "text": "S"}], "content": [{"type": "reasoning_text", "text": "R"}]});
    let (end, body_of) = completed(std::slice::from_ref(&reasoning));
    let (m, _) = body(&body_of);
    assert_eq!(m.reasoning, "SR");
    let added = json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "reasoning", "id": "rs_1", "summary": []}});
    let done = json!({"type": "response.output_item.done", "output_index": 0, "item": reasoning});
    let summary = |kind: &str, text: &str| json!({"type": format!("response.reasoning_summary_text.{kind}"), "item_id": "rs_1", "output_index": 0, "summary_index": 0, kind_field(kind): text});
    let content = |kind: &str, text: &str| json!({"type": format!("response.reasoning_text.{kind}"), "item_id": "rs_1", "output_index": 0, "content_index": 0, kind_field(kind): text});
    let created = events_of(&[], json!(null)).remove(0);
    // Summary by deltas and content by its done event; both by deltas; both by done events.
    for parts in [
        [summary("delta", "S"), summary("done", "S"), content("done", "R")],
        [summary("delta", "S"), content("delta", "R"), content("done", "R")],
        [content("done", "R"), summary("done", "S"), summary("done", "S")],
    ] {
        let mut events = vec![created.clone(), added.clone()];
        events.extend(parts.iter().cloned());
        events.extend([done.clone(), end.clone()]);
        let streamed = stream(&events);
        if parts[0] == summary("delta", "S") {
            assert_eq!(streamed, m, "the stream and the body agree: {parts:?}");
        } else {
            // Given in another order than the body's, the same two parts.
            assert_eq!((streamed.reasoning.as_str(), streamed.content.len()), ("RS", 2), "{parts:?}");
        }
    }
}

/// The field a part event carries its text in.
fn kind_field(kind: &str) -> &'static str {
    if kind == "delta" {
        "delta"
    } else {
        "text"
    }
}

#[test]
fn each_output_text_part_is_a_block_with_its_own_annotations_as_in_the_body() {
    let part = |text: &str, url: &str| json!({"type": "output_text", "text": text, "annotations": [{"type": "url_citation", "url": url, "start_index": 0, "end_index": 2}]});
    let parts = [part("P0", "u0"), part("P1", "u1")];
    let item = json!({"type": "message", "id": "msg_1", "role": "assistant", "content": parts});
    let (end, body_of) = completed(std::slice::from_ref(&item));
    let (m, _) = body(&body_of);
    assert_eq!(m.content.len(), 2);
    let at = |i: usize| json!({"item_id": "msg_1", "output_index": 0, "content_index": i});
    let with = |mut event: Value, kind: &str, extra: Value| {
        event["type"] = json!(kind);
        event.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        event
    };
    let created = events_of(&[], json!(null)).remove(0);
    let mut deltas = vec![
        created.clone(),
        json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "message", "id": "msg_1", "role": "assistant", "content": []}}),
    ];
    for (i, text) in ["P0", "P1"].iter().enumerate() {
        deltas.push(with(at(i), "response.output_text.delta", json!({"delta": text})));
        deltas.push(with(at(i), "response.output_text.done", json!({"text": text})));
        deltas.push(with(at(i), "response.content_part.done", json!({"part": parts[i]})));
    }
    deltas.extend([json!({"type": "response.output_item.done", "output_index": 0, "item": item}), end.clone()]);
    assert_eq!(stream(&deltas), m, "deltas, then each part whole, then the item");
    // Only done events: each part whole, or only the item.
    let parts_done: Vec<Value> =
        (0..2).map(|i| with(at(i), "response.content_part.done", json!({"part": parts[i]}))).collect();
    let mut whole = vec![created.clone()];
    whole.extend(parts_done);
    whole.extend([json!({"type": "response.output_item.done", "output_index": 0, "item": item}), end.clone()]);
    assert_eq!(stream(&whole), m, "each part whole, then the item");
    assert_eq!(stream(&events_of(std::slice::from_ref(&item), end)), m, "only the item");
}

//! Anthropic Messages and OpenAI Responses stream rules that no recorded fixture covers, one
//! named test each on generated streams, each checked at every cut and one byte at a time.
#![cfg(not(target_arch = "wasm32"))]

use llm_wire::{Accumulator, AccumulatorOptions, Block, FinalMessage, FinishReason, Format, Outcome};
use serde_json::{json, Value};

/// An SSE body; `(Some(name), data)` adds an `event:` line.
fn sse(events: &[(Option<&str>, Value)]) -> Vec<u8> {
    let mut body = String::new();
    for (name, data) in events {
        if let Some(name) = name {
            body.push_str(&format!("event: {name}\n"));
        }
        body.push_str(&format!("data: {data}\n\n"));
    }
    body.into_bytes()
}

/// Events named by their own `type`, as Anthropic and Responses servers send them.
fn named(events: &[Value]) -> Vec<u8> {
    let pairs: Vec<(Option<&str>, Value)> = events.iter().map(|e| (e["type"].as_str(), e.clone())).collect();
    sse(&pairs)
}

fn unnamed(events: &[Value]) -> Vec<u8> {
    let pairs: Vec<(Option<&str>, Value)> = events.iter().map(|e| (None, e.clone())).collect();
    sse(&pairs)
}

fn once(pieces: &[&[u8]], format: Format) -> FinalMessage {
    let mut acc = Accumulator::new(AccumulatorOptions { format, ..Default::default() });
    for p in pieces {
        acc.push(p).unwrap();
    }
    acc.finish()
}

/// The final message, the same at every cut, byte by byte, and with the format detected.
fn run(body: &[u8], format: Format) -> FinalMessage {
    let whole = once(&[body], format);
    assert_eq!(once(&[body], Format::Auto), whole, "auto detection differs");
    for cut in 0..=body.len() {
        let (a, b) = body.split_at(cut);
        assert_eq!(once(&[a, b], format), whole, "differs when cut at byte {cut}");
    }
    let bytes: Vec<&[u8]> = body.chunks(1).collect();
    assert_eq!(once(&bytes, format), whole, "differs byte by byte");
    whole
}

fn message_start() -> Value {
    json!({"type": "message_start", "message": {"id": "msg_1", "model": "claude", "usage": {"input_tokens": 10, "output_tokens": 1}}})
}

#[test]
fn an_anthropic_tool_with_only_empty_partial_json_has_empty_object_arguments() {
    let m = run(
        &named(&[
            message_start(),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "now", "input": {}}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": ""}}),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 5}}),
            json!({"type": "message_stop"}),
        ]),
        Format::Anthropic,
    );
    assert_eq!(m.tool_calls[0].arguments, "{}");
    assert_eq!((m.finish_reason, m.complete), (FinishReason::ToolCalls, true));
}

#[test]
fn anthropic_usage_restated_in_message_delta_wins_count_by_count() {
    let m = run(
        &named(&[
            json!({"type": "message_start", "message": {"id": "m", "usage": {"input_tokens": 10, "output_tokens": 1, "cache_read_input_tokens": 7}}}),
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"input_tokens": 12, "output_tokens": 30}}),
            json!({"type": "message_stop"}),
        ]),
        Format::Anthropic,
    );
    let usage = m.usage.unwrap();
    assert_eq!((usage.input_tokens, usage.output_tokens, usage.total_tokens), (12, 30, 42));
    assert_eq!(usage.cache_read_tokens, Some(7), "a count the delta does not restate is kept");
}

#[test]
fn an_anthropic_overloaded_error_keeps_the_text_and_is_retryable() {
    let m = run(
        &named(&[
            message_start(),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Half an ans"}}),
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        ]),
        Format::Anthropic,
    );
    assert_eq!(m.text, "Half an ans");
    let error = m.error.unwrap();
    assert_eq!(
        (error.message.as_str(), error.code.as_deref(), error.retryable),
        ("Overloaded", Some("overloaded_error"), Some(true))
    );
    assert_eq!(error.outcome, Outcome::Determinate);
    assert!(!m.complete);
}

#[test]
fn two_anthropic_thinking_blocks_keep_their_own_signatures() {
    let block = |i: u64, text: &str, sig: &str| {
        vec![
            json!({"type": "content_block_start", "index": i, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
            json!({"type": "content_block_delta", "index": i, "delta": {"type": "thinking_delta", "thinking": text}}),
            json!({"type": "content_block_delta", "index": i, "delta": {"type": "signature_delta", "signature": sig}}),
            json!({"type": "content_block_stop", "index": i}),
        ]
    };
    let mut events = vec![message_start()];
    events.extend(block(0, "one", "S1"));
    events.extend(block(1, "two", "S2"));
    events.push(json!({"type": "message_stop"}));
    let m = run(&named(&events), Format::Anthropic);
    let sigs: Vec<_> = m
        .content
        .iter()
        .filter_map(|b| match b {
            Block::Reasoning { signature, .. } => signature.clone(),
            _ => None,
        })
        .collect();
    assert_eq!(sigs, ["S1", "S2"]);
    assert_eq!(m.reasoning, "onetwo");
}

#[test]
fn a_streamed_server_tool_block_is_kept_whole_with_its_assembled_input() {
    let m = run(
        &named(&[
            message_start(),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"query\": \"ru"}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "st\"}"}}),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "message_stop"}),
        ]),
        Format::Anthropic,
    );
    let Block::Other { provider_type, data } = &m.content[0] else { panic!("{:?}", m.content) };
    assert_eq!(provider_type, "server_tool_use");
    assert_eq!(serde_json::from_str::<Value>(data.get()).unwrap()["input"], json!({"query": "rust"}));
    assert!(m.tool_calls.is_empty(), "the server runs it: not a call for the client");
}

fn created() -> Value {
    json!({"type": "response.created", "response": {"id": "resp_1", "model": "gpt-5", "status": "in_progress"}})
}

fn completed(usage: Value) -> Value {
    json!({"type": "response.completed", "response": {"id": "resp_1", "status": "completed", "usage": usage}})
}

#[test]
fn responses_done_events_give_the_message_when_a_server_sends_no_deltas() {
    let m = run(
        &named(&[
            created(),
            json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": ""}}),
            json!({"type": "response.function_call_arguments.done", "output_index": 0, "item_id": "fc_1", "arguments": "{\"a\":1}"}),
            json!({"type": "response.output_item.added", "output_index": 1, "item": {"type": "message", "id": "msg_1", "content": []}}),
            json!({"type": "response.output_text.done", "output_index": 1, "item_id": "msg_1", "content_index": 0, "text": "Done."}),
            json!({"type": "response.output_item.done", "output_index": 1, "item": {"type": "message", "id": "msg_1", "content": [{"type": "output_text", "text": "Done.", "annotations": []}]}}),
            completed(
                json!({"input_tokens": 5, "output_tokens": 3, "total_tokens": 8, "input_tokens_details": {"cached_tokens": 2}, "output_tokens_details": {"reasoning_tokens": 1}}),
            ),
        ]),
        Format::OpenAiResponses,
    );
    assert_eq!(m.text, "Done.", "the text is given once, by whichever event carries it first");
    assert_eq!((m.tool_calls[0].id.as_str(), m.tool_calls[0].arguments.as_str()), ("call_1", "{\"a\":1}"));
    let usage = m.usage.unwrap();
    assert_eq!((usage.cache_read_tokens, usage.reasoning_tokens), (Some(2), Some(1)));
    assert_eq!(m.finish_reason, FinishReason::ToolCalls);
}

#[test]
fn responses_only_output_item_done_still_gives_text_and_arguments() {
    let m = run(
        &named(&[
            created(),
            json!({"type": "response.output_item.done", "output_index": 0, "item": {"type": "function_call", "id": "fc_9", "call_id": "call_9", "name": "g", "arguments": "{}"}}),
            json!({"type": "response.output_item.done", "output_index": 1, "item": {"type": "message", "id": "m", "content": [{"type": "output_text", "text": "Hi"}]}}),
            completed(json!({"input_tokens": 1, "output_tokens": 1})),
        ]),
        Format::OpenAiResponses,
    );
    assert_eq!((m.text.as_str(), m.tool_calls.len(), m.tool_calls[0].id.as_str()), ("Hi", 1, "call_9"));
}

#[test]
fn responses_argument_deltas_match_by_item_id_even_when_output_index_disagrees() {
    let m = run(
        &named(&[
            created(),
            json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "function_call", "id": "fc_a", "call_id": "call_a", "name": "a", "arguments": ""}}),
            json!({"type": "response.output_item.added", "output_index": 1, "item": {"type": "function_call", "id": "fc_b", "call_id": "call_b", "name": "b", "arguments": ""}}),
            json!({"type": "response.function_call_arguments.delta", "output_index": 1, "item_id": "fc_a", "delta": "{\"x\":"}),
            json!({"type": "response.function_call_arguments.delta", "output_index": 0, "item_id": "fc_b", "delta": "{\"y\":2}"}),
            json!({"type": "response.function_call_arguments.delta", "output_index": 1, "item_id": "fc_a", "delta": "1}"}),
            completed(json!({})),
        ]),
        Format::OpenAiResponses,
    );
    let args: Vec<_> = m.tool_calls.iter().map(|c| (c.id.as_str(), c.arguments.as_str())).collect();
    assert_eq!(args, [("call_a", "{\"x\":1}"), ("call_b", "{\"y\":2}")]);
}

#[test]
fn a_responses_stream_without_event_lines_decodes_the_same() {
    let events = [
        created(),
        json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "reasoning", "id": "rs_1", "summary": []}}),
        json!({"type": "response.reasoning_summary_text.delta", "output_index": 0, "item_id": "rs_1", "summary_index": 0, "delta": "think"}),
        json!({"type": "response.output_item.added", "output_index": 1, "item": {"type": "message", "id": "m", "content": []}}),
        json!({"type": "response.output_text.delta", "output_index": 1, "item_id": "m", "content_index": 0, "delta": "answer"}),
        completed(json!({"input_tokens": 1, "output_tokens": 2})),
    ];
    let with = run(&named(&events), Format::OpenAiResponses);
    let without = run(&unnamed(&events), Format::OpenAiResponses);
    assert_eq!(with, without);
    assert_eq!((with.reasoning.as_str(), with.text.as_str(), with.complete), ("think", "answer", true));
}

#[test]
fn a_responses_refusal_is_a_terminal_determinate_error() {
    let m = run(
        &named(&[
            created(),
            json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "message", "id": "m", "content": []}}),
            json!({"type": "response.refusal.delta", "output_index": 0, "item_id": "m", "content_index": 0, "delta": "No."}),
            json!({"type": "response.output_item.done", "output_index": 0, "item": {"type": "message", "id": "m", "content": [{"type": "refusal", "refusal": "No."}]}}),
            completed(json!({})),
        ]),
        Format::OpenAiResponses,
    );
    let error = m.error.unwrap();
    assert_eq!(error.message, "Model refused: No.", "given once, not again by output_item.done");
    assert_eq!(m.finish_reason, FinishReason::Refusal);
}

#[test]
fn a_responses_error_event_then_failed_keeps_the_first_error_and_the_text() {
    let m = run(
        &named(&[
            created(),
            json!({"type": "response.output_text.delta", "output_index": 0, "item_id": "m", "content_index": 0, "delta": "part"}),
            json!({"type": "error", "code": "server_error", "message": "Something broke"}),
            json!({"type": "response.failed", "response": {"id": "resp_1", "status": "failed", "error": {"code": "other", "message": "later"}}}),
        ]),
        Format::OpenAiResponses,
    );
    assert_eq!(m.text, "part");
    let error = m.error.unwrap();
    assert_eq!(
        (error.message.as_str(), error.code.as_deref(), error.retryable),
        ("Something broke", Some("server_error"), Some(true))
    );
    assert!(!m.complete);
}

#[test]
fn a_responses_incomplete_stream_reports_length() {
    let m = run(
        &named(&[
            created(),
            json!({"type": "response.output_text.delta", "output_index": 0, "item_id": "m", "content_index": 0, "delta": "cut"}),
            json!({"type": "response.incomplete", "response": {"id": "resp_1", "status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}}),
        ]),
        Format::OpenAiResponses,
    );
    assert_eq!((m.finish_reason, m.raw_finish_reason.as_deref()), (FinishReason::Length, Some("max_output_tokens")));
}

#[test]
fn anthropic_citations_sent_before_their_text_belong_to_their_own_block() {
    let m = run(
        &named(&[
            message_start(),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Intro. "}}),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": "", "citations": []}}),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "citations_delta", "citation": {"type": "web_search_result_location", "url": "https://example.com"}}}),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Cited."}}),
            json!({"type": "content_block_stop", "index": 1}),
            json!({"type": "message_stop"}),
        ]),
        Format::Anthropic,
    );
    let blocks: Vec<_> = m
        .content
        .iter()
        .map(|b| match b {
            Block::Text { text, citations, .. } => (text.as_str(), citations.as_ref().map_or(0, Vec::len)),
            _ => ("?", 0),
        })
        .collect();
    assert_eq!(blocks, [("Intro. ", 0), ("Cited.", 1)]);
}

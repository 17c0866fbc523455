//! The OpenAI Chat quirks of real servers, one named test each, on generated streams; each
//! stream is also checked at every split point and one byte at a time.
#![cfg(not(target_arch = "wasm32"))]

use llm_wire::{Accumulator, AccumulatorOptions, FinalMessage, FinishReason, Format, Outcome, StreamEvent};
use serde_json::{json, Value};

/// An SSE body of `data:` events; strings are sent as-is, values as JSON.
fn sse(events: &[Value]) -> Vec<u8> {
    let mut body = String::new();
    for e in events {
        match e {
            Value::String(s) => body.push_str(&format!("data: {s}\n\n")),
            v => body.push_str(&format!("data: {v}\n\n")),
        }
    }
    body.into_bytes()
}

fn chunk(delta: Value) -> Value {
    json!({"id": "c1", "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": null}]})
}

fn finish(reason: &str) -> Value {
    json!({"id": "c1", "choices": [{"index": 0, "delta": {}, "finish_reason": reason}]})
}

fn run_with(pieces: &[&[u8]]) -> (FinalMessage, Vec<StreamEvent>) {
    let mut acc = Accumulator::new(AccumulatorOptions { format: Format::OpenAiChat, ..Default::default() });
    let mut events = Vec::new();
    for p in pieces {
        events.extend_from_slice(acc.push(p).unwrap());
    }
    events.extend_from_slice(acc.flush());
    (acc.finish(), events)
}

/// The final message, after checking it is the same at every cut and byte by byte.
fn run(body: &[u8]) -> (FinalMessage, Vec<StreamEvent>) {
    let whole = run_with(&[body]);
    for cut in 0..=body.len() {
        let (a, b) = body.split_at(cut);
        assert_eq!(run_with(&[a, b]).0, whole.0, "differs when cut at byte {cut}");
    }
    let bytes: Vec<&[u8]> = body.chunks(1).collect();
    assert_eq!(run_with(&bytes).0, whole.0, "differs fed byte by byte");
    whole
}

fn calls(m: &FinalMessage) -> Vec<(String, String, String)> {
    m.tool_calls.iter().map(|c| (c.id.clone(), c.name.clone(), c.arguments.clone())).collect()
}

fn call(id: &str, name: &str, args: &str) -> (String, String, String) {
    (id.into(), name.into(), args.into())
}

#[test]
fn tool_calls_without_index_assemble_by_id_then_by_latest() {
    let (m, _) = run(&sse(&[
        chunk(json!({"tool_calls": [{"id": "a", "function": {"name": "f", "arguments": "{\"x\""}}]})),
        chunk(json!({"tool_calls": [{"function": {"arguments": ":1}"}}]})),
        chunk(json!({"tool_calls": [{"id": "b", "function": {"name": "g", "arguments": "{}"}}]})),
        finish("tool_calls"),
        json!("[DONE]"),
    ]));
    assert_eq!(calls(&m), vec![call("a", "f", "{\"x\":1}"), call("b", "g", "{}")]);
    assert_eq!(m.finish_reason, FinishReason::ToolCalls);
}

#[test]
fn an_empty_id_on_continuations_continues_the_call_at_its_index() {
    let (m, _) = run(&sse(&[
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "a", "type": "function", "function": {"name": "f", "arguments": ""}}]}),
        ),
        chunk(
            json!({"tool_calls": [{"index": 1, "id": "b", "type": "function", "function": {"name": "g", "arguments": "{\"q\":"}}]}),
        ),
        chunk(json!({"tool_calls": [{"index": 0, "id": "", "function": {"arguments": "{\"p\":2}"}}]})),
        chunk(json!({"tool_calls": [{"index": 1, "id": "", "function": {"arguments": "3}"}}]})),
        finish("tool_calls"),
    ]));
    assert_eq!(calls(&m), vec![call("a", "f", "{\"p\":2}"), call("b", "g", "{\"q\":3}")]);
}

#[test]
fn index_zero_reused_with_new_ids_gives_separate_calls() {
    let (m, _) = run(&sse(&[
        chunk(json!({"tool_calls": [{"index": 0, "id": "a", "function": {"name": "f", "arguments": "{\"n\":"}}]})),
        chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "1}"}}]})),
        chunk(json!({"tool_calls": [{"index": 0, "id": "b", "function": {"name": "f", "arguments": "{\"n\":"}}]})),
        chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "2}"}}]})),
        finish("tool_calls"),
    ]));
    assert_eq!(calls(&m), vec![call("a", "f", "{\"n\":1}"), call("b", "f", "{\"n\":2}")]);
}

/// Regression (separate tool calls merge): one delta listing several calls with no id and no
/// index gave one call with the arguments run together. Each entry of a list is a call; and
/// across deltas a name given to a call that has one starts a new call.
#[test]
fn separate_tool_calls_merge_is_fixed_for_calls_without_id_or_index() {
    let entry = |name: &str, args: &str| json!({"type": "function", "function": {"name": name, "arguments": args}});
    let (m, _) = run(&sse(&[
        chunk(json!({"tool_calls": [entry("f", "{\"a\":1}"), entry("g", "{\"b\":2}")]})),
        chunk(json!({"tool_calls": [entry("f", "{\"c\":")]})),
        chunk(json!({"tool_calls": [{"function": {"arguments": "3}"}}]})),
        finish("tool_calls"),
        json!("[DONE]"),
    ]));
    let expected =
        [call("call_c1_0", "f", "{\"a\":1}"), call("call_c1_1", "g", "{\"b\":2}"), call("call_c1_2", "f", "{\"c\":3}")];
    assert_eq!(calls(&m), expected);
}

/// Regression (separate tool calls merge): two entries of one delta sharing an id are two calls.
#[test]
fn separate_tool_calls_merge_is_fixed_for_entries_sharing_an_id() {
    let entry = |args: &str| json!({"id": "a", "function": {"name": "f", "arguments": args}});
    let (m, _) = run(&sse(&[
        chunk(json!({"tool_calls": [entry("{\"a\":1}"), entry("{\"b\":2}")]})),
        finish("tool_calls"),
        json!("[DONE]"),
    ]));
    assert_eq!(calls(&m), vec![call("a", "f", "{\"a\":1}"), call("a", "f", "{\"b\":2}")]);
}

/// A complete call sent again under its id (some servers restate it in a later chunk) does not
/// double its arguments; a continuation that carries the id still adds to them.
#[test]
fn a_complete_call_sent_again_with_the_same_id_keeps_its_arguments_once() {
    let whole = json!({"index": 0, "id": "a", "function": {"name": "f", "arguments": "{\"q\":1}"}});
    let (m, events) = run(&sse(&[
        chunk(json!({"tool_calls": [whole.clone()]})),
        chunk(json!({"tool_calls": [whole]})),
        chunk(json!({"tool_calls": [{"index": 1, "id": "b", "function": {"name": "g", "arguments": "{\"r\":"}}]})),
        chunk(json!({"tool_calls": [{"index": 1, "id": "b", "function": {"arguments": "2}"}}]})),
        finish("tool_calls"),
        json!("[DONE]"),
    ]));
    assert_eq!(calls(&m), vec![call("a", "f", "{\"q\":1}"), call("b", "g", "{\"r\":2}")]);
    let deltas: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolCallDelta { index: 0, arguments_delta, .. } => Some(arguments_delta.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas.concat(), "{\"q\":1}");
}

/// Regression (separate tool calls merge) for bodies: `process` and `toMessage` give one call
/// per `tool_calls` entry (§8.1), with no id, with a shared id, with the same arguments.
#[test]
fn separate_tool_calls_merge_is_fixed_in_bodies() {
    let body = |entries: Value| {
        json!({"id": "c", "object": "chat.completion", "choices": [{"index": 0, "finish_reason": "tool_calls",
            "message": {"role": "assistant", "content": null, "tool_calls": entries}}]})
        .to_string()
    };
    let entry = |id: Option<&str>, args: &str| {
        let mut e = json!({"type": "function", "function": {"name": "f", "arguments": args}});
        if let Some(id) = id {
            e["id"] = json!(id);
        }
        e
    };
    let cases = [
        (json!([entry(None, "{\"a\":1}"), entry(None, "{\"b\":2}")]), ["call_c_0", "call_c_1"]),
        (json!([entry(Some("x"), "{\"a\":1}"), entry(Some("x"), "{\"b\":2}")]), ["x", "x"]),
        (json!([entry(Some("x"), "{\"a\":1}"), entry(Some("x"), "{\"a\":1}")]), ["x", "x"]),
    ];
    for (entries, ids) in cases {
        let text = body(entries.clone());
        let message = llm_wire::to_message(&text, None).unwrap();
        let expected: Vec<_> = entries
            .as_array()
            .unwrap()
            .iter()
            .zip(ids)
            .map(|(e, id)| call(id, "f", e["function"]["arguments"].as_str().unwrap()))
            .collect();
        assert_eq!(calls(&message), expected, "{text}");
        assert_eq!(message.content.len(), 2, "{text}");
        let agent = llm_wire::Agent::from_json(&llm_wire::Value::from(json!({"model": "m"}))).unwrap();
        let result = llm_wire::process(&agent, &text).unwrap();
        let llm_wire::ProcessResult::ToolCalls(result) = result else { panic!("tool calls: {result:?}") };
        assert_eq!(result.len(), 2, "{text}");
    }
}

#[test]
fn tool_call_events_start_grow_and_end_with_the_complete_arguments() {
    let (_, events) = run(&sse(&[
        chunk(json!({"tool_calls": [{"index": 0, "id": "a", "function": {"name": "f", "arguments": "{\"k\":"}}]})),
        chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "\"v\"}"}}]})),
        finish("tool_calls"),
    ]));
    let start = events
        .iter()
        .position(|e| matches!(e, StreamEvent::ToolCallStart { index: 0, id, name, .. } if id == "a" && name == "f"));
    let end = events.iter().position(
        |e| matches!(e, StreamEvent::ToolCallEnd { index: 0, arguments, .. } if arguments == "{\"k\":\"v\"}"),
    );
    assert!(start.is_some() && end.is_some() && start < end, "{events:?}");
    let deltas: String = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolCallDelta { arguments_delta, .. } => Some(arguments_delta.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas, "{\"k\":\"v\"}");
}

#[test]
fn a_refusal_is_a_terminal_determinate_error() {
    let (m, events) = run(&sse(&[
        chunk(json!({"refusal": "I can't"})),
        chunk(json!({"refusal": " help with that."})),
        finish("stop"),
        json!("[DONE]"),
    ]));
    let error = m.error.as_ref().unwrap();
    assert_eq!(error.message, "Model refused: I can't help with that.");
    assert_eq!(error.code.as_deref(), Some("model_refused"));
    assert_eq!(error.outcome, Outcome::Determinate);
    assert_eq!(m.finish_reason, FinishReason::Refusal);
    assert!(!m.complete);
    assert_eq!(events.iter().filter(|e| matches!(e, StreamEvent::Error { .. })).count(), 1);
    assert_eq!(m.result(false).unwrap_err().code, llm_wire::ErrorCode::ModelRefused);
}

#[test]
fn usage_from_a_choices_free_chunk_is_normalised() {
    let (m, _) = run(&sse(&[
        chunk(json!({"content": "hi"})),
        finish("stop"),
        json!({"choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15,
            "prompt_tokens_details": {"cached_tokens": 4}, "completion_tokens_details": {"reasoning_tokens": 2}}}),
        json!("[DONE]"),
    ]));
    let usage = m.usage.unwrap();
    assert_eq!((usage.input_tokens, usage.output_tokens, usage.total_tokens), (10, 5, 15));
    assert_eq!((usage.reasoning_tokens, usage.cache_read_tokens), (Some(2), Some(4)));
    assert_eq!(serde_json::from_str::<Value>(usage.raw.get()).unwrap()["prompt_tokens"], 10);
}

#[test]
fn usage_inside_x_groq_is_read() {
    let (m, _) = run(&sse(&[
        chunk(json!({"content": "hi"})),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
               "x_groq": {"id": "r", "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}}}),
    ]));
    assert_eq!(m.usage.unwrap().total_tokens, 4);
}

#[test]
fn cumulative_usage_restated_on_every_chunk_keeps_the_latest_and_emits_it_at_the_finish() {
    let u = |n: u64| json!({"prompt_tokens": 1, "completion_tokens": n, "total_tokens": 1 + n});
    let chunks = [
        json!({"choices": [{"index": 0, "delta": {"content": "a"}}], "usage": u(1)}),
        json!({"choices": [{"index": 0, "delta": {"content": "b"}}], "usage": u(1)}),
        json!({"choices": [{"index": 0, "delta": {"content": "c"}, "finish_reason": "stop"}], "usage": u(3)}),
    ];
    let usages = |events: &[StreamEvent]| events.iter().filter(|e| matches!(e, StreamEvent::Usage { .. })).count();
    // A push per chunk: the running counts are held until the choice finishes, then one event.
    let pieces: Vec<Vec<u8>> = chunks.iter().map(|c| sse(std::slice::from_ref(c))).collect();
    let (m, events) = run_with(&pieces.iter().map(Vec::as_slice).collect::<Vec<_>>());
    assert_eq!(m.usage.unwrap().output_tokens, 3);
    assert_eq!(usages(&events), 1);
    let finish = events.iter().position(|e| matches!(e, StreamEvent::Finish { .. })).unwrap();
    assert!(matches!(&events[finish + 1], StreamEvent::Usage { usage } if usage.output_tokens == 3), "{events:?}");
    // One push: one event, the latest.
    let (m, events) = run(&sse(&chunks));
    assert_eq!(m.usage.unwrap().output_tokens, 3);
    assert_eq!(usages(&events), 1);
}

#[test]
fn the_whole_answer_and_finish_in_one_chunk_is_complete() {
    let (m, _) = run(&sse(&[
        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": "All of it."}, "finish_reason": "stop"}]}),
    ]));
    assert_eq!(m.text, "All of it.");
    assert!(m.complete);
    assert_eq!(m.raw_finish_reason.as_deref(), Some("stop"));
}

#[test]
fn bytes_that_stop_before_the_end_keep_the_text_and_are_incomplete() {
    let (m, _) = run(&sse(&[chunk(json!({"content": "Hello"})), chunk(json!({"content": " wor"}))]));
    assert_eq!(m.text, "Hello wor");
    assert!(!m.complete);
    assert!(m.error.is_none());
    assert_eq!(m.raw_finish_reason, None);
}

#[test]
fn an_error_inside_an_ordinary_chunk_ends_the_message_in_error() {
    let (m, _) = run(&sse(&[
        chunk(json!({"content": "par"})),
        json!({"error": {"code": 502, "message": "Upstream error"}, "choices": [{"index": 0, "delta": {"content": "tial"}}]}),
        json!("[DONE]"),
    ]));
    assert_eq!(m.text, "partial");
    let error = m.error.unwrap();
    assert_eq!(
        (error.message.as_str(), error.code.as_deref(), error.retryable),
        ("Upstream error", Some("502"), Some(true))
    );
    assert!(!m.complete);
    assert_eq!(m.finish_reason, FinishReason::Error);
}

#[test]
fn an_error_event_carries_the_provider_code_and_keeps_the_text() {
    let mut body = sse(&[chunk(json!({"content": "so far"}))]);
    body.extend_from_slice(
        b"event: error\ndata: {\"error\":{\"message\":\"Rate limited\",\"type\":\"rate_limit_exceeded\"}}\n\n",
    );
    let (m, _) = run(&body);
    assert_eq!(m.text, "so far");
    let error = m.error.unwrap();
    assert_eq!(error.code.as_deref(), Some("rate_limit_exceeded"));
    assert_eq!(error.retryable, Some(true));
}

#[test]
fn a_malformed_chunk_becomes_an_error_event_and_the_stream_goes_on() {
    let (m, events) = run(&sse(&[
        chunk(json!({"content": "a"})),
        json!("{not json"),
        chunk(json!({"content": "b"})),
        finish("stop"),
    ]));
    assert_eq!(m.text, "ab");
    assert!(events
        .iter()
        .any(|e| matches!(e, StreamEvent::Error { error } if error.code.as_deref() == Some("invalid_json"))));
    assert!(!m.complete, "a lost event means the message may be missing text");
}

#[test]
fn n_greater_than_one_keeps_choices_apart() {
    let (m, _) = run(&sse(&[
        json!({"choices": [{"index": 0, "delta": {"content": "A"}}, {"index": 1, "delta": {"content": "B"}}]}),
        json!({"choices": [{"index": 1, "delta": {"content": "b"}, "finish_reason": "length"}]}),
        json!({"choices": [{"index": 0, "delta": {"content": "a"}, "finish_reason": "stop"}]}),
        json!("[DONE]"),
    ]));
    assert_eq!(m.text, "Aa");
    let choices = m.choices.unwrap();
    assert_eq!(choices.len(), 2);
    assert_eq!((choices[1].text.as_str(), choices[1].finish_reason), ("Bb", FinishReason::Length));
}

#[test]
fn think_tags_cut_across_chunks_never_leak_into_text() {
    let pieces = ["<thi", "nk>plan", " it</th", "ink>\n\nAns", "wer <", "b>bold</b>"];
    let mut events: Vec<Value> = pieces.iter().map(|p| chunk(json!({"content": p}))).collect();
    events.push(finish("stop"));
    let (m, _) = run(&sse(&events));
    assert_eq!(m.reasoning, "plan it");
    assert_eq!(m.text, "\n\nAnswer <b>bold</b>");
}

#[test]
fn text_that_looks_like_a_tag_start_at_the_very_end_is_released() {
    let (m, events) = run(&sse(&[chunk(json!({"content": "a <thin"}))]));
    assert_eq!(m.text, "a <thin");
    let streamed: String = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Text { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(streamed, "a <thin", "held-back text is emitted by flush");
}

#[test]
fn minimax_thinking_tags_become_reasoning() {
    let (m, _) = run(&sse(&[
        chunk(json!({"content": "<|im_start|>think"})),
        chunk(json!({"content": "ing分析<|im_e"})),
        chunk(json!({"content": "nd|>回复"})),
        finish("stop"),
    ]));
    assert_eq!((m.reasoning.as_str(), m.text.as_str()), ("分析", "回复"));
}

#[test]
fn reasoning_fields_of_every_server_are_read() {
    let (m, _) = run(&sse(&[
        chunk(json!({"reasoning_content": "a"})),
        chunk(json!({"reasoning": "b"})),
        chunk(
            json!({"content": [{"type": "thinking", "thinking": [{"type": "text", "text": "c"}]}, {"type": "text", "text": "T"}]}),
        ),
        finish("stop"),
    ]));
    assert_eq!((m.reasoning.as_str(), m.text.as_str()), ("abc", "T"));
    assert!(matches!(m.content.as_slice(), [llm_wire::Block::Reasoning { .. }, llm_wire::Block::Text { .. }]));
}

#[test]
fn an_object_of_chat_completion_done_ends_the_stream() {
    let (m, _) = run(&sse(&[chunk(json!({"content": "x"})), json!({"object": "chat.completion.done", "choices": []})]));
    assert!(m.complete);
}

#[test]
fn odd_field_types_do_not_cost_the_chunk() {
    let (m, _) = run(&sse(&[
        json!({"id": 7, "choices": [{"index": 0, "delta": {"content": "ok", "reasoning": {"x": 1}, "refusal": null}, "finish_reason": null}], "usage": "n/a"}),
    ]));
    assert_eq!(m.text, "ok");
    assert_eq!(m.id.as_deref(), Some("7"));
    assert!(m.error.is_none());
}

#[test]
fn a_surrogate_pair_split_across_chunks_costs_no_chunk() {
    // A server cutting by UTF-16 code units: 🎉 is \ud83c\udf89, sent half per chunk.
    let body = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\\ud83c\"}}]}\n\n\
data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\\udf89b\"},\"finish_reason\":\"stop\"}]}\n\n";
    let (m, _) = run(body);
    assert_eq!(m.text, "a\u{fffd}\u{fffd}b", "each half becomes U+FFFD; no text around it is lost");
    assert!(m.error.is_none());
}

#[test]
fn odd_structure_types_do_not_cost_the_chunk_either() {
    // Each of these made the old serde-typed reader refuse the whole chunk.
    let (m, _) = run(&sse(&[
        json!({"choices": [{"index": "0", "delta": {"content": "a", "tool_calls": "none"}}]}),
        json!({"choices": [5, {"index": 0, "delta": {"content": [{"type": "text", "text": "b"}, "stray"]}}]}),
        json!({"choices": [{"index": 0, "delta": {"content": "c"}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 3, "completion_tokens": 2, "prompt_tokens_details": 1}}),
    ]));
    assert_eq!(m.text, "abc");
    assert!(m.error.is_none());
    let usage = m.usage.unwrap();
    assert_eq!((usage.input_tokens, usage.output_tokens, usage.total_tokens), (3, 2, 5));
}

#[test]
fn an_error_given_as_a_bare_string_is_an_error_not_invalid_json() {
    let (m, _) = run(&sse(&[chunk(json!({"content": "so far"})), json!({"error": "model overloaded"})]));
    assert_eq!(m.text, "so far");
    let error = m.error.unwrap();
    assert_eq!(error.message, "model overloaded");
    assert_ne!(error.code.as_deref(), Some("invalid_json"));
}

/// Mistral and older vLLM send a failure mid-stream as a chunk that is the error itself,
/// `{object: "error", message, type, code}`: it is the stream's provider error, the text before
/// it kept; an ordinary chunk with such members beside its choices is no error.
#[test]
fn an_error_object_chunk_is_the_stream_s_provider_error() {
    let (m, events) = run(&sse(&[
        chunk(json!({"content": "Hel"})),
        json!({"object": "chat.completion.chunk", "message": "m", "type": "t", "code": 1, "detail": "d",
               "choices": [{"index": 0, "delta": {"content": "lo"}}]}),
        json!({"object": "error", "message": "The model ran out of KV cache", "type": "InternalServerError",
               "param": null, "code": 500}),
        json!("[DONE]"),
    ]));
    assert_eq!(m.text, "Hello");
    assert!(!m.complete);
    assert_eq!(m.finish_reason, FinishReason::Error);
    let error = m.error.as_ref().unwrap();
    assert_eq!(error.message, "The model ran out of KV cache");
    assert_eq!(
        (error.provider_type.as_deref(), error.provider_code.as_deref()),
        (Some("InternalServerError"), Some("500"))
    );
    assert_eq!((error.outcome, error.retryable), (Outcome::Determinate, Some(true)));
    assert_eq!(events.iter().filter(|e| matches!(e, StreamEvent::Error { .. })).count(), 1);
    let err = m.result(false).unwrap_err();
    assert_eq!((err.code, err.message.as_str()), (llm_wire::ErrorCode::ProviderError, "The model ran out of KV cache"));
}

/// The legacy `function_call` (before `tool_calls`) is one tool call: its name opens it, with an
/// id made from the response id as for Gemini's calls (it has none), and the deltas after it
/// continue it; `finish_reason: "function_call"` is `tool_calls`. A body gives the same message.
#[test]
fn a_legacy_function_call_is_one_tool_call() {
    let (m, events) = run(&sse(&[
        chunk(json!({"role": "assistant", "content": null, "function_call": {"name": "f", "arguments": ""}})),
        chunk(json!({"function_call": {"arguments": "{\"a\""}})),
        chunk(json!({"function_call": {"arguments": ":1}"}})),
        finish("function_call"),
        json!("[DONE]"),
    ]));
    assert_eq!(calls(&m), [call("call_c1_0", "f", r#"{"a":1}"#)]);
    assert_eq!(
        (m.finish_reason, m.raw_finish_reason.as_deref(), m.complete),
        (FinishReason::ToolCalls, Some("function_call"), true)
    );
    let ends: Vec<_> = events.iter().filter(|e| matches!(e, StreamEvent::ToolCallEnd { .. })).collect();
    assert_eq!(ends.len(), 1);

    let body = json!({"id": "c1", "object": "chat.completion", "model": "m", "choices": [{"index": 0,
        "message": {"role": "assistant", "content": null, "function_call": {"name": "f", "arguments": "{\"a\":1}"}},
        "finish_reason": "function_call"}]});
    assert_eq!(llm_wire::to_message(body.to_string().as_str(), None).unwrap(), m);
    let result = llm_wire::process(&llm_wire::Agent::new("m"), body.to_string().as_str()).unwrap();
    assert_eq!(result, llm_wire::ProcessResult::ToolCalls(m.tool_calls.clone()));

    // Without a response id the id is `call_<n>`.
    let body = json!({"choices": [{"message": {"function_call": {"name": "g", "arguments": "{}"}}}]});
    let m = llm_wire::to_message(body.to_string().as_str(), None).unwrap();
    assert_eq!(calls(&m), [call("call_0", "g", "{}")]);
}

/// The text blocks of `m`, each with its citations parsed.
fn cited_blocks(m: &FinalMessage) -> Vec<(String, Vec<Value>)> {
    let cited = |c: &llm_wire::model::RawJson| serde_json::from_str::<Value>(c.get()).unwrap();
    m.content
        .iter()
        .filter_map(|b| match b {
            llm_wire::Block::Text { text, citations, .. } => {
                Some((text.clone(), citations.iter().flatten().map(cited).collect()))
            }
            _ => None,
        })
        .collect()
}

/// Chat `url_citation` annotations (OpenAI's search models, in the message or with the last
/// text delta) are the text block's citations, each kept whole, as the Responses annotations
/// are; the body gives the same message as its stream.
#[test]
fn url_citation_annotations_are_the_text_block_s_citations() {
    let annotation = json!({"type": "url_citation",
        "url_citation": {"url": "https://example.com", "title": "Example", "start_index": 4, "end_index": 11}});
    let (m, _) = run(&sse(&[
        chunk(json!({"role": "assistant", "content": "See "})),
        chunk(json!({"content": "example", "annotations": [annotation]})),
        finish("stop"),
        json!("[DONE]"),
    ]));
    assert_eq!(cited_blocks(&m), [("See example".to_owned(), vec![annotation.clone()])]);
    let body = json!({"id": "c1", "model": "m", "choices": [{"index": 0, "finish_reason": "stop",
        "message": {"role": "assistant", "content": "See example", "annotations": [annotation]}}]});
    assert_eq!(llm_wire::to_message(body.to_string().as_str(), None).unwrap(), m);
    // An empty list, or one that is not a list, is no citation.
    for annotations in [json!([]), json!({"type": "url_citation"}), json!(null)] {
        let body = json!({"choices": [{"message": {"content": "x", "annotations": annotations}}]});
        let m = llm_wire::to_message(body.to_string().as_str(), None).unwrap();
        assert_eq!(m.content, [llm_wire::Block::text("x")], "{annotations}");
    }
}

/// OpenRouter's web search sends its annotations first, with empty content: they open the text
/// block the answer then fills (a recorded stream).
#[test]
fn openrouter_annotations_before_the_text_cite_the_text_that_follows() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/openrouter/pyd-web-search-annotations-stream.sse");
    let (m, _) = run_with(&[&std::fs::read(path).unwrap()]);
    let blocks = cited_blocks(&m);
    assert_eq!(blocks.len(), 1);
    let (text, citations) = &blocks[0];
    assert!(text.starts_with("The URL for Pydantic AI's GitHub repository is:"), "{text}");
    let urls: Vec<_> = citations.iter().map(|c| c["url_citation"]["url"].as_str().unwrap()).collect();
    assert_eq!(
        urls,
        [
            "https://github.com/pydantic/pydantic-ai",
            "https://pydantic.dev/pydantic-ai",
            "https://github.com/pydantic/pydantic-ai/releases/tag/v2.0.0",
            "https://pydantic.dev/docs/ai/overview/",
            "https://github.com/pydantic/pydantic-ai/tree/refs/tags/v1.44.0",
        ]
    );
    assert!(citations.iter().all(|c| c["type"] == "url_citation"));
}

/// An audio answer (`modalities: ["text", "audio"]`) has null content: its `audio.transcript`
/// is the text, streamed in pieces beside the audio data, or whole in a body, where `process`
/// returns it.
#[test]
fn an_audio_answer_s_transcript_is_its_text() {
    let (m, _) = run(&sse(&[
        chunk(json!({"role": "assistant", "content": null, "audio": {"id": "audio_1", "transcript": "Hello"}})),
        chunk(json!({"audio": {"transcript": " there"}})),
        chunk(json!({"audio": {"data": "UklGRg=="}})),
        chunk(json!({"audio": {"id": "audio_1", "expires_at": 1729018505}})),
        finish("stop"),
        json!("[DONE]"),
    ]));
    assert_eq!((m.text.as_str(), m.complete), ("Hello there", true));
    let body = json!({"id": "c1", "model": "m", "choices": [{"index": 0, "finish_reason": "stop", "message": {
        "role": "assistant", "content": null, "refusal": null,
        "audio": {"id": "audio_1", "data": "UklGRg==", "expires_at": 1729018505, "transcript": "Hello there"}}}]});
    assert_eq!(llm_wire::to_message(body.to_string().as_str(), None).unwrap(), m);
    let result = llm_wire::process(&llm_wire::Agent::new("m"), body.to_string().as_str()).unwrap();
    assert_eq!(result, llm_wire::ProcessResult::Text("Hello there".into()));
}

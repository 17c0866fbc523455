//! Bodies of 100,000 items through `process`, `to_message` and what reads their results (the
//! span, the continuity message, the output parsers): each result checked in full. A piece of
//! these paths that is quadratic in its items would take minutes here; no test measures time.

use llm_wire::model::{Model, Property};
use llm_wire::process::message_span;
use llm_wire::{
    parse_structured_output, parse_tool_arguments, process, to_message, Agent, Block, ProcessResult, StructuredOptions,
    ToolCall, Value,
};

const N: usize = 100_000;

fn agent(provider: &str, api_type: &str) -> Agent {
    Agent {
        model: Model { id: "m".into(), provider: provider.into(), api_type: api_type.into(), ..Model::default() },
        ..Agent::default()
    }
}

/// `{"<key>": [items]}` with each item written by `item`.
fn body_with(key: &str, item: impl Fn(usize) -> String, rest: &str) -> String {
    let items: Vec<String> = (0..N).map(item).collect();
    format!("{{\"{key}\": [{}]{rest}}}", items.join(","))
}

#[test]
fn a_chat_body_of_100_000_choices_in_descending_order_gives_them_in_index_order() {
    let body = body_with(
        "choices",
        |i| {
            let index = N - 1 - i;
            format!(r#"{{"index": {index}, "message": {{"content": "c{index}"}}, "finish_reason": "stop"}}"#)
        },
        r#", "id": "x""#,
    );
    let message = to_message(body.as_str(), None).unwrap();
    let choices = message.choices.as_deref().unwrap();
    assert_eq!(choices.len(), N);
    assert!(choices.iter().enumerate().all(|(i, c)| c.text == format!("c{i}")));
    let span = message_span(None, &message);
    assert_eq!(span.attributes["gen_ai.response.finish_reasons"].as_array().map(Vec::len), Some(N));
    // §8.1: the result is choice 0's.
    assert_eq!(process(&agent("openai", "chat"), body.as_str()).unwrap(), ProcessResult::Text("c0".into()));
}

#[test]
fn a_chat_message_of_100_000_tool_calls_gives_every_call_and_action() {
    let calls = body_with(
        "tool_calls",
        |i| {
            format!(
                r#"{{"index": {i}, "id": "call_{i}", "type": "function", "function": {{"name": "f", "arguments": "{{\"i\": {i}}}"}}}}"#
            )
        },
        "",
    );
    let body = format!(r#"{{"choices": [{{"index": 0, "message": {calls}, "finish_reason": "tool_calls"}}]}}"#);
    let ProcessResult::ToolCalls(calls) = process(&agent("openai", "chat"), body.as_str()).unwrap() else {
        panic!("tool calls")
    };
    assert_eq!(calls.len(), N);
    assert!(calls.iter().enumerate().all(|(i, c)| c.id == format!("call_{i}")));
    let actions = parse_tool_arguments(&calls).unwrap();
    assert!(actions.iter().enumerate().all(|(i, a)| a.arguments["i"] == i as u64));
}

#[test]
fn an_embeddings_body_of_100_000_items_in_descending_order_gives_them_in_index_order() {
    let body = body_with("data", |i| format!(r#"{{"index": {}, "embedding": [{i}, 0.5]}}"#, N - 1 - i), "");
    let ProcessResult::Vectors(vectors) = process(&agent("openai", "embedding"), body.as_str()).unwrap() else {
        panic!("vectors")
    };
    assert_eq!(vectors.len(), N);
    assert!(vectors.iter().enumerate().all(|(i, v)| v[..] == [(N - 1 - i) as f64, 0.5]));
    // A bad element in the last item is found, and named by its place.
    let last = N - 1;
    let bad = body.replacen(&format!("[{last}, 0.5]"), &format!("[{last}, 1e400]"), 1);
    let err = process(&agent("openai", "embedding"), bad.as_str()).unwrap_err();
    assert_eq!(err.path, Some(format!("data[{last}].embedding")));
}

#[test]
fn an_images_body_of_100_000_items_gives_every_image_in_order() {
    let body = body_with("data", |i| format!(r#"{{"url": "https://x/{i}.png", "b64_json": "AAAA"}}"#), "");
    let ProcessResult::Strings(images) = process(&agent("openai", "image"), body.as_str()).unwrap() else {
        panic!("images")
    };
    assert_eq!(images.len(), N);
    assert!(images.iter().enumerate().all(|(i, url)| *url == format!("https://x/{i}.png")));
}

#[test]
fn a_responses_body_of_100_000_output_items_keeps_every_item() {
    // A message, a function call, a reasoning item and one kept whole, in turn.
    let body = body_with(
        "output",
        |i| match i % 4 {
            0 => format!(r#"{{"type": "message", "content": [{{"type": "output_text", "text": "t{i} "}}]}}"#),
            1 => format!(
                r#"{{"type": "function_call", "id": "fc_{i}", "call_id": "call_{i}", "name": "f", "arguments": "{{}}"}}"#
            ),
            2 => format!(r#"{{"type": "reasoning", "summary": [{{"type": "summary_text", "text": "r{i}"}}]}}"#),
            _ => format!(r#"{{"type": "web_search_call", "id": "ws_{i}"}}"#),
        },
        r#", "object": "response", "status": "completed""#,
    );
    let message = to_message(body.as_str(), None).unwrap();
    assert_eq!(message.content.len(), N);
    assert_eq!(message.tool_calls.len(), N / 4);
    assert!(message.tool_calls.iter().enumerate().all(|(k, c)| c.id == format!("call_{}", 4 * k + 1)));
    assert!(message.text.starts_with("t0 t4 ") && message.text.ends_with(&format!("t{} ", N - 4)));
    let others = message.content.iter().filter(|b| matches!(b, Block::Other { .. })).count();
    assert_eq!(others, N / 4);
    let span = message_span(None, &message);
    assert_eq!(span.attributes["gen_ai.response.finish_reasons"], Value::Array(vec!["completed".into()]));
    // The continuity message carries every call, and reads back the same.
    let next = message.to_message();
    assert_eq!(next.tool_call_list("messages[0]").unwrap(), message.tool_calls);
}

#[test]
fn an_anthropic_body_of_100_000_blocks_keeps_every_block() {
    let body = body_with(
        "content",
        |i| match i % 2 {
            0 => format!(r#"{{"type": "text", "text": "t{i} "}}"#),
            _ => format!(r#"{{"type": "tool_use", "id": "toolu_{i}", "name": "f", "input": {{"i": {i}}}}}"#),
        },
        r#", "type": "message", "stop_reason": "tool_use""#,
    );
    let message = to_message(body.as_str(), None).unwrap();
    assert_eq!(message.content.len(), N);
    assert_eq!(message.tool_calls.len(), N / 2);
    let actions = parse_tool_arguments(&message.tool_calls).unwrap();
    assert!(actions.iter().enumerate().all(|(k, a)| a.arguments["i"] == (2 * k + 1) as u64));
}

#[test]
fn structured_output_of_100_000_items_is_validated_and_repaired() {
    let item = Property {
        kind: "integer".into(),
        enum_values: Some(vec![Value::from(1), Value::from(2)]),
        ..Property::default()
    };
    let outputs =
        [Property { name: "items".into(), kind: "array".into(), items: Some(Box::new(item)), ..Property::default() }];
    let items: Vec<&str> = (0..N).map(|i| if i % 2 == 0 { "1" } else { "2" }).collect();
    let strict = format!(r#"{{"items": [{}]}}"#, items.join(","));
    let value = parse_structured_output(&strict, &outputs, StructuredOptions::default()).unwrap();
    assert_eq!(value["items"].as_array().map(Vec::len), Some(N));
    // Prose around it and a trailing comma: repaired.
    let damaged = format!("Here: {{\"items\": [{},\n]}} done", items.join(",  "));
    let repaired = parse_structured_output(&damaged, &outputs, StructuredOptions { lenient: true }).unwrap();
    assert_eq!(repaired, value);
    let call = ToolCall { id: "c".into(), name: "f".into(), arguments: strict };
    assert_eq!(parse_tool_arguments(&[call]).unwrap()[0].arguments["items"], value["items"]);
}

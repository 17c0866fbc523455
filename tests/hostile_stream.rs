//! Streams of 100,000 choices, tool calls, blocks or items, each shaped to make any lookup, scan
//! or sort whose cost grows with what came before show: every test checks that the message is
//! right, and a quadratic regression turns this suite from a second into minutes.
#![cfg(not(target_arch = "wasm32"))]

use llm_wire::{to_message, Accumulator, AccumulatorOptions, FinalMessage, Format, StreamEvent};

const N: usize = 100_000;

/// An SSE body of `data:` lines, each event named when `named`.
fn sse(events: impl Iterator<Item = String>, named: bool) -> Vec<u8> {
    let mut body = String::new();
    for data in events {
        if named {
            let kind = data.split("\"type\":\"").nth(1).and_then(|rest| rest.split('"').next()).unwrap_or("");
            body.push_str(&format!("event: {kind}\n"));
        }
        body.push_str(&format!("data: {data}\n\n"));
    }
    body.into_bytes()
}

/// The body pushed in pieces of 64 KiB: the final message and every event.
fn run(body: &[u8], format: Format) -> (FinalMessage, Vec<StreamEvent>) {
    let mut acc = Accumulator::new(AccumulatorOptions { format, ..Default::default() });
    let mut events = Vec::new();
    for piece in body.chunks(64 * 1024) {
        events.extend_from_slice(acc.push(piece).expect("within the default limits"));
    }
    events.extend_from_slice(acc.flush());
    (acc.finish(), events)
}

fn choice_texts(message: &FinalMessage) -> Vec<String> {
    message.choices.as_ref().expect("several choices").iter().map(|c| c.text.clone()).collect()
}

#[test]
fn a_hundred_thousand_choices_in_descending_order_each_finishing_come_out_in_index_order() {
    let chunk =
        |i: usize| format!(r#"{{"choices":[{{"index":{i},"delta":{{"content":"c{i}"}},"finish_reason":"stop"}}]}}"#);
    let body = sse((0..N).rev().map(chunk).chain(["[DONE]".to_owned()]), false);
    let (message, _) = run(&body, Format::Auto);
    let want: Vec<String> = (0..N).map(|i| format!("c{i}")).collect();
    assert_eq!(choice_texts(&message), want);
    assert!(message.complete);
}

#[test]
fn a_done_after_every_new_choice_ends_only_what_is_open() {
    let body = sse(
        (0..N).flat_map(|i| {
            [format!(r#"{{"choices":[{{"index":{i},"delta":{{"content":"<think>r{i}"}}}}]}}"#), "[DONE]".to_owned()]
        }),
        false,
    );
    let (message, _) = run(&body, Format::OpenAiChat);
    let choices = message.choices.expect("several choices");
    assert_eq!(choices.len(), N);
    assert!(choices.iter().enumerate().all(|(i, c)| c.reasoning == format!("r{i}") && c.text.is_empty()));
}

#[test]
fn a_hundred_thousand_chat_tool_calls_with_new_ids_at_one_index_stay_apart() {
    let chunk = |i: usize| {
        format!(
            r#"{{"choices":[{{"index":0,"delta":{{"tool_calls":[{{"index":0,"id":"call_{i}","function":{{"name":"f","arguments":"{{\"i\":{i}}}"}}}}]}},"finish_reason":"tool_calls"}}]}}"#
        )
    };
    let body = sse((0..N).map(chunk).chain(["[DONE]".to_owned()]), false);
    let (message, events) = run(&body, Format::Auto);
    assert_eq!(message.tool_calls.len(), N);
    for (i, call) in message.tool_calls.iter().enumerate() {
        assert_eq!(
            (call.id.as_str(), call.arguments.as_str()),
            (format!("call_{i}").as_str(), format!("{{\"i\":{i}}}").as_str())
        );
    }
    let ended = events.iter().filter(|e| matches!(e, StreamEvent::ToolCallEnd { .. })).count();
    assert_eq!(ended, N, "each call ends once");
}

#[test]
fn a_hundred_thousand_responses_function_call_items_assemble_by_item_id() {
    let item = |i: usize, arguments: &str| {
        format!(r#"{{"type":"function_call","id":"fc_{i}","call_id":"call_{i}","name":"f","arguments":"{arguments}"}}"#)
    };
    let events = (0..N).flat_map(|i| {
        [
            format!(r#"{{"type":"response.output_item.added","output_index":{i},"item":{}}}"#, item(i, "")),
            format!(r#"{{"type":"response.function_call_arguments.delta","item_id":"fc_{i}","output_index":0,"delta":"[{i}]"}}"#),
            format!(r#"{{"type":"response.output_item.done","output_index":{i},"item":{}}}"#, item(i, &format!("[{i}]"))),
        ]
    });
    let end = r#"{"type":"response.completed","response":{"status":"completed"}}"#.to_owned();
    let (message, _) = run(&sse(events.chain([end]), true), Format::Auto);
    assert_eq!(message.tool_calls.len(), N);
    for (i, call) in message.tool_calls.iter().enumerate() {
        assert_eq!((call.id.clone(), call.arguments.clone()), (format!("call_{i}"), format!("[{i}]")));
    }
    assert!(message.complete);
}

#[test]
fn a_hundred_thousand_responses_deltas_each_in_a_new_item_give_all_their_text() {
    let events = (0..N).flat_map(|i| {
        [
            format!(r#"{{"type":"response.output_text.delta","item_id":"msg_{i}","output_index":{i},"content_index":0,"delta":"{}"}}"#, i % 10),
            format!(r#"{{"type":"response.output_text.done","item_id":"msg_{i}","output_index":{i},"content_index":0,"text":"not again"}}"#),
        ]
    });
    let (message, _) = run(&sse(events, false), Format::OpenAiResponses);
    let want: String = (0..N).map(|i| char::from(b'0' + (i % 10) as u8)).collect();
    assert_eq!(message.text, want);
}

#[test]
fn a_hundred_thousand_anthropic_blocks_never_stopped_keep_their_text_and_arguments() {
    let events = (0..N).flat_map(|i| {
        let (block, delta) = if i % 2 == 0 {
            (r#"{"type":"text","text":""}"#.to_owned(), r#"{"type":"text_delta","text":"t"}"#.to_owned())
        } else {
            (
                format!(r#"{{"type":"tool_use","id":"toolu_{i}","name":"f","input":{{}}}}"#),
                format!(r#"{{"type":"input_json_delta","partial_json":"[{i}]"}}"#),
            )
        };
        [
            format!(r#"{{"type":"content_block_start","index":{i},"content_block":{block}}}"#),
            format!(r#"{{"type":"content_block_delta","index":{i},"delta":{delta}}}"#),
        ]
    });
    let (message, _) = run(&sse(events.chain([r#"{"type":"message_stop"}"#.to_owned()]), true), Format::Auto);
    assert_eq!(message.text, "t".repeat(N / 2));
    assert_eq!(message.tool_calls.len(), N / 2);
    for (k, call) in message.tool_calls.iter().enumerate() {
        let i = 2 * k + 1;
        assert_eq!((call.id.clone(), call.arguments.clone()), (format!("toolu_{i}"), format!("[{i}]")));
    }
}

#[test]
fn a_body_with_a_hundred_thousand_choices_in_descending_order_is_read_in_index_order() {
    let choices: Vec<String> = (0..N)
        .rev()
        .map(|i| format!(r#"{{"index":{i},"message":{{"role":"assistant","content":"c{i}"}},"finish_reason":"stop"}}"#))
        .collect();
    let body = format!(r#"{{"object":"chat.completion","choices":[{}]}}"#, choices.join(","));
    let message = to_message(body.as_str(), None).unwrap();
    let want: Vec<String> = (0..N).map(|i| format!("c{i}")).collect();
    assert_eq!(choice_texts(&message), want);
}

/// A long message id and 100,000 tool calls without ids: each invented id keeps the id's last
/// letters, made once, not read again for every call (which took 12 s for 20,000 calls).
#[test]
fn calls_without_ids_after_a_long_message_id_each_get_an_id_in_linear_time() {
    let id = format!("chatcmpl-{}x", ".".repeat(200_000));
    let first = format!(r#"{{"id":"{id}","choices":[{{"index":0,"delta":{{"content":"x"}}}}]}}"#);
    let calls = (0..N).map(|i| {
        format!(
            r#"{{"choices":[{{"index":0,"delta":{{"tool_calls":[{{"index":{i},"function":{{"name":"f","arguments":"{{}}"}}}}]}}}}]}}"#
        )
    });
    let (message, _) = run(&sse(std::iter::once(first).chain(calls), false), Format::OpenAiChat);
    assert_eq!(message.tool_calls.len(), N);
    assert_eq!(message.tool_calls[0].id, "call_chatcmpl-x_0");
    assert_eq!(message.tool_calls[N - 1].id, format!("call_chatcmpl-x_{}", N - 1));
}

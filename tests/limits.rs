//! Hostile streams against the limits, with the heap measured by a counting allocator: an
//! endless line, a giant event, giant tool arguments, an endless answer, and everything else a
//! stream can make the accumulator keep (blocks kept whole, server tool input, item ids, empty
//! choices, ...) each give `limit_exceeded`, the accumulator then refuses input with the same
//! error, the text so far is kept, and the peak heap stays near the configured bound however
//! much is sent.
#![cfg(not(target_arch = "wasm32"))]

#[path = "common/counting.rs"]
mod counting;

use counting::{peak_since, turn, Counting};
use llm_wire::{Accumulator, AccumulatorOptions, ErrorCode, Format, Limits, StreamEvent};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const GIB: usize = 1 << 30;
const MIB: usize = 1 << 20;

/// Feeds `total` bytes produced by `piece(i)` to an OpenAI Chat accumulator; see [`hostile_in`].
fn hostile(
    limits: Limits,
    prefix: &[u8],
    total: usize,
    piece: &dyn Fn(usize) -> Vec<u8>,
) -> (Option<llm_wire::Error>, usize, usize, String, bool) {
    hostile_in(Format::OpenAiChat, limits, prefix, total, piece)
}

/// Feeds `prefix`, then `total` bytes produced by `piece(i)`, and returns (the error that stopped
/// input, bytes accepted before it, peak heap growth, the final message's text, whether a push
/// reported `limit_exceeded` as an event).
fn hostile_in(
    format: Format,
    limits: Limits,
    prefix: &[u8],
    total: usize,
    piece: &dyn Fn(usize) -> Vec<u8>,
) -> (Option<llm_wire::Error>, usize, usize, String, bool) {
    let base = counting::start();
    let mut acc = Accumulator::new(AccumulatorOptions { format, limits, ..Default::default() });
    acc.push(prefix).unwrap();
    let (mut sent, mut i, mut stopped, mut limit_event) = (0, 0, None, false);
    while sent < total {
        let chunk = piece(i);
        i += 1;
        match acc.push(&chunk) {
            Ok(events) => {
                limit_event |= events.iter().any(
                    |e| matches!(e, StreamEvent::Error { error } if error.code.as_deref() == Some("limit_exceeded")),
                );
                sent += chunk.len();
            }
            Err(err) => {
                // Refused from now on, with the same error, however much more comes.
                assert_eq!(acc.push(b"data: more\n\n").unwrap_err(), err);
                stopped = Some(err);
                break;
            }
        }
    }
    let message = acc.finish();
    let peak = peak_since(base);
    eprintln!(
        "hostile stream: {sent} bytes accepted, peak heap growth {peak} bytes, stopped: {:?}",
        stopped.as_ref().map(|e| e.code)
    );
    (stopped, sent, peak, message.text, limit_event)
}

const HELLO: &[u8] = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"kept\"}}]}\n\n";

#[test]
fn an_endless_line_of_a_gibibyte_is_refused_with_bounded_memory() {
    let _turn = turn();
    let limits = Limits { max_event_bytes: MIB, ..Limits::default() };
    let chunk = vec![b'x'; 64 * 1024];
    let (stopped, sent, peak, text, flagged) = hostile(limits, b"data: ", GIB, &|_| chunk.clone());
    assert_eq!(stopped.map(|e| e.code), Some(ErrorCode::LimitExceeded));
    assert!(flagged, "the push that crossed the bound reports it as an error event");
    assert!(sent <= 2 * MIB, "refused after {sent} bytes");
    assert!(peak < 4 * MIB, "peak heap {peak} bytes");
    assert_eq!(text, "");
}

#[test]
fn a_giant_event_of_many_data_lines_is_refused_and_the_text_before_it_kept() {
    let _turn = turn();
    let limits = Limits { max_event_bytes: MIB, ..Limits::default() };
    let line = b"data: 0123456789abcdef0123456789abcdef\n".repeat(1024);
    let (stopped, _, peak, text, _) = hostile(limits, HELLO, GIB, &|_| line.clone());
    assert_eq!(stopped.map(|e| e.code), Some(ErrorCode::LimitExceeded));
    assert!(peak < 4 * MIB, "peak heap {peak} bytes");
    assert_eq!(text, "kept");
}

#[test]
fn giant_tool_arguments_are_refused_at_max_tool_argument_bytes() {
    let _turn = turn();
    let limits = Limits { max_tool_argument_bytes: MIB, ..Limits::default() };
    let start = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"f\",\"arguments\":\"\"}}]}}]}\n\n";
    let delta = format!("data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":0,\"function\":{{\"arguments\":\"{}\"}}}}]}}}}]}}\n\n", "a".repeat(4000)).into_bytes();
    let (stopped, sent, peak, _, _) = hostile(limits, start, GIB, &|_| delta.clone());
    assert_eq!(stopped.map(|e| e.code), Some(ErrorCode::LimitExceeded));
    assert!(sent <= 2 * MIB, "refused after {sent} bytes");
    assert!(peak < 8 * MIB, "peak heap {peak} bytes");
}

#[test]
fn an_endless_answer_of_a_gibibyte_stops_at_max_message_bytes() {
    let _turn = turn();
    let limits = Limits { max_message_bytes: 16 * MIB, ..Limits::default() };
    let delta =
        format!("data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{}\"}}}}]}}\n\n", "é".repeat(2000))
            .repeat(16)
            .into_bytes();
    let (stopped, sent, peak, text, _) = hostile(limits, b"", GIB, &|_| delta.clone());
    assert_eq!(stopped.map(|e| e.code), Some(ErrorCode::LimitExceeded));
    assert!(sent < 20 * MIB, "refused after {sent} bytes");
    assert!(peak < 64 * MIB, "peak heap {peak} bytes (text kept: {} bytes)", text.len());
    assert!(text.len() > 15 * MIB, "the text up to the bound is kept");
}

#[test]
fn a_gibibyte_of_keep_alives_and_empty_deltas_runs_in_constant_memory() {
    let _turn = turn();
    let chunk = b": keep-alive\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\"}}]}\n\n".repeat(512);
    let (stopped, sent, peak, text, _) = hostile(Limits::default(), HELLO, GIB, &|_| chunk.clone());
    assert!(stopped.is_none());
    assert!(sent >= GIB);
    assert!(peak < MIB, "peak heap {peak} bytes over 1 GiB");
    assert_eq!(text, "kept");
}

/// Streams that make the accumulator keep something besides text, each entry small or large
/// and each under every other limit: with `maxMessageBytes` at 1 MiB, each is refused after
/// about that much, the text before it is kept, and the heap stays a few MiB however much more
/// is sent (256 MiB here).
#[test]
fn everything_a_stream_makes_the_accumulator_keep_counts_against_max_message_bytes() {
    let _turn = turn();
    let limits = Limits { max_message_bytes: MIB, ..Limits::default() };
    let big = "x".repeat(100_000);
    let event = |kind: &str, data: String| format!("event: {kind}\ndata: {data}\n\n").into_bytes();
    let anthropic_kept = [
        event("message_start", r#"{"type":"message_start","message":{"id":"m","model":"c"}}"#.into()),
        event(
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"kept"}}"#.into(),
        ),
        event("content_block_stop", r#"{"type":"content_block_stop","index":0}"#.into()),
    ]
    .concat();
    let responses_kept = event(
        "response.output_text.delta",
        r#"{"type":"response.output_text.delta","item_id":"msg_0","output_index":0,"content_index":0,"delta":"kept"}"#
            .into(),
    );
    let chat = |data: String| format!("data: {data}\n\n").into_bytes();
    // 4,000 choices (half a MiB), then `last` again and again.
    let after_choices = |i: usize, last: &str| match i {
        0..4000 => chat(format!(r#"{{"choices":[{{"index":{},"delta":{{"content":""}}}}]}}"#, i + 1)),
        _ => chat(last.to_owned()),
    };
    type Piece<'a> = Box<dyn Fn(usize) -> Vec<u8> + 'a>;
    let cases: Vec<(&str, Format, &[u8], Piece)> = vec![
        (
            "anthropic blocks of an unknown type, kept whole",
            Format::Anthropic,
            &anthropic_kept,
            Box::new(|i| {
                let block = format!(r#"{{"type":"mystery","payload":"{big}"}}"#);
                event(
                    "content_block_start",
                    format!(r#"{{"type":"content_block_start","index":{},"content_block":{block}}}"#, i + 1),
                )
            }),
        ),
        (
            "anthropic server tool blocks left open, their input streamed",
            Format::Anthropic,
            &anthropic_kept,
            Box::new(|i| {
                let start = r#"{"type":"server_tool_use","id":"srvtoolu","name":"web_search","input":{}}"#;
                [
                    event("content_block_start", format!(r#"{{"type":"content_block_start","index":{},"content_block":{start}}}"#, i + 1)),
                    event("content_block_delta", format!(r#"{{"type":"content_block_delta","index":{},"delta":{{"type":"input_json_delta","partial_json":"{big}"}}}}"#, i + 1)),
                ]
                .concat()
            }),
        ),
        (
            "anthropic blocks started and never stopped, each empty",
            Format::Anthropic,
            &anthropic_kept,
            Box::new(|i| {
                event(
                    "content_block_start",
                    format!(
                        r#"{{"type":"content_block_start","index":{},"content_block":{{"type":"text","text":""}}}}"#,
                        i + 1
                    ),
                )
            }),
        ),
        (
            "anthropic citations, signatures and redacted reasoning",
            Format::Anthropic,
            &anthropic_kept,
            Box::new(|i| {
                let delta = |delta: String| {
                    event(
                        "content_block_delta",
                        format!(r#"{{"type":"content_block_delta","index":0,"delta":{delta}}}"#),
                    )
                };
                [
                    delta(format!(r#"{{"type":"citations_delta","citation":{{"cited_text":"{i}"}}}}"#)),
                    delta(r#"{"type":"signature_delta","signature":"c2lnbmF0dXJl"}"#.into()),
                    event("content_block_start", format!(r#"{{"type":"content_block_start","index":{},"content_block":{{"type":"redacted_thinking","data":"ZGF0YQ=="}}}}"#, i + 1)),
                ]
                .concat()
            }),
        ),
        (
            "responses text deltas each in a new item with a long id",
            Format::OpenAiResponses,
            &responses_kept,
            Box::new(|i| {
                event(
                    "response.output_text.delta",
                    format!(
                        r#"{{"type":"response.output_text.delta","item_id":"{big}{i}","output_index":{},"content_index":0,"delta":""}}"#,
                        i + 1
                    ),
                )
            }),
        ),
        (
            "responses items of an unknown type, kept whole",
            Format::OpenAiResponses,
            &responses_kept,
            Box::new(|i| {
                event(
                    "response.output_item.done",
                    format!(
                        r#"{{"type":"response.output_item.done","output_index":{},"item":{{"type":"mystery","payload":"{big}"}}}}"#,
                        i + 1
                    ),
                )
            }),
        ),
        (
            "responses parts of one item, each a new part index",
            Format::OpenAiResponses,
            &responses_kept,
            Box::new(|i| {
                event(
                    "response.output_text.delta",
                    format!(
                        r#"{{"type":"response.output_text.delta","item_id":"msg_0","output_index":0,"content_index":{},"delta":""}}"#,
                        i + 1
                    ),
                )
            }),
        ),
        (
            "chat choices each at a new index, each empty",
            Format::OpenAiChat,
            HELLO,
            Box::new(|i| chat(format!(r#"{{"choices":[{{"index":{},"delta":{{"content":""}}}}]}}"#, i + 1))),
        ),
        (
            "chat tool calls with long ids and names and no arguments",
            Format::OpenAiChat,
            HELLO,
            Box::new(|i| {
                chat(format!(
                    r#"{{"choices":[{{"index":0,"delta":{{"tool_calls":[{{"index":{i},"id":"{big}{i}","function":{{"name":"{big}"}}}}]}}}}]}}"#
                ))
            }),
        ),
        (
            "chat tool calls each with arguments under maxToolArgumentBytes",
            Format::OpenAiChat,
            HELLO,
            Box::new(|i| {
                chat(format!(
                    r#"{{"choices":[{{"index":0,"delta":{{"tool_calls":[{{"index":{i},"id":"c{i}","function":{{"name":"f","arguments":"{big}"}}}}]}}}}]}}"#
                ))
            }),
        ),
        (
            "a long model after many choices, which each choice's message repeats",
            Format::OpenAiChat,
            HELLO,
            Box::new(|i| after_choices(i, &format!(r#"{{"model":"{big}","choices":[]}}"#))),
        ),
        (
            "a long usage after many choices, which each choice's message repeats",
            Format::OpenAiChat,
            HELLO,
            Box::new(|i| after_choices(i, &format!(r#"{{"choices":[],"usage":{{"prompt_tokens":1,"pad":"{big}"}}}}"#))),
        ),
        (
            "a long error after many choices, which each choice's message repeats",
            Format::OpenAiChat,
            HELLO,
            Box::new(|i| after_choices(i, &format!(r#"{{"error":{{"message":"{big}"}}}}"#))),
        ),
        (
            "chat refusal text",
            Format::OpenAiChat,
            HELLO,
            Box::new(|_| chat(format!(r#"{{"choices":[{{"index":0,"delta":{{"refusal":"{big}"}}}}]}}"#))),
        ),
    ];
    for (name, format, prefix, piece) in cases {
        let (stopped, sent, peak, text, flagged) = hostile_in(format, limits, prefix, 256 * MIB, &*piece);
        assert_eq!(stopped.map(|e| e.code), Some(ErrorCode::LimitExceeded), "{name}");
        assert!(flagged, "{name}: the push that crossed the bound reports it as an error event");
        assert!(sent < 4 * MIB, "{name}: refused after {sent} bytes");
        assert!(peak < 8 * MIB, "{name}: peak heap {peak} bytes");
        assert_eq!(text, "kept", "{name}");
    }
}

/// One large event, sent in pieces of 64 KiB: the decoder holds its bytes once (its data line
/// becomes the event's data in place), the message keeps the text once, and the event that
/// reports it carries it once more; nothing else holds a copy (the template and the prefix memo
/// keep only short events).
#[test]
fn one_large_event_is_held_about_three_times_at_most() {
    let _turn = turn();
    const SIZE: usize = 10 * MIB;
    let text = "a".repeat(SIZE);
    let cases: [(&str, Format, String); 3] = [
        (
            "chat content",
            Format::OpenAiChat,
            format!(r#"{{"choices":[{{"index":0,"delta":{{"content":"{text}"}}}}]}}"#),
        ),
        (
            "chat tool arguments",
            Format::OpenAiChat,
            format!(
                r#"{{"choices":[{{"index":0,"delta":{{"tool_calls":[{{"index":0,"id":"c","function":{{"name":"f","arguments":"{text}"}}}}]}}}}]}}"#
            ),
        ),
        (
            "anthropic text delta",
            Format::Anthropic,
            format!(r#"{{"type":"content_block_delta","index":0,"delta":{{"type":"text_delta","text":"{text}"}}}}"#),
        ),
    ];
    for (name, format, data) in cases {
        let body = format!("data: {data}\n\n").into_bytes();
        let base = counting::start();
        let limits = Limits { max_tool_argument_bytes: 2 * SIZE, ..Limits::default() };
        let mut acc = Accumulator::new(AccumulatorOptions { format, limits, ..Default::default() });
        let mut received = 0;
        for piece in body.chunks(64 * 1024) {
            for event in acc.push(piece).unwrap() {
                if let StreamEvent::Text { text, .. } | StreamEvent::ToolCallDelta { arguments_delta: text, .. } = event
                {
                    received += text.len();
                }
            }
        }
        let peak = peak_since(base);
        eprintln!("{name}: one event of {} bytes, peak heap growth {peak} bytes", body.len());
        assert_eq!(received, SIZE, "{name}");
        assert!(peak < 3 * SIZE + SIZE / 2, "{name}: peak heap {peak} bytes");
        drop(acc);
    }
}

//! The exact text of every message the crate builds from parts (a number, a name, a nested
//! error): these are written without `format!` (so the wasm module carries no formatting
//! machinery), and must read exactly as the `format!` strings they replace did.
#![cfg(not(target_arch = "wasm32"))]

use llm_wire::model::{Model, Property};
use llm_wire::request::Api;
use llm_wire::sse::SseDecoder;
use llm_wire::{
    build_chat_args, parse_structured_output, parse_tool_arguments, process, to_message, Accumulator,
    AccumulatorOptions, Agent, Error, Format, Limits, StreamEvent, StructuredOptions, ToolCall,
};
use serde_json::{json, Value};

/// `message` and `path` of an error, as one line.
fn shown(error: &Error) -> String {
    match &error.path {
        Some(path) => format!("{} @ {path}", error.message),
        None => error.message.clone(),
    }
}

fn agent(api_type: &str) -> Agent {
    Agent { model: Model { id: "m".into(), api_type: api_type.into(), ..Model::default() }, ..Agent::default() }
}

/// The error `push` returns, or the message of the first `error` event, for `body` in `format`.
fn stream_error(format: Format, limits: Limits, body: &str) -> String {
    let mut acc = Accumulator::new(AccumulatorOptions { format, limits, ..Default::default() });
    match acc.push(body.as_bytes()) {
        Err(e) => shown(&e),
        Ok(events) => events
            .iter()
            .find_map(|e| match e {
                StreamEvent::Error { error } => Some(error.message.clone()),
                _ => None,
            })
            .unwrap_or_default(),
    }
}

fn sse_error(limits: Limits, chunks: &[&str]) -> String {
    let mut sse = SseDecoder::new(&limits);
    for chunk in chunks {
        if let Err(e) = sse.feed(chunk.as_bytes(), &mut |_| Ok(())) {
            return shown(&e);
        }
    }
    String::new()
}

fn small(max: usize) -> Limits {
    Limits { max_event_bytes: max, max_buffered_bytes: max, max_tool_argument_bytes: max, max_message_bytes: max }
}

fn embedding_error(data: Value) -> String {
    shown(&process(&agent("embedding"), &json!({ "data": data }).to_string()).unwrap_err())
}

fn prop(name: &str, kind: &str, required: bool) -> Property {
    Property { name: name.into(), kind: kind.into(), required, ..Property::default() }
}

fn structured(text: &str, lenient: bool) -> String {
    let item =
        Property { kind: "object".into(), properties: Some(vec![prop("name", "string", true)]), ..prop("", "", false) };
    let outputs = vec![
        prop("city", "string", true),
        prop("count", "integer", false),
        Property { enum_values: Some(vec![json!("c").into(), json!(1).into()]), ..prop("unit", "string", false) },
        Property { items: Some(Box::new(item)), ..prop("items", "array", false) },
        prop("odd key", "boolean", false),
    ];
    shown(&parse_structured_output(text, &outputs, StructuredOptions { lenient }).unwrap_err())
}

fn tool_arguments(arguments: &str) -> String {
    let ok = ToolCall { id: "a".into(), name: "f".into(), arguments: "{}".into() };
    let bad = ToolCall { id: "id\t1".into(), name: "get weather".into(), arguments: arguments.into() };
    shown(&parse_tool_arguments(&[ok, bad]).unwrap_err())
}

#[test]
fn messages_built_from_parts_read_as_before() {
    let mut nested = json!(1);
    for _ in 0..130 {
        nested = json!([nested]);
    }
    let mut deep = agent("chat");
    deep.model.options.additional_properties.insert("deep".into(), nested.into());
    let got = [
        shown(&Api::of(&agent("rest")).unwrap_err()),
        shown(&process(&agent("rest"), "{}").unwrap_err()),
        shown(&to_message("{\"a\":1,}", None).unwrap_err()),
        shown(&to_message("[1] x", None).unwrap_err()),
        shown(&to_message("[1]", None).unwrap_err()),
        shown(&build_chat_args(&deep, &[]).unwrap_err()),
        stream_error(Format::OpenAiChat, Limits::default(), "data: {oops\n\n"),
        stream_error(Format::OpenAiChat, Limits::default(), "data: [1]\n\n"),
        stream_error(Format::Anthropic, Limits::default(), "event: message_start\ndata: {\"a\":1,}\n\n"),
        stream_error(Format::Anthropic, Limits::default(), "event: message_start\ndata: [1]\n\n"),
        stream_error(Format::OpenAiResponses, Limits::default(), "event: response.created\ndata: {\"a\" 1}\n\n"),
        stream_error(Format::OpenAiChat, small(100), &format!("data: {{\"x\":\"{}", "y".repeat(200))),
        stream_error(
            Format::OpenAiChat,
            Limits { max_message_bytes: 12, ..Limits::default() },
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello, world!\"}}]}\n\n",
        ),
        stream_error(
            Format::OpenAiChat,
            Limits { max_tool_argument_bytes: 7, ..Limits::default() },
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":\
             {\"name\":\"f\",\"arguments\":\"{\\\"a\\\":12345}\"}}]}}]}\n\n",
        ),
        sse_error(small(1234), &[&"x".repeat(1235)]),
        sse_error(
            Limits { max_buffered_bytes: 2048, ..small(1500) },
            &[&format!("data: {}\n", "x".repeat(1000)), &"y".repeat(1100)],
        ),
        sse_error(
            Limits { max_event_bytes: 1024, ..small(1 << 20) },
            &[&format!("data: {}\n", "x".repeat(600)), &format!("data: {}\n", "y".repeat(600))],
        ),
        embedding_error(json!([{"index": 0, "embedding": [1.0]}, {"index": 1}])),
        embedding_error(json!([{"index": 0, "embedding": [1.0, 2.0, "x", 3.0, null]}])),
        embedding_error(json!([{"index": 0, "embedding": [1.0]}, {"index": 1, "embedding": "AACAPwAAIMA!"}])),
        embedding_error(json!([{"index": 0, "embedding": "AACAPwAAIMAA"}])),
        structured("[1]", false),
        structured("{\"a\":1,}", false),
        structured("{}", false),
        structured("{\"city\": \"x\", \"a\\\"b\\n\": 1}", false),
        structured("{\"city\": 5}", false),
        structured("{\"city\": \"x\", \"count\": 1.5}", false),
        structured("{\"city\": \"x\", \"unit\": \"k\"}", false),
        structured("{\"city\": \"x\", \"odd key\": 1}", false),
        structured("{\"city\": \"x\", \"items\": [{\"name\": \"a\"}, null]}", false),
        structured("{\"city\": \"x\", \"items\": [{\"name\": \"a\"}, {\"name\": \"b\"}, {}]}", false),
        structured("{\"a\":1} and {\"b\":2}", true),
        structured("text {\"city\": \"x\",, } end", true),
        tool_arguments("[1]"),
        tool_arguments("{\"a\":"),
    ];
    let want = [
        "unknown apiType `rest` (chat, responses, embedding, image) @ agent.model.apiType",
        r#"unknown apiType "rest": expected chat, responses, embedding or image @ agent.model.apiType"#,
        "the response body is not a valid response object: expected a key at byte 7 @ response",
        "the response body is not a valid response object: trailing characters at byte 4 @ response",
        "the response body is not a JSON object @ response",
        "the request body cannot be read back: nested too deeply at byte 134 @ agent",
        "a stream event is not valid JSON: expected a key at byte 1",
        "a stream event is not valid JSON: expected an object at byte 0",
        "a stream event is not valid JSON: expected a key at byte 7",
        "a stream event is not valid JSON: expected an object at byte 0",
        "a stream event is not valid JSON: expected `:` at byte 5",
        "an SSE line is longer than maxEventBytes (100 bytes)",
        "the message is larger than maxMessageBytes (12 bytes)",
        "tool call arguments are larger than maxToolArgumentBytes (7 bytes)",
        "an SSE line is longer than maxEventBytes (1234 bytes)",
        "more than maxBufferedBytes (2048 bytes) of unterminated input",
        "an SSE event is larger than maxEventBytes (1024 bytes)",
        "data[1] has no `embedding` @ data[1].embedding",
        "data[0].embedding: element 2 is not a number @ data[0].embedding",
        "data[1].embedding: the base64 text has an invalid character at 11 @ data[1].embedding",
        "data[0].embedding: the base64 text decodes to 9 bytes, not a whole number of float32 @ data[0].embedding",
        "expected an object, got an array @ $",
        "the output is not JSON: expected a key at byte 7 @ $",
        r#"the required property "city" is missing @ $.city"#,
        r#""a\"b\n" is not a property of the output schema @ $["a\"b\n"]"#,
        "expected string, got a number @ $.city",
        "expected integer, got a non-integer number @ $.count",
        r#""k" is not one of ["c",1] @ $.unit"#,
        r#"expected boolean, got a number @ $["odd key"]"#,
        "expected an item, got null @ $.items[1]",
        r#"the required property "name" is missing @ $.items[2].name"#,
        "the output is not JSON (trailing characters at byte 8) and cannot be repaired: 2 JSON objects in the text; expected one @ $",
        "the output is not JSON (expected a value at byte 0) and cannot be repaired: expected a key at byte 14 @ $",
        r#"tool call "id\t1" (get weather): arguments are an array, not an object @ toolCalls[1].arguments"#,
        r#"tool call "id\t1" (get weather): arguments are not valid JSON: unexpected end of input at byte 5 @ toolCalls[1].arguments"#,
    ];
    for (i, (got, want)) in got.iter().zip(want).enumerate() {
        assert_eq!(got, want, "case {i}");
    }
}

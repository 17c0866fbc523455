//! The fixture checks of `tests/fixtures.rs`, in wasm, through the class JS uses: bytes pushed
//! as `Uint8Array`s, the final message read back as JS data. Runs under Node and headless
//! Chromium (`wasm-pack test`). Every fixture matches its expectations, and gives the same
//! message fed one byte at a time, at 100 seeded random splits, and (up to 8 KB) at every cut.
#![cfg(target_arch = "wasm32")]

mod common;

use common::{check_expect, expect_of, format_of, pieces, random_cuts, EventDigest};
use js_sys::Uint8Array;
use llm_wire::wasm::accumulator::JsAccumulator;
use serde_json::Value;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::wasm_bindgen_test;

struct Fixture {
    name: &'static str,
    body: &'static [u8],
    expect: Option<&'static str>,
}

macro_rules! fixture {
    ($name:literal, true) => {
        Fixture {
            name: $name,
            body: include_bytes!(concat!("fixtures/", $name, ".sse")),
            expect: Some(include_str!(concat!("fixtures/", $name, ".expect.json"))),
        }
    };
    ($name:literal, false) => {
        Fixture { name: $name, body: include_bytes!(concat!("fixtures/", $name, ".sse")), expect: None }
    };
    // Bedrock's binary AWS event streams.
    ($name:literal, true, eventstream) => {
        Fixture {
            name: $name,
            body: include_bytes!(concat!("fixtures/", $name, ".eventstream")),
            expect: Some(include_str!(concat!("fixtures/", $name, ".expect.json"))),
        }
    };
}

/// Every `.sse` and `.eventstream` under `tests/fixtures/`; `fixtures.rs` checks this list stays
/// complete.
const FIXTURES: &[Fixture] = &[
    fixture!("anthropic/gomodel-text-stream", true),
    fixture!("anthropic/pyd-redacted-thinking-stream", true),
    fixture!("anthropic/pyd-thinking-signature-stream", true),
    fixture!("anthropic/pyd-web-search-stream", false),
    fixture!("anthropic/vercel-message-delta-input-tokens", true),
    fixture!("anthropic/vercel-text-then-tool-no-args", true),
    fixture!("anthropic/vercel-text", false),
    fixture!("anthropic/vercel-thinking-signature-text", true),
    fixture!("anthropic/vercel-tool-use-input-json-delta", true),
    fixture!("azure-openai/vercel-model-router", true),
    fixture!("bedrock/pyd-claude-reasoning-signature-stream", true, eventstream),
    fixture!("bedrock/pyd-claude-redacted-reasoning-stream", true, eventstream),
    fixture!("bedrock/pyd-nova-code-interpreter-stream", true, eventstream),
    fixture!("bedrock/pyd-nova-text-stream", true, eventstream),
    fixture!("deepseek/pyd-thinking-stream", true),
    fixture!("deepseek/vercel-reasoning-tool-call", true),
    fixture!("deepseek/vercel-reasoning", true),
    fixture!("gemini/pyd-function-call-no-args-signature-stream", true),
    fixture!("gemini/pyd-function-call-single-chunk-stream", true),
    fixture!("gemini/pyd-function-call-with-id-stream", true),
    fixture!("gemini/pyd-text-stream-empty-final-part", true),
    fixture!("gemini/pyd-text-stream", true),
    fixture!("gemini/pyd-thinking-stream", true),
    fixture!("gemini/vercel-text-signature-on-empty-part", true),
    fixture!("groq/gomodel-text-stream", true),
    fixture!("groq/pyd-error-event-mid-stream", true),
    fixture!("groq/vercel-tool-call", true),
    fixture!("minimax/gomodel-m27-think-tags-stream", true),
    fixture!("mistral/pyd-magistral-thinking-stream", true),
    fixture!("mistral/vercel-magistral-reasoning", true),
    fixture!("mistral/vercel-text", true),
    fixture!("mistral/vercel-tool-call", true),
    fixture!("openai-chat/gomodel-text-stream", true),
    fixture!("openai-chat/pyd-moderation-stream", true),
    fixture!("openai-chat/pyd-parallel-tool-calls", true),
    fixture!("openai-chat/pyd-single-tool-call-split-args", true),
    fixture!("openai-chat/pyd-text-stream-usage", true),
    fixture!("openai-chat/pyd-tool-call-structured-args", true),
    fixture!("openai-chat/vercel-openai-text", false),
    fixture!("openai-responses/gomodel-text-stream", false),
    fixture!("openai-responses/pyd-function-call-stream", false),
    fixture!("openai-responses/pyd-streaming-usage", false),
    fixture!("openai-responses/pyd-text-stream", true),
    fixture!("openai-responses/vercel-error-event", true),
    fixture!("openai-responses/vercel-image-generation-tool", false),
    fixture!("openai-responses/vercel-reasoning-summary-tool-calls.part1", true),
    fixture!("openai-responses/vercel-reasoning-summary-tool-calls.part2", true),
    fixture!("openai-responses/vercel-reasoning-summary-tool-calls.part3", true),
    fixture!("openai-responses/vercel-reasoning-summary-tool-calls.part4", true),
    fixture!("openai-responses/vercel-web-search", true),
    fixture!("openrouter/pyd-stream-error-minimax", true),
    fixture!("openrouter/pyd-streaming-reasoning", true),
    fixture!("openrouter/pyd-web-search-annotations-stream", false),
    fixture!("vertex/pyd-flex-tier-stream", true),
    fixture!("vertex/vercel-no-args-then-streamed-args", true),
    fixture!("vertex/vercel-streamed-args-array-no-terminal", true),
    fixture!("vertex/vercel-streamed-function-call-args", true),
];

fn json(value: &JsValue) -> Value {
    serde_json::from_str(&js_sys::JSON::stringify(value).unwrap().as_string().unwrap()).unwrap()
}

/// The events of the flat list `push` gives: each a code and its fields in order (`choice` last,
/// 0 for none), or 0 and the event (`eventsOf` in pkg-template/helpers.mjs, which a Node test
/// holds to the events' JSON key for key).
fn events_of(flat: Value) -> Value {
    let mut items = flat.as_array().expect("a list").iter().cloned();
    let mut events = Vec::new();
    while let Some(code) = items.next() {
        let (kind, keys): (&str, &[&str]) = match code.as_u64().expect("a code") {
            0 => {
                events.push(items.next().expect("the event"));
                continue;
            }
            1 => ("text", &["text"]),
            2 => ("reasoning", &["text"]),
            3 => ("text_end", &[]),
            4 => ("reasoning_end", &[]),
            5 => ("tool_call_start", &["index", "id", "name"]),
            6 => ("tool_call_delta", &["index", "argumentsDelta"]),
            7 => ("tool_call_end", &["index", "id", "name", "arguments"]),
            8 => ("finish", &["reason", "rawReason"]),
            other => panic!("unknown code {other}"),
        };
        let mut event = serde_json::Map::new();
        event.insert("type".into(), kind.into());
        for key in keys {
            event.insert((*key).into(), items.next().expect("a field"));
        }
        let choice = items.next().expect("the choice");
        if choice != 0 {
            event.insert("choice".into(), choice);
        }
        events.push(Value::Object(event));
    }
    Value::Array(events)
}

fn run(pieces: &[&[u8]], format: &str) -> (Value, EventDigest) {
    let options = js_sys::JSON::parse(&format!("{{\"format\":\"{format}\"}}")).unwrap();
    let mut acc = JsAccumulator::new(options).unwrap();
    let mut digest = EventDigest::default();
    let mut add = |events: Value| {
        for event in events.as_array().unwrap() {
            digest.add(event);
        }
    };
    for piece in pieces {
        // A push whose only event is a text delta gives its text alone, and any other events as
        // a flat list, as the package's `Accumulator` reads them.
        let events = acc.push(Uint8Array::from(*piece).into()).unwrap();
        add(match events.as_string() {
            Some(text) => serde_json::json!([{ "type": "text", "text": text }]),
            None => events_of(json(&events)),
        });
    }
    add(json(&acc.flush().unwrap()));
    (json(&acc.finish().unwrap()), digest)
}

fn stream_fixtures() -> impl Iterator<Item = (&'static Fixture, &'static str)> {
    FIXTURES.iter().filter_map(|f| format_of(f.name.split('/').next().unwrap()).map(|format| (f, format)))
}

#[wasm_bindgen_test]
fn every_stream_fixture_matches_its_expectations_in_wasm() {
    let mut checked = 0;
    for (fixture, format) in stream_fixtures() {
        let Some(expect) = fixture.expect else { continue };
        let (message, _) = run(&[fixture.body], format);
        if let Err(why) = check_expect(&message, &expect_of(format, serde_json::from_str(expect).unwrap())) {
            panic!("{}: {why}", fixture.name);
        }
        checked += 1;
    }
    assert!(checked > 10, "only {checked} fixtures checked");
}

#[wasm_bindgen_test]
fn every_stream_fixture_gives_one_message_at_every_split_in_wasm() {
    for (fixture, format) in stream_fixtures() {
        let body = fixture.body;
        let whole = run(&[body], format);
        assert!(run(&[body], "auto") == whole, "{}: auto detection differs", fixture.name);
        let bytewise: Vec<&[u8]> = body.chunks(1).collect();
        assert!(run(&bytewise, format) == whole, "{} differs fed one byte at a time", fixture.name);
        for seed in 0..100 {
            let cuts = random_cuts(body.len(), seed);
            assert!(
                run(&pieces(body, &cuts), format) == whole,
                "{} differs at random split seed {seed}: {cuts:?}",
                fixture.name
            );
        }
        if body.len() <= 8192 {
            for cut in 0..=body.len() {
                let (a, b) = body.split_at(cut);
                assert!(run(&[a, b], format) == whole, "{} differs when cut at byte {cut}", fixture.name);
            }
        }
    }
}

#[wasm_bindgen_test]
fn a_string_chunk_is_taken_as_its_utf8_bytes() {
    let mut acc = JsAccumulator::new(JsValue::UNDEFINED).unwrap();
    acc.push(JsValue::from_str(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"héllo\"},\"finish_reason\":\"stop\"}]}\n\n",
    ))
    .unwrap();
    let message = json(&acc.finish().unwrap());
    assert_eq!(message["text"], "héllo");
    assert_eq!(message["complete"], true);
}

#[wasm_bindgen_test]
fn a_bad_chunk_type_throws_invalid_input_and_the_accumulator_goes_on() {
    let mut acc = JsAccumulator::new(JsValue::UNDEFINED).unwrap();
    let err = acc.push(JsValue::from_f64(3.0)).unwrap_err();
    let code = js_sys::Reflect::get(&err, &"code".into()).unwrap();
    assert_eq!(code.as_string().as_deref(), Some("invalid_input"));
    acc.push(JsValue::from_str("data: {\"choices\":[{\"delta\":{\"content\":\"ok\"}}]}\n\n")).unwrap();
    assert_eq!(json(&acc.finish().unwrap())["text"], "ok");
}

#[wasm_bindgen_test]
fn bad_options_throw_with_their_path() {
    let options = js_sys::JSON::parse("{\"format\":\"nope\"}").unwrap();
    let err = JsAccumulator::new(options).err().unwrap();
    assert_eq!(js_sys::Reflect::get(&err, &"path".into()).unwrap().as_string().as_deref(), Some("options.format"));
}

//! The hand-written JSON writers against serde_json's serializer, the oracle: everything the
//! wasm exports hand to JS must come out byte for byte as `serde_json::to_string` writes it,
//! for every recorded stream and body and for generated values (escapes, floats, integers).

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{json, Map, Number, Value};

use super::WriteJson;
use crate::model::{Model, Property, RawJson};
use crate::process::message_span;
use crate::{
    parse_tool_arguments, process_with, to_message, Accumulator, AccumulatorOptions, Agent, Block, ErrorInfo,
    FinalMessage, FinishReason, Outcome, ProcessOptions, ProcessResult, Span, ToolCall, Usage,
};

/// Our text for `value`, after checking it is serde's.
#[track_caller]
fn same<T: WriteJson + Serialize + ?Sized>(value: &T) -> String {
    let ours = value.to_json_text();
    assert_eq!(ours, serde_json::to_string(value).unwrap());
    ours
}

/// Our [`crate::json::Value`] of `value` written as serde writes `value`, a serde_json value:
/// the same text from the two types (and from ours through serde).
#[track_caller]
fn same_value(value: &Value) -> String {
    let ours = same(&crate::json::Value::from(value.clone()));
    assert_eq!(ours, serde_json::to_string(value).unwrap());
    ours
}

/// [`same_value`] for a map.
#[track_caller]
fn same_map(map: &Map<String, Value>) -> String {
    let ours = same(&crate::json::Map::from(map.clone()));
    assert_eq!(ours, serde_json::to_string(map).unwrap());
    ours
}

/// A message, its results (plain and with outputs) and its span, each as serde writes it.
#[track_caller]
fn same_message(message: &FinalMessage) {
    let text = same(message);
    assert_eq!(message.json_text(), text);
    for has_outputs in [false, true] {
        if let Ok(result) = message.result(has_outputs) {
            same(&result);
        }
    }
    same(&message_span(None, message));
    if !message.tool_calls.is_empty() {
        if let Ok(actions) = parse_tool_arguments(&message.tool_calls) {
            same(&actions);
        }
    }
}

fn files(dir: &str, suffix: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut out = Vec::new();
    for sub in std::fs::read_dir(root).unwrap().flatten().filter(|d| d.path().is_dir()) {
        for file in std::fs::read_dir(sub.path()).unwrap().flatten() {
            let path = file.path();
            if path.to_str().unwrap().ends_with(suffix) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// An agent of `provider` and `api_type`, with one output property when `outputs`.
fn agent(provider: &str, api_type: &str, outputs: bool) -> Agent {
    let output = Property { name: "result".into(), kind: "object".into(), ..Property::default() };
    Agent {
        model: Model { id: "m".into(), provider: provider.into(), api_type: api_type.into(), ..Model::default() },
        outputs: if outputs { vec![output] } else { vec![] },
        ..Agent::default()
    }
}

/// The agent a fixture directory stands for: OpenAI's APIs by name, any other directory a
/// chat provider of that name.
fn agent_for(path: &Path, outputs: bool) -> Agent {
    const APIS: [(&str, &str); 4] = [
        ("openai-chat", "chat"),
        ("openai-responses", "responses"),
        ("openai-embeddings", "embedding"),
        ("openai-images", "image"),
    ];
    let dir = path.parent().unwrap().file_name().unwrap().to_str().unwrap();
    match APIS.iter().find(|(name, _)| *name == dir) {
        Some((_, api_type)) => agent("openai", api_type, outputs),
        None => agent(dir, "chat", outputs),
    }
}

#[test]
fn every_recorded_stream_ends_in_a_message_written_as_serde_writes_it() {
    let streams = files("tests/fixtures", ".sse");
    assert!(streams.len() >= 40, "found {} recorded streams", streams.len());
    let mut with_usage = 0;
    for path in &streams {
        let body = std::fs::read(path).unwrap();
        // Whole, and in small pieces (so the message is built as a stream builds it).
        for piece in [body.len(), 7] {
            let mut acc = Accumulator::new(AccumulatorOptions::default());
            for chunk in body.chunks(piece.max(1)) {
                if acc.push(chunk).is_err() {
                    break;
                }
            }
            acc.flush();
            let message = acc.finish();
            with_usage += usize::from(message.usage.is_some());
            same_message(&message);
            let agent = agent_for(path, true);
            same(&message_span(Some(&agent), &message));
        }
    }
    assert!(with_usage >= 20, "only {with_usage} messages with usage");
}

#[test]
fn every_recorded_body_gives_results_messages_and_spans_written_as_serde_writes_them() {
    let bodies: Vec<_> = files("tests/fixtures", ".json")
        .into_iter()
        .filter(|p| !p.to_str().unwrap().ends_with(".expect.json"))
        .collect();
    assert!(bodies.len() >= 25, "found {} recorded bodies", bodies.len());
    let (mut results, mut messages) = (0, 0);
    for path in &bodies {
        let text = std::fs::read_to_string(path).unwrap();
        // The body itself, as a `Value` (embedding vectors: thousands of floats).
        same_value(&serde_json::from_str::<Value>(&text).unwrap());
        for outputs in [false, true] {
            let agent = agent_for(path, outputs);
            let mut span = None;
            let mut keep = |s: Span| span = Some(s);
            let result = process_with(&agent, text.as_str(), ProcessOptions { on_span: Some(&mut keep) });
            if let Ok(result) = result {
                same(&result);
                results += 1;
            }
            same(&span.expect("a span for every body"));
            if let Ok(message) = to_message(text.as_str(), Some(&agent)) {
                same_message(&message);
                messages += 1;
            }
        }
    }
    assert!(results >= 30 && messages >= 30, "{results} results, {messages} messages");
}

#[test]
fn expected_values_and_conformance_vectors_are_written_as_serde_writes_them() {
    let expected = files("tests/fixtures", ".expect.json");
    assert!(expected.len() >= 10, "found {} expectations", expected.len());
    for path in expected {
        same_value(&serde_json::from_str::<Value>(&std::fs::read_to_string(path).unwrap()).unwrap());
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/prompty-vectors.json");
    let all: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    same_value(&all);
    let (mut processed, mut streamed) = (0, 0);
    for entry in all["vectors"].as_array().unwrap() {
        let input = &entry["vector"]["input"];
        let text = |k: &str| input[k].as_str().unwrap_or_default().to_owned();
        match entry["operation"].as_str() {
            Some("process") => {
                let agent = agent(&text("provider"), &text("apiType"), input["has_outputs"] == true);
                // From the parsed object (written back to text by hand) and from the text.
                let body = serde_json::to_string(&input["response"]).unwrap();
                let from_value = process_with(
                    &agent,
                    &crate::json::Value::from(input["response"].clone()),
                    ProcessOptions::default(),
                )
                .unwrap();
                let from_text = process_with(&agent, body.as_str(), ProcessOptions::default()).unwrap();
                assert_eq!(same(&from_value), same(&from_text));
                if let Ok(message) = to_message(body.as_str(), Some(&agent)) {
                    same_message(&message);
                }
                processed += 1;
            }
            Some("processStream") => {
                let mut acc = Accumulator::new(AccumulatorOptions::default());
                for event in input["events"].as_array().unwrap() {
                    if event["kind"] == "provider" {
                        let framed = format!("data: {}\n\n", event["value"]);
                        let _ = acc.push(framed.as_bytes());
                    } else {
                        acc.abort(event["message"].as_str().unwrap_or(""));
                    }
                }
                acc.flush();
                same_message(&acc.finish());
                streamed += 1;
            }
            _ => {}
        }
    }
    assert!(processed >= 10 && streamed >= 1, "{processed} process and {streamed} stream vectors");
}

/// Every ASCII character, the escapes, non-BMP text.
fn nasty() -> String {
    let mut s: String = (0u8..=0x7f).map(char::from).collect();
    s.push_str("é ü ñ 中文 🎉 𝄞 \u{2028}\u{2029}\u{feff} \u{10ffff} \\\" \\\\ \\u0000 </script>");
    s
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

fn floats() -> Vec<f64> {
    let mut out = vec![
        1e21,
        1e-7,
        0.1 + 0.2,
        -0.0,
        0.0,
        1.0,
        -1.5,
        1e20,
        1e22,
        1e15,
        1e16,
        1e17,
        123456789012345680.0,
        0.000001,
        0.0000001,
        1.7976931348623157e308,
        f64::MIN,
        f64::MIN_POSITIVE,
        5e-324,
        f64::from_bits(0x000f_ffff_ffff_ffff),
        0.0123456,
        9007199254740993.0,
        u64::MAX as f64,
        i64::MIN as f64,
        std::f64::consts::PI,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..20_000 {
        // Random bit patterns (every exponent) and random "decimal-looking" values.
        out.push(f64::from_bits(rng.next()));
        out.push((rng.next() % 2_000_001) as f64 / 1000.0 - 1000.0);
        out.push((rng.next() as f64) * 10f64.powi((rng.next() % 80) as i32 - 40));
    }
    out
}

#[test]
fn floats_and_integers_are_written_as_serde_writes_them() {
    let floats = floats();
    // As `f64`s (NaN and the infinities are `null`), alone and in lists.
    for f in &floats {
        same(f);
    }
    same(&floats);
    same(&ProcessResult::Vector(floats.clone()));
    same(&ProcessResult::Vectors(floats.chunks(1000).map(<[f64]>::to_vec).collect()));
    // As `Value` numbers: floats, and integers at both ends of their ranges.
    let mut numbers: Vec<Value> = floats.iter().filter_map(|&f| Number::from_f64(f)).map(Value::Number).collect();
    let mut rng = Rng(7);
    for n in [0, 1, 9, 10, 99, 100, u64::MAX, u64::MAX - 1, i64::MAX as u64, 1 << 53, 10_000_000_000_000_000_000] {
        numbers.push(n.into());
    }
    for n in [-1, -9, -10, i64::MIN, i64::MIN + 1, -(1 << 53)] {
        numbers.push(n.into());
    }
    for _ in 0..10_000 {
        let n = rng.next();
        numbers.push((n >> (n % 64)).into());
        numbers.push(((n as i64) >> (n % 64)).into());
    }
    for n in &numbers {
        same_value(n);
    }
    same_value(&Value::Array(numbers));
    assert_eq!(
        same_value(&json!([1e21, 1e-7, -0.0, u64::MAX, i64::MIN])),
        "[1e+21,1e-7,-0.0,18446744073709551615,-9223372036854775808]"
    );
}

/// A random `Value` tree: every kind, nasty strings and keys, deep and wide.
fn random_value(rng: &mut Rng, depth: u32) -> Value {
    let pick = if depth >= 6 { rng.next() % 5 } else { rng.next() % 7 };
    let string = |rng: &mut Rng| {
        let nasty: Vec<char> = nasty().chars().collect();
        let len = (rng.next() % 12) as usize;
        (0..len).map(|_| nasty[(rng.next() % nasty.len() as u64) as usize]).collect::<String>()
    };
    match pick {
        0 => Value::Null,
        1 => Value::Bool(rng.next() % 2 == 0),
        2 => Number::from_f64(f64::from_bits(rng.next())).map_or(Value::Null, Value::Number),
        3 => match rng.next() % 2 {
            0 => rng.next().into(),
            _ => (rng.next() as i64).into(),
        },
        4 => Value::String(string(rng)),
        5 => Value::Array((0..rng.next() % 5).map(|_| random_value(rng, depth + 1)).collect()),
        _ => Value::Object((0..rng.next() % 5).map(|_| (string(rng), random_value(rng, depth + 1))).collect()),
    }
}

#[test]
fn strings_and_value_trees_are_written_as_serde_writes_them() {
    let nasty = nasty();
    same(nasty.as_str());
    for c in (0..=0x10ffff).filter_map(char::from_u32).step_by(7) {
        same(&format!("{c}a{c}"));
    }
    same_value(&json!({nasty.clone(): [nasty.clone(), {}, [], {"": null}, [[]]], "": "", "a\u{0}": true}));
    let mut rng = Rng(42);
    for _ in 0..3000 {
        let value = random_value(&mut rng, 0);
        same_value(&value);
        if let Value::Object(map) = &value {
            same_map(map);
        }
    }
    let mut deep = json!(1);
    for i in 0..200 {
        deep = if i % 2 == 0 { json!([deep]) } else { json!({"k": deep}) };
    }
    same_value(&deep);
}

fn usage(raw: &str) -> Usage {
    Usage {
        input_tokens: 0,
        output_tokens: u64::MAX,
        total_tokens: 12,
        reasoning_tokens: Some(3),
        cache_read_tokens: None,
        cache_write_tokens: Some(0),
        raw: RawJson::parse(raw).unwrap(),
    }
}

/// A message with every optional field set (and one with none), nested choices included.
fn full_message(s: &str) -> FinalMessage {
    let call = ToolCall { id: s.into(), name: "n".into(), arguments: "{\"a\": [1, 2.5e3, \"\\u00e9\"]}".into() };
    let choice = FinalMessage {
        role: "assistant",
        content: vec![],
        text: String::new(),
        reasoning: String::new(),
        tool_calls: vec![],
        usage: None,
        finish_reason: FinishReason::Other,
        raw_finish_reason: None,
        id: None,
        model: None,
        provider: None,
        error: None,
        complete: false,
        choices: None,
    };
    FinalMessage {
        role: "assistant",
        content: vec![
            Block::text(s),
            Block::Text {
                text: String::new(),
                citations: Some(vec![
                    RawJson::parse(" {\"url\": \"x\" , \"n\": [1.0, -0]} ").unwrap(),
                    RawJson::null(),
                ]),
                signature: Some(s.into()),
            },
            Block::Text { text: "t".into(), citations: Some(vec![]), signature: None },
            Block::tool_call(call.clone()),
            Block::ToolCall {
                id: String::new(),
                name: s.into(),
                arguments: String::new(),
                signature: Some("g".into()),
            },
            Block::Reasoning {
                text: s.into(),
                signature: Some(s.into()),
                redacted: None,
                id: None,
                encrypted_content: None,
                format: Some(s.into()),
            },
            Block::Reasoning {
                text: String::new(),
                signature: None,
                redacted: Some("r".into()),
                id: Some(s.into()),
                encrypted_content: Some(s.into()),
                format: None,
            },
            Block::Other { provider_type: s.into(), data: RawJson::parse("[true,false,null,\"\"]").unwrap() },
        ],
        text: s.into(),
        reasoning: s.repeat(3),
        tool_calls: vec![call.clone(), ToolCall { id: String::new(), name: String::new(), arguments: String::new() }],
        usage: Some(usage("{\n  \"prompt_tokens\" : 1,\t\"x\": {}\n}")),
        finish_reason: FinishReason::ToolCalls,
        raw_finish_reason: Some(s.into()),
        id: Some(s.into()),
        model: Some("m".into()),
        provider: Some("p".into()),
        error: Some(ErrorInfo {
            message: s.into(),
            code: Some("c".into()),
            outcome: Outcome::Indeterminate,
            retryable: Some(true),
            provider_type: Some(s.into()),
            provider_code: Some("429".into()),
        }),
        complete: true,
        choices: Some(vec![
            choice.clone(),
            FinalMessage {
                error: Some(ErrorInfo {
                    message: "m".into(),
                    code: None,
                    outcome: Outcome::Determinate,
                    retryable: None,
                    provider_type: None,
                    provider_code: None,
                }),
                usage: Some(usage("{}")),
                ..choice
            },
        ]),
    }
}

#[test]
fn messages_results_spans_and_actions_of_every_shape_are_written_as_serde_writes_them() {
    let nasty = nasty();
    let message = full_message(&nasty);
    same_message(&message);
    for reason in [
        FinishReason::Stop,
        FinishReason::Length,
        FinishReason::ToolCalls,
        FinishReason::ContentFilter,
        FinishReason::Refusal,
        FinishReason::Error,
        FinishReason::Other,
    ] {
        same_message(&FinalMessage { finish_reason: reason, error: None, ..full_message("x") });
    }
    // A literal beyond the double range reads as infinity, as `JSON.parse` reads it, and is
    // written as `1e999` for `JSON.parse` to read back, where serde_json writes `null`.
    let huge = FinalMessage { error: None, tool_calls: vec![], text: "{\"x\": [1e400]}".into(), ..message.clone() };
    let result = huge.result(true).unwrap();
    assert_eq!(
        (result.to_json_text(), serde_json::to_string(&result).unwrap()),
        ("{\"x\":[1e999]}".into(), "{\"x\":[null]}".into())
    );
    same(&huge);
    same(&huge.result(false).unwrap());
    same_message(&Accumulator::new(AccumulatorOptions::default()).finish());
    for result in [
        ProcessResult::Text(nasty.clone()),
        ProcessResult::Text(String::new()),
        ProcessResult::Json(json!({"b": [1, -2, 0.5, null], "a": {nasty.clone(): nasty.clone()}}).into()),
        ProcessResult::Json(json!(null).into()),
        ProcessResult::ToolCalls(message.tool_calls.clone()),
        ProcessResult::ToolCalls(vec![]),
        ProcessResult::Vector(vec![]),
        ProcessResult::Vectors(vec![vec![], vec![0.5, -0.0]]),
        ProcessResult::Strings(vec![nasty.clone(), String::new()]),
        ProcessResult::Strings(vec![]),
    ] {
        same(&result);
    }
    let mut attributes = Map::new();
    attributes.insert("gen_ai.response.finish_reasons".into(), json!(["stop", nasty.clone()]));
    attributes.insert("gen_ai.usage.input_tokens".into(), json!(u64::MAX));
    same(&Span { name: "process", attributes: attributes.into() });
    same(&Span { name: "process", attributes: crate::json::Map::new() });
    let calls = vec![
        ToolCall { id: nasty.clone(), name: nasty.clone(), arguments: "{\"z\": 1, \"a\": [0.1, \"é\"]}".into() },
        ToolCall { id: "i".into(), name: "n".into(), arguments: " ".into() },
    ];
    same(&parse_tool_arguments(&calls).unwrap());
}

#[test]
fn raw_json_keeps_its_text_verbatim_and_refuses_what_is_not_json() {
    let raw = RawJson::parse("  {\"a\" : [1, 2.50]}\n").unwrap();
    assert_eq!(raw.get(), "{\"a\" : [1, 2.50]}");
    assert_eq!(same(&raw), "{\"a\" : [1, 2.50]}");
    assert_eq!(same(&RawJson::null()), "null");
    for bad in ["", " ", "{", "[1,]", "{} {}", "nul", "\"\\x\"", "01"] {
        assert!(RawJson::parse(bad).is_none(), "{bad:?}");
    }
    let value = serde_json::value::RawValue::from_string("[1, {}]".into()).unwrap();
    assert_eq!(RawJson::from_raw(&value), RawJson::parse("[1, {}]").unwrap());
}

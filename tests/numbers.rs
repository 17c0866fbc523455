//! The rules for numbers that do not fit, each on recorded bodies (`tests/fixtures`) with one
//! number of them changed:
//!
//! - a usage count that is not a finite non-negative number is absent, alone;
//! - an embedding value that is not a finite number is an error at its item;
//! - tool arguments and structured output read numbers as `JSON.parse` does (`1e400` is
//!   infinity).

use llm_wire::model::Model;
use llm_wire::model::Property;
use llm_wire::{
    parse_structured_output, parse_tool_arguments, process, to_message, Agent, ErrorCode, Number, ProcessResult,
    StructuredOptions, Usage, Value,
};

fn agent(provider: &str, api_type: &str) -> Agent {
    Agent {
        model: Model { id: "m".into(), provider: provider.into(), api_type: api_type.into(), ..Model::default() },
        ..Agent::default()
    }
}

fn fixture(path: &str) -> String {
    let path = format!("{}/tests/fixtures/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `body` with the number after the first `"key": ` replaced by the text `value`, verbatim
/// (serde_json cannot hold `1e400`, so the bodies are edited as text).
fn with_number(body: &str, key: &str, value: &str) -> String {
    let member = format!("\"{key}\": ");
    let start = body.find(&member).unwrap_or_else(|| panic!("no {member} in the body")) + member.len();
    let len = body[start..].find(|c: char| !matches!(c, '0'..='9' | '-' | '+' | '.' | 'e' | 'E')).unwrap();
    assert!(len > 0, "{member} is not followed by a number");
    format!("{}{value}{}", &body[..start], &body[start + len..])
}

fn usage_of(body: &str, agent: &Agent) -> Usage {
    to_message(body, Some(agent)).unwrap().usage.expect("the body has a usage")
}

#[test]
fn a_usage_count_that_is_not_a_finite_non_negative_number_is_absent_and_the_others_stay() {
    let chat = fixture("openai-chat/vercel-openai-text.json");
    let responses = fixture("openai-responses/pyd-reasoning-summary.json");
    let anthropic = fixture("anthropic/vercel-text.json");
    let (openai, responses_agent, claude) =
        (agent("openai", "chat"), agent("openai", "responses"), agent("anthropic", ""));
    // (body, agent, key, value, input, output, total, cache read, reasoning)
    let cases = [
        // The total is always the sum of what is left.
        (&chat, &openai, "completion_tokens", "1e400", 16, 0, 16, Some(0), Some(0)),
        (&chat, &openai, "completion_tokens", "-1e400", 16, 0, 16, Some(0), Some(0)),
        (&chat, &openai, "completion_tokens", "-3", 16, 0, 16, Some(0), Some(0)),
        (&chat, &openai, "prompt_tokens", "1e400", 0, 363, 363, Some(0), Some(0)),
        (&chat, &openai, "total_tokens", "1e400", 16, 363, 379, Some(0), Some(0)),
        (&chat, &openai, "cached_tokens", "1e400", 16, 363, 379, None, Some(0)),
        (&chat, &openai, "reasoning_tokens", "1e999", 16, 363, 379, Some(0), None),
        (&responses, &responses_agent, "input_tokens", "1e400", 0, 226, 226, Some(0), Some(59)),
        (&responses, &responses_agent, "reasoning_tokens", "-1e400", 34, 226, 260, Some(0), None),
        (&responses, &responses_agent, "output_tokens", "2.5", 34, 2, 36, Some(0), Some(59)),
        (&anthropic, &claude, "output_tokens", "1e400", 12, 0, 12, Some(0), None),
        (&anthropic, &claude, "cache_read_input_tokens", "1e400", 12, 29, 41, None, None),
    ];
    for (body, agent, key, value, input, output, total, cache_read, reasoning) in cases {
        let body = with_number(body, key, value);
        let usage = usage_of(&body, agent);
        let counts = (usage.input_tokens, usage.output_tokens, usage.total_tokens);
        assert_eq!(counts, (input, output, total), "{key}: {value}");
        assert_eq!((usage.cache_read_tokens, usage.reasoning_tokens), (cache_read, reasoning), "{key}: {value}");
        // `raw` is the provider's object as it came, the odd number included.
        assert!(usage.raw.get().contains(&format!("\"{key}\": {value}")), "{key}: {value}: {}", usage.raw.get());
    }
}

#[test]
fn a_total_beyond_u64_is_the_largest_count_not_a_wrapped_small_one() {
    let body = fixture("openai-chat/vercel-openai-text.json");
    let body = with_number(&with_number(&body, "prompt_tokens", "18446744073709551615"), "total_tokens", "null");
    let usage = usage_of(&body, &agent("openai", "chat"));
    assert_eq!((usage.input_tokens, usage.output_tokens, usage.total_tokens), (u64::MAX, 363, u64::MAX));
}

#[test]
fn the_process_span_keeps_the_usage_counts_that_fit() {
    let body = with_number(&fixture("openai-embeddings/vercel-batch-float.json"), "prompt_tokens", "1e400");
    let mut spans = Vec::new();
    let mut on_span = |span| spans.push(span);
    let options = llm_wire::ProcessOptions { on_span: Some(&mut on_span) };
    llm_wire::process_with(&agent("openai", "embedding"), body.as_str(), options).unwrap();
    let attributes = &spans[0].attributes;
    assert_eq!(attributes.get("gen_ai.usage.input_tokens"), None);
    assert_eq!(attributes["gen_ai.response.model"], "text-embedding-3-small");
}

#[test]
fn a_streamed_usage_count_beyond_the_double_range_is_absent_too() {
    let stream = fixture("openai-chat/vercel-openai-text.sse")
        .replace("\"completion_tokens\":300", "\"completion_tokens\":1e400");
    let mut acc = llm_wire::Accumulator::new(llm_wire::AccumulatorOptions::default());
    acc.push(stream.as_bytes()).unwrap();
    let usage = acc.finish().usage.expect("the stream has a usage");
    assert_eq!((usage.input_tokens, usage.output_tokens, usage.total_tokens), (16, 0, 16));
    assert!(usage.raw.get().contains("\"completion_tokens\":1e400"));
}

#[test]
fn one_tool_call_with_a_number_beyond_the_double_range_reads_as_infinity_and_the_batch_parses() {
    let body = fixture("anthropic/pyd-parallel-tool-use.json")
        .replace(r#"{"name": "Bob"}"#, r#"{"name": "Bob", "age": 1e400}"#)
        .replace(r#"{"name": "Charlie"}"#, r#"{"name": "Charlie", "age": -1E+999, "ids": [1, 2e308]}"#);
    let ProcessResult::ToolCalls(calls) = process(&agent("anthropic", ""), body.as_str()).unwrap() else {
        panic!("the body has tool calls")
    };
    // The arguments keep the literal as the model wrote it.
    assert_eq!(calls[1].arguments, r#"{"name":"Bob","age":1e400}"#);
    let actions = parse_tool_arguments(&calls).unwrap();
    let names: Vec<&Value> = actions.iter().map(|a| &a.arguments["name"]).collect();
    assert_eq!(names, ["Alice", "Bob", "Charlie", "Daisy"]);
    let (bob, charlie) = (&actions[1].arguments, &actions[2].arguments);
    assert_eq!(bob["age"].as_f64(), Some(f64::INFINITY));
    assert_eq!(charlie["age"].as_f64(), Some(f64::NEG_INFINITY));
    assert_eq!(charlie["ids"][1].as_f64(), Some(f64::INFINITY));
    assert!(charlie["ids"][1].is_f64() && charlie["ids"][0].is_u64());
    // Written for `JSON.parse` to read back as ±Infinity; serde_json, which has no infinity,
    // gives `null` as it does for every non-finite float.
    assert_eq!(Value::Object(charlie.clone()).to_string(), r#"{"age":-1e999,"ids":[1,1e999],"name":"Charlie"}"#);
    assert_eq!(serde_json::to_value(&actions[2]).unwrap()["arguments"]["age"], serde_json::Value::Null);
    assert_eq!(serde_json::Value::from(bob["age"].clone()), serde_json::Value::Null);
}

#[test]
fn infinity_is_held_only_when_read_from_such_a_literal() {
    assert_eq!(Number::from_f64(f64::INFINITY), None);
    assert_eq!(Value::from(f64::NEG_INFINITY), Value::Null);
    // The largest double is finite, and the smallest literals underflow to zero, as in JS.
    let call = llm_wire::ToolCall {
        id: "c".into(),
        name: "f".into(),
        arguments: r#"{"max": 1.7976931348623157e308, "tiny": 1e-400, "big": 1e309}"#.into(),
    };
    let arguments = &parse_tool_arguments(&[call]).unwrap()[0].arguments;
    assert_eq!(arguments["max"].as_f64(), Some(f64::MAX));
    assert_eq!(arguments["tiny"].as_f64(), Some(0.0));
    assert_eq!(arguments["big"].as_f64(), Some(f64::INFINITY));
}

#[test]
fn structured_output_reads_a_number_beyond_the_double_range_as_infinity() {
    let outputs = [
        Property { name: "temperature".into(), kind: "float".into(), ..Property::default() },
        Property { name: "count".into(), kind: "integer".into(), ..Property::default() },
    ];
    let strict = StructuredOptions::default();
    let value = parse_structured_output(r#"{"temperature": 1e400}"#, &outputs, strict).unwrap();
    assert_eq!(value["temperature"].as_f64(), Some(f64::INFINITY));
    // What is written reads back the same.
    assert_eq!(parse_structured_output(&value.to_string(), &outputs, strict).unwrap(), value);
    let lenient = StructuredOptions { lenient: true };
    let value = parse_structured_output("```json\n{\"temperature\": -1e400,}\n```", &outputs, lenient).unwrap();
    assert_eq!(value["temperature"].as_f64(), Some(f64::NEG_INFINITY));
    // Infinity is a number but no integer.
    let err = parse_structured_output(r#"{"count": 1e400}"#, &outputs, strict).unwrap_err();
    assert_eq!((err.code, err.path.as_deref()), (ErrorCode::ValidationFailed, Some("$.count")));
    assert_eq!(err.message, "expected integer, got a non-integer number");
}

#[test]
fn process_with_outputs_reads_the_text_as_json_parse_does() {
    let body = fixture("openai-chat/vercel-openai-text.json");
    let start = body.find("\"content\": \"").unwrap() + "\"content\": ".len();
    let end = start + body[start..].find("\",\n").unwrap() + 1;
    let body = format!("{}{}{}", &body[..start], r#""{\"distance\": 1e400}""#, &body[end..]);
    let mut agent = agent("openai", "chat");
    agent.outputs = vec![Property { name: "distance".into(), kind: "float".into(), ..Property::default() }];
    let ProcessResult::Json(value) = process(&agent, body.as_str()).unwrap() else { panic!("a JSON result") };
    assert_eq!(value.to_string(), r#"{"distance":1e999}"#);
}

/// The error of an embeddings body: (code, path, message).
fn embedding_error(body: &str) -> (ErrorCode, Option<String>, String) {
    let err = process(&agent("openai", "embedding"), body).unwrap_err();
    (err.code, err.path.clone(), err.message.clone())
}

#[test]
fn a_base64_embedding_value_with_nan_or_infinite_bits_is_an_error_naming_its_item_and_element() {
    let body = fixture("openai-embeddings/pyd-batch-base64.json");
    let second = body.find("\"embedding\": \"").unwrap();
    let second = second + 1 + body[second + 1..].find("\"embedding\": \"").unwrap() + "\"embedding\": \"".len();
    // The first 16 characters are the first three float32 values: 1.0, then the bits under
    // test, then 2.0.
    let cases = [
        ("AACAPwAAwH8AAABA", "element 1 (float32 bits 0x7fc00000) is NaN, not a finite number"),
        ("AACAPwEAoH8AAABA", "element 1 (float32 bits 0x7fa00001) is NaN, not a finite number"),
        ("AACAPwAAgH8AAABA", "element 1 (float32 bits 0x7f800000) is infinite, not a finite number"),
    ];
    for (bits, why) in cases {
        let edited = format!("{}{bits}{}", &body[..second], &body[second + 16..]);
        let want = (ErrorCode::InvalidJson, Some("data[1].embedding".to_owned()), format!("data[1].embedding: {why}"));
        assert_eq!(embedding_error(&edited), want, "{bits}");
    }
    // The body as recorded: two vectors of 1536 finite values.
    let ProcessResult::Vectors(vectors) = process(&agent("openai", "embedding"), body.as_str()).unwrap() else {
        panic!("two vectors")
    };
    assert_eq!(vectors.iter().map(Vec::len).collect::<Vec<_>>(), [1536, 1536]);
    assert!(vectors.iter().flatten().all(|x| x.is_finite()));
}

#[test]
fn a_list_embedding_element_beyond_the_double_range_is_an_error_naming_its_item_and_element() {
    let body = fixture("openai-embeddings/vercel-batch-float.json");
    for (value, why) in [
        ("1e400", "element 2 (1e400) is not a finite number"),
        ("-1e400", "element 2 (-1e400) is not a finite number"),
        ("\"x\"", "element 2 is not a number"),
    ] {
        let edited = body.replace("-0.008340587", value);
        let want = (ErrorCode::InvalidJson, Some("data[1].embedding".to_owned()), format!("data[1].embedding: {why}"));
        assert_eq!(embedding_error(&edited), want, "{value}");
        // The item is named by its place in the body, whatever the order of the indexes.
        let reordered = edited.replace("\"index\": 0", "\"index\": 7");
        assert_eq!(embedding_error(&reordered), want, "{value}, reordered");
    }
}

//! Every non-streamed Gemini and Vertex AI body in `tests/fixtures/` through `process` and
//! `to_message`, one test each, expected values read from the body itself; and a body's
//! message equals the message of the same answer streamed.

mod common;

use std::path::Path;

use common::check_expect;
use llm_wire::{
    process, to_message, Accumulator, AccumulatorOptions, Agent, Block, ErrorCode, FinalMessage, FinishReason,
    ProcessResult,
};
use serde_json::{json, Value};

use common::read_fixture as read;

fn body(path: &str) -> Value {
    serde_json::from_str(&read(path)).unwrap()
}

fn agent(path: &str, api_type: &str, outputs: bool) -> Agent {
    let provider = if path.starts_with("vertex/") { "vertex" } else { "google" };
    common::agent_of(provider, api_type, outputs)
}

fn result(path: &str, outputs: bool) -> Value {
    let got = process(&agent(path, "chat", outputs), read(path).as_str()).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::to_value(got).unwrap()
}

/// The message of a body, with an agent and without one (the shape names the API), which agree
/// but for the provider the agent names; checked against the body's `.expect.json` when it has
/// one.
fn message(path: &str) -> FinalMessage {
    let with_agent = to_message(read(path).as_str(), Some(&agent(path, "chat", false))).unwrap();
    let mut detected = to_message(read(path).as_str(), None).unwrap();
    detected.provider = with_agent.provider.clone();
    assert_eq!(detected, with_agent, "{path}: the body's shape names Gemini");
    let expect =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(path.replace(".json", ".expect.json"));
    if let Ok(expect) = std::fs::read_to_string(expect) {
        let got = serde_json::to_value(&with_agent).unwrap();
        check_expect(&got, &serde_json::from_str(&expect).unwrap()).unwrap_or_else(|e| panic!("{path}: {e}"));
    }
    with_agent
}

/// The first candidate's parts.
fn parts(body: &Value) -> Vec<Value> {
    body["candidates"][0]["content"]["parts"].as_array().cloned().unwrap_or_default()
}

fn text_of(body: &Value) -> String {
    parts(body).iter().filter(|p| p["thought"] != true).filter_map(|p| p["text"].as_str()).collect()
}

/// The answer of the body streamed: its text cut into chunks of a few characters, each a
/// whole chunk of its own, the finish reason and usage on the last, as Gemini streams.
fn streamed_form(body: &Value) -> String {
    let text: Vec<char> = text_of(body).chars().collect();
    let mut chunks: Vec<Value> = text
        .chunks(7)
        .map(|piece| {
            let text: String = piece.iter().collect();
            json!({"candidates": [{"content": {"parts": [{"text": text}], "role": "model"}}],
                "modelVersion": body["modelVersion"], "responseId": body["responseId"]})
        })
        .collect();
    let last = chunks.last_mut().unwrap();
    last["candidates"][0]["finishReason"] = body["candidates"][0]["finishReason"].clone();
    last["usageMetadata"] = body["usageMetadata"].clone();
    chunks.iter().map(|c| format!("data: {c}\r\n\r\n")).collect()
}

/// A text body: its text is the result and the message's text; the message carries the
/// finish reason, id, model and usage, and equals the message of the answer streamed.
fn check_text(path: &str) {
    let body = body(path);
    let message = message(path);
    assert_eq!(result(path, false), json!(text_of(&body)), "{path}");
    assert_eq!(message.text, text_of(&body), "{path}");
    check_common(path, &body, &message);
    // Compact on both sides, so the untouched `usage.raw` is the same text too.
    let compact = body.to_string();
    let from_body = to_message(compact.as_str(), Some(&agent(path, "chat", false))).unwrap();
    let stream = streamed_form(&body);
    for size in [1, 7, 64, stream.len()] {
        let mut acc =
            Accumulator::new(AccumulatorOptions { provider: from_body.provider.clone(), ..Default::default() });
        for piece in stream.as_bytes().chunks(size) {
            acc.push(piece).unwrap();
        }
        assert_eq!(acc.finish(), from_body, "{path}: the streamed form (pieces of {size} bytes) differs");
    }
}

fn check_common(path: &str, body: &Value, message: &FinalMessage) {
    assert_eq!(message.raw_finish_reason.as_deref(), body["candidates"][0]["finishReason"].as_str(), "{path}");
    assert_eq!(message.id.as_deref(), body["responseId"].as_str(), "{path}");
    assert_eq!(message.model.as_deref(), body["modelVersion"].as_str(), "{path}");
    assert!(message.complete && message.error.is_none(), "{path}");
    let usage = message.usage.as_ref().unwrap();
    let count = |key: &str| body["usageMetadata"][key].as_u64().unwrap_or(0);
    assert_eq!(usage.input_tokens, count("promptTokenCount") + count("toolUsePromptTokenCount"), "{path}");
    assert_eq!(usage.output_tokens, count("candidatesTokenCount") + count("thoughtsTokenCount"), "{path}");
    assert_eq!(usage.total_tokens, count("totalTokenCount"), "{path}");
    assert_eq!(usage.reasoning_tokens, body["usageMetadata"]["thoughtsTokenCount"].as_u64(), "{path}");
    assert_eq!(usage.cache_read_tokens, body["usageMetadata"]["cachedContentTokenCount"].as_u64(), "{path}");
}

/// Code execution: each part is a block in order, the code and its results kept whole as they
/// came (signatures included) and the answer a signed text block.
fn check_code_execution(path: &str) {
    let body = body(path);
    let message = message(path);
    let blocks: Vec<Value> = message
        .content
        .iter()
        .map(|b| match b {
            Block::Other { data, .. } => serde_json::from_str(data.get()).unwrap(),
            Block::Text { text, signature, .. } => json!({"text": text, "thoughtSignature": signature}),
            other => panic!("{path}: {other:?}"),
        })
        .collect();
    assert_eq!(blocks, parts(&body), "{path}");
    assert_eq!(result(path, false), json!(text_of(&body)), "{path}");
    check_common(path, &body, &message);
}

/// Parallel calls: each `functionCall` is a call with its arguments, the first signed; Gemini
/// sent no ids, so each has the one made from the response id and its place.
fn check_calls(path: &str) {
    let body = body(path);
    let message = message(path);
    let calls: Vec<Value> = parts(&body).into_iter().filter(|p| p.get("functionCall").is_some()).collect();
    let response_id = body["responseId"].as_str().unwrap();
    let want: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(n, p)| json!({"id": format!("call_{response_id}_{n}"), "name": p["functionCall"]["name"], "arguments": p["functionCall"]["args"].to_string()}))
        .collect();
    assert_eq!(result(path, false), Value::Array(want.clone()), "{path}");
    let (mut signatures, mut kept) = (Vec::new(), Vec::new());
    for block in &message.content {
        match block {
            Block::ToolCall { signature, .. } => signatures.push(signature.as_deref()),
            Block::Other { provider_type, data } => kept.push(json!({provider_type: data.get()})),
            other => panic!("{path}: {other:?}"),
        }
    }
    let want_signatures: Vec<Option<&str>> = calls.iter().map(|p| p["thoughtSignature"].as_str()).collect();
    assert_eq!(signatures, want_signatures, "{path}");
    // Why the candidate stopped, after its calls.
    let finish_message = body["candidates"][0].get("finishMessage").map(|m| json!({"finishMessage": m.to_string()}));
    assert_eq!(kept, Vec::from_iter(finish_message), "{path}");
    assert_eq!(message.finish_reason, FinishReason::ToolCalls, "{path}");
    check_common(path, &body, &message);
}

/// Structured output is parsed when the agent has outputs.
fn check_structured(path: &str) {
    let text = text_of(&body(path));
    assert_eq!(result(path, true), serde_json::from_str::<Value>(&text).unwrap(), "{path}");
    check_text(path);
}

/// A candidate cut by a limit or a filter: no text, the reason mapped, no error.
fn check_stopped(path: &str, reason: FinishReason) {
    let body = body(path);
    let message = message(path);
    assert_eq!((message.text.as_str(), message.finish_reason), ("", reason), "{path}");
    assert_eq!(result(path, false), json!(""), "{path}");
    check_common(path, &body, &message);
}

/// A prompt blocked before any candidate: `process` fails with the reason as the code,
/// `toMessage` carries it as the message's error.
fn check_blocked(path: &str) {
    let body = body(path);
    let reason = body["promptFeedback"]["blockReason"].as_str().unwrap();
    let err = process(&agent(path, "chat", false), read(path).as_str()).unwrap_err();
    assert_eq!(err.code, ErrorCode::ProviderError, "{path}");
    assert!(err.message.contains(body["promptFeedback"]["blockReasonMessage"].as_str().unwrap()), "{path}");
    assert_eq!(err.provider.as_ref().unwrap().code.as_deref(), Some(reason), "{path}");
    let message = message(path);
    assert_eq!(message.error.unwrap().code.as_deref(), Some(reason), "{path}");
    assert!(!message.complete, "{path}");
}

/// Google's error body: the status is the error's type, the HTTP code its code.
fn check_error(path: &str) {
    let error = &body(path)["error"];
    for api_type in ["chat", "embedding"] {
        let err = process(&agent(path, api_type, false), read(path).as_str()).unwrap_err();
        assert_eq!(
            (err.code, err.message.as_str()),
            (ErrorCode::ProviderError, error["message"].as_str().unwrap()),
            "{path}"
        );
        let detail = err.provider.clone().unwrap();
        assert_eq!(detail.kind.as_deref(), error["status"].as_str(), "{path}");
        assert_eq!(detail.code, Some(error["code"].to_string()), "{path}");
        assert!(!detail.retryable, "{path}: a 404 is not worth retrying");
    }
    assert_eq!(to_message(read(path).as_str(), None).unwrap_err().code, ErrorCode::ProviderError, "{path}");
}

/// Embeddings: the vectors of the body, one vector for one embedding.
fn check_embeddings(path: &str) {
    let body = body(path);
    let vectors: Vec<Value> = match (&body["embeddings"], &body["predictions"]) {
        (Value::Array(list), _) => list.iter().map(|e| e["values"].clone()).collect(),
        (_, Value::Array(list)) => list.iter().map(|p| p["embeddings"]["values"].clone()).collect(),
        _ => vec![body["embedding"]["values"].clone()],
    };
    let got = serde_json::to_value(process(&agent(path, "embedding", false), read(path).as_str()).unwrap()).unwrap();
    let got = if vectors.len() == 1 { vec![got] } else { got.as_array().unwrap().clone() };
    assert_eq!(got.len(), vectors.len(), "{path}");
    // serde_json's reading of the expected numbers may be one unit off in the last place; the
    // crate's is correctly rounded.
    let numbers = |v: &Value| v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect::<Vec<f64>>();
    for (got, want) in got.iter().zip(&vectors) {
        let (got, want) = (numbers(got), numbers(want));
        assert_eq!(got.len(), want.len(), "{path}");
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() <= w.abs() * f64::EPSILON, "{path}: {g} is not {w}");
        }
    }
    let err = to_message(read(path).as_str(), Some(&agent(path, "embedding", false))).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidInput, "{path}: embeddings have no message form");
}

macro_rules! fixtures {
    ($($name:ident: $check:ident($path:literal $(, $arg:expr)?);)*) => {
        $(#[test] fn $name() { $check($path $(, $arg)?); })*
        const ALL: &[&str] = &[$($path),*];
    };
}

fixtures! {
    a_gemini_batch_of_one_embedding_gives_one_vector: check_embeddings("gemini/pyd-batch-embed-contents.json");
    gemini_code_execution_keeps_every_part_whole_in_order: check_code_execution("gemini/pyd-code-execution.json");
    a_gemini_404_is_a_provider_error_named_by_its_status: check_error("gemini/pyd-error-404.json");
    gemini_cached_tokens_are_part_of_the_input: check_text("gemini/pyd-implicit-cache-usage.json");
    a_gemini_answer_cut_by_max_tokens_before_any_part_is_empty: check_stopped("gemini/pyd-max-tokens-no-parts.json", FinishReason::Length);
    gemini_parallel_calls_get_made_up_ids_and_keep_their_signature: check_calls("gemini/pyd-parallel-function-calls.json");
    a_gemini_answer_blocked_for_safety_is_empty_and_filtered: check_stopped("gemini/pyd-safety-blocked.json", FinishReason::ContentFilter);
    gemini_structured_output_parses_with_outputs: check_structured("gemini/pyd-structured-output.json");
    a_vertex_prompt_blocked_by_model_armor_is_an_error: check_blocked("vertex/pyd-model-armor-prompt-blocked.json");
    vertex_predict_embeddings_give_one_vector: check_embeddings("vertex/pyd-predict-embeddings.json");
}

#[test]
fn every_gemini_and_vertex_body_has_its_own_test() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut found = Vec::new();
    for dir in ["gemini", "vertex"] {
        for file in std::fs::read_dir(root.join(dir)).unwrap() {
            let name = file.unwrap().file_name().into_string().unwrap();
            if name.ends_with(".json") && !name.ends_with(".expect.json") && !name.ends_with(".request.json") {
                found.push(format!("{dir}/{name}"));
            }
        }
    }
    found.sort();
    let mut listed: Vec<&str> = ALL.to_vec();
    listed.sort();
    assert_eq!(found, listed);
}

#[test]
fn a_whole_stream_generate_content_body_is_its_chunks_in_order() {
    let chunks: Vec<Value> = vec![
        json!({"candidates": [{"content": {"parts": [{"text": "Hel"}], "role": "model"}}], "responseId": "r"}),
        json!({"candidates": [{"content": {"parts": [{"text": "lo"}], "role": "model"}, "finishReason": "STOP"}], "responseId": "r",
            "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2, "totalTokenCount": 5}}),
    ];
    let array = serde_json::to_string_pretty(&chunks).unwrap();
    let message = to_message(array.as_str(), None).unwrap();
    assert_eq!((message.text.as_str(), message.complete), ("Hello", true));
    let sse: String = chunks.iter().map(|c| format!("data: {c}\r\n\r\n")).collect();
    let mut acc = Accumulator::new(AccumulatorOptions::default());
    acc.push(sse.as_bytes()).unwrap();
    let mut streamed = acc.finish();
    streamed.usage = message.usage.clone(); // the same counts, written with other spacing
    assert_eq!(streamed, message);
    for bad in ["[1]", "[{}, 2]", "[{\"candidates\": []}"] {
        assert_eq!(
            to_message(bad, Some(&agent("gemini/x", "chat", false))).unwrap_err().code,
            ErrorCode::InvalidJson,
            "{bad}"
        );
    }
}

#[test]
fn embedding_bodies_that_hold_no_vector_or_a_bad_one_are_errors() {
    let embedding = agent("gemini/x", "embedding", false);
    let cases = [
        ("{}", ErrorCode::EmptyResponse, None),
        (r#"{"embeddings": []}"#, ErrorCode::EmptyResponse, None),
        (r#"{"embeddings": [{"values": [1]}, {}]}"#, ErrorCode::InvalidJson, Some("embeddings[1]")),
        (
            r#"{"predictions": [{"embeddings": {"values": [1, "x"]}}]}"#,
            ErrorCode::InvalidJson,
            Some("predictions[0].embeddings"),
        ),
        (r#"{"embedding": {"values": [1e400]}}"#, ErrorCode::InvalidJson, Some("embedding")),
        ("[]", ErrorCode::InvalidJson, Some("response")),
    ];
    for (text, code, path) in cases {
        let err = process(&embedding, text).unwrap_err();
        assert_eq!((err.code, err.path.as_deref()), (code, path), "{text}");
    }
    let two = process(&embedding, r#"{"embeddings": [{"values": [1, 2]}, {"values": [3]}]}"#).unwrap();
    assert_eq!(serde_json::to_value(two).unwrap(), json!([[1.0, 2.0], [3.0]]));
}

#[test]
fn an_api_type_gemini_does_not_have_is_invalid_input() {
    for api_type in ["responses", "image"] {
        let err = process(&agent("gemini/x", api_type, false), "{}").unwrap_err();
        assert_eq!((err.code, err.path.as_deref()), (ErrorCode::InvalidInput, Some("agent.model.apiType")));
    }
}

/// `chunks` as `alt=sse` streams them.
fn sse(chunks: &[Value]) -> String {
    chunks.iter().map(|c| format!("data: {c}\r\n\r\n")).collect()
}

/// The message of a stream, the same whole and cut in two at every byte.
fn finished(stream: &str) -> FinalMessage {
    let read = |pieces: &[&[u8]]| {
        let mut acc = Accumulator::new(AccumulatorOptions::default());
        for piece in pieces {
            acc.push(piece).unwrap();
        }
        acc.finish()
    };
    let stream = stream.as_bytes();
    let whole = read(&[stream]);
    for cut in 1..stream.len() {
        assert_eq!(read(&[&stream[..cut], &stream[cut..]]), whole, "cut at {cut}");
    }
    whole
}

/// A body's message is the message of the same chunks streamed, given as one array (what
/// `streamGenerateContent` returns without `alt=sse`) and, for one chunk, as the object.
fn same_as_streamed(chunks: &[Value]) -> FinalMessage {
    let streamed = finished(&sse(chunks));
    let array = Value::Array(chunks.to_vec()).to_string();
    assert_eq!(to_message(array.as_str(), None).unwrap(), streamed, "{array}");
    if let [chunk] = chunks {
        assert_eq!(to_message(chunk.to_string().as_str(), None).unwrap(), streamed, "{chunk}");
    }
    streamed
}

fn text_chunk(text: &str) -> Value {
    json!({"candidates": [{"content": {"parts": [{"text": text}], "role": "model"}, "index": 0}], "responseId": "r"})
}

/// An error after some chunks keeps their text and is the message's error, as in the stream;
/// `process` throws it with Google's status and code. An error first is thrown by both.
#[test]
fn an_error_after_some_chunks_keeps_their_text_as_the_stream_does() {
    let error = json!({"error": {"code": 503, "message": "overloaded", "status": "UNAVAILABLE"}});
    let message = same_as_streamed(&[text_chunk("Hello "), error.clone()]);
    assert_eq!(message.text, "Hello ");
    let info = message.error.unwrap();
    assert_eq!((info.message.as_str(), info.code.as_deref(), info.retryable), ("overloaded", Some("503"), Some(true)));
    assert!(!message.complete);
    let array = json!([text_chunk("Hello "), error]).to_string();
    let err = process(&agent("gemini/x", "chat", false), array.as_str()).unwrap_err();
    assert_eq!((err.code, err.message.as_str()), (ErrorCode::ProviderError, "overloaded"));
    let detail = err.provider.clone().unwrap();
    assert_eq!(
        (detail.kind.as_deref(), detail.code.as_deref(), detail.retryable),
        (Some("UNAVAILABLE"), Some("503"), true)
    );
    let first = json!([{"error": {"code": 400, "message": "bad", "status": "INVALID_ARGUMENT"}}, text_chunk("a")]);
    assert_eq!(to_message(first.to_string().as_str(), None).unwrap_err().code, ErrorCode::ProviderError);
}

/// Without a finish reason on every candidate the answer may be cut: not complete, body or
/// stream alike, though its text is still the result.
#[test]
fn a_body_without_a_finish_reason_is_not_complete() {
    let message = same_as_streamed(&[text_chunk("Hel")]);
    assert_eq!((message.text.as_str(), message.complete), ("Hel", false));
    let message = same_as_streamed(&[text_chunk("Hel"), text_chunk("lo")]);
    assert_eq!((message.text.as_str(), message.complete), ("Hello", false));
    assert_eq!(
        process(&agent("gemini/x", "chat", false), text_chunk("Hel").to_string().as_str()).unwrap(),
        ProcessResult::Text("Hel".into())
    );
    let mut done = text_chunk("lo");
    done["candidates"][0]["finishReason"] = json!("STOP");
    assert!(same_as_streamed(&[text_chunk("Hel"), done]).complete);
}

/// A body with no candidate and no blocked prompt answers nothing: `empty_response`, as a chat
/// body with no choices is.
#[test]
fn a_body_with_no_candidate_is_an_empty_response() {
    let usage = r#"{"usageMetadata": {"promptTokenCount": 3, "totalTokenCount": 3}, "responseId": "r"}"#;
    let cases = ["{}", usage, r#"{"candidates": []}"#, "[]", r#"[{"usageMetadata": {"trafficType": "ON_DEMAND"}}]"#];
    for body in cases {
        let err = process(&agent("gemini/x", "chat", false), body).unwrap_err();
        assert_eq!(err.code, ErrorCode::EmptyResponse, "{body}");
        assert_eq!(
            to_message(body, Some(&agent("vertex/x", "chat", false))).unwrap_err().code,
            ErrorCode::EmptyResponse
        );
    }
    assert_eq!(process(&agent("x", "chat", false), "{}").unwrap_err().code, ErrorCode::EmptyResponse);
    assert_eq!(to_message(usage, None).unwrap_err().code, ErrorCode::EmptyResponse);
}

/// Every recorded stream, given whole as the array `streamGenerateContent` returns without
/// `alt=sse`, reads through `toMessage` as its stream reads through `finish()`.
#[test]
fn every_recorded_stream_as_an_array_body_is_its_streamed_message() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut read = 0;
    for dir in ["gemini", "vertex"] {
        for file in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = file.unwrap().path();
            if path.extension().is_none_or(|e| e != "sse") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let chunks: Vec<&str> = text.split("\r\n\r\n").filter_map(|event| event.strip_prefix("data: ")).collect();
            let mut acc = Accumulator::new(AccumulatorOptions::default());
            acc.push(text.as_bytes()).unwrap();
            let array = format!("[{}]", chunks.join(","));
            assert_eq!(to_message(array.as_str(), None).unwrap(), acc.finish(), "{}", path.display());
            read += 1;
        }
    }
    assert!(read > 5, "{read} recordings");
}

/// `genAiAttributes` reads a whole `streamGenerateContent` body (the array of chunks) as its
/// stream is read: the same attributes as its final message gives, the response id, model,
/// usage and finish reasons among them.
#[test]
fn gen_ai_attributes_read_an_array_body_as_its_stream() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    for name in ["gemini/pyd-thinking-stream.sse", "vertex/vercel-streamed-function-call-args.sse"] {
        let text = std::fs::read_to_string(root.join(name)).unwrap();
        let chunks: Vec<Value> = text
            .split("\r\n\r\n")
            .filter_map(|event| event.strip_prefix("data: "))
            .map(|data| serde_json::from_str(data).unwrap())
            .collect();
        let agent = agent(name, "chat", false);
        let mut acc = Accumulator::new(AccumulatorOptions::default());
        acc.push(text.as_bytes()).unwrap();
        let message = serde_json::to_value(acc.finish()).unwrap();
        let attributes = |response: Value| -> Value {
            llm_wire::gen_ai_attributes(&agent, &llm_wire::Value::Null, Some(&response.into())).into()
        };
        let got = attributes(Value::Array(chunks.clone()));
        assert_eq!(got, attributes(message), "{name}");
        let last = chunks.last().unwrap();
        assert_eq!(got["gen_ai.response.id"], chunks[0]["responseId"], "{name}");
        assert_eq!(got["gen_ai.response.model"], last["modelVersion"], "{name}");
        assert_eq!(got["gen_ai.response.finish_reasons"], json!([last["candidates"][0]["finishReason"]]), "{name}");
        let usage = &last["usageMetadata"];
        let count = |key: &str| usage[key].as_u64().unwrap_or(0);
        let output = count("candidatesTokenCount") + count("thoughtsTokenCount");
        assert_eq!(got["gen_ai.usage.output_tokens"], json!(output), "{name}");
    }
}

//! Every non-streamed `.json` body in `tests/fixtures/` through `process` and `to_message`,
//! one test each. Expected values are read from the body itself (its message, its blocks, its
//! usage, its error object) rather than written out, so the tests state the rules.
//! Chat bodies are also replayed as a stream built from the same answer: `to_message` and the
//! streamed `Accumulator::finish` agree.

mod common;

use std::path::Path;

use llm_wire::{process, to_message, Accumulator, AccumulatorOptions, Agent, ErrorCode, FinalMessage};
use serde_json::{json, Value};

use common::read_fixture as read;

fn body(path: &str) -> Value {
    serde_json::from_str(&read(path)).unwrap()
}

/// The agent a fixture directory stands for.
fn agent(path: &str, outputs: bool) -> Agent {
    let dir = path.split('/').next().unwrap();
    let (provider, api_type) = match dir {
        "openai-chat" => ("openai", "chat"),
        "openai-responses" => ("openai", "responses"),
        "openai-embeddings" => ("openai", "embedding"),
        "openai-images" => ("openai", "image"),
        "anthropic" => ("anthropic", "chat"),
        other => (other, "chat"),
    };
    common::agent_of(provider, api_type, outputs)
}

fn result(path: &str, outputs: bool) -> Value {
    let got = process(&agent(path, outputs), read(path).as_str()).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::to_value(got).unwrap()
}

fn message(path: &str) -> FinalMessage {
    to_message(read(path).as_str(), Some(&agent(path, false))).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The body's `error` object comes back as `provider_error` with its message, type and code,
/// from `process` and from `to_message`.
fn check_provider_error(path: &str) {
    let error = &body(path)["error"];
    let as_text = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    for err in [
        process(&agent(path, false), read(path).as_str()).unwrap_err(),
        to_message(read(path).as_str(), None).unwrap_err(),
    ] {
        assert_eq!(err.code, ErrorCode::ProviderError, "{path}");
        assert_eq!(err.message, error["message"].as_str().unwrap(), "{path}");
        let detail = err.provider.clone().expect("provider detail");
        assert_eq!(detail.kind, as_text(&error["type"]), "{path}");
        assert_eq!(detail.code, as_text(&error["code"]), "{path}");
    }
}

/// A chat body: its first choice's tool calls, or its content; the message carries the
/// content, reasoning, usage, finish reason, id and model of the body.
fn check_chat(path: &str) {
    let body = body(path);
    let choice = &body["choices"][0];
    let msg = &choice["message"];
    let message = message(path);
    let calls: Vec<Value> = msg["tool_calls"]
        .as_array()
        .map(|calls| {
            calls
                .iter()
                .map(|c| json!({"id": c["id"], "name": c["function"]["name"], "arguments": c["function"]["arguments"]}))
                .collect()
        })
        .unwrap_or_default();
    let content = msg["content"].as_str().unwrap_or_default();
    if calls.is_empty() {
        assert_eq!(result(path, false), json!(content), "{path}");
    } else {
        assert_eq!(result(path, false), Value::Array(calls.clone()), "{path}");
    }
    assert_eq!(serde_json::to_value(&message.tool_calls).unwrap(), Value::Array(calls), "{path}");
    assert_eq!(message.text, content, "{path}");
    let reasoning = msg["reasoning_content"].as_str().or(msg["reasoning"].as_str()).unwrap_or_default();
    assert_eq!(message.reasoning, reasoning, "{path}");
    check_common(path, &body, &message, choice["finish_reason"].as_str());
    let usage = message.usage.as_ref().unwrap();
    assert_eq!(usage.input_tokens, body["usage"]["prompt_tokens"].as_u64().unwrap(), "{path}");
    assert_eq!(usage.output_tokens, body["usage"]["completion_tokens"].as_u64().unwrap(), "{path}");
    assert_eq!(usage.total_tokens, body["usage"]["total_tokens"].as_u64().unwrap(), "{path}");
    assert_eq!(usage.reasoning_tokens, body["usage"]["completion_tokens_details"]["reasoning_tokens"].as_u64());
    check_streamed_form_agrees(path);
}

fn check_common(path: &str, body: &Value, message: &FinalMessage, raw_finish: Option<&str>) {
    assert_eq!(message.raw_finish_reason.as_deref(), raw_finish, "{path}");
    assert_eq!(message.id.as_deref(), body["id"].as_str(), "{path}");
    assert_eq!(message.model.as_deref(), body["model"].as_str(), "{path}");
    assert!(message.complete, "{path}");
    assert!(message.error.is_none(), "{path}");
}

/// A stream carrying the same answer as a chat body, cut into small deltas.
fn streamed_form(body: &Value) -> String {
    fn pieces(s: &str) -> Vec<String> {
        let chars: Vec<char> = s.chars().collect();
        chars.chunks(5).map(|c| c.iter().collect()).collect()
    }
    let mut chunks = Vec::new();
    let mut chunk = |choices: Value, usage: Value| {
        let mut c =
            json!({"id": body["id"], "object": "chat.completion.chunk", "model": body["model"], "choices": choices});
        if !body["provider"].is_null() {
            c["provider"] = body["provider"].clone();
        }
        if !usage.is_null() {
            c["usage"] = usage;
        }
        chunks.push(format!("data: {c}\n\n"));
    };
    for (position, choice) in body["choices"].as_array().unwrap().iter().enumerate() {
        let index = choice["index"].as_u64().unwrap_or(position as u64);
        let msg = &choice["message"];
        let delta = |d: Value| json!([{"index": index, "delta": d, "finish_reason": null}]);
        chunk(delta(json!({"role": "assistant"})), Value::Null);
        for field in ["reasoning_content", "reasoning", "content", "refusal"] {
            for piece in pieces(msg[field].as_str().unwrap_or_default()) {
                chunk(delta(json!({ field: piece })), Value::Null);
            }
        }
        for (i, call) in msg["tool_calls"].as_array().into_iter().flatten().enumerate() {
            let f = &call["function"];
            let start = json!({"index": i, "id": call["id"], "type": "function", "function": {"name": f["name"], "arguments": ""}});
            chunk(delta(json!({"tool_calls": [start]})), Value::Null);
            for piece in pieces(f["arguments"].as_str().unwrap_or_default()) {
                chunk(delta(json!({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})), Value::Null);
            }
        }
        chunk(json!([{"index": index, "delta": {}, "finish_reason": choice["finish_reason"]}]), Value::Null);
    }
    chunk(json!([]), body["usage"].clone());
    chunks.push("data: [DONE]\n\n".into());
    chunks.concat()
}

/// `to_message` of the body equals `Accumulator::finish` of its streamed form.
fn check_streamed_form_agrees(path: &str) {
    let body = body(path);
    // Compact text on both sides, so the untouched `usage.raw` is the same text too.
    let compact = body.to_string();
    let agent = agent(path, false);
    let from_body = to_message(compact.as_str(), Some(&agent)).unwrap();
    let stream = streamed_form(&body);
    for size in [1, 7, 64, stream.len()] {
        let mut acc =
            Accumulator::new(AccumulatorOptions { provider: Some(agent.model.provider.clone()), ..Default::default() });
        for piece in stream.as_bytes().chunks(size) {
            acc.push(piece).unwrap();
        }
        assert_eq!(acc.finish(), from_body, "{path}: the streamed form (pieces of {size} bytes) differs");
    }
}

/// An Anthropic body: tool_use blocks win, else the concatenated text; thinking, signatures,
/// redacted data and cache counters reach the message.
fn check_anthropic(path: &str) {
    let body = body(path);
    let blocks = body["content"].as_array().unwrap();
    let of = |kind: &'static str| blocks.iter().filter(move |b| b["type"] == kind);
    let text: String = of("text").map(|b| b["text"].as_str().unwrap()).collect();
    let message = message(path);
    let calls: Vec<&Value> = of("tool_use").collect();
    let got = result(path, false);
    if calls.is_empty() {
        assert_eq!(got, json!(text), "{path}");
    } else {
        assert_eq!(got.as_array().unwrap().len(), calls.len(), "{path}");
        for (g, want) in got.as_array().unwrap().iter().zip(&calls) {
            assert_eq!(g["id"], want["id"]);
            assert_eq!(g["name"], want["name"]);
            let args: Value = serde_json::from_str(g["arguments"].as_str().unwrap()).unwrap();
            assert_eq!(args, want["input"], "{path}: arguments are the input object as a JSON string");
        }
    }
    assert_eq!(message.text, text, "{path}");
    let thinking: String = of("thinking").map(|b| b["thinking"].as_str().unwrap()).collect();
    assert_eq!(message.reasoning, thinking, "{path}");
    let json_blocks = serde_json::to_value(&message.content).unwrap();
    let signatures: Vec<&Value> = json_blocks.as_array().unwrap().iter().filter_map(|b| b.get("signature")).collect();
    let want_signatures: Vec<&Value> = of("thinking").map(|b| &b["signature"]).collect();
    assert_eq!(signatures, want_signatures, "{path}");
    let redacted: Vec<&Value> = json_blocks.as_array().unwrap().iter().filter_map(|b| b.get("redacted")).collect();
    let want_redacted: Vec<&Value> = of("redacted_thinking").map(|b| &b["data"]).collect();
    assert_eq!(redacted, want_redacted, "{path}");
    assert_eq!(message.content.len(), blocks.len(), "{path}: one block per content block");
    check_common(path, &body, &message, body["stop_reason"].as_str());
    let usage = message.usage.as_ref().unwrap();
    assert_eq!(usage.input_tokens, body["usage"]["input_tokens"].as_u64().unwrap());
    assert_eq!(usage.output_tokens, body["usage"]["output_tokens"].as_u64().unwrap());
    assert_eq!(usage.cache_read_tokens, body["usage"]["cache_read_input_tokens"].as_u64());
    assert_eq!(usage.cache_write_tokens, body["usage"]["cache_creation_input_tokens"].as_u64());
}

/// A Responses body: the text of its message items, reasoning summaries, other items kept.
fn check_responses(path: &str) {
    let body = body(path);
    let items = body["output"].as_array().unwrap();
    let text: String = items
        .iter()
        .filter(|i| i["type"] == "message")
        .flat_map(|i| i["content"].as_array().unwrap())
        .filter(|p| p["type"] == "output_text")
        .map(|p| p["text"].as_str().unwrap())
        .collect();
    let summary: String = items
        .iter()
        .filter(|i| i["type"] == "reasoning")
        .flat_map(|i| i["summary"].as_array().unwrap())
        .map(|p| p["text"].as_str().unwrap())
        .collect();
    assert_eq!(result(path, false), json!(text), "{path}");
    let message = message(path);
    assert_eq!(message.text, text, "{path}");
    assert_eq!(message.reasoning, summary, "{path}");
    let others = items.iter().filter(|i| !matches!(i["type"].as_str(), Some("message" | "reasoning"))).count();
    let kept = serde_json::to_value(&message.content)
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["type"] == "other")
        .count();
    assert_eq!(kept, others, "{path}: every tool item is kept as a block");
    check_common(path, &body, &message, body["status"].as_str());
    let usage = message.usage.as_ref().unwrap();
    assert_eq!(usage.input_tokens, body["usage"]["input_tokens"].as_u64().unwrap());
    assert_eq!(usage.reasoning_tokens, body["usage"]["output_tokens_details"]["reasoning_tokens"].as_u64());
    assert_eq!(usage.cache_read_tokens, body["usage"]["input_tokens_details"]["cached_tokens"].as_u64());
}

/// Embeddings: one item gives one vector, several a list; base64 vectors decode to the length
/// the text implies and, as OpenAI's embeddings are unit vectors, to norm 1.
fn check_embeddings(path: &str) {
    let body = body(path);
    let data = body["data"].as_array().unwrap();
    let got = result(path, false);
    let vectors: Vec<Value> = if data.len() == 1 { vec![got] } else { got.as_array().unwrap().clone() };
    assert_eq!(vectors.len(), data.len(), "{path}");
    for (vector, item) in vectors.iter().zip(data) {
        let vector: Vec<f64> = vector.as_array().expect("a vector").iter().map(|x| x.as_f64().unwrap()).collect();
        match &item["embedding"] {
            Value::String(b64) => {
                let bytes = b64.trim_end_matches('=').len() * 3 / 4;
                assert_eq!(vector.len(), bytes / 4, "{path}");
                let norm: f64 = vector.iter().map(|x| x * x).sum::<f64>().sqrt();
                assert!((norm - 1.0).abs() < 1e-3, "{path}: norm {norm}");
            }
            list => assert_eq!(vector, serde_json::from_value::<Vec<f64>>(list.clone()).unwrap(), "{path}"),
        }
    }
}

/// Images: each item's url, else its b64_json; one image is a string.
fn check_images(path: &str) {
    let body = body(path);
    let want: Vec<Value> = body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| if i["url"].is_string() { i["url"].clone() } else { i["b64_json"].clone() })
        .collect();
    let want = if want.len() == 1 { want[0].clone() } else { Value::Array(want) };
    assert_eq!(result(path, false), want, "{path}");
}

macro_rules! fixtures {
    ($($name:ident: $check:ident($path:literal);)*) => {
        $(#[test] fn $name() { $check($path); })*
        const ALL: &[&str] = &[$($path),*];
    };
}

fixtures! {
    an_anthropic_error_body_is_a_provider_error: check_provider_error("anthropic/pyd-error-400.json");
    anthropic_parallel_tool_use_gives_every_call_with_its_input: check_anthropic("anthropic/pyd-parallel-tool-use.json");
    anthropic_redacted_thinking_keeps_its_data_and_the_text: check_anthropic("anthropic/pyd-redacted-thinking.json");
    anthropic_thinking_keeps_its_signature_and_the_text: check_anthropic("anthropic/pyd-thinking.json");
    an_anthropic_text_body_gives_its_text: check_anthropic("anthropic/vercel-text.json");
    a_deepseek_json_answer_keeps_reasoning_and_cache_tokens: check_chat("deepseek/vercel-json-output.json");
    a_deepseek_reasoning_answer_splits_reasoning_from_text: check_chat("deepseek/vercel-reasoning.json");
    groq_think_tags_in_content_become_reasoning: check_think_tags("groq/pyd-think-tags-in-content.json");
    a_groq_reasoning_field_becomes_reasoning: check_chat("groq/vercel-reasoning.json");
    a_minimax_answer_cut_inside_its_think_section_is_all_reasoning: check_think_tags("minimax/gomodel-m2-think-tags-truncated.json");
    a_minimax_think_section_then_answer_splits_at_the_tags: check_think_tags("minimax/gomodel-m27-think-then-answer.json");
    ollama_text_with_reasoning: check_chat("ollama/pyd-cloud-text-reasoning.json");
    ollama_tool_call_with_reasoning_gives_the_call: check_chat("ollama/pyd-cloud-tool-call-reasoning.json");
    ollama_json_schema_output_parses_with_outputs: check_structured("ollama/pyd-local-json-schema.json");
    openai_json_mode_parses_with_outputs: check_structured("openai-chat/gomodel-json-mode.json");
    an_openai_tool_call_wins_over_content: check_chat("openai-chat/gomodel-tool-call.json");
    an_openai_unsupported_role_error_is_a_provider_error: check_provider_error("openai-chat/pyd-error-400-developer-role.json");
    a_moderated_openai_answer_still_gives_its_text: check_chat("openai-chat/pyd-moderation-flagged.json");
    openai_structured_output_parses_with_outputs: check_structured("openai-chat/pyd-structured-output-json-schema.json");
    an_openai_tool_call_with_empty_arguments: check_chat("openai-chat/pyd-tool-call-nonstream.json");
    an_openai_search_answer_gives_its_text: check_chat("openai-chat/pyd-web-search-annotations.json");
    an_openai_unsupported_parameter_error_is_a_provider_error: check_provider_error("openai-chat/vercel-error-unsupported-parameter.json");
    an_openai_text_body_gives_its_text: check_chat("openai-chat/vercel-openai-text.json");
    a_batch_of_base64_embeddings_decodes_to_a_list_of_vectors: check_embeddings("openai-embeddings/pyd-batch-base64.json");
    an_embeddings_model_not_found_is_a_provider_error: check_provider_error("openai-embeddings/pyd-error-404.json");
    a_single_base64_embedding_decodes_to_one_vector: check_embeddings("openai-embeddings/pyd-single-base64.json");
    a_batch_of_float_embeddings_gives_a_list_of_vectors: check_embeddings("openai-embeddings/vercel-batch-float.json");
    image_variations_give_their_urls: check_images("openai-images/cookbook-dalle2-variations-url.RECONSTRUCTED.json");
    several_b64_images_give_a_list_and_ignore_the_revised_prompt: check_images("openai-images/vercel-b64-json-multi.json");
    one_edited_image_gives_one_string: check_images("openai-images/vercel-edit-gpt-image.json");
    an_images_unknown_parameter_error_is_a_provider_error: check_provider_error("openai-images/vercel-error-unknown-parameter.json");
    a_responses_reasoning_summary_becomes_reasoning: check_responses("openai-responses/pyd-reasoning-summary.json");
    a_responses_code_interpreter_answer_keeps_its_tool_items: check_responses("openai-responses/vercel-code-interpreter.json");
    a_responses_quota_error_is_a_provider_error: check_provider_error("openai-responses/vercel-error-insufficient-quota.json");
    a_responses_web_search_answer_gives_its_text: check_responses("openai-responses/vercel-web-search.json");
    an_openrouter_rate_limit_is_a_retryable_provider_error: check_openrouter_error("openrouter/pyd-error-429.json");
    an_openrouter_tool_call_gives_the_call: check_chat("openrouter/pyd-tool-calling.json");
}

/// Content with inline `<think>…</think>`: the section is reasoning, the rest (trimmed of the
/// blank lines after the tag) is the text, and both forms agree.
fn check_think_tags(path: &str) {
    let body = body(path);
    let content = body["choices"][0]["message"]["content"].as_str().unwrap();
    let after_open = content.split_once("<think>").unwrap().1;
    let (reasoning, text) = after_open.split_once("</think>").unwrap_or((after_open, ""));
    let message = message(path);
    assert_eq!(message.reasoning, reasoning, "{path}");
    assert_eq!(message.text, text, "{path}");
    assert!(!message.text.contains("<think>") && !message.text.contains("</think>"));
    assert_eq!(result(path, false), json!(text), "{path}: process returns the answer without the reasoning");
    check_streamed_form_agrees(path);
}

/// JSON content is parsed when the agent has outputs, and stays a string when it has none.
fn check_structured(path: &str) {
    let body = body(path);
    let content = body["choices"][0]["message"]["content"].as_str().unwrap();
    assert_eq!(result(path, true), serde_json::from_str::<Value>(content).unwrap(), "{path}");
    check_chat(path);
}

/// OpenRouter's error has a numeric code and no type; 429 is retryable.
fn check_openrouter_error(path: &str) {
    let err = process(&agent(path, false), read(path).as_str()).unwrap_err();
    assert_eq!(err.code, ErrorCode::ProviderError);
    assert_eq!(err.message, body(path)["error"]["message"].as_str().unwrap());
    let detail = err.provider.clone().unwrap();
    assert_eq!(detail.code.as_deref(), Some("429"));
    assert!(detail.retryable);
}

/// Fixture directories recorded for formats the crate does not read yet; their tests come with
/// their readers, which take them off this list.
const NOT_READ_YET: [&str; 1] = ["bedrock"];

/// Fixture directories whose bodies a suite of their own reads: `tests/gemini_bodies.rs`.
const READ_ELSEWHERE: [&str; 2] = ["gemini", "vertex"];

#[test]
fn every_non_streamed_fixture_has_its_own_test() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut found = Vec::new();
    for dir in std::fs::read_dir(&root).unwrap() {
        let dir = dir.unwrap().path();
        if !dir.is_dir() || NOT_READ_YET.iter().chain(&READ_ELSEWHERE).any(|d| dir.ends_with(d)) {
            continue;
        }
        for file in std::fs::read_dir(&dir).unwrap() {
            let name = file.unwrap().file_name().into_string().unwrap();
            if name.ends_with(".json") && !name.ends_with(".expect.json") {
                found.push(format!("{}/{name}", dir.file_name().unwrap().to_string_lossy()));
            }
        }
    }
    found.sort();
    let mut listed: Vec<String> = ALL.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(found, listed);
}

#[test]
fn process_of_the_parsed_object_equals_process_of_the_text() {
    for path in ALL {
        let agent = agent(path, true);
        let from_text = process(&agent, read(path).as_str());
        let from_value = process(&agent, &llm_wire::Value::from(body(path)));
        match (from_text, from_value) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{path}"),
            (Err(a), Err(b)) => assert_eq!(a, b, "{path}"),
            (a, b) => panic!("{path}: {a:?} vs {b:?}"),
        }
    }
}

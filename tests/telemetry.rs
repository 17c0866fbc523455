//! The OpenTelemetry GenAI attributes of `genAiAttributes` and of the `process` span agree: one
//! operation name per API, and the same usage counts, counted by the crate's usage rule.
#![cfg(not(target_arch = "wasm32"))]

use llm_wire::process::message_span;
use llm_wire::{gen_ai_attributes, process_with, to_message, Agent, ProcessOptions, Span, Value};
use serde_json::json;

fn agent(provider: &str, api_type: &str) -> Agent {
    Agent::from_json(&json!({"model": {"id": "m", "provider": provider, "apiType": api_type}}).into()).unwrap()
}

fn fixture(path: &str) -> String {
    let path = format!("{}/tests/fixtures/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The `process` span of a body, whatever its outcome.
fn span_of(agent: &Agent, body: &str) -> Span {
    let mut spans = Vec::new();
    let mut keep = |span| spans.push(span);
    let _ = process_with(agent, body, ProcessOptions { on_span: Some(&mut keep) });
    spans.pop().expect("every call emits its span")
}

fn parsed(text: &str) -> Value {
    serde_json::from_str::<serde_json::Value>(text).unwrap().into()
}

#[test]
fn both_places_name_the_operation_of_each_api_the_same() {
    // (provider, apiType, body, operation); Anthropic is its Messages API whatever the apiType.
    let cases = [
        ("openai", "chat", "openai-chat/vercel-openai-text.json", "chat"),
        ("openai", "responses", "openai-responses/pyd-reasoning-summary.json", "chat"),
        ("openai", "embedding", "openai-embeddings/vercel-batch-float.json", "embeddings"),
        ("openai", "image", "openai-images/vercel-edit-gpt-image.json", "generate_content"),
        ("azure", "image", "openai-images/vercel-b64-json-multi.json", "generate_content"),
        ("anthropic", "chat", "anthropic/vercel-text.json", "chat"),
        ("anthropic", "image", "anthropic/vercel-text.json", "chat"),
        ("google", "chat", "gemini/pyd-implicit-cache-usage.json", "chat"),
        ("google", "embedding", "gemini/pyd-batch-embed-contents.json", "embeddings"),
        ("bedrock", "chat", "bedrock/pyd-cache-write.json", "chat"),
    ];
    for (provider, api_type, path, operation) in cases {
        let agent = agent(provider, api_type);
        let body = fixture(path);
        let attributes = gen_ai_attributes(&agent, &Value::Object(Default::default()), Some(&parsed(&body)));
        assert_eq!(attributes["gen_ai.operation.name"], operation, "{provider} {api_type}: genAiAttributes");
        assert_eq!(
            span_of(&agent, &body).attributes["gen_ai.operation.name"],
            operation,
            "{provider} {api_type}: span"
        );
        if let Ok(message) = to_message(body.as_str(), Some(&agent)) {
            assert_eq!(message_span(Some(&agent), &message).attributes["gen_ai.operation.name"], operation);
        }
    }
}

#[test]
fn both_places_give_the_conventions_name_of_each_provider() {
    // (provider as configured, its `gen_ai.provider.name`, a body of its API)
    let cases = [
        ("openai", "openai", "openai-chat/vercel-openai-text.json"),
        ("anthropic", "anthropic", "anthropic/vercel-text.json"),
        ("google", "gcp.gemini", "gemini/pyd-implicit-cache-usage.json"),
        ("gemini", "gcp.gemini", "gemini/pyd-implicit-cache-usage.json"),
        ("vertex", "gcp.vertex_ai", "gemini/pyd-implicit-cache-usage.json"),
        ("bedrock", "aws.bedrock", "bedrock/pyd-cache-write.json"),
    ];
    for (provider, name, path) in cases {
        let agent = agent(provider, "chat");
        let body = fixture(path);
        let attributes = gen_ai_attributes(&agent, &Value::Object(Default::default()), Some(&parsed(&body)));
        assert_eq!(attributes["gen_ai.provider.name"], name, "{provider}: genAiAttributes");
        assert_eq!(span_of(&agent, &body).attributes["gen_ai.provider.name"], name, "{provider}: span");
        let message = to_message(body.as_str(), Some(&agent)).unwrap();
        assert_eq!(message_span(Some(&agent), &message).attributes["gen_ai.provider.name"], name, "{provider}");
    }
}

#[test]
fn an_image_request_asks_for_image_output_and_structured_output_for_json() {
    let output_type = |agent: &Agent| gen_ai_attributes(agent, &Value::Null, None).get("gen_ai.output.type").cloned();
    assert_eq!(output_type(&agent("openai", "image")), Some("image".into()));
    assert_eq!(output_type(&agent("openai", "chat")), None);
    let structured =
        Agent::from_json(&json!({"model": {"id": "m"}, "outputs": [{"name": "city", "kind": "string"}]}).into())
            .unwrap();
    assert_eq!(output_type(&structured), Some("json".into()));
}

/// A recorded body with its usage counts set to the given values.
fn with_counts(path: &str, counts: &[(&str, u64)]) -> String {
    let mut body: serde_json::Value = serde_json::from_str(&fixture(path)).unwrap();
    for (key, value) in counts {
        body["usage"][key] = json!(value);
    }
    body.to_string()
}

#[test]
fn an_anthropic_cache_read_counts_in_the_input_tokens_of_both_places() {
    // The answer that reported a total of 3 for input 1, cache read 3 and output 2.
    let body = with_counts(
        "anthropic/vercel-text.json",
        &[
            ("input_tokens", 1),
            ("cache_read_input_tokens", 3),
            ("cache_creation_input_tokens", 0),
            ("output_tokens", 2),
        ],
    );
    let agent = agent("anthropic", "chat");
    let usage = to_message(body.as_str(), Some(&agent)).unwrap().usage.unwrap();
    assert_eq!((usage.input_tokens, usage.output_tokens, usage.total_tokens), (4, 2, 6));
    let from_body = gen_ai_attributes(&agent, &Value::Null, Some(&parsed(&body)));
    let span = span_of(&agent, &body).attributes;
    for (key, want) in [("gen_ai.usage.input_tokens", 4), ("gen_ai.usage.output_tokens", 2)] {
        assert_eq!(from_body[key], want, "genAiAttributes {key}");
        assert_eq!(span[key], want, "span {key}");
    }
}

#[test]
fn the_usage_attributes_of_a_body_and_of_its_final_message_are_the_span_s() {
    let keys = ["gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens"];
    let cases = [
        ("openai", "chat", "openai-chat/vercel-openai-text.json"),
        ("openai", "chat", "deepseek/vercel-reasoning.json"),
        ("openai", "chat", "openrouter/pyd-tool-calling.json"),
        ("openai", "responses", "openai-responses/pyd-reasoning-summary.json"),
        ("anthropic", "chat", "anthropic/vercel-text.json"),
        ("anthropic", "chat", "anthropic/pyd-thinking.json"),
        ("google", "chat", "gemini/pyd-implicit-cache-usage.json"),
        ("bedrock", "chat", "bedrock/pyd-cache-write.json"),
    ];
    for (provider, api_type, path) in cases {
        let agent = agent(provider, api_type);
        let body = fixture(path);
        let span = span_of(&agent, &body).attributes;
        let from_body = gen_ai_attributes(&agent, &Value::Null, Some(&parsed(&body)));
        let message = to_message(body.as_str(), Some(&agent)).unwrap();
        let final_json: serde_json::Value = serde_json::to_value(&message).unwrap();
        let from_message = gen_ai_attributes(&agent, &Value::Null, Some(&final_json.into()));
        assert!(span.contains_key("gen_ai.usage.input_tokens"), "{path}: no usage");
        for key in keys {
            assert_eq!(from_body.get(key), span.get(key), "{path}: {key} from the body");
            assert_eq!(from_message.get(key), span.get(key), "{path}: {key} from the final message");
        }
    }
}

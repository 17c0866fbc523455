//! Request building (§7), rule by rule: one test per rule, including the ones no conformance
//! vector covers. Each area has its own file under `tests/requests/`.

#[path = "requests/anthropic.rs"]
mod anthropic;
#[path = "requests/chat.rs"]
mod chat;
#[path = "requests/continuity.rs"]
mod continuity;
#[path = "requests/http.rs"]
mod http;
#[path = "requests/inputs.rs"]
mod inputs;
#[path = "requests/options.rs"]
mod options;
#[path = "requests/other_apis.rs"]
mod other_apis;
#[path = "requests/responses.rs"]
mod responses;
#[path = "requests/schema.rs"]
mod schema;
#[path = "requests/tools.rs"]
mod tools;

use llm_wire::{build_chat_args_json, Error, ErrorCode};
use serde_json::{json, Value};

/// An agent JSON for `model` with `provider` and `apiType`, plus `extra` top-level keys.
pub fn agent(provider: &str, api_type: &str, extra: Value) -> Value {
    let mut agent = json!({"model": {"id": "m", "provider": provider, "apiType": api_type}});
    if let (Value::Object(agent), Value::Object(extra)) = (&mut agent, extra) {
        agent.extend(extra);
    }
    agent
}

/// An OpenAI Chat agent.
pub fn chat(extra: Value) -> Value {
    agent("openai", "chat", extra)
}

/// The body built for JSON inputs; panics with the error when building fails.
pub fn body(agent: &Value, messages: Value) -> Value {
    build_chat_args_json(agent, &messages).unwrap_or_else(|e| panic!("build failed: {e}"))
}

/// The error building fails with; panics when it succeeds.
pub fn error(agent: &Value, messages: Value) -> Error {
    match build_chat_args_json(agent, &messages) {
        Ok(body) => panic!("expected an error, got {body}"),
        Err(e) => e,
    }
}

/// Asserts an `invalid_input` error at exactly `path`.
pub fn assert_invalid_at(error: &Error, path: &str) {
    assert_eq!(error.code, ErrorCode::InvalidInput, "{error}");
    assert_eq!(error.path.as_deref(), Some(path), "{error}");
}

/// One user message with `content`.
pub fn user(content: Value) -> Value {
    json!([{"role": "user", "content": content}])
}

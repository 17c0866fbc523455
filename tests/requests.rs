//! Request building (§7), rule by rule: one test per rule, including the ones no conformance
//! vector covers. Each area has its own file under `tests/requests/`.

#[path = "requests/anthropic.rs"]
mod anthropic;
#[path = "requests/big_inputs.rs"]
mod big_inputs;
#[path = "requests/chat.rs"]
mod chat;
#[path = "requests/continuity.rs"]
mod continuity;
#[path = "requests/generated.rs"]
mod generated;
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
#[path = "requests/round_trip.rs"]
mod round_trip;
#[path = "requests/schema.rs"]
mod schema;
#[path = "requests/tools.rs"]
mod tools;

use llm_wire::{build_chat_args_json, build_request, Agent, Error, ErrorCode, Message, RequestOptions};
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
///
/// Every rule is also checked on the body `build_request` writes as text (without `Value`
/// trees): the same JSON text, byte for byte, as the `Value` body serialised.
pub fn body(agent: &Value, messages: Value) -> Value {
    let body: Value = build_chat_args_json(&agent.clone().into(), &messages.clone().into())
        .unwrap_or_else(|e| panic!("build failed: {e}"))
        .into();
    let text = text_body(agent, &messages).expect("the inputs read").expect("the text path builds");
    assert_eq!(text, body.to_string(), "the text body differs");
    body
}

/// The error building fails with; panics when it succeeds. The text path fails the same way.
pub fn error(agent: &Value, messages: Value) -> Error {
    match build_chat_args_json(&agent.clone().into(), &messages.clone().into()) {
        Ok(body) => panic!("expected an error, got {body}"),
        Err(e) => {
            match text_body(agent, &messages) {
                Some(Ok(text)) => panic!("the text path built {text}"),
                Some(Err(text_error)) => assert_eq!(text_error, e, "the text path fails differently"),
                None => {}
            }
            e
        }
    }
}

/// `build_request`'s body for the inputs, or its error; `None` when the inputs do not read.
fn text_body(agent: &Value, messages: &Value) -> Option<Result<String, Error>> {
    let (Ok(agent), Ok(messages)) =
        (Agent::from_json(&agent.clone().into()), Message::list_from_json(&messages.clone().into()))
    else {
        return None;
    };
    let options = RequestOptions { base_url: Some("http://test".into()), ..Default::default() };
    Some(build_request(&agent, &messages, &options).map(|r| r.body))
}

/// Asserts an `invalid_input` error at exactly `path`.
pub fn assert_invalid_at(error: &Error, path: &str) {
    assert_eq!(error.code, ErrorCode::InvalidInput, "{error}");
    assert_eq!(error.path.as_deref(), Some(path), "{error}");
}

/// Asserts a `limit_exceeded` error at exactly `path`.
pub fn assert_limit_at(error: &Error, path: &str) {
    assert_eq!(error.code, ErrorCode::LimitExceeded, "{error}");
    assert_eq!(error.path.as_deref(), Some(path), "{error}");
}

/// One user message with `content`.
pub fn user(content: Value) -> Value {
    json!([{"role": "user", "content": content}])
}

//! The OpenAPI projection (`kind: "openapi"` tools) on arbitrary documents, given as a JSON value
//! and as text, for the Chat, Responses and Anthropic requests: never a panic, and a body that
//! is built serialises and holds at most one function per operation the document can have
//! (eight methods per path).
#![no_main]

use libfuzzer_sys::fuzz_target;
use llm_wire::{build_chat_args, Agent, Message, Value};
use serde_json::json;

const APIS: [(&str, &str); 3] = [("openai", "chat"), ("openai", "responses"), ("anthropic", "chat")];
const METHODS_PER_PATH: usize = 8;

fn exercise(specification: serde_json::Value, paths: Option<usize>) {
    let messages = [Message::new("user", "hi")];
    for (provider, api_type) in APIS {
        let agent = json!({
            "model": {"id": "m", "provider": provider, "apiType": api_type},
            "tools": [{"kind": "openapi", "name": "api", "specification": specification}],
        });
        let Ok(agent) = Agent::from_json(&Value::from(agent)) else { return };
        let Ok(body) = build_chat_args(&agent, &messages) else { continue };
        serde_json::to_string(&body).expect("a built body serialises");
        let tools = body.get("tools").and_then(Value::as_array).map_or(0, Vec::len);
        if let Some(paths) = paths {
            assert!(tools <= paths * METHODS_PER_PATH, "{tools} functions from {paths} paths");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(document) = serde_json::from_slice::<serde_json::Value>(data) else { return };
    let paths = document.get("paths").and_then(serde_json::Value::as_object).map(serde_json::Map::len);
    exercise(document, paths);
    if let Ok(text) = std::str::from_utf8(data) {
        exercise(json!(text), paths);
    }
});

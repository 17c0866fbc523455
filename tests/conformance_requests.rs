//! Every `toRequest` vector of `tests/conformance/prompty-vectors.json` (§7): the flat vector
//! input becomes an Agent and Message[], and the body built from them equals `request_body` as JSON.

use llm_wire::{build_chat_args, Agent, Message};
use serde_json::{json, Value};

/// The agent JSON of a flat vector input (`model_id`, `options` at the top level).
fn agent_json(input: &Value) -> Value {
    json!({
        "model": {
            "id": input["model_id"],
            "provider": input["provider"],
            "apiType": input["apiType"],
            "options": input["options"],
        },
        "tools": input["tools"],
        "outputs": input["outputs"],
    })
}

fn vectors() -> Vec<Value> {
    let text = include_str!("conformance/prompty-vectors.json");
    let all: Value = serde_json::from_str(text).expect("the vector file is JSON");
    all["vectors"].as_array().expect("vectors").iter().filter(|v| v["operation"] == "toRequest").cloned().collect()
}

#[test]
fn every_to_request_vector_builds_its_expected_body() {
    let vectors = vectors();
    assert!(vectors.len() >= 17, "expected the 17 toRequest vectors, found {}", vectors.len());
    let mut failures = Vec::new();
    for entry in &vectors {
        let vector = &entry["vector"];
        let name = vector["name"].as_str().unwrap_or("?");
        let input = &vector["input"];
        let agent = Agent::from_json(&agent_json(input).into()).unwrap_or_else(|e| panic!("{name}: agent: {e}"));
        let messages = Message::list_from_json(&input["messages"].clone().into())
            .unwrap_or_else(|e| panic!("{name}: messages: {e}"));
        let body = build_chat_args(&agent, &messages).unwrap_or_else(|e| panic!("{name}: {e}"));
        let expected = &vector["expected"]["request_body"];
        if &body != expected {
            failures.push(format!("{name}:\n  got      {body}\n  expected {expected}"));
        }
    }
    assert!(failures.is_empty(), "{} of {} vectors differ:\n{}", failures.len(), vectors.len(), failures.join("\n"));
}

//! `process` and `to_message` on arbitrary response bodies, for every kind of agent: never a
//! panic, from the body text or from its parsed form.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use llm_wire::{process, to_message, Agent, ResponseBody};
use serde_json::{json, Value};

fn agents() -> &'static [Agent] {
    static AGENTS: OnceLock<Vec<Agent>> = OnceLock::new();
    AGENTS.get_or_init(|| {
        let outputs = json!([
            {"name": "city", "kind": "string", "required": true},
            {"name": "temp", "kind": "float"},
            {"name": "tags", "kind": "array", "items": {"kind": "string"}}
        ]);
        let mut list = Vec::new();
        for (provider, api_type) in [
            ("openai", "chat"),
            ("openai", "responses"),
            ("openai", "embedding"),
            ("openai", "image"),
            ("anthropic", "chat"),
            ("azure", "chat"),
            ("ollama", "chat"),
            ("bedrock", "chat"),
            ("google", "chat"),
            ("vertex", "chat"),
            ("gemini", "embedding"),
        ] {
            for with_outputs in [false, true] {
                let mut agent = json!({"model": {"id": "m", "provider": provider, "apiType": api_type}});
                if with_outputs {
                    agent["outputs"] = outputs.clone();
                }
                list.push(Agent::from_json(&agent.into()).expect("a fixed agent reads"));
            }
        }
        list
    })
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let parsed: Option<llm_wire::Value> = serde_json::from_str::<Value>(&text).ok().map(Into::into);
    for agent in agents() {
        let _ = process(agent, text.as_ref());
        if let Some(value) = &parsed {
            let _ = process(agent, ResponseBody::Json(value));
        }
        let _ = to_message(text.as_ref(), Some(agent));
    }
    let _ = to_message(text.as_ref(), None);
    if let Some(value) = &parsed {
        let _ = to_message(ResponseBody::Json(value), None);
    }
});

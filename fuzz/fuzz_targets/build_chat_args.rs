//! Arbitrary JSON as the agent and the messages of `build_chat_args` / `build_request`: never a
//! panic. An object `{"agent", "messages", "options"}` (the seed shape) is read as such; any
//! value is also tried as the agent and as the message list on its own.
#![no_main]

use libfuzzer_sys::fuzz_target;
use llm_wire::Value;
use llm_wire::{
    build_chat_args, build_chat_args_json, build_request, gen_ai_attributes, Agent, Message, RequestOptions,
};

fn exercise(agent: &Value, messages: &Value, options: &Value) {
    let messages_value = messages;
    let _ = build_chat_args_json(agent, messages);
    let Ok(agent) = Agent::from_json(agent) else { return };
    let messages = Message::list_from_json(messages).unwrap_or_default();
    let body = build_chat_args(&agent, &messages);
    if let Ok(body) = &body {
        // The body is sent as JSON text: it must serialise.
        serde_json::to_string(body).expect("a built body serialises");
        let _ = gen_ai_attributes(&agent, body, Some(messages_value));
    }
    let mut all = vec![
        RequestOptions::default(),
        RequestOptions {
            base_url: Some("https://example.test/v1/".into()),
            api_key: Some("k".into()),
            stream: true,
            headers: vec![("X-Extra".into(), "1".into()), ("content-type".into(), "text/plain".into())],
            ..RequestOptions::default()
        },
        // What Bedrock (its region) and Vertex AI (its project and location) address.
        RequestOptions {
            region: Some("eu-west-3".into()),
            project: Some("a-project".into()),
            stream: true,
            ..RequestOptions::default()
        },
    ];
    if let Ok(options) = RequestOptions::from_json(options) {
        all.push(options);
    }
    for options in &all {
        if let Ok(request) = build_request(&agent, &messages, options) {
            let _ = request.to_json();
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data).map(Value::from) else { return };
    if let Value::Object(map) = &value {
        let agent = map.get("agent").unwrap_or(&Value::Null);
        let messages = map.get("messages").unwrap_or(&Value::Null);
        let options = map.get("options").unwrap_or(&Value::Null);
        exercise(agent, messages, options);
    }
    exercise(&value, &value, &value);
});

//! Invalid input: every reader error is `invalid_input` with the exact path (docs/design.md, "Errors and limits").

use llm_wire::{Agent, Message, Property};
use serde_json::{json, Value};

use super::{assert_invalid_at, chat, error, user};

fn agent_error(agent: Value) -> llm_wire::Error {
    Agent::from_json(&agent.clone().into()).unwrap_err()
}

#[test]
fn invalid_agents_fail_at_the_exact_path() {
    let table = [
        (json!({}), "agent.model.id"),
        (json!({"model": {}}), "agent.model.id"),
        (json!({"model": {"id": ""}}), "agent.model.id"),
        (json!({"model": {"id": 5}}), "agent.model.id"),
        (json!("gpt"), "agent"),
        (json!({"model": {"id": "m", "apiType": "audio"}}), "agent.model.apiType"),
        (json!({"model": {"id": "m", "options": {"temperature": "hot"}}}), "agent.model.options.temperature"),
        (json!({"model": {"id": "m", "options": {"max_tokens": 5}}}), "agent.model.options.max_tokens"),
        (json!({"model": {"id": "m", "options": {"stopSequences": ["a", 1]}}}), "agent.model.options.stopSequences[1]"),
        (
            json!({"model": {"id": "m", "options": {"additionalProperties": []}}}),
            "agent.model.options.additionalProperties",
        ),
        (json!({"model": "m", "tools": {}}), "agent.tools"),
        (json!({"model": "m", "tools": [{"kind": "function"}]}), "agent.tools[0].name"),
        (json!({"model": "m", "tools": [{"kind": "function", "name": ""}]}), "agent.tools[0].name"),
        (json!({"model": "m", "tools": [{"name": "f"}]}), "agent.tools[0].kind"),
        (
            json!({"model": "m", "tools": [{"kind": "function", "name": "f"}, {"kind": "function", "name": "g", "parameters": [{"name": "a", "kind": "str"}]}]}),
            "agent.tools[1].parameters[0].kind",
        ),
        (
            json!({"model": "m", "tools": [{"kind": "function", "name": "g", "parameters": [{"kind": "string"}]}]}),
            "agent.tools[0].parameters[0].name",
        ),
        (json!({"model": "m", "tools": [{"kind": "function", "name": "g", "strict": "yes"}]}), "agent.tools[0].strict"),
        (json!({"model": "m", "tools": [{"kind": "mcp", "name": "fs"}]}), "agent.tools[0].tools"),
        (json!({"model": "m", "tools": [{"kind": "openapi", "name": "api"}]}), "agent.tools[0].specification"),
        (
            json!({"model": "m", "outputs": [{"name": "o", "kind": "object", "properties": [{"name": "x", "kind": "date"}]}]}),
            "agent.outputs[0].properties[0].kind",
        ),
        (
            json!({"model": "m", "outputs": [{"name": "o", "kind": "array", "items": {"kind": 3}}]}),
            "agent.outputs[0].items.kind",
        ),
        (
            json!({"model": "m", "outputs": [{"name": "o", "kind": "string", "enumValues": "a"}]}),
            "agent.outputs[0].enumValues",
        ),
    ];
    for (agent, path) in table {
        let e = agent_error(agent.clone());
        assert_invalid_at(&e, path);
        assert!(!e.message.is_empty(), "{agent}");
    }
}

#[test]
fn invalid_messages_fail_at_the_exact_path() {
    let table = [
        (json!({}), "messages"),
        (json!(["hi"]), "messages[0]"),
        (json!([{"content": "hi"}]), "messages[0].role"),
        (json!([{"role": "robot", "content": "hi"}]), "messages[0].role"),
        (json!([{"role": "user", "content": 5}]), "messages[0].content"),
        (
            json!([{"role": "user", "content": "a"}, {"role": "user", "content": [{"kind": "text", "value": "x"}, {"kind": "video", "value": "v"}]}]),
            "messages[1].content[1].kind",
        ),
        (json!([{"role": "user", "content": [{"value": "x"}]}]), "messages[0].content[0].kind"),
        (json!([{"role": "user", "content": [{"kind": "image"}]}]), "messages[0].content[0].value"),
        (
            json!([{"role": "user", "content": [{"kind": "image", "value": "u", "detail": 1}]}]),
            "messages[0].content[0].detail",
        ),
        (json!([{"role": "user", "content": "x", "metadata": []}]), "messages[0].metadata"),
    ];
    for (messages, path) in table {
        assert_invalid_at(&Message::list_from_json(&messages.clone().into()).unwrap_err(), path);
    }
}

#[test]
fn a_part_kind_built_in_rust_that_no_format_knows_is_invalid_input_not_a_panic() {
    let mut agent = Agent::new("m");
    let message = Message {
        role: "user".into(),
        content: llm_wire::MessageContent::Parts(vec![
            llm_wire::ContentPart::text("a"),
            llm_wire::ContentPart { kind: "video".into(), value: "v".into(), ..Default::default() },
        ]),
        metadata: Default::default(),
    };
    for (provider, api_type) in [("openai", "chat"), ("openai", "responses"), ("anthropic", "chat")] {
        agent.model.provider = provider.into();
        agent.model.api_type = api_type.into();
        let e = llm_wire::build_chat_args(&agent, std::slice::from_ref(&message)).unwrap_err();
        assert_invalid_at(&e, "messages[0].content[1].kind");
    }
}

#[test]
fn an_agent_built_in_rust_without_a_model_id_is_invalid_input() {
    let e = llm_wire::build_chat_args(&Agent::default(), &[Message::new("user", "hi")]).unwrap_err();
    assert_invalid_at(&e, "agent.model.id");
}

#[test]
fn a_malformed_tool_call_in_metadata_is_invalid_input_at_its_field() {
    let messages = json!([{"role": "assistant", "content": "", "metadata": {"tool_calls": [{"id": "c1", "function": {"arguments": "{}"}}]}}]);
    assert_invalid_at(&error(&chat(json!({})), messages), "messages[0].metadata.tool_calls[0].function.name");
}

#[test]
fn property_lists_accept_the_prompty_properties_wrapper() {
    let wrapped = Agent::from_json(
        &json!({"model": "m", "tools": [{"kind": "function", "name": "f", "parameters": {"properties": [{"name": "a", "kind": "string"}]}}]}).into(),
    );
    let flat = Agent::from_json(
        &json!({"model": "m", "tools": [{"kind": "function", "name": "f", "parameters": [{"name": "a", "kind": "string"}]}]}).into(),
    );
    assert_eq!(wrapped.unwrap(), flat.unwrap());
}

#[test]
fn property_list_errors_use_the_path_they_are_given() {
    let e = Property::list_from_json(&json!([{"name": "a", "kind": "string"}, {"name": "b"}]).into(), "outputs")
        .unwrap_err();
    assert_invalid_at(&e, "outputs[1].kind");
}

#[test]
fn no_input_shape_makes_the_builder_panic() {
    // A sweep of odd values at every level: each must come back as a value, never a panic.
    let odd = [json!(null), json!(1), json!("s"), json!([]), json!({}), json!([null]), json!({"kind": null})];
    for value in &odd {
        for agent in [
            json!({"model": value}),
            json!({"model": "m", "tools": [value]}),
            json!({"model": "m", "outputs": [value]}),
            json!({"model": {"id": "m", "options": value}}),
        ] {
            let _ = llm_wire::build_chat_args_json(&agent.into(), &user(json!("hi")).into());
        }
        for messages in [
            json!([value]),
            json!([{"role": "user", "content": [value]}]),
            json!([{"role": "assistant", "metadata": {"tool_calls": [value]}}]),
            json!([{"role": "tool", "metadata": {"tool_call_id": value, "responses_function_call": value}}]),
        ] {
            for agent in [
                chat(json!({})),
                super::agent("anthropic", "chat", json!({})),
                super::agent("openai", "responses", json!({})),
            ] {
                let _ = llm_wire::build_chat_args_json(&agent.into(), &messages.clone().into());
            }
        }
    }
}

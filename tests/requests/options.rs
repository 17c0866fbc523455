//! ModelOptions → request parameters (§7.1.5, §7.6) for both providers.

use serde_json::{json, Value};

use super::{body, user};

fn with_options(provider: &str, options: Value) -> Value {
    let agent = json!({"model": {"id": "m", "provider": provider, "options": options}});
    let mut b = body(&agent, user(json!("hi")));
    let map = b.as_object_mut().unwrap();
    map.remove("model");
    map.remove("messages");
    b
}

fn all_options() -> Value {
    json!({"temperature": 0.5, "maxOutputTokens": 100, "topP": 0.9, "topK": 40, "frequencyPenalty": 0.1,
        "presencePenalty": 0.2, "stopSequences": ["END"], "seed": 7})
}

#[test]
fn openai_chat_maps_every_option_it_supports_and_drops_top_k() {
    assert_eq!(
        with_options("openai", all_options()),
        json!({"temperature": 0.5, "max_completion_tokens": 100, "top_p": 0.9,
        "frequency_penalty": 0.1, "presence_penalty": 0.2, "stop": ["END"], "seed": 7})
    );
}

#[test]
fn anthropic_maps_its_options_and_silently_drops_penalties_and_seed() {
    assert_eq!(
        with_options("anthropic", all_options()),
        json!({"temperature": 0.5, "max_tokens": 100, "top_p": 0.9,
        "top_k": 40, "stop_sequences": ["END"]})
    );
}

#[test]
fn anthropic_defaults_max_tokens_to_4096() {
    assert_eq!(with_options("anthropic", json!({})), json!({"max_tokens": 4096}));
}

#[test]
fn additional_properties_pass_through_as_top_level_keys() {
    let options = json!({"additionalProperties": {"logprobs": true, "user": "u1"}});
    assert_eq!(with_options("openai", options.clone()), json!({"logprobs": true, "user": "u1"}));
    assert_eq!(with_options("anthropic", options), json!({"logprobs": true, "user": "u1", "max_tokens": 4096}));
}

#[test]
fn additional_properties_never_override_a_mapped_option() {
    let options = json!({"temperature": 0.5, "additionalProperties": {"temperature": 1.5, "max_completion_tokens": 9}});
    assert_eq!(with_options("openai", options), json!({"temperature": 0.5, "max_completion_tokens": 9}));
}

#[test]
fn additional_properties_never_override_the_model_or_the_messages() {
    let agent = json!({"model": {"id": "m", "options": {"additionalProperties": {"model": "other", "messages": []}}}});
    assert_eq!(body(&agent, user(json!("hi"))), json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]}));
}

#[test]
fn additional_max_tokens_replaces_the_anthropic_default() {
    assert_eq!(
        with_options("anthropic", json!({"additionalProperties": {"max_tokens": 64}})),
        json!({"max_tokens": 64})
    );
}

#[test]
fn null_options_are_treated_as_absent() {
    assert_eq!(with_options("openai", json!({"temperature": null, "seed": null})), json!({}));
}

#[test]
fn allow_multiple_tool_calls_becomes_parallel_tool_calls_only_when_there_are_tools() {
    let options = json!({"allowMultipleToolCalls": false});
    assert_eq!(with_options("openai", options.clone()), json!({}));
    let agent = json!({"model": {"id": "m", "options": options}, "tools": [{"kind": "function", "name": "f"}]});
    assert_eq!(body(&agent, user(json!("hi")))["parallel_tool_calls"], false);
}

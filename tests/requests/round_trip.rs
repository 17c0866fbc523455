//! A finished turn goes back in (docs/design.md, "Reasoning that goes back"): every builder
//! renders an assistant message from its `metadata.blocks`, taking its own API's reasoning state
//! and dropping every other; a `FinalMessage` in the messages is read as `to_message` makes it.

use llm_wire::{build_chat_args, Accumulator, AccumulatorOptions, Agent, Message};
use serde_json::{json, Value};

use super::{agent, assert_invalid_at, body, error};

/// A provider and apiType of each request format.
const EVERY_FORMAT: [(&str, &str); 5] =
    [("openai", "chat"), ("openai", "responses"), ("anthropic", "chat"), ("google", "chat"), ("bedrock", "chat")];

/// One block of each kind and origin a finished turn can hold, in stream order.
fn every_kind_of_block() -> Value {
    json!([
        {"type": "reasoning", "text": "Claude via OpenRouter", "signature": "or-sig", "format": "anthropic-claude-v1"},
        {"type": "reasoning", "text": "", "redacted": "or-data", "id": "rs_or", "format": "openai-responses-v1"},
        {"type": "reasoning", "text": "Part one", "id": "rs_1", "encryptedContent": "gAAA-1"},
        {"type": "reasoning", "text": "Part two", "id": "rs_1"},
        {"type": "reasoning", "text": "", "id": "rs_2"},
        {"type": "reasoning", "text": "Claude thinking", "signature": "an-sig"},
        {"type": "reasoning", "text": "", "redacted": "an-data"},
        {"type": "reasoning", "text": "DeepSeek reasoning"},
        {"type": "other", "providerType": "server_tool_use", "data": {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {"query": "x"}}},
        {"type": "other", "providerType": "web_search_call", "data": {"type": "web_search_call", "id": "ws_1", "status": "completed"}},
        {"type": "other", "providerType": "executableCode", "data": {"executableCode": {"code": "print(1)", "language": "PYTHON"}}},
        {"type": "text", "text": "It is ", "citations": [{"type": "url_citation", "url": "https://a"}]},
        {"type": "text", "text": "sunny.", "signature": "gemini-sig"},
        {"type": "tool_call", "id": "call_1", "name": "weather", "arguments": "{\"city\":\"Paris\"}", "signature": "gemini-call-sig"},
        {"type": "text", "text": ""},
        {"type": "tool_call", "id": "call_2", "name": "time", "arguments": ""},
    ])
}

fn turn_with_blocks(blocks: Value) -> Value {
    json!([
        {"role": "user", "content": "Weather and time in Paris?"},
        {"role": "assistant", "content": "stale text", "metadata": {"blocks": blocks, "name": "bot",
            "tool_calls": [{"id": "stale", "name": "f", "arguments": "{}"}]}},
    ])
}

#[test]
fn openai_chat_takes_the_text_the_tool_calls_and_the_reasoning_details() {
    let b = body(&agent("openrouter", "chat", json!({})), turn_with_blocks(every_kind_of_block()));
    assert_eq!(
        b["messages"][1],
        json!({
            "role": "assistant",
            "name": "bot",
            "content": "It is sunny.",
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Paris\"}"}},
                {"id": "call_2", "type": "function", "function": {"name": "time", "arguments": ""}},
            ],
            "reasoning_details": [
                {"type": "reasoning.text", "text": "Claude via OpenRouter", "signature": "or-sig", "format": "anthropic-claude-v1", "index": 0},
                {"type": "reasoning.encrypted", "data": "or-data", "id": "rs_or", "format": "openai-responses-v1", "index": 1},
            ],
        })
    );
}

#[test]
fn openai_and_azure_get_no_reasoning_details_which_only_gateways_take() {
    for provider in ["openai", "azure"] {
        let b = body(&agent(provider, "chat", json!({})), turn_with_blocks(every_kind_of_block()));
        assert_eq!(b["messages"][1]["tool_calls"].as_array().map(Vec::len), Some(2), "{provider}");
        assert!(b["messages"][1].get("reasoning_details").is_none(), "{provider}: {b}");
    }
}

#[test]
fn responses_takes_its_reasoning_items_its_tool_items_the_text_and_the_calls_in_order() {
    let b = body(&agent("openai", "responses", json!({})), turn_with_blocks(every_kind_of_block()));
    assert_eq!(
        b["input"],
        json!([
            {"role": "user", "content": "Weather and time in Paris?"},
            {"type": "reasoning", "id": "rs_1", "encrypted_content": "gAAA-1", "summary": [
                {"type": "summary_text", "text": "Part one"},
                {"type": "summary_text", "text": "Part two"},
            ]},
            {"type": "reasoning", "id": "rs_2", "summary": []},
            {"type": "web_search_call", "id": "ws_1", "status": "completed"},
            {"role": "assistant", "content": "It is sunny."},
            {"type": "function_call", "call_id": "call_1", "name": "weather", "arguments": "{\"city\":\"Paris\"}"},
            {"type": "function_call", "call_id": "call_2", "name": "time", "arguments": ""},
        ])
    );
}

#[test]
fn anthropic_takes_its_thinking_its_server_tool_blocks_the_text_and_the_calls_in_order() {
    let b = body(&agent("anthropic", "chat", json!({})), turn_with_blocks(every_kind_of_block()));
    assert_eq!(
        b["messages"][1],
        json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "Claude thinking", "signature": "an-sig"},
            {"type": "redacted_thinking", "data": "an-data"},
            {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {"query": "x"}},
            {"type": "text", "text": "It is "},
            {"type": "text", "text": "sunny."},
            {"type": "tool_use", "id": "call_1", "name": "weather", "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "call_2", "name": "time", "input": {}},
        ]})
    );
}

#[test]
fn gemini_takes_the_text_and_the_calls_with_their_signatures_and_no_reasoning() {
    let b = body(&agent("google", "chat", json!({})), turn_with_blocks(every_kind_of_block()));
    assert_eq!(
        b["contents"][1],
        json!({"role": "model", "parts": [
            {"executableCode": {"code": "print(1)", "language": "PYTHON"}},
            {"text": "It is "},
            {"text": "sunny.", "thoughtSignature": "gemini-sig"},
            {"functionCall": {"id": "call_1", "name": "weather", "args": {"city": "Paris"}}, "thoughtSignature": "gemini-call-sig"},
            {"functionCall": {"id": "call_2", "name": "time", "args": {}}},
        ]})
    );
}

#[test]
fn bedrock_takes_claudes_signed_and_redacted_reasoning_the_text_and_the_calls_in_order() {
    let b = body(&agent("bedrock", "chat", json!({})), turn_with_blocks(every_kind_of_block()));
    assert_eq!(
        b["messages"][1],
        json!({"role": "assistant", "content": [
            {"reasoningContent": {"reasoningText": {"text": "Claude thinking", "signature": "an-sig"}}},
            // Base64 of the data's bytes (docs/design.md, "Reasoning that goes back").
            {"reasoningContent": {"redactedContent": "YW4tZGF0YQ=="}},
            {"text": "It is "},
            {"text": "sunny."},
            {"toolUse": {"toolUseId": "call_1", "name": "weather", "input": {"city": "Paris"}}},
            {"toolUse": {"toolUseId": "call_2", "name": "time", "input": {}}},
        ]})
    );
}

#[test]
fn a_turn_without_blocks_is_built_from_its_content_and_tool_calls_as_before() {
    let messages = json!([{"role": "assistant", "content": "Checking.", "metadata": {
        "tool_calls": [{"id": "c1", "name": "f", "arguments": "{}"}],
        "anthropic_thinking": [{"type": "thinking", "thinking": "t", "signature": "s"}]}}]);
    let b = body(&agent("anthropic", "chat", json!({})), messages);
    assert_eq!(
        b["messages"][0]["content"],
        json!([
            {"type": "thinking", "thinking": "t", "signature": "s"},
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "c1", "name": "f", "input": {}},
        ])
    );
}

#[test]
fn blocks_on_a_message_that_is_not_the_assistants_are_not_rendered_nor_sent() {
    let messages = json!([{"role": "user", "content": "hi", "metadata": {"blocks": [{"type": "text", "text": "x"}]}}]);
    for (provider, api_type) in EVERY_FORMAT {
        let b = body(&agent(provider, api_type, json!({})), messages.clone());
        assert!(!b.to_string().contains("\"x\""), "{provider}/{api_type}: {b}");
    }
}

/// The final message of a stream pushed whole.
fn finish(stream: &str) -> llm_wire::FinalMessage {
    let mut acc = Accumulator::new(AccumulatorOptions::default());
    acc.push(stream.as_bytes()).unwrap();
    acc.finish()
}

#[test]
fn a_final_message_in_the_messages_is_read_as_to_message_makes_it() {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let streams = [
        "anthropic/pyd-thinking-signature-stream.sse",
        "anthropic/pyd-redacted-thinking-stream.sse",
        "anthropic/pyd-web-search-stream.sse",
        "openai-responses/vercel-reasoning-summary-tool-calls.part1.sse",
        "openrouter/pyd-streaming-reasoning.sse",
        "openai-chat/pyd-parallel-tool-calls.sse",
    ];
    for name in streams {
        let stream = std::fs::read_to_string(fixtures.join(name)).unwrap();
        let turn = finish(&stream);
        let as_json = serde_json::to_value(&turn).unwrap();
        let tool = |id: &str| json!({"role": "tool", "content": "ok", "metadata": {"tool_call_id": id}});
        let mut messages = vec![json!({"role": "user", "content": "Go"}), as_json];
        messages.extend(turn.tool_calls.iter().map(|c| tool(&c.id)));
        let mut typed = vec![Message::new("user", "Go"), turn.to_message()];
        typed.extend(
            turn.tool_calls.iter().map(|c| Message::list_from_json(&json!([tool(&c.id)]).into()).unwrap().remove(0)),
        );
        for (provider, api_type) in EVERY_FORMAT {
            let agent_json = agent(provider, api_type, json!({}));
            let from_json = body(&agent_json, Value::from(messages.clone()));
            let from_rust: Value =
                build_chat_args(&Agent::from_json(&agent_json.clone().into()).unwrap(), &typed).unwrap().into();
            assert_eq!(from_json, from_rust, "{name} to {provider}/{api_type}");
        }
    }
}

#[test]
fn which_messages_are_read_as_final_messages() {
    let chat = agent("openai", "chat", json!({}));
    // (the message, the wire message it becomes)
    let cases = [
        (json!({"role": "assistant", "content": []}), json!({"role": "assistant", "content": []})),
        (
            json!({"role": "assistant", "content": [{"kind": "text", "value": "a"}]}),
            json!({"role": "assistant", "content": "a"}),
        ),
        (json!({"content": [{"type": "text", "text": "a"}]}), json!({"role": "assistant", "content": "a"})),
        (json!({"content": [], "toolCalls": []}), json!({"role": "assistant", "content": ""})),
        (json!({"content": [], "finishReason": "stop", "text": "b"}), json!({"role": "assistant", "content": ""})),
        (
            json!({"toolCalls": [{"id": "c", "name": "f", "arguments": {"x": 1}}]}),
            json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{\"x\":1}"}}]}),
        ),
    ];
    for (message, wire) in cases {
        let b = body(&chat, json!([message]));
        assert_eq!(b["messages"][0], wire, "{message}");
    }
}

#[test]
fn a_bad_block_or_final_message_is_refused_at_its_path() {
    let chat = agent("openai", "chat", json!({}));
    let blocks = |b: Value| json!([{"role": "assistant", "content": "", "metadata": {"blocks": b}}]);
    let cases = [
        (json!([{"content": [{"type": "picture"}]}]), "messages[0].content[0].type"),
        (json!([{"content": [{"type": "tool_call", "name": "f"}]}]), "messages[0].content[0].id"),
        (json!([{"content": [{"type": "text", "text": 5}]}]), "messages[0].content[0].text"),
        (
            json!([{"content": [{"type": "reasoning", "encryptedContent": []}]}]),
            "messages[0].content[0].encryptedContent",
        ),
        (json!([{"content": [{"type": "other", "data": {}}]}]), "messages[0].content[0].providerType"),
        (json!([{"role": "developer", "content": [{"type": "object"}]}]), "messages[0].content[0].kind"),
        (json!([{"toolCalls": [{"id": "c"}]}]), "messages[0].toolCalls[0].name"),
        (json!([{"toolCalls": [{"id": "c", "name": "f", "arguments": 1}]}]), "messages[0].toolCalls[0].arguments"),
        (json!([{"content": "text", "finishReason": "stop"}]), "messages[0].content"),
        (blocks(json!({"type": "text"})), "messages[0].metadata.blocks"),
        (blocks(json!([{"type": "text"}, "x"])), "messages[0].metadata.blocks[1]"),
    ];
    for (messages, path) in cases {
        assert_invalid_at(&error(&chat, messages.clone()), path);
    }
    let anthropic = agent("anthropic", "chat", json!({}));
    let messages = blocks(
        json!([{"type": "text", "text": "a"}, {"type": "tool_call", "id": "c", "name": "f", "arguments": "[1]"}]),
    );
    assert_invalid_at(&error(&anthropic, messages), "messages[0].metadata.blocks[1]");
}

//! Redacted thinking moving between Anthropic and Bedrock (docs/design.md, "Reasoning that goes
//! back"): Bedrock's `redactedContent` is base64 of the bytes of Anthropic's `data` string, so
//! a turn read from either API goes back to the other in that API's own form. The data is the
//! recorded ConverseStream fixture's.

mod common;

use std::path::Path;

use common::decode_base64 as decode;

use llm_wire::{
    build_chat_args, build_chat_args_json, to_message, Accumulator, AccumulatorOptions, Agent, FinalMessage, Message,
};
use serde_json::{json, Value};

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bedrock").join(name)).unwrap()
}

/// The `redactedContent` values the fixture streams (its `.expect.json` lists them).
fn wire_values() -> Vec<String> {
    let expect: Value = serde_json::from_slice(&fixture("pyd-claude-redacted-reasoning-stream.expect.json")).unwrap();
    expect["redactedReasoning"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_owned()).collect()
}

fn streamed_turn() -> FinalMessage {
    let mut acc = Accumulator::new(AccumulatorOptions::default());
    acc.push(&fixture("pyd-claude-redacted-reasoning-stream.eventstream")).unwrap();
    acc.finish()
}

fn agent(provider: &str) -> Agent {
    let mut agent = Agent::new("claude");
    agent.model.provider = provider.into();
    agent
}

fn request(provider: &str, messages: &Value) -> Value {
    build_chat_args_json(&json!({"model": {"id": "claude", "provider": provider}}).into(), &messages.clone().into())
        .unwrap()
        .into()
}

/// The request of `provider` for a question and `turn` sent back.
fn sent_back(provider: &str, turn: &FinalMessage) -> Value {
    let question = Message::from_json(&json!({"role": "user", "content": "q"}).into(), "messages[0]").unwrap();
    build_chat_args(&agent(provider), &[question, turn.to_message()]).unwrap().into()
}

/// The data of each block of `content` that is `type`, under `key`.
fn members<'v>(content: &'v Value, key: &str) -> Vec<&'v str> {
    content.as_array().unwrap().iter().filter_map(|b| b[key].as_str()).collect()
}

#[test]
fn bedrock_redacted_content_is_kept_as_anthropic_s_data_and_goes_back_to_both_apis() {
    let wire = wire_values();
    let data: Vec<String> = wire.iter().map(|w| String::from_utf8(decode(w)).unwrap()).collect();
    assert!(data[0].starts_with("EtkECkgI"), "the fixture's bytes are Anthropic data: {}", data[0]);
    let turn = streamed_turn();
    let kept: Vec<&str> = turn
        .content
        .iter()
        .filter_map(|b| match b {
            llm_wire::model::Block::Reasoning { redacted: Some(r), .. } => Some(r.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(kept, data);

    let anthropic = sent_back("anthropic", &turn);
    assert_eq!(members(&anthropic["messages"][1]["content"], "data"), data);
    let bedrock = sent_back("bedrock", &turn);
    let sent: Vec<&str> = bedrock["messages"][1]["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["reasoningContent"]["redactedContent"].as_str())
        .collect();
    assert_eq!(sent, wire);
}

#[test]
fn anthropic_redacted_data_goes_to_bedrock_as_base64_of_its_bytes_by_blocks_and_by_anthropic_thinking() {
    let wire = wire_values();
    let data = String::from_utf8(decode(&wire[1])).unwrap();
    // Anthropic's answer, read as Anthropic sends it.
    let body = json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
        "content": [{"type": "redacted_thinking", "data": data}, {"type": "text", "text": "hi"}],
        "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 2}});
    let turn = to_message(body.to_string().as_str(), Some(&agent("anthropic"))).unwrap();
    let by_blocks = sent_back("bedrock", &turn)["messages"][1]["content"].clone();
    assert_eq!(by_blocks[0], json!({"reasoningContent": {"redactedContent": wire[1]}}));
    assert_eq!(members(&sent_back("anthropic", &turn)["messages"][1]["content"], "data"), [data.as_str()]);
    let by_thinking = json!([{"role": "user", "content": "q"}, {"role": "assistant", "content": "hi",
        "metadata": {"anthropic_thinking": [{"type": "redacted_thinking", "data": data}]}}]);
    let sent = request("bedrock", &by_thinking)["messages"][1]["content"].clone();
    assert_eq!(sent[0], json!({"reasoningContent": {"redactedContent": wire[1]}}));
}

#[test]
fn redacted_bytes_that_are_not_text_stay_bedrock_only() {
    // 0xFF 0xEF 0x00: not UTF-8, so not Anthropic data.
    let body = json!({"output": {"message": {"role": "assistant", "content": [
        {"reasoningContent": {"redactedContent": "/+8A"}}, {"text": "answer"}]}},
        "stopReason": "end_turn", "usage": {"inputTokens": 1, "outputTokens": 1}});
    let turn = to_message(body.to_string().as_str(), Some(&agent("bedrock"))).unwrap();
    assert_eq!(
        serde_json::to_value(&turn.content).unwrap()[0],
        json!({"type": "other", "providerType": "reasoningContent", "data": {"redactedContent": "/+8A"}})
    );
    assert_eq!(
        sent_back("bedrock", &turn)["messages"][1]["content"],
        json!([{"reasoningContent": {"redactedContent": "/+8A"}}, {"text": "answer"}])
    );
    assert_eq!(sent_back("anthropic", &turn)["messages"][1]["content"], json!([{"type": "text", "text": "answer"}]));
}

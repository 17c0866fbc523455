//! Multi-turn continuity: an assistant turn with tool calls and the tool results answering it,
//! in every format; and a streamed turn's FinalMessage back into a Message.

use llm_wire::model::continuity::{BLOCKS, TOOL_CALLS};
use llm_wire::{build_chat_args, Agent, Block, FinalMessage, FinishReason, Message, ToolCall};
use serde_json::{json, Value};

use super::{agent, body};

/// A user question, an assistant turn calling two tools (OpenAI shape), and both answers.
fn loop_messages() -> Value {
    json!([
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Paris and Rome?"},
        {"role": "assistant", "content": "Checking.", "metadata": {"tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Paris\"}"}},
            {"id": "c2", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Rome\"}"}},
        ]}},
        {"role": "tool", "content": "18C", "metadata": {"tool_call_id": "c1"}},
        {"role": "tool", "content": [{"kind": "text", "value": "24C"}], "metadata": {"tool_call_id": "c2"}},
    ])
}

#[test]
fn openai_chat_sends_the_tool_calls_and_one_tool_message_per_result() {
    let b = body(&agent("openai", "chat", json!({})), loop_messages());
    assert_eq!(
        b["messages"][2]["tool_calls"][1],
        json!({"id": "c2", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Rome\"}"}})
    );
    assert_eq!(b["messages"][2]["content"], "Checking.");
    assert_eq!(b["messages"][3], json!({"role": "tool", "content": "18C", "tool_call_id": "c1"}));
    assert_eq!(b["messages"][4], json!({"role": "tool", "content": "24C", "tool_call_id": "c2"}));
}

#[test]
fn openai_chat_sends_null_content_for_a_turn_that_only_calls_tools() {
    let messages = json!([{"role": "assistant", "content": [], "metadata": {"tool_calls": [{"id": "c1", "name": "f", "arguments": "{}"}]}}]);
    let b = body(&agent("openai", "chat", json!({})), messages);
    assert_eq!(
        b["messages"][0],
        json!({"role": "assistant", "content": null,
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]})
    );
}

#[test]
fn responses_sends_function_call_and_function_call_output_items() {
    let b = body(&agent("openai", "responses", json!({})), loop_messages());
    assert_eq!(b["instructions"], "Be brief.");
    assert_eq!(
        b["input"],
        json!([
            {"role": "user", "content": "Weather in Paris and Rome?"},
            {"role": "assistant", "content": "Checking."},
            {"type": "function_call", "call_id": "c1", "name": "weather", "arguments": "{\"city\":\"Paris\"}"},
            {"type": "function_call", "call_id": "c2", "name": "weather", "arguments": "{\"city\":\"Rome\"}"},
            {"type": "function_call_output", "call_id": "c1", "output": "18C"},
            {"type": "function_call_output", "call_id": "c2", "output": "24C"},
        ])
    );
}

#[test]
fn responses_never_sends_a_call_twice_when_the_result_also_carries_it() {
    let call = json!({"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"});
    let messages = json!([
        {"role": "assistant", "content": "", "metadata": {"tool_calls": [{"id": "c1", "name": "f", "arguments": "{}"}]}},
        {"role": "tool", "content": "ok", "metadata": {"tool_call_id": "c1", "responses_function_call": call}},
    ]);
    let b = body(&agent("openai", "responses", json!({})), messages);
    assert_eq!(
        b["input"],
        json!([
            {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "ok"},
        ])
    );
}

#[test]
fn openai_chat_leaves_out_the_replay_data_of_other_formats() {
    let messages = json!([{"role": "tool", "content": "ok", "metadata": {"tool_call_id": "c1",
        "responses_function_call": {"type": "function_call"}, "anthropic_thinking": []}}]);
    let b = body(&agent("openai", "chat", json!({})), messages);
    assert_eq!(b["messages"][0], json!({"role": "tool", "content": "ok", "tool_call_id": "c1"}));
}

#[test]
fn anthropic_sends_tool_use_blocks_and_one_user_turn_of_tool_results() {
    let b = body(&agent("anthropic", "chat", json!({})), loop_messages());
    assert_eq!(b["system"], "Be brief.");
    assert_eq!(
        b["messages"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": "Weather in Paris and Rome?"}]},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "c1", "name": "weather", "input": {"city": "Paris"}},
                {"type": "tool_use", "id": "c2", "name": "weather", "input": {"city": "Rome"}},
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "c1", "content": "18C"},
                {"type": "tool_result", "tool_use_id": "c2", "content": "24C"},
            ]},
        ])
    );
}

#[test]
fn anthropic_puts_a_user_message_after_tool_results_in_the_same_turn() {
    let mut messages = loop_messages();
    messages.as_array_mut().unwrap().push(json!({"role": "user", "content": "And London?"}));
    let b = body(&agent("anthropic", "chat", json!({})), messages);
    let turns = b["messages"].as_array().unwrap();
    assert_eq!(turns.len(), 3);
    assert_eq!(turns[2]["content"][2], json!({"type": "text", "text": "And London?"}));
}

#[test]
fn anthropic_rejects_tool_call_arguments_that_are_not_a_json_object() {
    let messages =
        json!([{"role": "assistant", "metadata": {"tool_calls": [{"id": "c1", "name": "f", "arguments": "[1]"}]}}]);
    let e =
        llm_wire::build_chat_args_json(&agent("anthropic", "chat", json!({})).into(), &messages.into()).unwrap_err();
    super::assert_invalid_at(&e, "messages[0].metadata.tool_calls[0]");
}

#[test]
fn anthropic_replays_thinking_blocks_before_the_tool_use() {
    let thinking = json!([{"type": "thinking", "thinking": "hmm", "signature": "sig"}]);
    let messages = json!([{"role": "assistant", "content": "", "metadata": {
        "anthropic_thinking": thinking, "tool_calls": [{"id": "c1", "name": "f", "arguments": ""}]}}]);
    let b = body(&agent("anthropic", "chat", json!({})), messages);
    assert_eq!(
        b["messages"][0]["content"],
        json!([
            {"type": "thinking", "thinking": "hmm", "signature": "sig"},
            {"type": "tool_use", "id": "c1", "name": "f", "input": {}},
        ])
    );
}

fn final_message() -> FinalMessage {
    FinalMessage {
        role: "assistant",
        content: vec![
            Block::Reasoning {
                text: "think".into(),
                signature: Some("sig".into()),
                redacted: None,
                id: None,
                encrypted_content: None,
                format: None,
            },
            Block::Reasoning {
                text: String::new(),
                signature: None,
                redacted: Some("opaque".into()),
                id: None,
                encrypted_content: None,
                format: None,
            },
            Block::text("Checking."),
            Block::tool_call(ToolCall {
                id: "c1".into(),
                name: "weather".into(),
                arguments: "{\"city\":\"Paris\"}".into(),
            }),
        ],
        text: "Checking.".into(),
        reasoning: "think".into(),
        tool_calls: vec![ToolCall {
            id: "c1".into(),
            name: "weather".into(),
            arguments: "{\"city\":\"Paris\"}".into(),
        }],
        usage: None,
        finish_reason: FinishReason::ToolCalls,
        raw_finish_reason: Some("tool_calls".into()),
        id: None,
        model: None,
        provider: None,
        error: None,
        complete: true,
        choices: None,
    }
}

#[test]
fn a_final_message_becomes_an_assistant_message_with_its_text_tool_calls_and_blocks() {
    let turn = final_message();
    let message = turn.to_message();
    assert_eq!(message.role, "assistant");
    assert_eq!(message.content.text(), "Checking.");
    assert_eq!(
        message.metadata[TOOL_CALLS],
        json!([{"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Paris\"}"}}])
    );
    assert_eq!(message.metadata[BLOCKS], serde_json::to_value(&turn.content).unwrap());
    assert_eq!(message.metadata.len(), 2, "no other replay key: {:?}", message.metadata);
}

#[test]
fn a_final_message_round_trips_into_a_next_request_in_every_format() {
    let turn = final_message().to_message();
    let mut answer = Message::new("tool", "18C");
    answer.metadata.insert("tool_call_id".into(), json!("c1").into());
    let messages = vec![Message::new("user", "Weather?"), turn, answer];
    let mut agent = Agent::new("m");
    for (provider, api_type, key) in
        [("openai", "chat", "messages"), ("openai", "responses", "input"), ("anthropic", "chat", "messages")]
    {
        agent.model.provider = provider.into();
        agent.model.api_type = api_type.into();
        let b = build_chat_args(&agent, &messages).unwrap();
        let text = b[key].to_string();
        assert!(text.contains("c1") && text.contains("18C") && text.contains("Paris"), "{provider}/{api_type}: {text}");
    }
}

#[test]
fn openai_chat_leaves_out_an_empty_tool_calls_list() {
    let messages = json!([{"role": "assistant", "content": "done", "metadata": {"tool_calls": []}}]);
    assert_eq!(
        body(&agent("openai", "chat", json!({})), messages)["messages"][0],
        json!({"role": "assistant", "content": "done"})
    );
}

/// The recorded code interpreter answer, read back into a message.
fn code_interpreter_turn() -> (Value, FinalMessage) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/openai-responses/vercel-code-interpreter.json");
    let text = std::fs::read_to_string(path).unwrap();
    let agent = Agent {
        model: llm_wire::model::Model { api_type: "responses".into(), ..Default::default() },
        ..Default::default()
    };
    let turn = llm_wire::to_message(text.as_str(), Some(&agent)).unwrap();
    (serde_json::from_str(&text).unwrap(), turn)
}

#[test]
fn responses_sends_its_own_tool_items_back_in_order_and_no_other_format_does() {
    let (body_of, turn) = code_interpreter_turn();
    let messages = vec![Message::new("user", "Compute."), turn.to_message()];
    let mut agent = Agent::new("m");
    agent.model.api_type = "responses".into();
    let input = build_chat_args(&agent, &messages).unwrap()["input"].clone();
    let output = body_of["output"].as_array().unwrap();
    let types: Vec<&str> = input.as_array().unwrap().iter().map(|i| i["type"].as_str().unwrap_or("message")).collect();
    let want: Vec<&str> =
        std::iter::once("message").chain(output.iter().map(|o| o["type"].as_str().unwrap())).collect();
    assert_eq!(types, want, "every output item, in order");
    for (sent, item) in input.as_array().unwrap()[1..].iter().zip(output) {
        if item["type"] == "code_interpreter_call" {
            assert_eq!(sent, item, "a tool item goes back as it came");
        }
    }
    for (provider, api_type) in [("openai", "chat"), ("anthropic", "chat"), ("google", "chat"), ("bedrock", "chat")] {
        agent.model.provider = provider.into();
        agent.model.api_type = api_type.into();
        let text = build_chat_args(&agent, &messages).unwrap().to_string();
        assert!(!text.contains("code_interpreter_call") && !text.contains("container_id"), "{provider}: {text}");
    }
}

#[test]
fn responses_leaves_out_other_blocks_that_are_not_its_tool_items() {
    let other = |kind: &str, data: Value| Block::Other {
        provider_type: kind.into(),
        data: llm_wire::model::RawJson::parse(&data.to_string()).unwrap(),
    };
    let turn = FinalMessage {
        content: vec![
            other(
                "server_tool_use",
                json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}),
            ),
            other("web_search_call", json!({"type": "web_search_tool_result", "id": "x"})),
            other("executableCode", json!({"executableCode": {"code": "1"}})),
            other("web_search_call", json!({"type": "web_search_call", "id": "ws_1", "status": "completed"})),
            Block::text("Done."),
        ],
        text: "Done.".into(),
        reasoning: String::new(),
        tool_calls: vec![],
        ..final_message()
    };
    let messages = vec![Message::new("user", "Search."), turn.to_message()];
    let mut agent = Agent::new("m");
    agent.model.api_type = "responses".into();
    let input = build_chat_args(&agent, &messages).unwrap()["input"].clone();
    assert_eq!(
        input,
        json!([
            {"role": "user", "content": "Search."},
            {"type": "web_search_call", "id": "ws_1", "status": "completed"},
            {"role": "assistant", "content": "Done."},
        ])
    );
}

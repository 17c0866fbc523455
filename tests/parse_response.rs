//! Orbiter's `parse_response`: the model's text, tool calls and usage as an `AgentOutput`,
//! copied without any transformation; parsing is `parse_tool_arguments`'s job.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use llm_wire::{parse_response, parse_tool_arguments, to_message, Agent, ToolCall, Usage};
use serde_json::json;

fn agent_of(format: &str) -> Agent {
    let (provider, api_type) = match format {
        "anthropic" => ("anthropic", "chat"),
        "openai-responses" => ("openai", "responses"),
        "gemini" => ("google", "chat"),
        "bedrock" => ("bedrock", "chat"),
        _ => ("openai", "chat"),
    };
    Agent::from_json(&json!({"model": {"id": "m", "provider": provider, "apiType": api_type}}).into()).unwrap()
}

#[test]
fn every_recorded_answer_s_text_calls_and_usage_come_out_as_they_went_in() {
    let mut with_calls = 0;
    for &(dir, format) in common::STREAM_DIRS {
        let root = format!("{}/tests/fixtures/{dir}", env!("CARGO_MANIFEST_DIR"));
        for entry in std::fs::read_dir(&root).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !name.ends_with(".json") || name.contains(".expect.") || name.contains(".request.") {
                continue;
            }
            let body = std::fs::read_to_string(entry.path()).unwrap();
            let Ok(message) = to_message(body.as_str(), Some(&agent_of(format))) else { continue };
            let Some(usage) = &message.usage else { continue };
            let output = parse_response(&message.text, &message.tool_calls, usage);
            assert_eq!(output.text, message.text, "{dir}/{name}");
            assert_eq!(output.tool_calls, message.tool_calls, "{dir}/{name}");
            assert_eq!(&output.usage, usage, "{dir}/{name}");
            assert_eq!(output.usage.raw.get(), usage.raw.get(), "{dir}/{name}: raw");
            with_calls += usize::from(!output.tool_calls.is_empty());
        }
    }
    assert!(with_calls > 0, "no recorded answer with tool calls");
}

fn usage(input: u64, output: u64) -> Usage {
    let body = json!({"choices": [{"message": {"content": ""}}],
        "usage": {"prompt_tokens": input, "completion_tokens": output, "total_tokens": input + output}});
    to_message(body.to_string().as_str(), None).unwrap().usage.unwrap()
}

#[test]
fn arguments_are_copied_even_when_invalid_and_only_parse_tool_arguments_refuses_them() {
    // (arguments, whether parse_tool_arguments accepts them)
    let cases = [("{\"query\": \"AI safety\"}", true), ("", true), ("{oops", false), ("[1, 2]", false)];
    for (arguments, parses) in cases {
        let calls = [ToolCall { id: "call_1".into(), name: "search".into(), arguments: arguments.into() }];
        let output = parse_response("Here is the answer.", &calls, &usage(50, 20));
        assert_eq!(output.tool_calls[0].arguments, arguments);
        assert_eq!((output.text.as_str(), output.usage.total_tokens), ("Here is the answer.", 70));
        assert_eq!(parse_tool_arguments(&output.tool_calls).is_ok(), parses, "{arguments:?}");
    }
}

#[test]
fn an_agent_output_serialises_with_the_package_s_names() {
    let calls = [ToolCall { id: "c".into(), name: "f".into(), arguments: "{}".into() }];
    let output = parse_response("hi", &calls, &usage(1, 2));
    let value = serde_json::to_value(&output).unwrap();
    assert_eq!(value["text"], "hi");
    assert_eq!(value["toolCalls"], json!([{"id": "c", "name": "f", "arguments": "{}"}]));
    assert_eq!((value["usage"]["inputTokens"].as_u64(), value["usage"]["totalTokens"].as_u64()), (Some(1), Some(3)));
}

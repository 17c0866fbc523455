//! The rules of `process` and `to_message` (§8; docs/design.md, "Dispatch"), one test each, on small bodies
//! built for the rule, plus the `process` trace span and hostile input.

use llm_wire::model::{Model, Property};
use llm_wire::process::message_span;
use llm_wire::{
    process, process_with, to_message, Accumulator, AccumulatorOptions, Agent, ErrorCode, FinishReason, ProcessOptions,
    ProcessResult, Span,
};
use serde_json::{json, Value};

fn agent(provider: &str, api_type: &str) -> Agent {
    Agent {
        model: Model { id: "m".into(), provider: provider.into(), api_type: api_type.into(), ..Model::default() },
        ..Agent::default()
    }
}

fn with_outputs(mut agent: Agent) -> Agent {
    agent.outputs = vec![Property { name: "city".into(), kind: "string".into(), ..Property::default() }];
    agent
}

fn chat(message: Value) -> Value {
    json!({"id": "c1", "model": "gpt", "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
           "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}})
}

/// The crate's value of a serde_json one: the bodies are built with `json!`.
fn ours(value: &Value) -> llm_wire::Value {
    value.clone().into()
}

fn run(agent: &Agent, body: &Value) -> Value {
    serde_json::to_value(process(agent, &ours(body)).unwrap()).unwrap()
}

#[test]
fn tool_calls_win_over_content() {
    let body = chat(json!({"content": "ignored", "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{\"x\":1}"}},
        {"id": "b", "type": "function", "function": {"name": "g", "arguments": ""}}]}));
    assert_eq!(
        run(&agent("openai", "chat"), &body),
        json!([{"id": "a", "name": "f", "arguments": "{\"x\":1}"}, {"id": "b", "name": "g", "arguments": ""}])
    );
}

#[test]
fn structured_output_is_parsed_only_when_the_agent_has_outputs() {
    let body = chat(json!({"content": "{\"city\":\"Paris\"}"}));
    assert_eq!(run(&with_outputs(agent("openai", "chat")), &body), json!({"city": "Paris"}));
    assert_eq!(run(&agent("openai", "chat"), &body), json!("{\"city\":\"Paris\"}"));
}

#[test]
fn structured_output_that_does_not_parse_falls_back_to_the_raw_string() {
    let body = chat(json!({"content": "not json {"}));
    assert_eq!(run(&with_outputs(agent("openai", "chat")), &body), json!("not json {"));
}

#[test]
fn a_non_streamed_refusal_returns_its_text_and_the_message_reports_it() {
    let body = chat(json!({"content": null, "refusal": "I can't help with that"}));
    assert_eq!(run(&agent("openai", "chat"), &body), json!("I can't help with that"));
    let message = to_message(&ours(&body), None).unwrap();
    assert_eq!(message.finish_reason, FinishReason::Refusal);
    assert_eq!(message.error.unwrap().message, "Model refused: I can't help with that");
}

#[test]
fn null_content_is_an_empty_string() {
    assert_eq!(run(&agent("openai", "chat"), &chat(json!({"content": null}))), json!(""));
}

#[test]
fn any_provider_other_than_anthropic_is_openai_compatible() {
    for provider in ["azure", "ollama", "vllm", "groq", "openrouter", "deepseek", "", "something-new"] {
        assert_eq!(run(&agent(provider, "chat"), &chat(json!({"content": "hi"}))), json!("hi"), "{provider}");
    }
}

#[test]
fn anthropic_text_blocks_are_concatenated_and_tool_input_keeps_its_key_order() {
    let body = r#"{"type":"message","id":"m","model":"claude","content":[{"type":"text","text":"a"},
        {"type":"text","text":"b"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":2}}"#;
    assert_eq!(process(&agent("anthropic", "chat"), body).unwrap(), ProcessResult::Text("ab".into()));
    let body = r#"{"type":"message","content":[{"type":"tool_use","id":"t","name":"f","input":{ "z" : 1, "a" : [1.50, "x y"] }}],"stop_reason":"tool_use"}"#;
    let ProcessResult::ToolCalls(calls) = process(&agent("anthropic", "responses"), body).unwrap() else { panic!() };
    assert_eq!(calls[0].arguments, r#"{"z":1,"a":[1.50,"x y"]}"#);
}

#[test]
fn anthropic_server_tool_blocks_are_kept_as_other_blocks() {
    let body = json!({"type": "message", "content": [
        {"type": "server_tool_use", "id": "s", "name": "web_search", "input": {"query": "q"}},
        {"type": "web_search_tool_result", "tool_use_id": "s", "content": []},
        {"type": "text", "text": "found"}], "stop_reason": "end_turn"});
    let message = to_message(&ours(&body), Some(&agent("anthropic", "chat"))).unwrap();
    let blocks = serde_json::to_value(&message.content).unwrap();
    assert_eq!(blocks[0]["type"], "other");
    assert_eq!(blocks[0]["providerType"], "server_tool_use");
    assert_eq!(blocks[1]["providerType"], "web_search_tool_result");
    assert_eq!(message.text, "found");
    assert_eq!(run(&agent("anthropic", "chat"), &body), json!("found"), "server tools are not the caller's tool calls");
}

#[test]
fn responses_text_is_read_from_the_output_items_when_output_text_is_absent() {
    let body = json!({"id": "r", "object": "response", "status": "completed", "output": [
        {"type": "message", "content": [{"type": "output_text", "text": "Hel"}, {"type": "output_text", "text": "lo"}]}]});
    assert_eq!(run(&agent("openai", "responses"), &body), json!("Hello"));
}

#[test]
fn responses_function_calls_win_and_use_the_call_id() {
    let body = json!({"object": "response", "status": "completed", "output": [
        {"type": "message", "content": [{"type": "output_text", "text": "let me check"}]},
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": "{}"}]});
    assert_eq!(run(&agent("openai", "responses"), &body), json!([{"id": "call_1", "name": "f", "arguments": "{}"}]));
    let message = to_message(&ours(&body), None).unwrap();
    assert_eq!(message.finish_reason, FinishReason::ToolCalls);
}

#[test]
fn an_incomplete_response_reports_its_reason() {
    let body = json!({"object": "response", "status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"},
                      "output": [{"type": "message", "content": [{"type": "output_text", "text": "cut"}]}]});
    let message = to_message(&ours(&body), None).unwrap();
    assert_eq!(message.finish_reason, FinishReason::Length);
    assert_eq!(message.raw_finish_reason.as_deref(), Some("max_output_tokens"));
}

#[test]
fn a_responses_error_object_is_a_provider_error_with_its_code() {
    let body = json!({"object": "response", "status": "failed", "error": {"code": "server_error", "message": "boom"}, "output": []});
    let err = process(&agent("openai", "responses"), &ours(&body)).unwrap_err();
    assert_eq!((err.code, err.message.as_str()), (ErrorCode::ProviderError, "boom"));
    let detail = err.provider.clone().unwrap();
    assert_eq!(detail.code.as_deref(), Some("server_error"));
    assert!(detail.retryable);
}

#[test]
fn a_bare_error_string_is_a_provider_error() {
    let err = process(&agent("ollama", "chat"), r#"{"error": "model 'x' not found"}"#).unwrap_err();
    assert_eq!((err.code, err.message.as_str()), (ErrorCode::ProviderError, "model 'x' not found"));
}

#[test]
fn an_anthropic_error_type_without_an_error_object_is_a_plain_provider_error() {
    for error in ["", r#","error": null"#] {
        let body = format!(r#"{{"type": "error"{error}}}"#);
        let err = process(&agent("anthropic", ""), body.as_str()).unwrap_err();
        assert_eq!((err.code, err.message.as_str()), (ErrorCode::ProviderError, "the provider reported an error"));
        assert_eq!(err.path, None);
        let detail = err.provider.clone().unwrap();
        assert_eq!((detail.kind, detail.code, detail.retryable), (None, None, false));
    }
}

#[test]
fn a_null_error_field_is_not_an_error() {
    let body = json!({"error": null, "status": "completed", "output": [], "output_text": "ok"});
    assert_eq!(run(&agent("openai", "responses"), &body), json!("ok"));
}

#[test]
fn one_embedding_is_one_vector_and_several_are_a_list_in_index_order() {
    let one = json!({"data": [{"index": 0, "embedding": [0.5, 1]}]});
    assert_eq!(run(&agent("openai", "embedding"), &one), json!([0.5, 1.0]));
    let two = json!({"data": [{"index": 1, "embedding": [2]}, {"index": 0, "embedding": [1]}]});
    assert_eq!(run(&agent("openai", "embedding"), &two), json!([[1.0], [2.0]]));
}

#[test]
fn base64_embeddings_decode_as_little_endian_float32() {
    let body = json!({"data": [{"index": 0, "embedding": "AACAPwAAIMA="}]});
    assert_eq!(run(&agent("openai", "embedding"), &body), json!([1.0, -2.5]));
    let bad = json!({"data": [{"index": 0, "embedding": "AAC*"}]});
    assert_eq!(process(&agent("openai", "embedding"), &ours(&bad)).unwrap_err().code, ErrorCode::InvalidJson);
}

#[test]
fn an_empty_embedding_or_image_list_is_an_empty_response() {
    for (api, body) in [("embedding", json!({"data": []})), ("image", json!({"data": []})), ("image", json!({}))] {
        assert_eq!(
            process(&agent("openai", api), &ours(&body)).unwrap_err().code,
            ErrorCode::EmptyResponse,
            "{api} {body}"
        );
    }
}

#[test]
fn an_image_url_wins_over_b64_json_and_one_image_is_a_string() {
    let body = json!({"data": [{"url": "https://x/1.png", "b64_json": "AAAA", "revised_prompt": "p"}]});
    assert_eq!(run(&agent("openai", "image"), &body), json!("https://x/1.png"));
    let body = json!({"data": [{"url": null, "b64_json": "AAAA"}, {"url": "https://x/2.png"}]});
    assert_eq!(run(&agent("openai", "image"), &body), json!(["AAAA", "https://x/2.png"]));
}

#[test]
fn a_chat_body_without_choices_is_an_empty_response() {
    assert_eq!(process(&agent("openai", "chat"), r#"{"choices": []}"#).unwrap_err().code, ErrorCode::EmptyResponse);
}

#[test]
fn a_body_that_is_not_json_is_invalid_json() {
    for body in ["", "not json", "{\"choices\": [", "[1,2]", "null"] {
        let err = process(&agent("openai", "chat"), body).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidJson, "{body:?}");
        assert_eq!(err.path.as_deref(), Some("response"));
    }
}

#[test]
fn an_unknown_api_type_is_invalid_input_at_its_path() {
    let err = process(&agent("openai", "audio"), "{}").unwrap_err();
    assert_eq!((err.code, err.path.as_deref()), (ErrorCode::InvalidInput, Some("agent.model.apiType")));
}

#[test]
fn to_message_detects_the_api_from_the_body_without_an_agent() {
    let anthropic = json!({"type": "message", "content": [{"type": "text", "text": "a"}], "stop_reason": "end_turn"});
    let responses = json!({"object": "response", "status": "completed", "output": [{"type": "message", "content": [{"type": "output_text", "text": "b"}]}]});
    assert_eq!(to_message(&ours(&anthropic), None).unwrap().text, "a");
    assert_eq!(to_message(&ours(&responses), None).unwrap().text, "b");
    assert_eq!(to_message(&ours(&chat(json!({"content": "c"}))), None).unwrap().text, "c");
}

#[test]
fn to_message_has_usage_finish_reason_id_model_and_is_complete() {
    let message = to_message(
        &ours(&chat(json!({"content": "hi", "reasoning_content": "think"}))),
        Some(&agent("deepseek", "chat")),
    )
    .unwrap();
    let json = serde_json::to_value(&message).unwrap();
    assert_eq!(
        json["usage"],
        json!({"inputTokens": 3, "outputTokens": 4, "totalTokens": 7, "raw": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}})
    );
    assert_eq!((json["finishReason"].clone(), json["rawFinishReason"].clone()), (json!("stop"), json!("stop")));
    assert_eq!(
        (json["id"].clone(), json["model"].clone(), json["provider"].clone()),
        (json!("c1"), json!("gpt"), json!("deepseek"))
    );
    assert_eq!(json["content"], json!([{"type": "reasoning", "text": "think"}, {"type": "text", "text": "hi"}]));
    assert_eq!(json["complete"], json!(true));
}

#[test]
fn several_choices_give_one_message_per_choice() {
    let body = json!({"choices": [{"index": 0, "message": {"content": "a"}, "finish_reason": "stop"},
                                  {"index": 1, "message": {"content": "b"}, "finish_reason": "length"}]});
    let message = to_message(&ours(&body), None).unwrap();
    let choices = message.choices.unwrap();
    assert_eq!((choices[0].text.as_str(), choices[1].text.as_str()), ("a", "b"));
    assert_eq!(choices[1].finish_reason, FinishReason::Length);
    assert_eq!(run(&agent("openai", "chat"), &body), json!("a"), "§8.1 reads choices[0]");
}

#[test]
fn to_message_of_a_body_equals_the_accumulated_stream_of_the_same_answer() {
    let body = r#"{"id":"x","model":"m","choices":[{"index":0,"message":{"content":"<think>plan</think>Hi","tool_calls":[{"id":"t","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}"#;
    let stream = concat!(
        "data: {\"id\":\"x\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"<thi\"}}]}\n\n",
        "data: {\"id\":\"x\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"nk>plan</think>H\"}}]}\n\n",
        "data: {\"id\":\"x\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"i\"}}]}\n\n",
        "data: {\"id\":\"x\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"t\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\"\"}}]}}]}\n\n",
        "data: {\"id\":\"x\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\":1}\"}}]}}]}\n\n",
        "data: {\"id\":\"x\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
        "data: {\"id\":\"x\",\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":2,\"total_tokens\":3}}\n\n",
        "data: [DONE]\n\n",
    );
    let mut acc = Accumulator::new(AccumulatorOptions::default());
    acc.push(stream.as_bytes()).unwrap();
    assert_eq!(to_message(body, None).unwrap(), acc.finish());
}

#[test]
fn the_process_span_carries_the_gen_ai_response_attributes() {
    let mut spans: Vec<Span> = Vec::new();
    let mut on_span = |span: Span| spans.push(span);
    let body = chat(json!({"content": "hi"}));
    process_with(&agent("openai", "chat"), &ours(&body), ProcessOptions { on_span: Some(&mut on_span) }).unwrap();
    assert_eq!(spans.len(), 1);
    assert_eq!(spans[0].name, "process");
    assert_eq!(
        llm_wire::Value::Object(spans[0].attributes.clone()),
        json!({"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "m",
               "gen_ai.response.id": "c1", "gen_ai.response.model": "gpt", "gen_ai.response.finish_reasons": ["stop"],
               "gen_ai.usage.input_tokens": 3, "gen_ai.usage.output_tokens": 4})
    );
}

#[test]
fn the_process_span_of_an_embedding_reads_model_and_usage_from_the_body() {
    let mut spans: Vec<Span> = Vec::new();
    let mut on_span = |span: Span| spans.push(span);
    let body = json!({"model": "emb", "data": [{"embedding": [1]}], "usage": {"prompt_tokens": 5, "total_tokens": 5}});
    process_with(&agent("openai", "embedding"), &ours(&body), ProcessOptions { on_span: Some(&mut on_span) }).unwrap();
    assert_eq!(spans[0].attributes["gen_ai.operation.name"], "embeddings");
    assert_eq!(spans[0].attributes["gen_ai.usage.input_tokens"], 5);
    assert_eq!(spans[0].attributes["gen_ai.response.model"], "emb");
}

#[test]
fn a_streamed_message_has_the_same_span_as_its_body() {
    let body = chat(json!({"content": "hi"}));
    let message = to_message(&ours(&body), None).unwrap();
    let agent = agent("openai", "chat");
    let mut spans: Vec<Span> = Vec::new();
    let mut on_span = |span: Span| spans.push(span);
    process_with(&agent, &ours(&body), ProcessOptions { on_span: Some(&mut on_span) }).unwrap();
    assert_eq!(message_span(Some(&agent), &message), spans[0]);
}

#[test]
fn hostile_bodies_are_errors_or_results_never_panics() {
    let deep = format!("{}{}", "{\"choices\":[".repeat(20_000), "]}".repeat(20_000));
    let huge_numbers = r#"{"data":[{"embedding":[1e400]}]}"#;
    let odd_types = r#"{"choices":[{"index":"zero","message":{"content":5,"tool_calls":"no","refusal":[1]},"finish_reason":7}],"usage":"many"}"#;
    let lone_surrogate = r#"{"choices":[{"message":{"content":"\ud800"}}]}"#;
    for api in ["chat", "responses", "embedding", "image"] {
        for provider in ["openai", "anthropic"] {
            for body in [
                deep.as_str(),
                huge_numbers,
                odd_types,
                lone_surrogate,
                "{}",
                "{\"content\":{},\"output\":7,\"data\":{}}",
            ] {
                let _ = process(&agent(provider, api), body);
                let _ = to_message(body, None);
            }
        }
    }
}

#[test]
fn a_failed_process_still_emits_its_span_with_the_error_type() {
    let mut spans: Vec<Span> = Vec::new();
    let mut on_span = |span: Span| spans.push(span);
    let body = json!({"error": {"message": "nope", "type": "invalid_request_error"}});
    let options = ProcessOptions { on_span: Some(&mut on_span) };
    assert!(process_with(&agent("openai", "chat"), &ours(&body), options).is_err());
    assert_eq!(spans.len(), 1);
    assert_eq!(spans[0].attributes["error.type"], "provider_error");
}

#[test]
fn an_anthropic_error_type_without_details_is_still_a_provider_error() {
    let err = process(&agent("anthropic", "chat"), r#"{"type": "error"}"#).unwrap_err();
    assert_eq!(err.code, ErrorCode::ProviderError);
}

#[test]
fn a_string_value_is_read_as_the_body_text() {
    let body = Value::String(chat(json!({"content": "hi"})).to_string());
    assert_eq!(process(&agent("openai", "chat"), &ours(&body)).unwrap(), ProcessResult::Text("hi".into()));
}

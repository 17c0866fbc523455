//! Anthropic Messages (§7.5, §7.6).

use serde_json::{json, Value};

use super::{agent, assert_invalid_at, body, error, user};

fn anthropic(extra: Value) -> Value {
    agent("anthropic", "chat", extra)
}

#[test]
fn the_provider_anthropic_selects_the_messages_api_whatever_the_api_type() {
    let b = body(&agent("anthropic", "responses", json!({})), user(json!("hi")));
    assert_eq!(
        b,
        json!({"model": "m", "max_tokens": 4096, "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]})
    );
}

#[test]
fn a_string_content_is_still_an_array_of_blocks() {
    let b = body(&anthropic(json!({})), user(json!("hi")));
    assert_eq!(b["messages"][0]["content"], json!([{"type": "text", "text": "hi"}]));
}

#[test]
fn system_and_developer_text_go_to_the_top_level_system_field_joined() {
    let messages = json!([
        {"role": "system", "content": "Be brief."}, {"role": "developer", "content": "Answer in French."},
        {"role": "user", "content": "hi"},
    ]);
    let b = body(&anthropic(json!({})), messages);
    assert_eq!(b["system"], "Be brief.\n\nAnswer in French.");
    assert_eq!(b["messages"].as_array().unwrap().len(), 1);
}

#[test]
fn max_output_tokens_becomes_max_tokens() {
    let b = body(
        &anthropic(json!({"model": {"id": "m", "provider": "anthropic", "options": {"maxOutputTokens": 300}}})),
        user(json!("hi")),
    );
    assert_eq!(b["max_tokens"], 300);
}

#[test]
fn a_base64_image_becomes_a_base64_source_with_its_media_type() {
    let b = body(&anthropic(json!({})), user(json!([{"kind": "image", "value": "QUJD", "mediaType": "image/jpeg"}])));
    assert_eq!(
        b["messages"][0]["content"][0],
        json!({"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "QUJD"}})
    );
}

#[test]
fn a_data_url_image_is_split_into_media_type_and_data() {
    let b = body(&anthropic(json!({})), user(json!([{"kind": "image", "value": "data:image/webp;base64,UklGRg=="}])));
    assert_eq!(
        b["messages"][0]["content"][0]["source"],
        json!({"type": "base64", "media_type": "image/webp", "data": "UklGRg=="})
    );
}

#[test]
fn an_http_image_becomes_a_url_source() {
    let b = body(&anthropic(json!({})), user(json!([{"kind": "image", "value": "https://x/y.png"}])));
    assert_eq!(
        b["messages"][0]["content"][0],
        json!({"type": "image", "source": {"type": "url", "url": "https://x/y.png"}})
    );
}

#[test]
fn a_base64_image_without_media_type_is_recognised_from_its_magic_bytes() {
    let b = body(&anthropic(json!({})), user(json!([{"kind": "image", "value": "iVBORw0KGgoAAAA"}])));
    assert_eq!(b["messages"][0]["content"][0]["source"]["media_type"], "image/png");
}

#[test]
fn an_unrecognisable_base64_image_without_media_type_is_invalid_input() {
    let e = error(&anthropic(json!({})), user(json!([{"kind": "image", "value": "QUJD"}])));
    assert_invalid_at(&e, "messages[0].content[0].mediaType");
}

#[test]
fn a_file_part_becomes_a_document_block() {
    let b =
        body(&anthropic(json!({})), user(json!([{"kind": "file", "value": "data:application/pdf;base64,JVBERi0"}])));
    assert_eq!(
        b["messages"][0]["content"][0],
        json!({"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0"}})
    );
}

#[test]
fn an_audio_part_is_invalid_input_because_anthropic_takes_no_audio() {
    let e = error(
        &anthropic(json!({})),
        user(json!([{"kind": "text", "value": "x"}, {"kind": "audio", "value": "QUJD", "mediaType": "audio/wav"}])),
    );
    assert_invalid_at(&e, "messages[0].content[1].kind");
}

#[test]
fn tools_become_name_description_and_input_schema() {
    let tools = json!({"tools": [{"kind": "function", "name": "f", "description": "d", "parameters": [{"name": "a", "kind": "string", "required": true}]}]});
    let b = body(&anthropic(tools), user(json!("hi")));
    assert_eq!(
        b["tools"],
        json!([{"name": "f", "description": "d", "input_schema": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}}])
    );
}

#[test]
fn tools_of_every_kind_are_offered_not_only_functions() {
    let tools = json!({"tools": [
        {"kind": "mcp", "name": "fs", "tools": [{"name": "read", "inputSchema": {"type": "object"}}]},
        {"kind": "prompty", "name": "child", "child": {"inputs": []}},
    ]});
    let b = body(&anthropic(tools), user(json!("hi")));
    let names: Vec<&str> = b["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["read", "child"]);
}

#[test]
fn tools_are_absent_when_there_are_none() {
    assert!(body(&anthropic(json!({"tools": []})), user(json!("hi"))).get("tools").is_none());
}

#[test]
fn disallowing_multiple_tool_calls_disables_parallel_tool_use() {
    let agent = json!({"model": {"id": "m", "provider": "anthropic", "options": {"allowMultipleToolCalls": false}},
        "tools": [{"kind": "function", "name": "f"}]});
    assert_eq!(
        body(&agent, user(json!("hi")))["tool_choice"],
        json!({"type": "auto", "disable_parallel_tool_use": true})
    );
}

fn roles_and_contents(b: &Value) -> Vec<(String, Value)> {
    b["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["role"].as_str().unwrap().to_owned(), m["content"].clone()))
        .collect()
}

#[test]
fn an_empty_assistant_turn_is_left_out_and_the_user_turns_around_it_are_joined() {
    let messages = json!([
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": "", "metadata": {"tool_calls": [{"id": "t1", "name": "f", "arguments": "{}"}]}},
        {"role": "tool", "content": "sunny", "metadata": {"tool_call_id": "t1"}},
        {"role": "assistant", "content": []},
        {"role": "user", "content": "thanks"},
    ]);
    let b = body(&anthropic(json!({})), messages);
    let turns = roles_and_contents(&b);
    assert_eq!(turns.len(), 3, "{b}");
    assert_eq!(turns[2].0, "user");
    assert_eq!(
        turns[2].1,
        json!([{"type": "tool_result", "tool_use_id": "t1", "content": "sunny"}, {"type": "text", "text": "thanks"}])
    );
}

#[test]
fn a_turn_holding_only_another_providers_reasoning_is_left_out() {
    let messages = json!([
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "", "metadata": {"blocks": [{"type": "reasoning", "text": "deepseek thought"}]}},
        {"role": "user", "content": "b"},
    ]);
    let b = body(&anthropic(json!({})), messages);
    assert_eq!(
        b["messages"],
        json!([{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}])
    );
}

#[test]
fn whitespace_only_text_blocks_are_left_out() {
    let messages = json!([
        {"role": "user", "content": [{"kind": "text", "value": "hi"}, {"kind": "text", "value": " \n"}]},
        {"role": "assistant", "content": "", "metadata": {"blocks": [
            {"type": "text", "text": "\n\n"}, {"type": "tool_call", "id": "t1", "name": "f", "arguments": "{}"},
        ]}},
    ]);
    let b = body(&anthropic(json!({})), messages);
    assert_eq!(b["messages"][0]["content"], json!([{"type": "text", "text": "hi"}]));
    assert_eq!(b["messages"][1]["content"], json!([{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]));
}

#[test]
fn a_final_empty_assistant_turn_is_kept_as_a_prefill() {
    let messages = json!([{"role": "user", "content": "hi"}, {"role": "assistant", "content": ""}]);
    let b = body(&anthropic(json!({})), messages);
    assert_eq!(b["messages"][1], json!({"role": "assistant", "content": []}));
}

fn one_call_at_most_with(tool_choice: Value) -> Value {
    json!({"model": {"id": "m", "provider": "anthropic", "options": {"allowMultipleToolCalls": false,
        "additionalProperties": {"tool_choice": tool_choice}}}, "tools": [{"kind": "function", "name": "f"}]})
}

#[test]
fn a_forced_tool_choice_is_kept_when_multiple_tool_calls_are_disallowed() {
    for choice in [json!({"type": "tool", "name": "f"}), json!({"type": "any"})] {
        let b = body(&one_call_at_most_with(choice.clone()), user(json!("hi")));
        let mut expected = choice;
        expected["disable_parallel_tool_use"] = json!(true);
        assert_eq!(b["tool_choice"], expected);
    }
}

#[test]
fn a_none_tool_choice_is_sent_as_given_when_multiple_tool_calls_are_disallowed() {
    let b = body(&one_call_at_most_with(json!({"type": "none"})), user(json!("hi")));
    assert_eq!(b["tool_choice"], json!({"type": "none"}));
}

fn with_thinking_and(options: Value) -> Value {
    let mut agent = anthropic(json!({}));
    agent["model"]["options"] = options;
    agent["model"]["options"]["additionalProperties"] = json!({"thinking": {"type": "enabled", "budget_tokens": 8000}});
    agent
}

#[test]
fn the_default_max_tokens_leaves_room_above_a_thinking_budget() {
    let b = body(&with_thinking_and(json!({})), user(json!("hi")));
    assert_eq!(b["max_tokens"], 8000 + 4096);
}

#[test]
fn a_given_max_output_tokens_is_sent_as_given_even_at_or_below_the_thinking_budget() {
    let b = body(&with_thinking_and(json!({"maxOutputTokens": 2000})), user(json!("hi")));
    assert_eq!(b["max_tokens"], 2000);
}

#[test]
fn a_user_message_between_a_tool_call_and_its_result_goes_after_the_result() {
    let messages = json!([
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": "", "metadata": {"tool_calls": [
            {"id": "t1", "name": "f", "arguments": "{}"}, {"id": "t2", "name": "f", "arguments": "{}"},
        ]}},
        {"role": "tool", "content": "sunny", "metadata": {"tool_call_id": "t1"}},
        {"role": "user", "content": "also this"},
        {"role": "tool", "content": "rainy", "metadata": {"tool_call_id": "t2"}},
    ]);
    let b = body(&anthropic(json!({})), messages);
    assert_eq!(b["messages"].as_array().unwrap().len(), 3, "{b}");
    assert_eq!(
        b["messages"][2],
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "sunny"},
            {"type": "tool_result", "tool_use_id": "t2", "content": "rainy"},
            {"type": "text", "text": "also this"},
        ]})
    );
}

#[test]
fn a_user_message_before_every_tool_result_still_comes_after_them() {
    let messages = json!([
        {"role": "assistant", "content": "", "metadata": {"tool_calls": [{"id": "t1", "name": "f", "arguments": "{}"}]}},
        {"role": "user", "content": "also this"},
        {"role": "tool", "content": "sunny", "metadata": {"tool_call_id": "t1"}},
    ]);
    let b = body(&anthropic(json!({})), messages);
    assert_eq!(
        b["messages"][1]["content"],
        json!([{"type": "tool_result", "tool_use_id": "t1", "content": "sunny"}, {"type": "text", "text": "also this"}])
    );
}

#[test]
fn a_plain_text_document_is_sent_as_a_text_source_with_its_decoded_text() {
    let cases = [
        (json!({"kind": "file", "value": "data:text/plain;base64,aMOpbGxv"}), "héllo"),
        (json!({"kind": "file", "value": "data:text/plain;charset=utf-8,h%C3%A9llo"}), "héllo"),
        (json!({"kind": "file", "value": "aMOpbGxv", "mediaType": "text/plain"}), "héllo"),
        // A `%` without two hex digits after it stands for itself.
        (json!({"kind": "file", "value": "data:text/plain,100%+%2"}), "100%+%2"),
    ];
    for (part, text) in cases {
        let b = body(&anthropic(json!({})), user(json!([part])));
        assert_eq!(
            b["messages"][0]["content"][0],
            json!({"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": text}}),
            "{part}"
        );
    }
}

#[test]
fn a_plain_text_document_that_is_not_utf8_or_not_base64_is_invalid_input() {
    for value in ["data:text/plain;base64,/w==", "data:text/plain,%FF", "data:text/plain;base64,a*b"] {
        let e = error(&anthropic(json!({})), user(json!([{"kind": "file", "value": value}])));
        assert_invalid_at(&e, "messages[0].content[0].value");
    }
}

#[test]
fn tool_call_ids_anthropic_refuses_are_mapped_alike_on_the_call_and_its_result() {
    let call = |id: &str| json!({"id": id, "name": "f", "arguments": "{}"});
    let result = |id: &str| json!({"role": "tool", "content": "ok", "metadata": {"tool_call_id": id}});
    let ids = ["functions.get_weather:0", "functions:get_weather.0", "call_ok-1"];
    let messages = json!([
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "", "metadata": {"tool_calls": ids.map(call)}},
        result(ids[0]), result(ids[1]), result(ids[2]),
    ]);
    let b = body(&anthropic(json!({})), messages);
    let sent: Vec<&str> =
        b["messages"][1]["content"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
    let answered: Vec<&str> =
        b["messages"][2]["content"].as_array().unwrap().iter().map(|r| r["tool_use_id"].as_str().unwrap()).collect();
    assert_eq!(sent, answered);
    assert_eq!(sent[2], "call_ok-1", "a valid id is sent as it is");
    assert_ne!(sent[0], sent[1], "two ids that differ only in refused characters stay apart");
    for id in &sent[..2] {
        assert!(id.starts_with("functions_get_weather_0_"), "{id}");
        assert!(id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'), "{id}");
    }
}

//! The OpenAI Responses API (§7.4; docs/design.md, "Dispatch").

use serde_json::{json, Value};

use super::{agent, assert_invalid_at, body, error, user};

fn responses(extra: Value) -> Value {
    agent("openai", "responses", extra)
}

#[test]
fn system_and_developer_text_become_instructions() {
    let messages = json!([{"role": "developer", "content": "Be brief."}, {"role": "user", "content": "hi"}]);
    let b = body(&responses(json!({})), messages);
    assert_eq!(b, json!({"model": "m", "instructions": "Be brief.", "input": [{"role": "user", "content": "hi"}]}));
}

#[test]
fn multi_part_content_uses_responses_input_parts() {
    let b = body(
        &responses(json!({})),
        user(json!([
            {"kind": "text", "value": "look"},
            {"kind": "image", "value": "https://x/y.png", "detail": "low"},
            {"kind": "file", "value": "https://x/a.pdf"},
            {"kind": "audio", "value": "QUJD", "mediaType": "audio/mpeg"},
        ])),
    );
    assert_eq!(
        b["input"][0]["content"],
        json!([
            {"type": "input_text", "text": "look"},
            {"type": "input_image", "image_url": "https://x/y.png", "detail": "low"},
            {"type": "input_file", "file_url": "https://x/a.pdf"},
            {"type": "input_audio", "input_audio": {"data": "QUJD", "format": "mp3"}},
        ])
    );
}

#[test]
fn assistant_text_parts_are_output_text() {
    let messages =
        json!([{"role": "assistant", "content": [{"kind": "text", "value": "a"}, {"kind": "text", "value": "b"}]}]);
    let b = body(&responses(json!({})), messages);
    assert_eq!(b["input"][0]["content"][0], json!({"type": "output_text", "text": "a"}));
}

#[test]
fn tools_are_flat_function_definitions() {
    let tools = json!({"tools": [{"kind": "function", "name": "f", "description": "d", "parameters": [{"name": "a", "kind": "string"}]}]});
    let b = body(&responses(tools), user(json!("hi")));
    assert_eq!(
        b["tools"],
        json!([{"type": "function", "name": "f", "description": "d",
        "parameters": {"type": "object", "properties": {"a": {"type": "string"}}}}])
    );
}

#[test]
fn a_strict_tool_is_flagged_strict() {
    let b = body(&responses(json!({"tools": [{"kind": "function", "name": "f", "strict": true}]})), user(json!("hi")));
    assert_eq!(b["tools"][0]["strict"], true);
    assert_eq!(b["tools"][0]["parameters"]["additionalProperties"], false);
}

#[test]
fn max_output_tokens_becomes_max_output_tokens_and_unsupported_options_are_dropped() {
    let options = json!({"temperature": 0.2, "maxOutputTokens": 50, "topP": 0.5, "seed": 1, "stopSequences": ["x"],
        "frequencyPenalty": 0.1, "presencePenalty": 0.1, "topK": 3});
    let b =
        body(&responses(json!({"model": {"id": "m", "apiType": "responses", "options": options}})), user(json!("hi")));
    assert_eq!(
        b,
        json!({"model": "m", "input": [{"role": "user", "content": "hi"}], "temperature": 0.2, "max_output_tokens": 50, "top_p": 0.5})
    );
}

#[test]
fn the_responses_function_call_metadata_replays_the_call_then_its_output() {
    let call = json!({"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"});
    let messages = json!([
        {"role": "user", "content": "hi"},
        {"role": "tool", "content": [{"kind": "text", "value": "42"}], "metadata": {"responses_function_call": call, "tool_call_id": "c1"}},
    ]);
    let b = body(&responses(json!({})), messages);
    assert_eq!(
        b["input"],
        json!([
            {"role": "user", "content": "hi"},
            call,
            {"type": "function_call_output", "call_id": "c1", "output": "42"},
        ])
    );
}

#[test]
fn a_tool_message_without_its_call_id_is_invalid_input_at_the_metadata() {
    let e = error(&responses(json!({})), json!([{"role": "tool", "content": "42"}]));
    assert_invalid_at(&e, "messages[0].metadata.tool_call_id");
}

#[test]
fn a_single_text_part_is_a_plain_string_and_a_data_url_file_goes_in_file_data() {
    let b = body(&responses(json!({})), user(json!([{"kind": "text", "value": "hi"}])));
    assert_eq!(b["input"][0]["content"], "hi");
    let b = body(&responses(json!({})), user(json!([{"kind": "file", "value": "data:application/pdf;base64,JVBE"}])));
    assert_eq!(
        b["input"][0]["content"],
        json!([{"type": "input_file", "file_data": "data:application/pdf;base64,JVBE", "filename": "file.pdf"}])
    );
}

#[test]
fn bare_base64_media_goes_as_data_urls_and_a_file_id_as_file_id() {
    let parts = json!([
        {"kind": "image", "value": "iVBORw0KGgo"},
        {"kind": "file", "value": "JVBERi0", "mediaType": "application/pdf"},
        {"kind": "file", "value": "file-abc"},
    ]);
    let b = body(&responses(json!({})), user(parts));
    assert_eq!(
        b["input"][0]["content"],
        json!([
            {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo"},
            {"type": "input_file", "file_data": "data:application/pdf;base64,JVBERi0", "filename": "file.pdf"},
            {"type": "input_file", "file_id": "file-abc"},
        ])
    );
}

#[test]
fn tools_are_absent_when_there_are_none() {
    assert!(body(&responses(json!({"tools": []})), user(json!("hi"))).get("tools").is_none());
}

#[test]
fn a_text_object_in_additional_properties_is_merged_with_the_structured_output_format() {
    let options = json!({"additionalProperties": {"text": {"verbosity": "low", "format": {"type": "text"}}}});
    let outputs = json!([{"name": "a", "kind": "string", "required": true}]);
    let agent =
        responses(json!({"model": {"id": "m", "apiType": "responses", "options": options}, "outputs": outputs}));
    let b = body(&agent, user(json!("hi")));
    assert_eq!(b["text"]["verbosity"], "low");
    assert_eq!(b["text"]["format"]["type"], "json_schema", "the built format wins");
    let without_outputs = responses(json!({"model": {"id": "m", "apiType": "responses", "options": options}}));
    assert_eq!(body(&without_outputs, user(json!("hi")))["text"], options["additionalProperties"]["text"]);
}

/// An assistant turn calling `c1`, then its result with `content`.
fn tool_result(content: Value) -> Value {
    json!([
        {"role": "assistant", "content": "", "metadata": {"tool_calls": [{"id": "c1", "name": "shot", "arguments": "{}"}]}},
        {"role": "tool", "content": content, "metadata": {"tool_call_id": "c1"}},
    ])
}

#[test]
fn a_tool_result_with_images_or_files_sends_its_output_as_a_list_of_parts() {
    let content = json!([
        {"kind": "text", "value": "here"},
        {"kind": "image", "value": "https://x/y.png", "detail": "low"},
        {"kind": "file", "value": "data:application/pdf;base64,JVBERi0="},
    ]);
    let b = body(&responses(json!({})), tool_result(content));
    assert_eq!(
        b["input"][1],
        json!({"type": "function_call_output", "call_id": "c1", "output": [
            {"type": "input_text", "text": "here"},
            {"type": "input_image", "image_url": "https://x/y.png", "detail": "low"},
            {"type": "input_file", "file_data": "data:application/pdf;base64,JVBERi0=", "filename": "file.pdf"},
        ]})
    );
    let image_only = body(&responses(json!({})), tool_result(json!([{"kind": "image", "value": "https://x/y.png"}])));
    assert_eq!(image_only["input"][1]["output"], json!([{"type": "input_image", "image_url": "https://x/y.png"}]));
    let replayed = json!([{"role": "tool", "content": [{"kind": "image", "value": "https://x/y.png"}],
        "metadata": {"responses_function_call": {"type": "function_call", "call_id": "c9", "name": "f", "arguments": "{}"}}}]);
    let b = body(&responses(json!({})), replayed);
    assert_eq!(b["input"][1]["output"], json!([{"type": "input_image", "image_url": "https://x/y.png"}]));
}

#[test]
fn a_text_only_tool_result_sends_its_output_as_a_string() {
    let parts = json!([{"kind": "text", "value": "a"}, {"kind": "text", "value": "b"}]);
    assert_eq!(body(&responses(json!({})), tool_result(parts))["input"][1]["output"], "ab");
    assert_eq!(body(&responses(json!({})), tool_result(json!("sunny")))["input"][1]["output"], "sunny");
}

#[test]
fn audio_in_a_tool_result_is_invalid_input_at_its_kind() {
    let content = json!([{"kind": "text", "value": "x"}, {"kind": "audio", "value": "data:audio/wav;base64,UklGRg=="}]);
    assert_invalid_at(&error(&responses(json!({})), tool_result(content)), "messages[1].content[1].kind");
}

//! OpenAI Chat Completions (§7.1).

use serde_json::json;

use super::{assert_invalid_at, body, chat, error, user};

#[test]
fn a_single_text_part_is_sent_as_a_plain_string() {
    let b = body(&chat(json!({})), user(json!([{"kind": "text", "value": "hi"}])));
    assert_eq!(b["messages"][0]["content"], "hi");
}

#[test]
fn a_string_content_is_sent_as_a_plain_string() {
    let b = body(&chat(json!({})), user(json!("hi")));
    assert_eq!(b["messages"][0], json!({"role": "user", "content": "hi"}));
}

#[test]
fn two_text_parts_use_the_array_form() {
    let b = body(&chat(json!({})), user(json!([{"kind": "text", "value": "a"}, {"kind": "text", "value": "b"}])));
    assert_eq!(b["messages"][0]["content"], json!([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]));
}

#[test]
fn a_lone_image_part_uses_the_array_form() {
    let b = body(&chat(json!({})), user(json!([{"kind": "image", "value": "https://x/y.png"}])));
    assert_eq!(b["messages"][0]["content"], json!([{"type": "image_url", "image_url": {"url": "https://x/y.png"}}]));
}

#[test]
fn an_image_detail_is_sent_when_given() {
    let b = body(&chat(json!({})), user(json!([{"kind": "image", "value": "https://x/y.png", "detail": "high"}])));
    assert_eq!(b["messages"][0]["content"][0]["image_url"], json!({"url": "https://x/y.png", "detail": "high"}));
}

#[test]
fn an_empty_image_detail_is_never_sent() {
    let b = body(&chat(json!({})), user(json!([{"kind": "image", "value": "https://x/y.png", "detail": ""}])));
    assert_eq!(b["messages"][0]["content"][0]["image_url"], json!({"url": "https://x/y.png"}));
}

#[test]
fn audio_media_types_map_through_the_format_table() {
    let table = [
        ("audio/wav", "wav"),
        ("audio/x-wav", "wav"),
        ("audio/mp3", "mp3"),
        ("audio/mpeg", "mp3"),
        ("audio/flac", "flac"),
        ("audio/ogg", "ogg"),
        ("audio/webm", "webm"),
        ("audio/aac", "aac"),
        ("AUDIO/WAV", "wav"),
        ("audio/ogg; codecs=opus", "ogg"),
    ];
    for (media_type, format) in table {
        let b = body(&chat(json!({})), user(json!([{"kind": "audio", "value": "QUJD", "mediaType": media_type}])));
        let expected = json!([{"type": "input_audio", "input_audio": {"data": "QUJD", "format": format}}]);
        assert_eq!(b["messages"][0]["content"], expected, "{media_type}");
    }
}

#[test]
fn audio_given_as_a_data_url_is_split_into_format_and_bare_data() {
    let b = body(&chat(json!({})), user(json!([{"kind": "audio", "value": "data:audio/mpeg;base64,QUJD"}])));
    assert_eq!(b["messages"][0]["content"][0]["input_audio"], json!({"data": "QUJD", "format": "mp3"}));
}

#[test]
fn audio_without_a_media_type_is_invalid_input_at_its_media_type() {
    let e = error(&chat(json!({})), user(json!([{"kind": "audio", "value": "QUJD"}])));
    assert_invalid_at(&e, "messages[0].content[0].mediaType");
}

#[test]
fn an_image_url_of_any_scheme_is_sent_as_given() {
    for url in ["https://x/y.png", "data:image/png;base64,iVBORw0KGgo", "file:///srv/a.png"] {
        let b = body(&chat(json!({})), user(json!([{"kind": "image", "value": url}])));
        assert_eq!(b["messages"][0]["content"][0]["image_url"], json!({"url": url}), "{url}");
    }
}

#[test]
fn a_bare_base64_image_is_sent_as_a_data_url_of_its_media_type() {
    let image = json!([{"kind": "image", "value": "QUJD", "mediaType": "image/webp", "detail": "low"}]);
    let b = body(&chat(json!({})), user(image));
    assert_eq!(
        b["messages"][0]["content"][0]["image_url"],
        json!({"url": "data:image/webp;base64,QUJD", "detail": "low"})
    );
    // Without a mediaType, the type is recognised from the data's first bytes.
    let b = body(&chat(json!({})), user(json!([{"kind": "image", "value": "/9j/4AAQ"}])));
    assert_eq!(b["messages"][0]["content"][0]["image_url"], json!({"url": "data:image/jpeg;base64,/9j/4AAQ"}));
}

#[test]
fn a_bare_base64_image_of_no_known_type_is_invalid_input_at_its_media_type() {
    let e = error(&chat(json!({})), user(json!([{"kind": "text", "value": "a"}, {"kind": "image", "value": "QUJD"}])));
    assert_invalid_at(&e, "messages[0].content[1].mediaType");
}

#[test]
fn a_file_given_as_a_data_url_goes_in_file_data_with_a_filename() {
    let b = body(&chat(json!({})), user(json!([{"kind": "file", "value": "data:application/pdf;base64,JVBE"}])));
    assert_eq!(
        b["messages"][0]["content"],
        json!([{"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBE", "filename": "file.pdf"}}])
    );
}

#[test]
fn a_bare_base64_file_goes_in_file_data_as_a_data_url() {
    let b = body(&chat(json!({})), user(json!([{"kind": "file", "value": "aGk=", "mediaType": "text/plain"}])));
    assert_eq!(
        b["messages"][0]["content"][0]["file"],
        json!({"file_data": "data:text/plain;base64,aGk=", "filename": "file.txt"})
    );
    // A PDF is recognised from its first bytes.
    let b = body(&chat(json!({})), user(json!([{"kind": "file", "value": "JVBERi0xLjQ="}])));
    assert_eq!(
        b["messages"][0]["content"][0]["file"],
        json!({"file_data": "data:application/pdf;base64,JVBERi0xLjQ=", "filename": "file.pdf"})
    );
    let e = error(&chat(json!({})), user(json!([{"kind": "file", "value": "aGk="}])));
    assert_invalid_at(&e, "messages[0].content[0].mediaType");
}

#[test]
fn a_file_given_by_its_openai_id_is_sent_as_file_id() {
    let b = body(&chat(json!({})), user(json!([{"kind": "file", "value": "file-6F2ksmvXxt4VdoqmHRw6kL"}])));
    assert_eq!(
        b["messages"][0]["content"],
        json!([{"type": "file", "file": {"file_id": "file-6F2ksmvXxt4VdoqmHRw6kL"}}])
    );
}

#[test]
fn a_file_url_is_invalid_input_at_its_value_as_chat_has_no_file_url() {
    for url in ["https://x/a.pdf", "http://x/a.pdf", "gs://b/a.pdf"] {
        let e = error(&chat(json!({})), user(json!([{"kind": "file", "value": url}])));
        assert_invalid_at(&e, "messages[0].content[0].value");
        assert!(e.message.contains("file URL"), "{e}");
    }
}

#[test]
fn message_metadata_passes_through_onto_the_wire_message() {
    let messages = json!([{"role": "tool", "content": "42", "metadata": {"tool_call_id": "c1", "name": "calc"}}]);
    let b = body(&chat(json!({})), messages);
    assert_eq!(b["messages"][0], json!({"role": "tool", "content": "42", "tool_call_id": "c1", "name": "calc"}));
}

#[test]
fn metadata_never_replaces_the_role_or_the_content() {
    let messages = json!([{"role": "user", "content": "hi", "metadata": {"role": "system", "content": "x"}}]);
    assert_eq!(body(&chat(json!({})), messages)["messages"][0], json!({"role": "user", "content": "hi"}));
}

#[test]
fn tools_are_absent_when_there_are_none() {
    let b = body(&chat(json!({"tools": []})), user(json!("hi")));
    assert!(b.get("tools").is_none(), "{b}");
}

#[test]
fn a_function_tool_without_description_omits_the_key() {
    let tools = json!({"tools": [{"kind": "function", "name": "f"}]});
    let b = body(&chat(tools), user(json!("hi")));
    assert_eq!(
        b["tools"],
        json!([{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {}}}}])
    );
}

#[test]
fn structured_output_becomes_a_strict_json_schema_response_format() {
    let outputs =
        json!({"outputs": [{"name": "a", "kind": "string", "required": true}, {"name": "b", "kind": "float"}]});
    let b = body(&chat(outputs), user(json!("hi")));
    let expected = json!({"type": "json_schema", "json_schema": {"name": "structured_output", "strict": true, "schema": {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": ["number", "null"]}},
        "required": ["a", "b"],
        "additionalProperties": false,
    }}});
    assert_eq!(b["response_format"], expected);
}

#[test]
fn other_providers_are_openai_compatible_chat() {
    for provider in ["azure", "ollama", "groq", "deepseek", "openrouter", "vllm"] {
        let b = body(&super::agent(provider, "chat", json!({})), user(json!("hi")));
        assert_eq!(b, json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]}), "{provider}");
    }
}

#[test]
fn an_absent_api_type_means_chat() {
    let agent = json!({"model": {"id": "m"}});
    assert_eq!(body(&agent, user(json!("hi"))), json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]}));
}

#[test]
fn the_model_shorthand_string_is_the_model_id() {
    let agent = json!({"model": "gpt-4o"});
    assert_eq!(body(&agent, user(json!("hi")))["model"], "gpt-4o");
}

#[test]
fn compatible_servers_get_the_token_cap_and_seed_under_their_own_names() {
    let options = json!({"options": {"maxOutputTokens": 100, "seed": 7, "temperature": 0.5}});
    // (provider, the cap's name, the seed's name)
    let cases = [
        ("openai", "max_completion_tokens", "seed"),
        ("azure", "max_completion_tokens", "seed"),
        ("groq", "max_completion_tokens", "seed"),
        ("vllm", "max_completion_tokens", "seed"),
        ("deepseek", "max_tokens", "seed"),
        ("ollama", "max_tokens", "seed"),
        ("mistral", "max_tokens", "random_seed"),
    ];
    for (provider, cap, seed) in cases {
        let mut agent = super::agent(provider, "chat", json!({}));
        agent["model"]["options"] = options["options"].clone();
        let b = body(&agent, user(json!("hi")));
        let mut expected = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": 0.5});
        expected[cap] = json!(100);
        expected[seed] = json!(7);
        assert_eq!(b, expected, "{provider}");
    }
    // The mapped option wins over the same name given in `additionalProperties`.
    let mut agent = super::agent("mistral", "chat", json!({}));
    agent["model"]["options"] = json!({"maxOutputTokens": 100, "additionalProperties": {"max_tokens": 5}});
    assert_eq!(body(&agent, user(json!("hi")))["max_tokens"], 100);
}

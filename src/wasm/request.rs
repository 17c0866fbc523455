//! wasm exports of buildChatArgs, buildRequest, asMessage, genAiAttributes and registerTool.
//!
//! Conversions only: JS values come in as the crate's `Value` (through `JSON.stringify`) and
//! go to the path-precise readers of the core; results go out as JSON text parsed by
//! `JSON.parse`, so JS receives plain data (no `Map`, no `undefined` in arrays).

use wasm_bindgen::prelude::*;

use super::convert::{read_agent, string_argument, to_json};
use crate::json::Value;
use crate::model::{Agent, Message};
use crate::request::wire::{json, Object};
use crate::request::{build_request, write_chat_args, write_gen_ai_attributes, RequestOptions};
use crate::tools::register_tool;

#[wasm_bindgen(typescript_custom_section)]
const REQUEST_TYPES: &'static str = r#"
/** How `buildRequest` sends a request. `baseUrl` defaults per provider (openai, anthropic, groq, google, ...); `region` places a Bedrock or Vertex AI request, `project` a Vertex AI one. */
export interface RequestOptions { baseUrl?: string; apiKey?: string; stream?: boolean; headers?: { [name: string]: string }; region?: string; project?: string }
/** A ready-to-send request: `fetch(r.url, r)` sends it (`body` is JSON text). */
export interface HttpRequest { url: string; method: "POST"; headers: { [name: string]: string }; body: string }
/** A custom tool kind's signature: a JSON Schema object or a Property list. */
export interface ToolDefinition { description?: string; parameters?: Property[] | { [key: string]: unknown } }
/** OpenTelemetry `gen_ai.*` attributes, ready for `span.setAttributes`. */
export interface GenAiAttributes { [name: string]: string | number | boolean | string[] | number[] | boolean[] }
"#;

fn read_inputs(agent: JsValue, messages: JsValue) -> Result<(Agent, Vec<Message>), JsValue> {
    let agent = read_agent(agent)?;
    let messages = Message::list_from_json(&to_json(messages, "messages")?)?;
    Ok((agent, messages))
}

/// The request body for `agent` and `messages` (§7), ready for `JSON.stringify`.
#[wasm_bindgen(js_name = buildChatArgs, unchecked_return_type = "Record<string, unknown>")]
pub fn build_chat_args_js(
    #[wasm_bindgen(unchecked_param_type = "Agent")] agent: JsValue,
    #[wasm_bindgen(unchecked_param_type = "(Message | FinalMessage)[]")] messages: JsValue,
) -> Result<JsValue, JsValue> {
    let (agent, messages) = read_inputs(agent, messages)?;
    super::js::parse(&write_chat_args(&agent, &messages)?.finish())
}

/// A finished turn as the assistant `Message` of the next request: its text, its tool calls in
/// `metadata.tool_calls` and its blocks in `metadata.blocks` (what `buildChatArgs` also makes of
/// a `FinalMessage` in its messages).
#[wasm_bindgen(js_name = asMessage, unchecked_return_type = "Message")]
pub fn as_message_js(
    #[wasm_bindgen(unchecked_param_type = "FinalMessage")] message: JsValue,
) -> Result<JsValue, JsValue> {
    let message = Message::from_final_json(&to_json(message, "final")?, "final")?;
    let metadata = json(&Value::Object(message.metadata));
    let written = Object::new().str("content", &message.content.text()).json("metadata", &metadata);
    super::js::parse(&written.str("role", &message.role).finish())
}

/// `{url, method, headers, body}` for `agent` and `messages`.
#[wasm_bindgen(js_name = buildRequest, unchecked_return_type = "HttpRequest")]
pub fn build_request_js(
    #[wasm_bindgen(unchecked_param_type = "Agent")] agent: JsValue,
    #[wasm_bindgen(unchecked_param_type = "(Message | FinalMessage)[]")] messages: JsValue,
    #[wasm_bindgen(unchecked_param_type = "RequestOptions | undefined")] options: JsValue,
) -> Result<JsValue, JsValue> {
    let (agent, messages) = read_inputs(agent, messages)?;
    let options = RequestOptions::from_json(&to_json(options, "options")?)?;
    super::js::parse(&build_request(&agent, &messages, &options)?.to_json_text())
}

/// The §7.1.8 `gen_ai.*` attributes of a request body (or a `buildRequest` result) and,
/// optionally, its response (a provider body or a final message).
#[wasm_bindgen(js_name = genAiAttributes, unchecked_return_type = "GenAiAttributes")]
pub fn gen_ai_attributes_js(
    #[wasm_bindgen(unchecked_param_type = "Agent")] agent: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Record<string, unknown> | HttpRequest")] request: JsValue,
    #[wasm_bindgen(unchecked_param_type = "FinalMessage | Record<string, unknown> | undefined")] response: JsValue,
) -> Result<JsValue, JsValue> {
    let agent = read_agent(agent)?;
    let request = to_json(request, "request")?;
    let response = to_json(response, "response")?;
    super::js::parse(&write_gen_ai_attributes(&agent, &request, Some(&response).filter(|r| !r.is_null())))
}

/// Registers the signature of a custom tool kind (§7.1.3 tool registry).
#[wasm_bindgen(js_name = registerTool)]
pub fn register_tool_js(
    #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ToolDefinition")] def: JsValue,
) -> Result<(), JsValue> {
    let name = string_argument(name, "name")?;
    Ok(register_tool(&name, &to_json(def, "def")?)?)
}

#[cfg(test)]
mod tests {
    //! The exports as JS sees them: plain data out, `Error`s with `code` and `path`.
    use super::super::test_support::{field, js, text};
    use super::*;
    use serde_json::Value;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn build_chat_args_returns_the_body_as_plain_data() {
        let body = build_chat_args_js(
            js(r#"{"model": {"id": "gpt-4", "options": {"maxOutputTokens": 5}}}"#),
            js(r#"[{"role": "user", "content": "hi"}]"#),
        )
        .unwrap();
        let expected = r#"{"max_completion_tokens":5,"messages":[{"content":"hi","role":"user"}],"model":"gpt-4"}"#;
        assert_eq!(text(&body), expected);
    }

    #[wasm_bindgen_test]
    fn every_to_request_vector_builds_its_expected_body_through_the_export() {
        let all: Value = serde_json::from_str(include_str!("../../tests/conformance/prompty-vectors.json")).unwrap();
        let vectors = all["vectors"].as_array().unwrap().iter().filter(|v| v["operation"] == "toRequest");
        let mut count = 0;
        for entry in vectors {
            let (vector, input) = (&entry["vector"], &entry["vector"]["input"]);
            let agent = serde_json::json!({
                "model": {"id": input["model_id"], "provider": input["provider"], "apiType": input["apiType"], "options": input["options"]},
                "tools": input["tools"], "outputs": input["outputs"],
            });
            let body = build_chat_args_js(js(&agent.to_string()), js(&input["messages"].to_string())).unwrap();
            let body: Value = serde_json::from_str(&text(&body)).unwrap();
            assert_eq!(body, vector["expected"]["request_body"], "{}", vector["name"]);
            count += 1;
        }
        assert!(count >= 17);
    }

    #[wasm_bindgen_test]
    fn invalid_input_throws_an_error_with_code_and_path() {
        let error = build_chat_args_js(
            js(r#"{"model": "m", "tools": [{"kind": "function", "name": "f", "parameters": [{"name": "a", "kind": "str"}]}]}"#),
            js("[]"),
        )
        .unwrap_err();
        assert!(error.is_instance_of::<js_sys::Error>());
        assert_eq!(field(&error, "code"), "invalid_input");
        assert_eq!(field(&error, "path"), "agent.tools[0].parameters[0].kind");
    }

    #[wasm_bindgen_test]
    fn build_request_accepts_undefined_options_and_returns_a_fetchable_request() {
        let request = build_request_js(js(r#"{"model": "m"}"#), js("[]"), JsValue::UNDEFINED).unwrap();
        assert_eq!(field(&request, "url"), "https://api.openai.com/v1/chat/completions");
        assert_eq!(field(&request, "method"), "POST");
        assert!(field(&request, "body").as_string().unwrap().contains("\"model\":\"m\""));
    }

    #[wasm_bindgen_test]
    fn gen_ai_attributes_and_register_tool_work_across_the_boundary() {
        register_tool_js("wasm_registered".into(), js(r#"{"description": "d", "parameters": {"type": "object"}}"#))
            .unwrap();
        let body = build_chat_args_js(
            js(r#"{"model": "m", "tools": [{"kind": "wasm_kind", "name": "wasm_registered"}]}"#),
            js("[]"),
        )
        .unwrap();
        assert!(text(&body).contains("\"description\":\"d\""));
        let attributes = gen_ai_attributes_js(js(r#"{"model": "m"}"#), body, JsValue::UNDEFINED).unwrap();
        assert_eq!(field(&attributes, "gen_ai.request.model"), "m");
    }
}

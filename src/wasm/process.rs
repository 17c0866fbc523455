//! wasm exports of process, toMessage and the output parser.
//!
//! A response arrives as a JS string (parsed in Rust) or an object, which is turned into JSON
//! text once by the engine's `JSON.stringify` and then read by the same borrowing parser:
//! one crossing, where walking the object through serde-wasm-bindgen costs a call per property.
//! Results leave as JSON text through `JSON.parse`, so JS receives plain data.

use wasm_bindgen::prelude::*;

use super::convert::{read_agent, result_to_js, string_argument, to_js, to_json};
use super::js;
use crate::error::Error;
use crate::json::write::{Object, WriteJson};
use crate::json::Value;
use crate::model::{Property, ToolCall};
use crate::output::{parse_structured_output, parse_tool_arguments, StructuredOptions};
use crate::process::{process_with, to_message, ProcessOptions, Span};
use crate::request::wire;

#[wasm_bindgen(typescript_custom_section)]
const PROCESS_TYPES: &'static str = r#"
/** A finished trace span: `{name: "process", attributes}` with `gen_ai.*` response attributes. */
export interface ProcessOptions { onSpan?: (span: Span) => void }
/** A tool call as `parseToolArguments` takes it: its arguments JSON text, or already parsed. */
export interface ToolCallInput { id: string; name: string; arguments: string | { [key: string]: JsonValue } }
/** A tool call with its arguments parsed (Orbiter `ActionModel`). */
export interface Action { toolCallId: string; toolName: string; arguments: { [key: string]: JsonValue } }
/** The model's fields `parseResponse` takes (Orbiter's `content`, `tool_calls`, `usage`). */
export interface ResponseFields { content: string; toolCalls: ToolCallInput[]; usage: Usage }
/** What an agent turn produced (Orbiter's `AgentOutput`): the fields of `parseResponse`, copied. */
export interface AgentOutput { text: string; toolCalls: ToolCall[]; usage: Usage }
/** `lenient`: accept a fenced block, text around one object, trailing commas. */
export interface StructuredOptions { lenient?: boolean }
"#;

/// A response as JSON text: a string as it is, anything else through `JSON.stringify` (a
/// `Uint8Array`, an SDK's blob, as its base64).
fn response_text(response: &JsValue) -> Result<String, JsValue> {
    if let Some(text) = js::string_text(response) {
        return Ok(text);
    }
    if response.is_undefined() || response.is_null() {
        return Err(Error::invalid_input("response", "a response body is required").into());
    }
    js::stringify_wire(response).ok_or_else(|| Error::invalid_input("response", "the response is not JSON data").into())
}

/// §8: the result of a non-streamed response body (`options.onSpan` receives the trace span).
#[wasm_bindgen(js_name = process, unchecked_return_type = "Result")]
pub fn process_js(
    #[wasm_bindgen(unchecked_param_type = "Agent")] agent: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Record<string, unknown> | string")] response: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ProcessOptions | undefined")] options: JsValue,
) -> Result<JsValue, JsValue> {
    let agent = read_agent(agent)?;
    let text = response_text(&response)?;
    let on_span = if options.is_object() { js::on_span(&options)? } else { None };
    // The callback runs once the outcome is known, failed or not (the last thing `process_with`
    // does); an exception it throws reaches the caller.
    let mut called = Ok(JsValue::UNDEFINED);
    let mut call = |span: Span| {
        if let Some(f) = &on_span {
            called = to_js(&span).and_then(|span| f.call1(&JsValue::NULL, &span));
        }
    };
    let options = ProcessOptions { on_span: if on_span.is_some() { Some(&mut call) } else { None } };
    let result = process_with(&agent, text.as_str(), options);
    called?;
    result_to_js(&result?)
}

/// The normalised `FinalMessage` of a non-streamed chat, Responses or Anthropic body.
#[wasm_bindgen(js_name = toMessage, unchecked_return_type = "FinalMessage")]
pub fn to_message_js(
    #[wasm_bindgen(unchecked_param_type = "Record<string, unknown> | string")] response: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Agent | undefined")] agent: JsValue,
) -> Result<JsValue, JsValue> {
    let agent = if agent.is_undefined() || agent.is_null() { None } else { Some(read_agent(agent)?) };
    let text = response_text(&response)?;
    to_js(&to_message(text.as_str(), agent.as_ref())?)
}

/// Orbiter's `parse_response`: `{content, toolCalls, usage}` as `{text, toolCalls, usage}`,
/// copied. It transforms nothing (the arguments stay JSON text, even invalid), so the only
/// errors are fields missing or of the wrong kind, at their path. `usage` is kept as given.
#[wasm_bindgen(js_name = parseResponse, unchecked_return_type = "AgentOutput")]
pub fn parse_response_js(
    #[wasm_bindgen(unchecked_param_type = "ResponseFields")] fields: JsValue,
) -> Result<JsValue, JsValue> {
    let Value::Object(mut fields) = to_json(fields, "response")? else {
        return Err(Error::invalid_input("response", "expected an object with content, toolCalls and usage").into());
    };
    let content = match fields.remove("content") {
        Some(Value::String(text)) => text,
        _ => return Err(Error::invalid_input("content", "expected the model's text, a string").into()),
    };
    let calls = match fields.remove("toolCalls") {
        Some(calls @ Value::Array(_)) => read_tool_calls(calls)?,
        _ => return Err(Error::invalid_input("toolCalls", "expected a list of tool calls").into()),
    };
    let usage = fields.remove("usage").unwrap_or(Value::Null);
    check_usage(&usage)?;
    let mut out = String::with_capacity(128);
    let mut o = Object::new(&mut out);
    o.str("text", &content);
    calls.write_json(o.key("toolCalls"));
    usage.write_json(o.key("usage"));
    o.end();
    js::parse(&out)
}

/// A usage as `Usage` has it: an object whose three counts are whole numbers, not negative, and
/// whose optional counts, when present, are too.
fn check_usage(usage: &Value) -> crate::Result<()> {
    if !usage.is_object() {
        return Err(Error::invalid_input("usage", "expected a usage object (inputTokens, outputTokens, totalTokens)"));
    }
    let required = ["inputTokens", "outputTokens", "totalTokens"];
    for key in required.into_iter().chain(["reasoningTokens", "cacheReadTokens", "cacheWriteTokens"]) {
        match usage.get(key) {
            Some(count) if count.as_u64().is_some() => {}
            None if !required.contains(&key) => {}
            _ => return Err(Error::invalid_input(wire::field("usage", key), "expected a whole number of tokens")),
        }
    }
    Ok(())
}

/// Each call's JSON arguments parsed to an object (`""` is `{}`).
#[wasm_bindgen(js_name = parseToolArguments, unchecked_return_type = "Action[]")]
pub fn parse_tool_arguments_js(
    #[wasm_bindgen(unchecked_param_type = "ToolCallInput[]")] tool_calls: JsValue,
) -> Result<JsValue, JsValue> {
    let calls = read_tool_calls(to_json(tool_calls, "toolCalls")?)?;
    to_js(&parse_tool_arguments(&calls)?)
}

/// `text` parsed and validated against `outputs`; the error's `path` names the first violation.
#[wasm_bindgen(js_name = parseStructuredOutput, unchecked_return_type = "JsonValue")]
pub fn parse_structured_output_js(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    #[wasm_bindgen(unchecked_param_type = "PropertyList")] outputs: JsValue,
    #[wasm_bindgen(unchecked_param_type = "StructuredOptions | undefined")] options: JsValue,
) -> Result<JsValue, JsValue> {
    let text = string_argument(text, "text")?;
    let outputs = Property::list_from_json(&to_json(outputs, "outputs")?, "outputs")?;
    let options = to_json(options, "options")?;
    let lenient = match options.get("lenient") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(Error::invalid_input("options.lenient", "expected a boolean").into()),
    };
    to_js(&parse_structured_output(&text, &outputs, StructuredOptions { lenient })?)
}

/// `[{id, name, arguments}]`; `arguments` may also be an already parsed object (it is
/// serialised back, so the parser sees what the wire would carry). The strings are moved out.
fn read_tool_calls(value: Value) -> crate::Result<Vec<ToolCall>> {
    let Value::Array(mut items) = value else {
        return Err(Error::invalid_input("toolCalls", "expected a list of tool calls"));
    };
    let mut calls = Vec::with_capacity(items.len());
    for (i, item) in items.iter_mut().enumerate() {
        let arguments = match item.get("arguments") {
            Some(v @ Value::Object(_)) => v.to_json_text(),
            _ => take_text(item, i, "arguments")?,
        };
        if !item.is_object() {
            return Err(Error::invalid_input(wire::index("toolCalls", i), "expected a tool call object"));
        }
        calls.push(ToolCall { id: take_text(item, i, "id")?, name: take_text(item, i, "name")?, arguments });
    }
    Ok(calls)
}

/// The string `key` of the `i`th tool call, moved out; `""` when absent or null.
fn take_text(item: &mut Value, i: usize, key: &str) -> crate::Result<String> {
    match item.get_mut(key) {
        Some(Value::String(s)) => Ok(std::mem::take(s)),
        None | Some(Value::Null) => Ok(String::new()),
        Some(_) => Err(Error::invalid_input(wire::field(&wire::index("toolCalls", i), key), "expected a string")),
    }
}

#[cfg(test)]
mod tests {
    //! The exports as JS sees them: plain data out, `Error`s with `code`, `path` and provider detail.
    use super::super::test_support::{field, js, text};
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn every_process_vector_passes_through_the_export_from_an_object_and_from_a_string() {
        let all: Value = serde_json::from_str(include_str!("../../tests/conformance/prompty-vectors.json")).unwrap();
        for entry in all["vectors"].as_array().unwrap().iter().filter(|v| v["operation"] == "process") {
            let input = &entry["vector"]["input"];
            let outputs = if input["has_outputs"] == true {
                serde_json::json!([{"name": "x", "kind": "object"}])
            } else {
                serde_json::json!([])
            };
            let agent = serde_json::json!({"model": {"id": "m", "provider": input["provider"], "apiType": input["apiType"]}, "outputs": outputs});
            let want = &entry["vector"]["expected"]["result"];
            for response in [js(&input["response"].to_string()), JsValue::from_str(&input["response"].to_string())] {
                let got = process_js(js(&agent.to_string()), response, JsValue::UNDEFINED).unwrap();
                assert_eq!(&serde_json::from_str::<Value>(&text(&got)).unwrap(), want);
            }
        }
    }

    #[wasm_bindgen_test]
    fn a_provider_error_becomes_a_js_error_with_code_and_provider_detail() {
        let err = process_js(
            js(r#"{"model": {"id": "m"}}"#),
            JsValue::from_str(r#"{"error": {"message": "slow down", "type": "rate_limit_error"}}"#),
            JsValue::UNDEFINED,
        )
        .unwrap_err();
        assert_eq!(field(&err, "code"), "provider_error");
        assert_eq!(field(&err, "message"), "slow down");
        assert_eq!(field(&err, "providerType"), "rate_limit_error");
        assert_eq!(field(&err, "retryable"), true);
    }

    #[wasm_bindgen_test]
    fn structured_output_errors_carry_the_path() {
        let err = parse_structured_output_js(
            "{\"a\": 1}".into(),
            js(r#"[{"name": "a", "kind": "string"}]"#),
            JsValue::UNDEFINED,
        )
        .unwrap_err();
        assert_eq!(field(&err, "code"), "validation_failed");
        assert_eq!(field(&err, "path"), "$.a");
    }

    #[wasm_bindgen_test]
    fn tool_arguments_parse_to_plain_actions() {
        let got = parse_tool_arguments_js(js(r#"[{"id": "c", "name": "f", "arguments": ""}]"#)).unwrap();
        assert_eq!(text(&got), r#"[{"toolCallId":"c","toolName":"f","arguments":{}}]"#);
    }

    #[wasm_bindgen_test]
    fn parse_response_copies_the_fields_and_leaves_invalid_arguments_to_parse_tool_arguments() {
        // The seed's example, with a call whose arguments are not JSON: copied, not parsed.
        let fields = r#"{"content": "Here is the answer.", "toolCalls": [{"id": "c", "name": "f", "arguments": "{oops"}],
            "usage": {"inputTokens": 50, "outputTokens": 20, "totalTokens": 70, "raw": {"prompt_tokens": 50}}}"#;
        let got = parse_response_js(js(fields)).unwrap();
        let want: serde_json::Value = serde_json::from_str(fields).unwrap();
        let got_json: serde_json::Value = serde_json::from_str(&text(&got)).unwrap();
        assert_eq!(got_json["text"], want["content"]);
        assert_eq!(got_json["toolCalls"], want["toolCalls"]);
        assert_eq!(got_json["usage"], want["usage"]);
        assert_eq!(got_json.as_object().unwrap().len(), 3);
        let calls = field(&got, "toolCalls");
        assert_eq!(field(&parse_tool_arguments_js(calls).unwrap_err(), "code"), "invalid_json");
    }

    #[wasm_bindgen_test]
    fn parse_response_refuses_a_missing_or_misshapen_field_at_its_path() {
        let usage = r#"{"inputTokens": 1, "outputTokens": 2, "totalTokens": 3}"#;
        let cases = [
            (r#""text""#.to_owned(), "response"),
            (format!(r#"{{"toolCalls": [], "usage": {usage}}}"#), "content"),
            (format!(r#"{{"content": 1, "toolCalls": [], "usage": {usage}}}"#), "content"),
            (format!(r#"{{"content": "", "usage": {usage}}}"#), "toolCalls"),
            (format!(r#"{{"content": "", "toolCalls": [{{"id": 7}}], "usage": {usage}}}"#), "toolCalls[0].id"),
            (r#"{"content": "", "toolCalls": []}"#.to_owned(), "usage"),
            (r#"{"content": "", "toolCalls": [], "usage": {"inputTokens": 1, "outputTokens": 2}}"#.to_owned(), "usage.totalTokens"),
            (
                r#"{"content": "", "toolCalls": [], "usage": {"inputTokens": 1, "outputTokens": 2, "totalTokens": 3, "cacheReadTokens": -1}}"#.to_owned(),
                "usage.cacheReadTokens",
            ),
        ];
        for (fields, path) in cases {
            let err = parse_response_js(js(&fields)).unwrap_err();
            assert_eq!(field(&err, "code"), "invalid_input", "{fields}");
            assert_eq!(field(&err, "path"), path, "{fields}");
        }
    }

    #[wasm_bindgen_test]
    fn on_span_receives_the_process_span_as_plain_data() {
        let on_span = js_sys::Function::new_with_args("span", "globalThis.__llmWireSpan = span");
        let options = js_sys::Object::new();
        js_sys::Reflect::set(&options, &"onSpan".into(), &on_span).unwrap();
        let body = r#"{"id": "r1", "choices": [{"message": {"content": "hi"}, "finish_reason": "stop"}]}"#;
        process_js(js(r#"{"model": {"id": "m"}}"#), JsValue::from_str(body), options.into()).unwrap();
        let span = field(&js_sys::global(), "__llmWireSpan");
        assert_eq!(field(&span, "name"), "process");
        assert_eq!(field(&field(&span, "attributes"), "gen_ai.response.id"), "r1");
    }

    /// Measures the two ways an object response can enter Rust (run by hand: `--include-ignored`).
    #[wasm_bindgen_test]
    #[ignore]
    fn measure_stringify_against_serde_wasm_bindgen() {
        let perf = field(&js_sys::global(), "performance");
        let now = || {
            js_sys::Reflect::get(&perf, &"now".into())
                .unwrap()
                .dyn_into::<js_sys::Function>()
                .unwrap()
                .call0(&perf)
                .unwrap()
                .as_f64()
                .unwrap()
        };
        let bodies = [
            include_str!("../../tests/fixtures/openai-responses/vercel-web-search.json").to_owned(),
            include_str!("../../tests/fixtures/openai-embeddings/vercel-batch-float.json").to_owned(),
            serde_json::json!({"data": [{"index": 0, "embedding": vec![0.0123456f64; 3072]}]}).to_string(),
            serde_json::json!({"choices": [{"message": {"content": "x".repeat(1 << 20)}, "finish_reason": "stop"}]})
                .to_string(),
        ];
        for body in bodies {
            let object = js(&body);
            let n = 200;
            let t0 = now();
            for _ in 0..n {
                let text = response_text(&object).unwrap();
                std::hint::black_box(text);
            }
            let t1 = now();
            for _ in 0..n {
                let v: Value = serde_wasm_bindgen::from_value(object.clone()).unwrap();
                std::hint::black_box(serde_json::to_string(&v).unwrap());
            }
            let t2 = now();
            console_log(&format!(
                "{} bytes: stringify {:.3} ms, serde-wasm-bindgen {:.3} ms",
                body.len(),
                (t1 - t0) / n as f64,
                (t2 - t1) / n as f64
            ));
        }
    }

    fn console_log(s: &str) {
        let console = field(&js_sys::global(), "console");
        let log = field(&console, "log").dyn_into::<js_sys::Function>().unwrap();
        log.call1(&console, &s.into()).unwrap();
    }
}

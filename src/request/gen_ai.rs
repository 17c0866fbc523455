//! The §7.1.8 tracing attributes: OpenTelemetry `gen_ai.*` names for a request and its response,
//! returned as a map so callers attach them to their own span.

use crate::json::value::parse_value;
use crate::json::write::WriteJson;
use crate::json::Value;
use crate::model::{Agent, Usage};
use crate::providers::{anthropic, openai_chat, openai_responses};
use crate::request::wire::{text, to_value, Array, Fields};
use crate::request::Api;

/// The `gen_ai.operation.name` of the agent's API, the same on the request attributes and the
/// `process` span. The conventions name `chat`, `embeddings`, `generate_content`,
/// `text_completion` and agent and tool operations, none for image generation; for an operation
/// without a name of its own they say to use the predefined value that applies, and that is
/// `generate_content`, "multimodal content generation" (`docs/design.md`, "Dispatch").
pub(crate) fn operation_name(agent: &Agent) -> &'static str {
    match Api::of(agent) {
        Ok(Api::OpenAiEmbeddings) => "embeddings",
        Ok(Api::OpenAiImages) => "generate_content",
        _ => "chat",
    }
}

/// Whether a request key is an option, not the conversation or its machinery.
fn is_option(key: &str) -> bool {
    !matches!(
        key,
        "model"
            | "messages"
            | "input"
            | "instructions"
            | "system"
            | "prompt"
            | "tools"
            | "tool_choice"
            | "response_format"
            | "text"
            | "stream"
            | "stream_options"
    )
}

/// The semantic-convention name of a request option that has one.
fn convention_name(key: &str) -> Option<&'static str> {
    match key {
        "max_completion_tokens" | "max_tokens" | "max_output_tokens" => Some("max_tokens"),
        "stop" | "stop_sequences" => Some("stop_sequences"),
        "n" => Some("choice.count"),
        "encoding_format" => Some("encoding_formats"),
        _ => None,
    }
}

/// `gen_ai.*` attributes (§7.1.8): operation, provider, model, every request option as
/// `gen_ai.request.*` (from a request body or a whole [`super::HttpRequest`] as JSON), and from
/// the response (a provider body or a `FinalMessage`) the usage, finish reasons, id and model. Values that OpenTelemetry cannot hold (objects) are skipped.
pub fn gen_ai_attributes(agent: &Agent, request: &Value, response: Option<&Value>) -> Value {
    // Scalars and arrays of scalars only: the text always reads back.
    to_value(&write_gen_ai_attributes(agent, request, response)).unwrap_or(Value::Null)
}

/// [`gen_ai_attributes`] as JSON text (what the wasm export returns).
pub(crate) fn write_gen_ai_attributes(agent: &Agent, request: &Value, response: Option<&Value>) -> String {
    let mut attributes = Fields::new();
    attributes.str("gen_ai.operation.name", operation_name(agent));
    attributes.str("gen_ai.provider.name", agent.model.provider());
    attributes.str("gen_ai.request.model", &agent.model.id);
    if agent.has_outputs() {
        attributes.str("gen_ai.output.type", "json");
    } else if matches!(Api::of(agent), Ok(Api::OpenAiImages)) {
        attributes.str("gen_ai.output.type", "image");
    }
    // A `buildRequest` result carries the body as JSON text.
    let parsed;
    let request = match request.get("body").and_then(Value::as_str) {
        Some(text) if request.get("url").is_some() => {
            parsed = parse_value(text).unwrap_or(Value::Null);
            &parsed
        }
        _ => request,
    };
    if let Value::Object(body) = request {
        for (key, value) in body.iter().filter(|(key, _)| is_option(key)) {
            let attribute = format!("gen_ai.request.{}", convention_name(key).unwrap_or(key));
            match value {
                // The conventions define these as arrays.
                Value::String(s) if key == "stop" || key == "encoding_format" => {
                    let mut one = Array::new();
                    one.str(s);
                    attributes.set(&attribute, one.finish())
                }
                value if is_attribute_value(value) => attributes.value(&attribute, value),
                _ => {}
            }
        }
    }
    if let Some(response) = response {
        add_response(&mut attributes, agent, response);
    }
    attributes.finish()
}

/// OpenTelemetry attribute values: scalars, or arrays of scalars.
fn is_attribute_value(value: &Value) -> bool {
    match value {
        Value::Null | Value::Object(_) => false,
        Value::Array(items) => items.iter().all(|v| matches!(v, Value::String(_) | Value::Number(_) | Value::Bool(_))),
        _ => true,
    }
}

fn add_response(attributes: &mut Fields, agent: &Agent, response: &Value) {
    for &key in &["id", "model"] {
        if let Some(text) = response.get(key).and_then(Value::as_str).filter(|s| !s.is_empty()) {
            attributes.str(&format!("gen_ai.response.{key}"), text);
        }
    }
    if let Some(usage) = response.get("usage").filter(|u| u.is_object()) {
        for (attribute, count) in response_usage(agent, usage) {
            if let Some(count) = count {
                attributes.set(attribute, count.to_string());
            }
        }
    }
    let reasons = finish_reasons(response);
    if !reasons.is_empty() {
        attributes.set("gen_ai.response.finish_reasons", reasons.finish());
    }
}

/// The usage attributes and the `FinalMessage` usage key each is read from, in one order.
const USAGE_ATTRIBUTES: [(&str, &str); 2] =
    [("gen_ai.usage.input_tokens", "inputTokens"), ("gen_ai.usage.output_tokens", "outputTokens")];

/// The `gen_ai.usage.*` counts of a usage, as the crate counts it (docs/design.md,
/// "Streaming"): the input with its cached tokens, as the conventions ask, and the output with
/// its reasoning.
pub(crate) fn usage_attributes(usage: &Usage) -> [(&'static str, Option<u64>); 2] {
    [(USAGE_ATTRIBUTES[0].0, Some(usage.input_tokens)), (USAGE_ATTRIBUTES[1].0, Some(usage.output_tokens))]
}

/// The usage counts of a response: a `FinalMessage`'s as they are, a Chat, Responses or
/// Anthropic body's read by the reader its message would be read with, so that they are the
/// counts of its `process` span. Embedding and image usage has only input and output counts,
/// under Chat's or the Responses API's names.
fn response_usage(agent: &Agent, usage: &Value) -> Vec<(&'static str, Option<u64>)> {
    if usage.get("inputTokens").is_some() || usage.get("outputTokens").is_some() {
        return USAGE_ATTRIBUTES
            .iter()
            .map(|&(attribute, key)| (attribute, usage.get(key).and_then(Value::as_u64)))
            .collect();
    }
    let convert = match Api::of(agent) {
        Ok(Api::OpenAiChat) => openai_chat::convert_usage,
        Ok(Api::OpenAiResponses) => openai_responses::convert_usage,
        Ok(Api::Anthropic) => anthropic::convert_usage,
        _ => {
            let count = |keys: [&str; 2]| keys.iter().find_map(|k| usage.get(k).and_then(Value::as_u64));
            return vec![
                ("gen_ai.usage.input_tokens", count(["prompt_tokens", "input_tokens"])),
                ("gen_ai.usage.output_tokens", count(["completion_tokens", "output_tokens"])),
            ];
        }
    };
    convert(&usage.to_json_text()).map_or_else(Vec::new, |usage| usage_attributes(&usage).to_vec())
}

/// The first of the finish reason keys `value` has as a string, as JSON text.
fn reason_of(value: &Value) -> Option<String> {
    ["finish_reason", "rawFinishReason", "finishReason", "stop_reason"]
        .iter()
        .find_map(|k| value.get(k).and_then(Value::as_str))
        .map(text)
}

/// Chat `choices[].finish_reason`, Anthropic `stop_reason`, a Responses `status` (or its
/// incomplete reason), or a `FinalMessage`'s raw (else normalised) finish reason; as JSON text.
fn finish_reasons(response: &Value) -> Array {
    let mut reasons = Array::new();
    if let Some(Value::Array(choices)) = response.get("choices") {
        for choice in choices {
            if let Some(reason) = reason_of(choice) {
                reasons.push(reason);
            }
        }
    } else if let Some(reason) = reason_of(response) {
        reasons.push(reason);
    } else if response.get("object").and_then(Value::as_str) == Some("response") {
        let incomplete = response.get("incomplete_details").and_then(|d| d.get("reason")).and_then(Value::as_str);
        if let Some(status) = incomplete.or_else(|| response.get("status").and_then(Value::as_str)) {
            reasons.str(status);
        }
    }
    reasons
}

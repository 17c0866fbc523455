//! The §7.1.8 tracing attributes: OpenTelemetry `gen_ai.*` names for a request and its response,
//! returned as a map so callers attach them to their own span.

use crate::json::value::parse_value;
use crate::json::Value;
use crate::model::Agent;
use crate::request::wire::{text, to_value, Array, Fields};
use crate::request::Api;

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
            | "toolConfig"
            | "outputConfig"
    )
}

/// The semantic-convention name of a request option that has one.
fn convention_name(key: &str) -> Option<&'static str> {
    match key {
        "max_completion_tokens" | "max_tokens" | "max_output_tokens" | "maxTokens" => Some("max_tokens"),
        "stop" | "stop_sequences" | "stopSequences" => Some("stop_sequences"),
        "topP" => Some("top_p"),
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
    let operation = match Api::of(agent) {
        Ok(Api::OpenAiEmbeddings) => "embeddings",
        Ok(Api::OpenAiImages) => "generate_content",
        _ => "chat",
    };
    attributes.str("gen_ai.operation.name", operation);
    // The semantic conventions' name for Bedrock; the others are the conventions' own names.
    let provider = match agent.model.provider() {
        "bedrock" => "aws.bedrock",
        provider => provider,
    };
    attributes.str("gen_ai.provider.name", provider);
    attributes.str("gen_ai.request.model", &agent.model.id);
    if agent.has_outputs() {
        attributes.str("gen_ai.output.type", "json");
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
    // Bedrock's options sit in its `inferenceConfig`.
    let inference = request.get("inferenceConfig").and_then(Value::as_object);
    if let Value::Object(body) = request {
        let options = body.iter().filter(|(key, v)| is_option(key) && !(*key == "inferenceConfig" && v.is_object()));
        for (key, value) in options.chain(inference.into_iter().flatten()) {
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
        add_response(&mut attributes, response);
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

fn add_response(attributes: &mut Fields, response: &Value) {
    for &key in &["id", "model"] {
        if let Some(text) = response.get(key).and_then(Value::as_str).filter(|s| !s.is_empty()) {
            attributes.str(&format!("gen_ai.response.{key}"), text);
        }
    }
    if let Some(usage) = response.get("usage").filter(|u| u.is_object()) {
        for (attribute, keys) in &[
            ("gen_ai.usage.input_tokens", ["prompt_tokens", "input_tokens", "inputTokens"]),
            ("gen_ai.usage.output_tokens", ["completion_tokens", "output_tokens", "outputTokens"]),
        ] {
            if let Some(n) = keys.iter().find_map(|k| usage.get(k).filter(|v| v.is_number())) {
                attributes.value(attribute, n);
            }
        }
    }
    let reasons = finish_reasons(response);
    if !reasons.is_empty() {
        attributes.set("gen_ai.response.finish_reasons", reasons.finish());
    }
}

/// The first of the finish reason keys `value` has as a string, as JSON text.
fn reason_of(value: &Value) -> Option<String> {
    ["finish_reason", "rawFinishReason", "finishReason", "stop_reason", "stopReason"]
        .iter()
        .find_map(|k| value.get(k).and_then(Value::as_str))
        .map(text)
}

/// Chat `choices[].finish_reason`, Anthropic `stop_reason`, Bedrock `stopReason`, a Responses `status` (or its
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

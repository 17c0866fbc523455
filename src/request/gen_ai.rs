//! The §7.1.8 tracing attributes: OpenTelemetry `gen_ai.*` names for a request and its response,
//! returned as a map so callers attach them to their own span.

use crate::json::value::parse_value;
use crate::json::write::WriteJson;
use crate::json::Value;
use crate::model::{Agent, Usage};
use crate::providers::gemini::Service;
use crate::providers::{anthropic, bedrock, gemini, openai_chat, openai_responses};
use crate::request::wire::{text, to_value, Array, Fields};
use crate::request::Api;

/// The `gen_ai.operation.name` of the agent's API, the same on the request attributes and the
/// `process` span. The conventions name `chat`, `embeddings`, `generate_content`,
/// `text_completion` and agent and tool operations, none for image generation; for an operation
/// without a name of its own they say to use the predefined value that applies, and that is
/// `generate_content`, "multimodal content generation" (`docs/design.md`, "Dispatch").
pub(crate) fn operation_name(agent: &Agent) -> &'static str {
    match Api::of(agent) {
        Ok(Api::OpenAiEmbeddings | Api::GeminiEmbeddings) => "embeddings",
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
            | "toolConfig"
            | "outputConfig"
    )
}

/// The semantic-convention name of a request option that has one.
fn convention_name(key: &str) -> Option<&'static str> {
    match key {
        "max_completion_tokens" | "max_tokens" | "max_output_tokens" => Some("max_tokens"),
        "stop" | "stop_sequences" => Some("stop_sequences"),
        "n" => Some("choice.count"),
        "encoding_format" => Some("encoding_formats"),
        // Bedrock's `inferenceConfig` and Gemini's `generationConfig` names.
        "maxTokens" | "maxOutputTokens" => Some("max_tokens"),
        "stopSequences" => Some("stop_sequences"),
        "topP" => Some("top_p"),
        "topK" => Some("top_k"),
        "presencePenalty" => Some("presence_penalty"),
        "frequencyPenalty" => Some("frequency_penalty"),
        "candidateCount" => Some("choice.count"),
        _ => None,
    }
}

/// `gen_ai.*` attributes (§7.1.8): operation, provider, model, every request option as
/// `gen_ai.request.*` (from a request body or a whole [`super::HttpRequest`] as JSON), and from
/// the response (a provider body, a Gemini array of chunks, or a `FinalMessage`) the usage,
/// finish reasons, id and model. Values that OpenTelemetry cannot hold (objects) are skipped.
pub fn gen_ai_attributes(agent: &Agent, request: &Value, response: Option<&Value>) -> Value {
    // Scalars and arrays of scalars only: the text always reads back.
    to_value(&write_gen_ai_attributes(agent, request, response)).unwrap_or(Value::Null)
}

/// [`gen_ai_attributes`] as JSON text (what the wasm export returns).
pub(crate) fn write_gen_ai_attributes(agent: &Agent, request: &Value, response: Option<&Value>) -> String {
    let mut attributes = Fields::new();
    attributes.str("gen_ai.operation.name", operation_name(agent));
    attributes.str("gen_ai.provider.name", provider_name(agent.model.provider()));
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
        // Bedrock's options are inside `inferenceConfig`, Gemini's inside `generationConfig`.
        let nested = ["inferenceConfig", "generationConfig"];
        let options =
            body.iter().filter(|(key, v)| is_option(key) && !(nested.contains(&key.as_str()) && v.is_object()));
        let inner = nested.iter().filter_map(|key| body.get(key).and_then(Value::as_object)).flatten();
        for (key, value) in options.chain(inner) {
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

/// The semantic conventions' name of a provider: `gcp.gemini` and `gcp.vertex_ai` for
/// Gemini's services, the provider as given for the others.
pub(crate) fn provider_name(provider: &str) -> &str {
    match Service::of(provider) {
        Some(Service::Gemini) => "gcp.gemini",
        Some(Service::Vertex) => "gcp.vertex_ai",
        None if provider == "bedrock" => "aws.bedrock",
        None => provider,
    }
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
    // A whole `streamGenerateContent` body, an array of chunks, is read as its stream is: what
    // its message says (docs/design.md, "Gemini").
    if let (Value::Array(_), Ok(Api::Gemini)) = (response, Api::of(agent)) {
        let message = crate::process::to_message(response, Some(agent)).ok();
        if let Some(Ok(message)) = message.map(|message| parse_value(&message.to_json_text())) {
            add_response(attributes, agent, &message);
        }
        return;
    }
    // Gemini's body names them `responseId` and `modelVersion`.
    for (key, gemini_key) in [("id", "responseId"), ("model", "modelVersion")] {
        let text = response.get(key).or_else(|| response.get(gemini_key)).and_then(Value::as_str);
        if let Some(text) = text.filter(|s| !s.is_empty()) {
            attributes.str(&format!("gen_ai.response.{key}"), text);
        }
    }
    // Gemini's body has `usageMetadata`; its final message, like every other, `usage`.
    if let Some(usage) = response.get("usage").or_else(|| response.get("usageMetadata")).filter(|u| u.is_object()) {
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

/// The usage counts of a response: a `FinalMessage`'s as they are, a body's read by the reader
/// its message would be read with, so that they are the counts of its `process` span.
/// Embedding and image usage has only input and output counts, under Chat's or the Responses
/// API's names.
fn response_usage(agent: &Agent, usage: &Value) -> Vec<(&'static str, Option<u64>)> {
    let api = Api::of(agent);
    // Bedrock's own names are the final message's; its reader gives a final message's counts back.
    let is_final = usage.get("inputTokens").is_some() || usage.get("outputTokens").is_some();
    if is_final && !matches!(api, Ok(Api::Bedrock)) {
        return USAGE_ATTRIBUTES
            .iter()
            .map(|&(attribute, key)| (attribute, usage.get(key).and_then(Value::as_u64)))
            .collect();
    }
    let convert = match api {
        Ok(Api::OpenAiChat) => openai_chat::convert_usage,
        Ok(Api::OpenAiResponses) => openai_responses::convert_usage,
        Ok(Api::Anthropic) => anthropic::convert_usage,
        Ok(Api::Bedrock) => bedrock::convert_usage,
        Ok(Api::Gemini) => gemini::convert_usage,
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
    ["finish_reason", "rawFinishReason", "finishReason", "stop_reason", "stopReason"]
        .iter()
        .find_map(|k| value.get(k).and_then(Value::as_str))
        .map(text)
}

/// Chat `choices[].finish_reason`, Gemini `candidates[].finishReason`, Anthropic
/// `stop_reason`, Bedrock `stopReason`, a Responses `status` (or its incomplete reason), or a
/// `FinalMessage`'s raw (else normalised) finish reason; as JSON text.
fn finish_reasons(response: &Value) -> Array {
    let mut reasons = Array::new();
    if let Some(Value::Array(choices)) = response.get("choices").or_else(|| response.get("candidates")) {
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

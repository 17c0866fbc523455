//! The `process` trace span (§8): OpenTelemetry GenAI response attributes of one processed body.

use serde::Serialize;

use crate::json::key_index;
use crate::json::write::{Object, WriteJson};
use crate::json::{Map, Value};
use crate::model::{Agent, FinalMessage, Model};
use crate::process::read_body;
use crate::providers::{read_count, Scalar};

/// A finished span: its name and its `gen_ai.*` attributes, plain JSON data.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Span {
    pub name: &'static str,
    pub attributes: Map,
}

impl WriteJson for Span {
    fn write_json(&self, out: &mut String) {
        let mut o = Object::new(out);
        o.str("name", self.name);
        self.attributes.write_json(o.key("attributes"));
        o.end();
    }
}

/// The `process` span of a final message, streamed (`Accumulator::finish`) or not: the
/// operation and provider, then what the response says (id, model, finish reasons, usage).
pub fn message_span(agent: Option<&Agent>, message: &FinalMessage) -> Span {
    process_span(agent.map(|a| &a.model), Some(message), "")
}

/// The `process` span of a body, for the agent's `model` (none: the default model). Embedding
/// and image bodies have no message; their model and usage are read from the body itself.
pub(crate) fn process_span(model: Option<&Model>, message: Option<&FinalMessage>, body: &str) -> Span {
    let (api_type, configured, id) =
        model.map_or(("", "", ""), |m| (m.api_type.as_str(), m.provider.as_str(), m.id.as_str()));
    let mut attributes = Map::new();
    let mut set = |key: &str, value: Value| {
        attributes.insert(key.to_owned(), value);
    };
    let operation = match api_type {
        "embedding" => "embeddings",
        "image" => "image_generation",
        _ => "chat",
    };
    set("gen_ai.operation.name", operation.into());
    let provider = match (configured, message.and_then(|m| m.provider.as_deref())) {
        ("", Some(named)) => named,
        ("", None) => "openai",
        (configured, _) => configured,
    };
    set("gen_ai.provider.name", provider.into());
    if !id.is_empty() {
        set("gen_ai.request.model", id.into());
    }
    match message {
        Some(message) => {
            if let Some(id) = &message.id {
                set("gen_ai.response.id", id.as_str().into());
            }
            if let Some(model) = &message.model {
                set("gen_ai.response.model", model.as_str().into());
            }
            let choices = message.choices.as_deref().unwrap_or(std::slice::from_ref(message));
            let mut reasons = Vec::new();
            for choice in choices {
                if let Some(reason) = &choice.raw_finish_reason {
                    reasons.push(Value::from(reason.as_str()));
                }
            }
            if !reasons.is_empty() {
                set("gen_ai.response.finish_reasons", Value::Array(reasons));
            }
            if let Some(usage) = &message.usage {
                set("gen_ai.usage.input_tokens", usage.input_tokens.into());
                set("gen_ai.usage.output_tokens", usage.output_tokens.into());
            }
        }
        None => {
            // Read leniently: a body that is not JSON or lacks these fields gives fewer attributes.
            let (mut model, mut input, mut prompt, mut output) = (Scalar::default(), None, None, None);
            let read = read_body(body, &mut |r, key| {
                match key_index(key, "model usage") {
                    0 => model = Scalar::read(r)?,
                    1 => {
                        r.object(|r, key| {
                            match key_index(key, "input_tokens prompt_tokens output_tokens") {
                                0 => input = read_count(r)?,
                                1 => prompt = read_count(r)?,
                                2 => output = read_count(r)?,
                                _ => {}
                            }
                            Ok(())
                        })?;
                    }
                    _ => {}
                }
                Ok(())
            });
            if read.is_ok() {
                if let Some(model) = model.as_deref() {
                    set("gen_ai.response.model", model.into());
                }
                if let Some(input) = input.or(prompt) {
                    set("gen_ai.usage.input_tokens", input.into());
                }
                if let Some(output) = output {
                    set("gen_ai.usage.output_tokens", output.into());
                }
            }
        }
    }
    Span { name: "process", attributes }
}

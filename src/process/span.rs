//! The `process` trace span (§8): OpenTelemetry GenAI response attributes of one processed body.

use serde::Serialize;

use crate::json::write::{Object, WriteJson};
use crate::json::{Map, Value};
use crate::model::{Agent, FinalMessage};
use crate::process::read_body;
use crate::providers::{read_count, Scalar};
use crate::request::{operation_name, usage_attributes};

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
    process_span(agent, Some(message), "")
}

/// The `process` span of a body, for the agent (none: the default model). Embedding and image
/// bodies have no message; their model and usage are read from the body itself.
pub(crate) fn process_span(agent: Option<&Agent>, message: Option<&FinalMessage>, body: &str) -> Span {
    let (configured, id) = agent.map_or(("", ""), |a| (a.model.provider.as_str(), a.model.id.as_str()));
    let mut attributes = Map::new();
    let operation = agent.map_or("chat", operation_name);
    let provider = crate::request::provider_name(match (configured, message.and_then(|m| m.provider.as_deref())) {
        ("", Some(named)) => named,
        ("", None) => "openai",
        (configured, _) => configured,
    });
    // What the response says: off the message, or read off the body.
    let mut body_model = Scalar::default();
    let (mut response_id, mut response_model) = (None, None);
    let mut usage = Vec::new();
    match message {
        Some(message) => {
            let choices = message.choices.as_deref().unwrap_or(std::slice::from_ref(message));
            let mut reasons = Vec::new();
            for choice in choices {
                if let Some(reason) = &choice.raw_finish_reason {
                    reasons.push(Value::from(reason.as_str()));
                }
            }
            if !reasons.is_empty() {
                attributes.insert("gen_ai.response.finish_reasons".to_owned(), Value::Array(reasons));
            }
            response_id = message.id.as_deref();
            response_model = message.model.as_deref();
            if let Some(counts) = &message.usage {
                usage.extend(usage_attributes(counts));
            }
        }
        None => {
            // Read leniently: a body that is not JSON or lacks these fields gives fewer attributes.
            let (mut input_tokens, mut prompt_tokens, mut output_tokens) = (None, None, None);
            let read = read_body(body, &mut |r, key| {
                match key {
                    b"model" => body_model = Scalar::read(r)?,
                    b"usage" => {
                        r.object(|r, key| {
                            match key {
                                b"input_tokens" => input_tokens = read_count(r)?,
                                // Chat's name for the input tokens.
                                b"prompt_tokens" => prompt_tokens = read_count(r)?,
                                b"output_tokens" => output_tokens = read_count(r)?,
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
                response_model = body_model.as_deref();
                usage.push(("gen_ai.usage.input_tokens", input_tokens.or(prompt_tokens)));
                usage.push(("gen_ai.usage.output_tokens", output_tokens));
            }
        }
    }
    // Every other attribute is a string or a count, set when there is one.
    let mut set = |key: &str, text: Option<&str>, count: Option<u64>| {
        let value = match (text, count) {
            (Some(text), _) => Value::from(text),
            (None, Some(count)) => Value::from(count),
            (None, None) => return,
        };
        attributes.insert(key.to_owned(), value);
    };
    set("gen_ai.operation.name", Some(operation), None);
    set("gen_ai.provider.name", Some(provider), None);
    set("gen_ai.request.model", Some(id).filter(|id| !id.is_empty()), None);
    set("gen_ai.response.id", response_id, None);
    set("gen_ai.response.model", response_model, None);
    for (key, count) in usage {
        set(key, None, count);
    }
    Span { name: "process", attributes }
}

//! OpenAI image generation request bodies (§7.3).

use serde_json::{Map, Value};

use crate::error::Result;
use crate::model::{Agent, Message};
use crate::options::{merge_absent, openai_chat};

/// §7.3 `build_image_args`: the first text part of the last user message is the prompt (the
/// empty string when there is none); options pass through as for Chat (size, quality, n, ...
/// come through `additionalProperties`).
pub(crate) fn build(agent: &Agent, messages: &[Message]) -> Result<Value> {
    let prompt = messages
        .iter()
        .rev()
        .find(|m| m.role == "user")
        .and_then(|m| m.content.parts().iter().find(|p| p.is_text()).map(|p| p.value.clone()))
        .unwrap_or_default();
    let mut body = Map::new();
    body.insert("model".into(), Value::String(agent.model.id.clone()));
    body.insert("prompt".into(), Value::String(prompt));
    merge_absent(&mut body, &openai_chat(&agent.model.options));
    Ok(Value::Object(body))
}

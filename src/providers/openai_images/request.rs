//! OpenAI image generation request bodies (§7.3).

use crate::error::Result;
use crate::model::{Agent, Message};
use crate::options::write_openai_chat;
use crate::request::wire::Fields;

/// The first text part of the last user message, or the empty string.
fn prompt(messages: &[Message]) -> String {
    messages
        .iter()
        .rev()
        .find(|m| m.role == "user")
        .and_then(|m| m.content.parts().iter().find(|p| p.is_text()).map(|p| p.value.clone()))
        .unwrap_or_default()
}

/// The request body, as JSON text to be (see `request::wire`).
pub(crate) fn build(agent: &Agent, messages: &[Message]) -> Result<Fields> {
    let mut body = Fields::new();
    body.str("model", &agent.model.id);
    body.str("prompt", &prompt(messages));
    write_openai_chat(&agent.model.options, &mut body);
    Ok(body)
}

//! OpenAI image generation request bodies (§7.3).

use crate::error::Result;
use crate::model::{Agent, Message, MessageContent};
use crate::options::write_openai_chat;
use crate::request::wire::Fields;

/// The first text part of the last user message, or the empty string.
fn prompt(messages: &[Message]) -> &str {
    fn first_text(content: &MessageContent) -> Option<&str> {
        match content {
            MessageContent::Text(value) => Some(value),
            MessageContent::Parts(parts) => parts.iter().find(|p| p.is_text()).map(|p| p.value.as_str()),
        }
    }
    messages.iter().rev().find(|m| m.role == "user").and_then(|m| first_text(&m.content)).unwrap_or_default()
}

/// The request body, as JSON text to be (see `request::wire`), onto `body` (which has the model).
pub(crate) fn build(agent: &Agent, messages: &[Message], body: &mut Fields) -> Result<()> {
    body.str("prompt", prompt(messages));
    write_openai_chat(&agent.model.options, body);
    Ok(())
}

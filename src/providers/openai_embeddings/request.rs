//! OpenAI embeddings request bodies (§7.2).

use crate::error::Result;
use crate::model::{Agent, Message, MessageContent};
use crate::options::write_absent;
use crate::request::wire::{array, text, Fields};

/// The request body, as JSON text to be (see `request::wire`).
pub(crate) fn build(agent: &Agent, messages: &[Message]) -> Result<Fields> {
    let mut texts = Vec::new();
    for message in messages {
        match &message.content {
            MessageContent::Text(value) => texts.push(text(value)),
            MessageContent::Parts(parts) => {
                for part in parts.iter().filter(|part| part.is_text()) {
                    texts.push(text(&part.value));
                }
            }
        }
    }
    let input = if texts.len() == 1 { texts.remove(0) } else { array(texts) };
    let mut body = Fields::new();
    body.str("model", &agent.model.id);
    body.set("input", input);
    write_absent(&mut body, &agent.model.options.additional_properties);
    Ok(body)
}

//! OpenAI embeddings request bodies (§7.2).

use crate::error::Result;
use crate::model::{Agent, Message, MessageContent};
use crate::options::write_absent;
use crate::request::wire::{text, Array, Fields};

/// The request body, as JSON text to be (see `request::wire`), onto `body` (which has the model).
pub(crate) fn build(agent: &Agent, messages: &[Message], body: &mut Fields) -> Result<()> {
    let mut texts: Vec<&str> = Vec::new();
    for message in messages {
        match &message.content {
            MessageContent::Text(value) => texts.push(value),
            MessageContent::Parts(parts) => {
                for part in parts.iter().filter(|part| part.is_text()) {
                    texts.push(&part.value);
                }
            }
        }
    }
    let input = match texts.as_slice() {
        [one] => text(one),
        all => {
            let mut input = Array::new();
            all.iter().for_each(|one| input.str(one));
            input.finish()
        }
    };
    body.set("input", input);
    write_absent(body, &agent.model.options.additional_properties);
    Ok(())
}

//! OpenAI embeddings request bodies (§7.2).

use serde_json::{Map, Value};

use crate::error::Result;
use crate::model::{Agent, Message};
use crate::options::merge_absent;

/// §7.2 `build_embedding_args`: the text parts of every message, one string when there is
/// exactly one and an array otherwise. §7.2 maps no sampling option (they mean nothing here);
/// `additionalProperties` still pass through for `dimensions`, `encoding_format` and the like.
pub(crate) fn build(agent: &Agent, messages: &[Message]) -> Result<Value> {
    let mut texts: Vec<Value> = messages
        .iter()
        .flat_map(|m| m.content.parts().into_owned())
        .filter(|part| part.is_text())
        .map(|part| Value::String(part.value))
        .collect();
    let input = if texts.len() == 1 { texts.remove(0) } else { Value::Array(texts) };
    let mut body = Map::new();
    body.insert("model".into(), Value::String(agent.model.id.clone()));
    body.insert("input".into(), input);
    merge_absent(&mut body, &agent.model.options.additional_properties);
    Ok(Value::Object(body))
}

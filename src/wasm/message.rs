//! A [`FinalMessage`] as plain JS data, fast for long answers.
//!
//! The message carries its text twice (`text` and the text block) and tool arguments twice
//! (`toolCalls` and the tool block); through JSON, a 100 KB answer is escaped, decoded and
//! parsed as 200 KB. Here every long string is lifted out first: the rest goes through one
//! `JSON.parse` as usual, and each long string is then set in place as a JS string made
//! straight from its UTF-8 bytes, once per distinct string.

use wasm_bindgen::prelude::*;

use super::convert::to_js;
use crate::model::{Block, FinalMessage};

/// Strings at least this long are lifted; shorter ones are cheaper inside the JSON.
const LONG: usize = 2048;

/// Where a lifted string goes: property names and array indexes from the message object.
#[derive(Clone, Copy)]
enum Step {
    Key(&'static str),
    Index(usize),
}

pub(crate) fn message_to_js(message: &FinalMessage) -> Result<JsValue, JsValue> {
    if !has_long_string(message) {
        return to_js(message);
    }
    let mut light = message.clone();
    let mut lifted = Vec::new();
    lift_message(&mut light, &mut Vec::new(), &mut lifted);
    let object = to_js(&light)?;
    let mut previous: Option<(&str, JsValue)> = None;
    for (path, text) in &lifted {
        let value = match &previous {
            Some((same, value)) if same == text => value.clone(),
            _ => JsValue::from_str(text),
        };
        set_at(&object, path, &value)?;
        previous = Some((text, value));
    }
    Ok(object)
}

fn has_long_string(m: &FinalMessage) -> bool {
    m.text.len() >= LONG
        || m.reasoning.len() >= LONG
        || m.tool_calls.iter().any(|c| c.arguments.len() >= LONG)
        || m.choices.as_ref().is_some_and(|choices| choices.iter().any(has_long_string))
}

/// Moves every long string of `m` into `out` with its path, leaving it empty in `m`.
fn lift_message(m: &mut FinalMessage, at: &mut Vec<Step>, out: &mut Vec<(Vec<Step>, String)>) {
    let mut take = |steps: &[Step], text: &mut String| {
        if text.len() >= LONG {
            let path = at.iter().chain(steps).copied().collect();
            out.push((path, std::mem::take(text)));
        }
    };
    take(&[Step::Key("text")], &mut m.text);
    take(&[Step::Key("reasoning")], &mut m.reasoning);
    for (i, block) in m.content.iter_mut().enumerate() {
        let (key, text) = match block {
            Block::Text { text, .. } | Block::Reasoning { text, .. } => ("text", text),
            Block::ToolCall { arguments, .. } => ("arguments", arguments),
            Block::Other { .. } => continue,
        };
        take(&[Step::Key("content"), Step::Index(i), Step::Key(key)], text);
    }
    for (i, call) in m.tool_calls.iter_mut().enumerate() {
        take(&[Step::Key("toolCalls"), Step::Index(i), Step::Key("arguments")], &mut call.arguments);
    }
    if let Some(choices) = m.choices.as_mut() {
        for (i, choice) in choices.iter_mut().enumerate() {
            at.extend_from_slice(&[Step::Key("choices"), Step::Index(i)]);
            lift_message(choice, at, out);
            at.truncate(at.len() - 2);
        }
    }
}

fn set_at(root: &JsValue, path: &[Step], value: &JsValue) -> Result<(), JsValue> {
    let key = |step: &Step| match *step {
        Step::Key(name) => JsValue::from_str(name),
        Step::Index(i) => JsValue::from_f64(i as f64),
    };
    let Some((last, parents)) = path.split_last() else { return Ok(()) };
    let mut target = root.clone();
    for step in parents {
        target = js_sys::Reflect::get(&target, &key(step))?;
    }
    js_sys::Reflect::set(&target, &key(last), value)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use wasm_bindgen_test::wasm_bindgen_test;

    use super::message_to_js;
    use crate::wasm::test_support::text;
    use crate::{Accumulator, AccumulatorOptions};

    /// The lifted message is exactly the JSON one, on streams with long text, reasoning, tool
    /// arguments and several choices.
    #[wasm_bindgen_test]
    fn long_strings_lifted_give_the_same_object_as_json() {
        let long = "word é \"quoted\" \\ ".repeat(300);
        let args = format!("{{\"q\":\"{}\"}}", "x".repeat(5000));
        let chunk = |choice: u32, delta: serde_json::Value| {
            serde_json::json!({"id": "c", "choices": [{"index": choice, "delta": delta}]}).to_string()
        };
        let body = [
            chunk(0, serde_json::json!({"reasoning_content": long})),
            chunk(0, serde_json::json!({"content": long})),
            chunk(1, serde_json::json!({"content": "short"})),
            chunk(1, serde_json::json!({"tool_calls": [{"index": 0, "id": "t", "function": {"name": "f", "arguments": args}}]})),
            chunk(0, serde_json::json!({"content": "tail"})),
        ]
        .iter()
        .map(|c| format!("data: {c}\n\n"))
        .collect::<String>()
            + "data: [DONE]\n\n";
        let mut acc = Accumulator::new(AccumulatorOptions::default());
        acc.push(body.as_bytes()).unwrap();
        let message = acc.finish();
        assert!(message.choices.is_some(), "the stream has two choices");
        let lifted = text(&message_to_js(&message).unwrap());
        let plain = text(&crate::wasm::convert::to_js(&message).unwrap());
        assert_eq!(lifted, plain);
        assert!(lifted.len() > 20_000);
    }
}

//! A [`FinalMessage`] as plain JS data, fast for long answers.
//!
//! The message carries its text twice (`text` and the text block) and tool arguments twice
//! (`toolCalls` and the tool block); through JSON, a 100 KB answer is escaped, decoded and
//! parsed as 200 KB. Here every long string is lifted out first: the rest goes through one
//! `JSON.parse` as usual, and each long string is then set in place as a JS string made
//! straight from its UTF-8 bytes, once per distinct string.

use wasm_bindgen::prelude::*;

use super::js;
use crate::model::{Block, FinalMessage};

/// Strings at least this long are lifted; shorter ones are cheaper inside the JSON.
const LONG: usize = 2048;

/// Where a lifted string goes: property names and array indexes from the message object.
#[derive(Clone, Copy)]
enum Step {
    Key(&'static str),
    Index(usize),
}

pub(crate) fn message_to_js(message: &mut FinalMessage) -> Result<JsValue, JsValue> {
    if !has_long_string(message) {
        return js::parse(&message.json_text());
    }
    // The long strings are moved out for the JSON and put back after, whatever happens: the
    // message is not copied, and it is whole again when this returns.
    let mut lifted = Vec::new();
    lift_message(message, &mut Vec::new(), &mut lifted);
    let result = (|| {
        let object = js::parse(&message.json_text())?;
        let mut made: Vec<(usize, JsValue)> = Vec::with_capacity(lifted.len());
        for (i, (path, text)) in lifted.iter().enumerate() {
            // The same text (the message's text and its text block) becomes one JS string.
            let earlier = made.iter().find(|(j, _)| lifted[*j].1 == *text);
            let value = match earlier {
                Some((_, value)) => value.clone(),
                None => JsValue::from_str(text),
            };
            set_at(&object, path, &value)?;
            made.push((i, value));
        }
        Ok(object)
    })();
    for (path, text) in lifted {
        if let Some(slot) = slot(message, &path) {
            *slot = text;
        }
    }
    result
}

/// The string a path of [`lift_message`] names.
fn slot<'m>(m: &'m mut FinalMessage, path: &[Step]) -> Option<&'m mut String> {
    match path {
        [Step::Key("text")] => Some(&mut m.text),
        [Step::Key("reasoning")] => Some(&mut m.reasoning),
        [Step::Key("content"), Step::Index(i), Step::Key(_)] => match m.content.get_mut(*i)? {
            Block::Text { text, .. } | Block::Reasoning { text, .. } => Some(text),
            Block::ToolCall { arguments, .. } => Some(arguments),
            Block::Other { .. } => None,
        },
        [Step::Key("toolCalls"), Step::Index(i), Step::Key("arguments")] => {
            Some(&mut m.tool_calls.get_mut(*i)?.arguments)
        }
        [Step::Key("choices"), Step::Index(i), rest @ ..] => slot(m.choices.as_mut()?.get_mut(*i)?, rest),
        _ => None,
    }
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
            let mut path = at.clone();
            path.extend_from_slice(steps);
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
        target = js::get(&target, &key(step))?;
    }
    js::set(&target, &key(last), value)?;
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
        let mut message = acc.finish();
        let whole = message.clone();
        assert!(message.choices.is_some(), "the stream has two choices");
        let plain = text(&crate::wasm::convert::to_js(&message).unwrap());
        for _ in 0..2 {
            let lifted = text(&message_to_js(&mut message).unwrap());
            assert_eq!(lifted, plain);
            assert_eq!(message, whole, "every lifted string is put back");
        }
        assert!(plain.len() > 20_000);
    }
}

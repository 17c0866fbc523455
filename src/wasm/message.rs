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
pub(super) const LONG: usize = 2048;

/// Where a string goes in the JS object: the object that holds it and its key.
type Place<'a> = Option<(&'a JsValue, &'static str)>;

pub(crate) fn message_to_js(message: &mut FinalMessage) -> Result<JsValue, JsValue> {
    // The long strings are moved out for the JSON and put back after, whatever happens: the
    // message is not copied, and it is whole again when this returns. `lifted` has one entry
    // per string [`each_string`] visits, in its order: the string when it was lifted, else empty.
    let mut lifted = Vec::new();
    swap_long(message, &mut lifted, false);
    let result = js::parse(&message.json_text());
    if lifted.iter().all(String::is_empty) {
        return result;
    }
    if let Ok(object) = &result {
        let mut made: Vec<(&str, JsValue)> = Vec::new();
        let mut next = lifted.iter();
        each_string(message, Some(object), &mut |_, place| {
            let (Some(text), Some((target, key))) = (next.next(), place) else { return };
            if text.is_empty() {
                return;
            }
            // The same text (the message's text and its text block) becomes one JS string.
            match made.iter().find(|(earlier, _)| earlier == text) {
                Some((_, value)) => set(target, key, value),
                None => {
                    let value = JsValue::from_str(text);
                    set(target, key, &value);
                    made.push((text, value));
                }
            }
        });
    }
    swap_long(message, &mut lifted, true);
    result
}

/// Lifts the long strings of `m` into `lifted` (one entry per string, empty for one not lifted),
/// or with `back`, puts them back: a lifted string left its place empty; any other is as it was.
fn swap_long(m: &mut FinalMessage, lifted: &mut Vec<String>, back: bool) {
    let mut i = 0;
    each_string(m, None, &mut |text, _| {
        if !back {
            lifted.push(String::new());
        }
        if let Some(entry) = lifted.get_mut(i) {
            if if back { text.is_empty() } else { text.len() >= LONG } {
                std::mem::swap(text, entry);
            }
        }
        i += 1;
    });
}

// The walk reads and writes the object `JSON.parse` has just made of the message, and every
// place it names is an own data property there (the message's JSON always has `content` and
// `toolCalls`, and `choices` when it has choices): no getter, setter or proxy trap, the
// user's included, runs on them, so `Reflect.get` and `Reflect.set` cannot fail and their
// results are not checked. They stay `catch` imports all the same: a JS exception unwinding
// through Rust would leave the accumulator borrowed for good.

/// Calls `f` on every string of `m` that may be long (text, reasoning, each block's text or
/// arguments, each tool call's arguments, then each choice's, always in this order), with its
/// place in `object`, the JS object of `m`, when one is given.
fn each_string(m: &mut FinalMessage, object: Option<&JsValue>, f: &mut dyn FnMut(&mut String, Place)) {
    let list = |key: &str| object.and_then(|o| js::get(o, &key.into()).ok());
    f(&mut m.text, object.map(|o| (o, "text")));
    f(&mut m.reasoning, object.map(|o| (o, "reasoning")));
    let blocks = list("content");
    for (i, block) in m.content.iter_mut().enumerate() {
        let (key, text) = match block {
            Block::Text { text, .. } | Block::Reasoning { text, .. } => ("text", text),
            Block::ToolCall { arguments, .. } => ("arguments", arguments),
            Block::Other { .. } => continue,
        };
        f(text, item(&blocks, i).as_ref().map(|o| (o, key)));
    }
    let calls = list("toolCalls");
    for (i, call) in m.tool_calls.iter_mut().enumerate() {
        f(&mut call.arguments, item(&calls, i).as_ref().map(|o| (o, "arguments")));
    }
    if let Some(choices) = m.choices.as_mut() {
        let objects = list("choices");
        for (i, choice) in choices.iter_mut().enumerate() {
            each_string(choice, item(&objects, i).as_ref(), f);
        }
    }
}

/// The `i`th element of a JS array, when there is one.
fn item(array: &Option<JsValue>, i: usize) -> Option<JsValue> {
    js::get(array.as_ref()?, &JsValue::from_f64(i as f64)).ok()
}

pub(super) fn set(target: &JsValue, key: &str, value: &JsValue) {
    let _ = js::set(target, &key.into(), value);
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

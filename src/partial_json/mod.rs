//! Live partial JSON: the value of JSON text while it streams in (tool-call arguments, a
//! structured answer), read incrementally, so a chat UI can show it as it grows.
//!
//! Peers re-parse the whole growing text at every delta (quadratic) and show values that
//! flicker (`1`, `12`, `123`). [`PartialJson`] reads each byte once and shows a value only
//! once it can no longer change, except by growing:
//!
//! - A string grows at its end; an escape or a UTF-8 character cut by the end of a piece waits
//!   for the rest. A member whose value is a string appears as soon as the string opens (`""`).
//! - Arrays and objects appear when they open and gain elements and members.
//! - A number, `true`, `false` and `null` appear once complete: a number when a byte that may
//!   follow it does (whitespace, `,`, the container's end), or at the end of the text for a
//!   number that is the whole document. An object key is never shown in part: its member
//!   appears when its value has started in a way that can be shown.
//! - At the end the value is the one the crate's JSON reader (and `JSON.parse`) gives for the
//!   whole text. A key given twice is the one exception to growth: its later value replaces
//!   the earlier one when it starts, where `JSON.parse` also keeps the last.
//! - Text that stops being JSON is `invalid_json` with the byte offset where it stopped and the
//!   path of the open container; the value stays as the last good piece left it, and every
//!   later push returns the same error. Nesting is limited as the crate's reader limits it.
//!
//! The same values come out whatever the splits (inside escapes, `\uXXXX` pairs, numbers,
//! literals, keys): the tests check every split point and random chunkings against a simple
//! reference that reads each prefix on its own.
//!
//! Per piece the reader ([`Parser`]) says what changed, as a list of [`Change`]s applied at the
//! end of the path of open containers. [`PartialJson`] applies them to a [`PartialValue`]
//! (JSON data whose objects keep their members in the order they came, each added in constant
//! time: the crate's [`crate::Map`] keeps keys sorted, which would reorder members as they
//! stream and cost a move of the members after each new key). The JS class of the npm package
//! applies the same list, written by [`write_changes`], copy-on-write, so every subtree a piece
//! did not touch keeps its identity (docs/design.md, "Streaming").
//!
//! Options ([`PartialOptions`]): `lenient` reads model output the way the lenient
//! `parse_structured_output` does (prose and an opening ```` ```json ```` fence skipped up to
//! the object, what follows the object ignored, trailing commas accepted), and `outputs` checks
//! the value against the agent's output properties as it grows: an unknown key, a value of the
//! wrong kind, a required property null or missing when its object closes, a value outside an
//! enum, each `validation_failed` with the path as soon as it is read.

mod parser;
mod schema;
#[cfg(test)]
mod tests;

pub use parser::Parser;

use std::collections::BTreeMap;
use std::fmt;

use crate::error::{Error, ErrorCode, Result};
use crate::json::{Number, Value};
use crate::model::Property;

/// Options of [`PartialJson`] and [`Parser`].
#[derive(Debug, Clone, Default)]
pub struct PartialOptions {
    /// Read model output as the lenient `parse_structured_output` does: skip prose and an
    /// opening ```` ``` ```` fence line before the object (whose `{` starts the value), ignore
    /// what follows the object (a closing fence, more prose), accept trailing commas.
    pub lenient: bool,
    /// The properties of the expected object (an agent's `outputs`), checked as the value
    /// grows; empty: no check.
    pub outputs: Vec<Property>,
}

impl PartialOptions {
    /// The options as JS gives them: `{lenient?: boolean, outputs?: Property[]}`, or null.
    /// A wrong type is `invalid_input` with the path (`options.lenient`).
    pub fn from_json(options: &Value) -> Result<PartialOptions> {
        let Some(map) = options.as_object() else {
            return match options {
                Value::Null => Ok(PartialOptions::default()),
                _ => Err(Error::invalid_input("options", "options must be an object")),
            };
        };
        let lenient = match map.get("lenient") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(lenient)) => *lenient,
            Some(_) => return Err(Error::invalid_input("options.lenient", "expected a boolean")),
        };
        let outputs = match map.get("outputs") {
            None | Some(Value::Null) => Vec::new(),
            Some(outputs) => Property::list_from_json(outputs, "options.outputs")?,
        };
        Ok(PartialOptions { lenient, outputs })
    }
}

/// One change to the value, applied where the path of open containers ends (the top).
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// A member (`key`) of the object at the top, or an element (no key) of the array at the
    /// top, or the document's value when nothing is open yet. With `open`, the value (a string
    /// so far, an empty array or object) becomes the new top and grows by the changes after.
    /// A key the object has already is replaced, in place.
    Add { key: Option<String>, value: Value, open: bool },
    /// Text appended to the string at the top.
    Append(String),
    /// The string, array or object at the top is complete; its parent is the top again.
    Close,
}

/// JSON text read in pieces, and the value so far after each: the Rust side of the npm
/// package's `PartialJson`.
///
/// ```
/// use llm_wire::partial_json::{PartialJson, PartialOptions};
///
/// let mut partial = PartialJson::new(PartialOptions::default());
/// let shown = |value: Option<&_>| value.map(ToString::to_string);
/// assert_eq!(shown(partial.push(r#"{"city": "Par"#).unwrap()).unwrap(), r#"{"city":"Par"}"#);
/// assert_eq!(shown(partial.push(r#"is", "days": 1"#).unwrap()).unwrap(), r#"{"city":"Paris"}"#);
/// assert_eq!(shown(partial.push("2}").unwrap()).unwrap(), r#"{"city":"Paris","days":12}"#);
/// assert_eq!(partial.finish().unwrap().to_string(), r#"{"city":"Paris","days":12}"#);
/// ```
pub struct PartialJson {
    parser: Parser,
    tree: PartialTree,
    changes: Vec<Change>,
}

/// A value built from [`Change`] lists: what [`PartialJson`] shows, and what a caller of the
/// accumulator builds from the changes of its `tool_call_partial` and `output_partial` events
/// (one tree per tool call, one per choice's output).
///
/// ```
/// use llm_wire::partial_json::{Change, PartialTree};
/// use llm_wire::json::Value;
///
/// let mut tree = PartialTree::default();
/// tree.apply(&[Change::Add { key: None, value: Value::Array(Vec::new()), open: true }]);
/// tree.apply(&[Change::Add { key: None, value: Value::from(1i64), open: false }, Change::Close]);
/// assert_eq!(tree.value().unwrap().to_string(), "[1]");
/// ```
#[derive(Default)]
pub struct PartialTree {
    value: Option<PartialValue>,
    /// The open containers and string, from the document's value down.
    open: Vec<Open>,
}

/// An open container or string: where it is in its parent, and for an object where its keys
/// are (so a key given twice finds its member without a search).
struct Open {
    at: usize,
    keys: BTreeMap<String, usize>,
}

impl PartialJson {
    pub fn new(options: PartialOptions) -> Self {
        PartialJson { parser: Parser::new(&options), tree: PartialTree::default(), changes: Vec::new() }
    }

    /// Reads the next piece of text; the value so far (`None` until something can be shown).
    /// On an error the value stays as it was.
    pub fn push(&mut self, text: &str) -> Result<Option<&PartialValue>> {
        self.push_bytes(text.as_bytes())
    }

    /// [`PartialJson::push`] for UTF-8 bytes split anywhere, even inside a character.
    pub fn push_bytes(&mut self, bytes: &[u8]) -> Result<Option<&PartialValue>> {
        self.changes.clear();
        let result = self.parser.push(bytes, &mut self.changes);
        self.settle(result)?;
        Ok(self.tree.value())
    }

    /// Ends the text: the final value, or an error when it is not complete JSON.
    pub fn finish(&mut self) -> Result<&PartialValue> {
        self.changes.clear();
        let result = self.parser.finish(&mut self.changes);
        self.settle(result)?;
        self.tree.value().ok_or_else(|| Error::new(ErrorCode::InvalidJson, "no JSON value in the text"))
    }

    /// The value so far.
    pub fn value(&self) -> Option<&PartialValue> {
        self.tree.value()
    }

    /// What the last call changed (empty after an error).
    pub fn changes(&self) -> &[Change] {
        &self.changes
    }

    /// Applies the changes of a call that succeeded; drops those of one that failed.
    fn settle(&mut self, result: Result<()>) -> Result<()> {
        if let Err(error) = result {
            self.changes.clear();
            return Err(error);
        }
        self.tree.apply(&self.changes);
        Ok(())
    }
}

impl PartialTree {
    /// The value so far: `None` until a change has given the document's value.
    pub fn value(&self) -> Option<&PartialValue> {
        self.value.as_ref()
    }

    /// Applies one list of changes, in order; the value after them.
    pub fn apply(&mut self, changes: &[Change]) -> Option<&PartialValue> {
        for change in changes {
            self.apply_one(change);
        }
        self.value.as_ref()
    }

    fn apply_one(&mut self, change: &Change) {
        let Some(root) = self.value.as_mut() else {
            if let Change::Add { key: None, value, open } = change {
                self.value = Some(value.into());
                if *open {
                    self.open.push(Open { at: 0, keys: BTreeMap::new() });
                }
            }
            return;
        };
        let Some((top, keys)) = top(root, &mut self.open) else { return };
        let at = match (change, top) {
            (Change::Add { key: None, value, .. }, PartialValue::Array(items)) => {
                items.push(value.into());
                items.len() - 1
            }
            (Change::Add { key: Some(key), value, .. }, PartialValue::Object(members)) => match keys.get(key) {
                Some(&at) => {
                    members[at].1 = value.into();
                    at
                }
                None => {
                    keys.insert(key.clone(), members.len());
                    members.push((key.clone(), value.into()));
                    members.len() - 1
                }
            },
            (Change::Append(text), PartialValue::String(s)) => {
                s.push_str(text);
                return;
            }
            (Change::Close, _) => {
                self.open.pop();
                return;
            }
            _ => return,
        };
        if let Change::Add { open: true, .. } = change {
            self.open.push(Open { at, keys: BTreeMap::new() });
        }
    }
}

/// The innermost open value (`open[0]` is `root` itself) and its key index: one step down
/// per level, by position.
fn top<'v, 'o>(
    root: &'v mut PartialValue,
    open: &'o mut [Open],
) -> Option<(&'v mut PartialValue, &'o mut BTreeMap<String, usize>)> {
    let mut node = root;
    for step in open.get(1..)? {
        node = match node {
            PartialValue::Array(items) => items.get_mut(step.at)?,
            PartialValue::Object(members) => &mut members.get_mut(step.at)?.1,
            _ => return None,
        };
    }
    Some((node, &mut open.last_mut()?.keys))
}

/// A value as [`PartialJson`] shows it: JSON data whose objects keep their members in the order
/// they came, as JS objects (and `JSON.parse`) do, so a UI shows each member where it appeared.
/// [`PartialValue::to_value`] gives the crate's [`Value`].
#[derive(Debug, Clone, PartialEq)]
pub enum PartialValue {
    Null,
    Bool(bool),
    Number(Number),
    String(String),
    Array(Vec<PartialValue>),
    /// Members in the order they came; a key given twice holds its last value in its first
    /// place.
    Object(Vec<(String, PartialValue)>),
}

impl PartialValue {
    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&PartialValue> {
        match self {
            PartialValue::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The crate's [`Value`] of it (whose objects are in key order).
    pub fn to_value(&self) -> Value {
        match self {
            PartialValue::Null => Value::Null,
            PartialValue::Bool(b) => Value::Bool(*b),
            PartialValue::Number(n) => Value::Number(*n),
            PartialValue::String(s) => Value::String(s.clone()),
            PartialValue::Array(items) => Value::Array(items.iter().map(PartialValue::to_value).collect()),
            PartialValue::Object(members) => {
                Value::Object(members.iter().map(|(k, v)| (k.clone(), v.to_value())).collect())
            }
        }
    }
}

/// The values changes carry: scalars, strings, empty containers.
impl From<&Value> for PartialValue {
    fn from(value: &Value) -> Self {
        match value {
            Value::Null => PartialValue::Null,
            Value::Bool(b) => PartialValue::Bool(*b),
            Value::Number(n) => PartialValue::Number(*n),
            Value::String(s) => PartialValue::String(s.clone()),
            Value::Array(items) => PartialValue::Array(items.iter().map(PartialValue::from).collect()),
            Value::Object(map) => PartialValue::Object(map.iter().map(|(k, v)| (k.clone(), v.into())).collect()),
        }
    }
}

/// The same JSON data: objects compare as sets of members, whatever their order.
impl PartialEq<Value> for PartialValue {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (PartialValue::Array(a), Value::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(a, b)| a == b),
            (PartialValue::Object(a), Value::Object(b)) => {
                a.len() == b.len() && a.iter().all(|(k, a)| b.get(k).is_some_and(|b| a == b))
            }
            (PartialValue::Null, Value::Null) => true,
            (PartialValue::Bool(a), Value::Bool(b)) => a == b,
            (PartialValue::Number(a), Value::Number(b)) => a == b,
            (PartialValue::String(a), Value::String(b)) => a == b,
            _ => false,
        }
    }
}

/// Compact JSON text, members in the order they came.
impl fmt::Display for PartialValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        self.write(&mut out);
        f.write_str(&out)
    }
}

impl PartialValue {
    fn write(&self, out: &mut String) {
        use crate::json::write;
        match self {
            PartialValue::Null => out.push_str("null"),
            PartialValue::Bool(b) => out.push_str(write::boolean(*b)),
            PartialValue::Number(n) => write::number(out, n),
            PartialValue::String(s) => write::string(out, s),
            PartialValue::Array(items) => write::list(out, items, |out, item| item.write(out)),
            PartialValue::Object(members) => {
                out.push('{');
                for (i, (key, value)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write::string(out, key);
                    out.push(':');
                    value.write(out);
                }
                out.push('}');
            }
        }
    }
}

/// The value of `text`, read as [`PartialJson`] reads a piece: what can be shown of it, or,
/// when it is complete JSON (a bare number included), its value. `None` when nothing can be
/// shown yet; an error when the text cannot be the start of JSON.
pub fn parse_partial_json(text: &str, options: PartialOptions) -> Result<Option<PartialValue>> {
    let mut partial = PartialJson::new(options);
    partial.push(text)?;
    if partial.parser.can_finish() {
        partial.finish()?;
    }
    Ok(partial.tree.value)
}

/// The changes of one piece, for the JS side: one JSON array, read left to right.
///
/// | items | change |
/// |---|---|
/// | `"text"` | append `text` to the string at the top |
/// | `0` | the top is complete |
/// | `1, value` | add `value` to the array at the top (or as the document) |
/// | `2, value` | the same, and `value` (a string so far, `[]`, `{}`) is the new top |
/// | `3, "key", value` | set member `key` of the object at the top |
/// | `4, "key", value` | the same, and `value` is the new top |
///
/// One flat array keeps `JSON.parse` (once per piece) and the JS loop over it cheap.
pub fn write_changes(changes: &[Change], out: &mut String) {
    use crate::json::write;
    out.push('[');
    for (i, change) in changes.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        match change {
            Change::Append(text) => write::string(out, text),
            Change::Close => out.push('0'),
            Change::Add { key, value, open } => {
                let code = match (key, open) {
                    (None, false) => "1,",
                    (None, true) => "2,",
                    (Some(_), false) => "3,",
                    (Some(_), true) => "4,",
                };
                out.push_str(code);
                if let Some(key) = key {
                    write::string(out, key);
                    out.push(',');
                }
                write::value(out, value);
            }
        }
    }
    out.push(']');
}

/// Each string that [`write_changes`] writes as an item of its own (an `Append`'s text, a string
/// value added), with its position in the array: where a long one, written empty, is set after.
#[cfg(any(target_arch = "wasm32", test))]
pub(crate) fn change_strings(changes: &[Change]) -> impl Iterator<Item = (usize, &str)> {
    let mut next = 0;
    changes.iter().filter_map(move |change| {
        let (at, text) = match change {
            Change::Append(text) => (next, Some(text.as_str())),
            Change::Close => (next, None),
            // Its code, its key when it has one, then its value.
            Change::Add { key, value, .. } => (next + 1 + usize::from(key.is_some()), value.as_str()),
        };
        next = at + 1;
        text.map(|text| (at, text))
    })
}

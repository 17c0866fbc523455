//! Request bodies written straight to JSON text, for the wasm exports and `build_request`.
//!
//! The text is byte for byte what `serde_json` writes for the `Value` bodies of
//! [`super::build_chat_args`]: object keys sorted (as [`crate::json::Map`] keeps them), a
//! key set twice keeps its last value, and values carried in from the input (metadata,
//! options, schemas) are written as `serde_json` writes them (`json::write::value`), so numbers
//! come out as they always did.

use std::collections::BTreeMap;

use crate::error::{Error, Result};
use crate::json::{self, write, Value};

/// A JSON object being built: keys with their values as JSON text, written sorted by key. The
/// values sit in a `Vec` and the map holds their positions: the crate's one string-keyed map type.
#[derive(Debug, Default)]
pub(crate) struct Fields {
    positions: BTreeMap<String, usize>,
    values: Vec<String>,
}

impl Fields {
    pub(crate) fn new() -> Self {
        Fields::default()
    }

    /// Sets `key` to the JSON text `json`, replacing an earlier value (as a map insert does).
    pub(crate) fn set(&mut self, key: &str, json: String) {
        match self.positions.get(key) {
            Some(&at) => self.values[at] = json,
            None => self.add(key, json),
        }
    }

    /// Sets `key` only when it is not set yet (`merge_absent`).
    pub(crate) fn set_absent(&mut self, key: &str, json: String) {
        if !self.positions.contains_key(key) {
            self.add(key, json);
        }
    }

    fn add(&mut self, key: &str, json: String) {
        self.positions.insert(key.to_owned(), self.values.len());
        self.values.push(json);
    }

    pub(crate) fn str(&mut self, key: &str, value: &str) {
        self.set(key, text(value));
    }

    pub(crate) fn value(&mut self, key: &str, value: &Value) {
        self.set(key, json(value));
    }

    /// Sets `key` to `true` or `false`.
    pub(crate) fn bool(&mut self, key: &str, value: bool) {
        self.set(key, value.to_string());
    }

    /// The object as JSON text, keys in sorted order.
    pub(crate) fn finish(self) -> String {
        let mut out = String::from("{");
        for (i, (key, &at)) in self.positions.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write::string(&mut out, key);
            out.push(':');
            out.push_str(&self.values[at]);
        }
        out.push('}');
        out
    }
}

/// `value` as a JSON string.
pub(crate) use crate::json::write::quoted as text;

/// A carried-in value as JSON text, as `serde_json` writes it (`json::write::value`).
pub(crate) fn json(value: &Value) -> String {
    let mut out = String::new();
    write::value(&mut out, value);
    out
}

/// A JSON array written as its items come, each already JSON text.
pub(crate) struct Array(String);

impl Array {
    pub(crate) fn new() -> Self {
        Array(String::from("["))
    }

    /// Appends an item given as JSON text (never empty, as JSON text is not).
    pub(crate) fn push(&mut self, json: String) {
        debug_assert!(!json.is_empty(), "an empty array item");
        self.comma();
        self.0.push_str(&json);
    }

    /// Appends the string `value`.
    pub(crate) fn str(&mut self, value: &str) {
        self.comma();
        write::string(&mut self.0, value);
    }

    /// Appends a carried-in value, as `serde_json` writes it.
    pub(crate) fn value(&mut self, value: &Value) {
        self.comma();
        write::value(&mut self.0, value);
    }

    fn comma(&mut self) {
        if self.0.len() > 1 {
            self.0.push(',');
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.len() == 1
    }

    /// The array as JSON text.
    pub(crate) fn finish(mut self) -> String {
        self.0.push(']');
        self.0
    }
}

/// A small object of fixed shape, written as it is built: its fields must come sorted by key
/// (the order [`Fields`] and serde_json write them in; checked in debug builds).
pub(crate) struct Object {
    out: String,
    #[cfg(debug_assertions)]
    last: &'static str,
}

impl Object {
    pub(crate) fn new() -> Self {
        Object {
            out: String::from("{"),
            #[cfg(debug_assertions)]
            last: "",
        }
    }

    fn key(&mut self, key: &'static str) {
        #[cfg(debug_assertions)]
        {
            assert!(self.out.len() == 1 || self.last < key, "object keys out of order: {} then {key}", self.last);
            self.last = key;
        }
        if self.out.len() > 1 {
            self.out.push(',');
        }
        write::string(&mut self.out, key);
        self.out.push(':');
    }

    /// Adds `key` with the string `value`.
    pub(crate) fn str(mut self, key: &'static str, value: &str) -> Self {
        self.key(key);
        write::string(&mut self.out, value);
        self
    }

    /// Adds `key` with the JSON text `json`.
    pub(crate) fn json(mut self, key: &'static str, json: &str) -> Self {
        self.key(key);
        self.out.push_str(json);
        self
    }

    /// Adds `key` with the array `items`.
    pub(crate) fn array(mut self, key: &'static str, items: &Array) -> Self {
        self.key(key);
        self.out.push_str(&items.0);
        self.out.push(']');
        self
    }

    /// The object as JSON text.
    pub(crate) fn finish(mut self) -> String {
        self.out.push('}');
        self.out
    }
}

/// `path.key`, the path of a field.
pub(crate) fn field(path: &str, key: &str) -> String {
    format!("{path}.{key}")
}

/// `path[i]`, the path of an array element.
pub(crate) fn index(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}

/// Text this module wrote, as a `Value` (for the Rust functions that return one). Numbers are
/// read as serde_json reads them (an integer that fits `u64`, or `i64` when negative, stays
/// one), but floats exactly, so every carried-in number comes back as it went in. Fails only on
/// values nested deeper than the reader allows (128).
pub(crate) fn to_value(text: &str) -> Result<Value> {
    json::value::parse_value(text)
        .map_err(|e| Error::invalid_input("agent", format!("the request body cannot be read back: {}", e.message())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fields_are_written_sorted_with_the_last_value_of_a_key_set_twice() {
        let mut fields = Fields::new();
        fields.str("b", "x\"y");
        fields.value("a", &json!({"z": 1.5, "y": [1, -2, 1e300]}).into());
        fields.bool("b", true);
        fields.set_absent("a", "2".into());
        fields.set_absent("c\n", "null".into());
        assert_eq!(fields.finish(), r#"{"a":{"y":[1,-2,1e+300],"z":1.5},"b":true,"c\n":null}"#);
    }

    #[test]
    fn written_text_reads_back_as_the_values_that_went_in() {
        let numbers = [0.1, 0.30000000000000004, -1.638344060600543e-227, 2.6104882325689648e-130, 1e300, -0.0, 2.0];
        let value = json!({"f": numbers, "i": [0, 1, -1, u64::MAX, i64::MIN], "s": "\u{1}\"é", "o": {"b": [true, false, null], "a": {}}});
        let back = to_value(&json(&value.clone().into())).unwrap();
        assert_eq!(back, value);
        let floats: Vec<u64> = back["f"].as_array().unwrap().iter().map(|f| f.as_f64().unwrap().to_bits()).collect();
        assert_eq!(floats, numbers.map(f64::to_bits));
        assert!(back["f"][5].is_f64() && back["f"][6].is_f64() && back["i"][2].is_i64());
    }

    #[test]
    fn arrays_written_in_place_and_paths_match_serde_json_and_the_path_syntax() {
        let mut items = Array::new();
        items.str("a\"b");
        items.value(&json!({"k": [1, null, 1.5]}).into());
        items.push("2".to_owned());
        let written = Object::new().array("items", &items).str("z", "é").finish();
        assert_eq!(written, json!({"items": ["a\"b", {"k": [1, null, 1.5]}, 2], "z": "é"}).to_string());
        assert_eq!(Object::new().array("e", &Array::new()).finish(), r#"{"e":[]}"#);
        assert_eq!(field("messages[0]", "content"), "messages[0].content");
        assert_eq!(index("agent.tools", 12), "agent.tools[12]");
    }

    /// An array of values already written as JSON text.
    fn array(items: Vec<String>) -> String {
        let mut out = Array::new();
        for item in items {
            out.push(item);
        }
        out.finish()
    }

    #[test]
    fn objects_and_arrays_match_serde_json() {
        let written =
            Object::new().json("data", &array(vec![text("é"), json(&json!(null).into())])).str("type", "t").finish();
        assert_eq!(written, json!({"type": "t", "data": ["é", null]}).to_string());
        assert_eq!(array(vec![]), "[]");
        assert_eq!(array(vec!["1".to_owned()]), "[1]");
        assert_eq!(array(vec!["1".to_owned(), "2".to_owned(), "3".to_owned()]), "[1,2,3]");
        assert_eq!(Fields::new().finish(), "{}");
        assert_eq!(Object::new().finish(), "{}");
    }
}

//! Validation of a parsed value against typed properties; the error names the JSON path of the
//! first violation.

use std::collections::HashSet;

use crate::error::{Error, ErrorCode, Result};
use crate::json::write::{quoted, WriteJson};
use crate::json::Value;
use crate::model::Property;

/// The largest integer a JS number holds exactly (2^53 - 1).
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// A JSON path being walked (`$`, `$.items[2].name`, `$["odd key"]`).
pub(crate) struct JsonPath(String);

impl JsonPath {
    pub(crate) fn root() -> Self {
        JsonPath("$".to_owned())
    }

    /// `value` checked against `property`, then the path cut back to `len` (what the segment
    /// push before it returned). A failure leaves the segment on, as every failure ends the walk.
    fn check(&mut self, len: usize, value: &Value, property: &Property) -> Result<()> {
        check(value, property, self)?;
        self.0.truncate(len);
        Ok(())
    }

    /// Adds `.key`, or `["key"]` when the key is not a plain name; returns the length before.
    /// Written into the path itself: no segment string per property.
    fn push_key(&mut self, key: &str) -> usize {
        let len = self.0.len();
        // Bytes, not chars: a non-ASCII character's bytes are none of these either.
        let word = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'$';
        let plain = key.as_bytes().first().is_some_and(|b| !b.is_ascii_digit()) && key.as_bytes().iter().all(word);
        if plain {
            self.0.push('.');
            self.0.push_str(key);
        } else {
            self.0.push('[');
            crate::json::write::string(&mut self.0, key);
            self.0.push(']');
        }
        len
    }

    /// Adds `[i]`; returns the length before.
    fn push_index(&mut self, i: usize) -> usize {
        let len = self.0.len();
        self.0.push_str(&format!("[{i}]"));
        len
    }

    /// A failure here.
    fn fail(&self, message: String) -> Error {
        Error::new(ErrorCode::ValidationFailed, message).with_path(self.0.clone())
    }
}

/// A JSON type name for messages.
pub(crate) fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `value` must be an object with exactly `properties`: required ones present and not null,
/// the others absent or null, no other key.
pub(crate) fn object(value: &Value, properties: &[Property], path: &mut JsonPath) -> Result<()> {
    let Value::Object(map) = value else {
        return Err(path.fail(format!("expected an object, got {}", kind_of(value))));
    };
    for property in properties {
        match map.get(&property.name) {
            None | Some(Value::Null) if property.required => {
                path.push_key(&property.name);
                return Err(path.fail(format!("the required property {} is missing", quoted(&property.name))));
            }
            None | Some(Value::Null) => {}
            Some(v) => {
                let len = path.push_key(&property.name);
                path.check(len, v, property)?;
            }
        }
    }
    // A set of the names: an object and a schema of many keys are not compared pair by pair.
    let names: HashSet<&str> = properties.iter().map(|p| p.name.as_str()).collect();
    if let Some(key) = map.keys().find(|k| !names.contains(k.as_str())) {
        path.push_key(key);
        return Err(path.fail(format!("{} is not a property of the output schema", quoted(key))));
    }
    Ok(())
}

/// The JSON type a property kind wants, by [`kind_of`]'s names; `None` for a kind this parser
/// does not know, which constrains nothing (custom kinds pass through).
fn wanted(kind: &str) -> Option<&'static str> {
    match kind {
        "string" => Some("a string"),
        "boolean" => Some("a boolean"),
        // `integer` also wants a whole number.
        "float" | "number" | "integer" => Some("a number"),
        "array" => Some("an array"),
        "object" => Some("an object"),
        _ => None,
    }
}

/// `value` (not null) must have the property's kind, be one of its enum values, and match its
/// nested properties or items.
fn check(value: &Value, property: &Property, path: &mut JsonPath) -> Result<()> {
    if let Some(want) = wanted(&property.kind) {
        let got = kind_of(value);
        if got != want || (property.kind == "integer" && !is_integer(value)) {
            let got = if got == want { "a non-integer number" } else { got };
            return Err(path.fail(format!("expected {}, got {got}", property.kind)));
        }
    }
    if let Some(allowed) = property.enum_values.as_ref().filter(|e| !e.is_empty()) {
        if !allowed.iter().any(|a| same(a, value)) {
            return Err(path.fail(format!("{} is not one of {}", value.to_json_text(), allowed.to_json_text())));
        }
    }
    match value {
        Value::Object(_) => match property.properties.as_deref() {
            // An object with no declared properties is free-form.
            Some(props) if !props.is_empty() => object(value, props, path),
            _ => Ok(()),
        },
        Value::Array(items) => match property.items.as_deref() {
            Some(item) => {
                for (i, v) in items.iter().enumerate() {
                    let len = path.push_index(i);
                    if v.is_null() {
                        return Err(path.fail("expected an item, got null".to_owned()));
                    }
                    path.check(len, v, item)?;
                }
                Ok(())
            }
            None => Ok(()),
        },
        _ => Ok(()),
    }
}

/// A whole number a JS number holds exactly: `3` and `3.0`, not `3.5` or `1e300`.
fn is_integer(value: &Value) -> bool {
    let Value::Number(n) = value else { return false };
    if let Some(i) = n.as_i64() {
        return (i as f64).abs() <= MAX_SAFE_INTEGER;
    }
    if let Some(u) = n.as_u64() {
        return (u as f64) <= MAX_SAFE_INTEGER;
    }
    n.as_f64().is_some_and(|f| f.fract() == 0.0 && f.abs() <= MAX_SAFE_INTEGER)
}

/// Enum membership: numbers compare by value (`1` matches `1.0`), everything else exactly.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

//! JSON text out, for the stream events handed to JS on every push: written straight into one
//! reused buffer, byte for byte what `serde_json::to_string` writes for the same values.

use super::{Map, Number, Value};

/// Appends `text` as a JSON string: `"` and `\` escaped, control characters as `\n`-style or
/// `\u00XX` escapes, everything else (`/` and all non-ASCII) as is — as `serde_json` does.
#[cfg_attr(llw_speed, optimize(speed))]
pub(crate) fn string(out: &mut String, text: &str) {
    out.push('"');
    let bytes = text.as_bytes();
    let mut from = 0;
    loop {
        // Runs that need no escape are found eight bytes at a time and copied whole.
        let at = super::next_string_stop(bytes, from);
        out.push_str(&text[from..at]);
        let Some(&b) = bytes.get(at) else { break };
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0C => out.push_str("\\f"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push_str("\\u00");
                out.push(HEX[(b >> 4) as usize] as char);
                out.push(HEX[(b & 0xF) as usize] as char);
            }
        }
        from = at + 1;
    }
    out.push('"');
}

/// `text` as a JSON string literal in a new string: a string value of a request body
/// (`request::wire::text`), or a name quoted in a message (as JSON escapes it, not `{:?}`).
pub(crate) fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    string(&mut out, text);
    out
}

/// `true` or `false`.
pub(crate) fn boolean(value: bool) -> &'static str {
    if value {
        "true"
    } else {
        "false"
    }
}

/// Appends an unsigned integer.
#[cfg_attr(llw_speed, optimize(speed))]
pub(crate) fn uint(out: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &digits[at..] {
        out.push(d as char);
    }
}

/// Writes one JSON object field by field: `"key":value` pairs, commas between.
pub(crate) struct Object<'o> {
    out: &'o mut String,
    first: bool,
}

impl<'o> Object<'o> {
    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn new(out: &'o mut String) -> Self {
        out.push('{');
        Object { out, first: true }
    }

    /// Starts a field; the caller writes its value into the returned buffer.
    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn key(&mut self, key: &str) -> &mut String {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        self.out.push('"');
        self.out.push_str(key);
        self.out.push_str("\":");
        self.out
    }

    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn str(&mut self, key: &str, value: &str) {
        string(self.key(key), value);
    }

    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn opt_str(&mut self, key: &str, value: Option<&str>) {
        if let Some(value) = value {
            self.str(key, value);
        }
    }

    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn bool(&mut self, key: &str, value: bool) {
        self.key(key).push_str(boolean(value));
    }

    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn uint(&mut self, key: &str, value: u64) {
        uint(self.key(key), value);
    }

    /// `choice`, which is left out when 0.
    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn choice(&mut self, choice: u32) {
        if choice != 0 {
            self.uint("choice", choice.into());
        }
    }

    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn end(self) {
        self.out.push('}');
    }
}

/// Appends a signed integer.
pub(crate) fn int(out: &mut String, n: i64) {
    if n < 0 {
        out.push('-');
    }
    uint(out, n.unsigned_abs());
}

/// Appends a float as `serde_json` serialises an `f64`: the shortest text that reads back as
/// the same value (`1.0`, `1e+21`, `1e-7`, `-0.0`), and `null` for NaN and the infinities.
pub(crate) fn float(out: &mut String, n: f64) {
    if n.is_finite() {
        super::float::write(out, n);
    } else {
        out.push_str("null");
    }
}

/// Appends a [`Number`] as `serde_json` writes it; ±infinity (read from a literal beyond the
/// double range) as `1e999` / `-1e999`, which `JSON.parse` reads back as ±`Infinity`.
pub(crate) fn number(out: &mut String, n: &Number) {
    if let Some(n) = n.as_u64() {
        uint(out, n);
    } else if let Some(n) = n.as_i64() {
        int(out, n);
    } else {
        let n = n.as_f64().unwrap_or(f64::NAN);
        if n.is_infinite() {
            out.push_str(if n < 0.0 { "-1e999" } else { "1e999" });
        } else {
            float(out, n);
        }
    }
}

/// Appends a [`Value`] as `serde_json::to_string` writes it: compact, strings escaped as
/// above, object keys in the map's (sorted) order.
pub(crate) fn value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(boolean(*b)),
        Value::Number(n) => number(out, n),
        Value::String(s) => string(out, s),
        Value::Array(items) => list(out, items, self::value),
        Value::Object(map) => object(out, map),
    }
}

/// Appends a JSON object of `Value`s, keys in the map's order.
pub(crate) fn object(out: &mut String, map: &Map) {
    out.push('{');
    for (i, (key, item)) in map.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        string(out, key);
        out.push(':');
        value(out, item);
    }
    out.push('}');
}

/// Appends `items` as a JSON array, each written by `write`.
pub(crate) fn list<T>(out: &mut String, items: &[T], mut write: impl FnMut(&mut String, &T)) {
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write(out, item);
    }
    out.push(']');
}

/// A value that writes itself as JSON text, byte for byte what `serde_json::to_string` writes
/// for its `Serialize` form, without serde's serializer (kept out of the wasm module).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) trait WriteJson {
    fn write_json(&self, out: &mut String);

    /// The JSON text in a new string.
    fn to_json_text(&self) -> String {
        let mut out = String::with_capacity(128);
        self.write_json(&mut out);
        out
    }
}

impl<T: WriteJson> WriteJson for [T] {
    fn write_json(&self, out: &mut String) {
        list(out, self, |out, item| item.write_json(out));
    }
}

impl<T: WriteJson> WriteJson for Vec<T> {
    fn write_json(&self, out: &mut String) {
        self.as_slice().write_json(out);
    }
}

impl WriteJson for str {
    fn write_json(&self, out: &mut String) {
        string(out, self);
    }
}

impl WriteJson for String {
    fn write_json(&self, out: &mut String) {
        string(out, self);
    }
}

impl WriteJson for f64 {
    fn write_json(&self, out: &mut String) {
        float(out, *self);
    }
}

impl WriteJson for Number {
    fn write_json(&self, out: &mut String) {
        number(out, self);
    }
}

impl WriteJson for Value {
    fn write_json(&self, out: &mut String) {
        value(out, self);
    }
}

impl WriteJson for Map {
    fn write_json(&self, out: &mut String) {
        object(out, self);
    }
}

#[cfg(test)]
#[path = "write_tests.rs"]
mod tests;

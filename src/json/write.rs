//! JSON text out, for the stream events handed to JS on every push: written straight into one
//! reused buffer, byte for byte what `serde_json::to_string` writes for the same values.

/// Appends `text` as a JSON string: `"` and `\` escaped, control characters as `\n`-style or
/// `\u00XX` escapes, everything else (`/` and all non-ASCII) as is — as `serde_json` does.
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

/// `text` as a JSON string literal, to quote a value in a message (`{:?}` would link the
/// standard library's Unicode tables for its escapes: about 10 KB of the module).
pub(crate) fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    string(&mut out, text);
    out
}

/// Appends an unsigned integer.
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
    pub(crate) fn new(out: &'o mut String) -> Self {
        out.push('{');
        Object { out, first: true }
    }

    /// Starts a field; the caller writes its value into the returned buffer.
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

    pub(crate) fn str(&mut self, key: &str, value: &str) {
        string(self.key(key), value);
    }

    pub(crate) fn opt_str(&mut self, key: &str, value: Option<&str>) {
        if let Some(value) = value {
            self.str(key, value);
        }
    }

    pub(crate) fn uint(&mut self, key: &str, value: u64) {
        uint(self.key(key), value);
    }

    /// `choice`, which is left out when 0.
    pub(crate) fn choice(&mut self, choice: u32) {
        if choice != 0 {
            self.uint("choice", choice.into());
        }
    }

    pub(crate) fn end(self) {
        self.out.push('}');
    }
}

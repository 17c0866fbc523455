//! JSON text to a [`Value`] on this crate's reader, and small `Value` constructors, so the wasm
//! module links neither serde_json's parser nor the `Serialize`-into-`Value` code that `json!`
//! expands to.
//!
//! [`parse_value`] reads what `serde_json::from_str::<serde_json::Value>` reads (default
//! features: the map is a `BTreeMap`, like [`Map`] in key order, a key given twice keeps its
//! last value), and refuses what it refuses:
//! RFC 8259 grammar, escapes, lone surrogates, control characters in strings, nesting deeper
//! than 127 (refused, never recursed into), numbers out of `f64` range, trailing characters.
//! Integers that fit `u64`, or `i64` when negative, are integer numbers (`-0` is the float
//! `-0.0`, as for serde_json); every other number is `str::parse::<f64>`, which is correctly
//! rounded. serde_json's default (non-`float_roundtrip`) parser is not, once the digits exceed
//! 2^53 or the power of ten is beyond 10^22: it can be a unit or two in the last place off
//! (five numbers of the fixtures, `0.0076509169000000005` among them), and refuses as out of
//! range a few numbers just below the largest `f64` (`1.7976931348623158e308`, which is
//! `f64::MAX`). Errors are a [`JsonError`] (what, and the byte offset), not serde_json's text.
//!
//! [`parse_value_as_js`] differs in one thing: a number literal beyond the double range is
//! ±infinity, as JavaScript's `JSON.parse` reads it.

use super::{read_document, JsonError, JsonResult, Kind, Map, Number, Reader, Value};

/// What a number literal beyond the double range (`1e400`) reads as.
#[derive(Clone, Copy, PartialEq, Eq)]
enum OutOfRange {
    /// An error, as serde_json has it.
    Refused,
    /// ±infinity, as `JSON.parse` has it.
    Infinity,
}

/// The one JSON value of `text`.
pub(crate) fn parse_value(text: &str) -> JsonResult<Value> {
    parse_value_bytes(text.as_bytes())
}

/// [`parse_value`] on bytes: strings must be UTF-8 (the only place other bytes could be).
pub(crate) fn parse_value_bytes(src: &[u8]) -> JsonResult<Value> {
    read_document(src, |r| r.value(OutOfRange::Refused))
}

/// The one JSON value of `text` as JavaScript's `JSON.parse` reads it: [`parse_value`], except
/// that a number literal beyond the double range is ±infinity rather than an error.
pub(crate) fn parse_value_as_js(text: &str) -> JsonResult<Value> {
    read_document(text.as_bytes(), |r| r.value(OutOfRange::Infinity))
}

impl Reader<'_> {
    /// The next value as a `Value`. Unlike [`Reader::object`], keys are read strictly (a lone
    /// surrogate escape in a key is an error, as in any string).
    fn value(&mut self, out_of_range: OutOfRange) -> JsonResult<Value> {
        Ok(match self.peek()? {
            Kind::Object => {
                // Members as they come, sorted once at the end (when not in order already).
                let mut members = Vec::new();
                if self.open(Kind::Object, b'}')? == Some(false) {
                    loop {
                        self.skip_ws();
                        if self.src.get(self.pos) != Some(&b'"') {
                            return Err(self.err("expected a key"));
                        }
                        let key = self.string_token()?.into_owned();
                        self.expect(b':', "expected `:`")?;
                        let value = self.value(out_of_range)?;
                        members.push((key, value));
                        if self.closes(b'}', "expected `,` or `}`")? {
                            break;
                        }
                    }
                }
                Value::Object(Map::from_members(members))
            }
            Kind::Array => {
                let mut items = Vec::new();
                if self.open(Kind::Array, b']')? == Some(false) {
                    loop {
                        items.push(self.value(out_of_range)?);
                        if self.closes(b']', "expected `,` or `]`")? {
                            break;
                        }
                    }
                }
                Value::Array(items)
            }
            Kind::String => Value::String(self.string_token()?.into_owned()),
            Kind::Number => {
                let at = self.pos;
                let (text, integer) = self.number_token()?;
                Value::Number(number(text, integer, out_of_range).ok_or(JsonError { what: "number out of range", at })?)
            }
            Kind::Bool | Kind::Null => {
                let first = self.src[self.pos];
                self.skip()?;
                match first {
                    b't' => Value::Bool(true),
                    b'f' => Value::Bool(false),
                    _ => Value::Null,
                }
            }
        })
    }
}

/// A number token as serde_json reads it: an integer fitting `u64` (or `i64` when negative,
/// except `-0`) as an integer, anything else as the nearest `f64`; when that is infinite,
/// `None` or (`JSON.parse`'s reading) ±infinity.
fn number(text: &str, integer: bool, out_of_range: OutOfRange) -> Option<Number> {
    if integer {
        match text.strip_prefix('-') {
            None => {
                if let Ok(n) = text.parse::<u64>() {
                    return Some(n.into());
                }
            }
            Some(_) => match text.parse::<i64>() {
                Ok(n) if n != 0 => return Some(n.into()),
                _ => {}
            },
        }
    }
    // A JSON number token is never NaN.
    let value = super::float::parse(text)?;
    match Number::from_f64(value) {
        None if out_of_range == OutOfRange::Infinity => Some(Number::infinity(value < 0.0)),
        finite => finite,
    }
}

/// `Value::String` of `text`.
pub(crate) fn string(text: &str) -> Value {
    Value::String(text.to_owned())
}

/// An object of `(key, value)` pairs; a key given twice keeps its last value, as in `json!`.
pub(crate) fn object<const N: usize>(fields: [(&str, Value); N]) -> Value {
    Value::Object(fields.into_iter().map(|(key, value)| (key.to_owned(), value)).collect())
}

#[cfg(test)]
mod tests {
    //! `serde_json::from_str::<serde_json::Value>` is the oracle: the same values (floats to the
    //! last bit, which may differ, see the module doc) and the same documents refused, on every
    //! JSON text of the fixtures, their truncations, and generated edge cases.

    use std::path::Path;

    use super::*;

    /// How far apart serde_json's floats may be from ours (correctly rounded), in units in the
    /// last place: its default parser is not exact for long mantissas. 2 is the most these
    /// tests meet (a 45-digit mantissa in `floats_are_correctly_rounded`).
    const SERDE_ULPS: u64 = 2;

    /// Tallies of documents checked against the oracle.
    #[derive(Default, Debug)]
    struct Tally {
        accepted: usize,
        refused: usize,
        /// Floats serde_json read differently, and the largest difference (in ulps).
        inexact: usize,
        max_ulps: u64,
        /// Documents serde_json refused as out of range that are in range (its rounding again).
        serde_overflow: usize,
    }

    impl Tally {
        /// Equal values; floats by their bits, or serde_json's within [`SERDE_ULPS`] of ours.
        fn same(&mut self, ours: &Value, theirs: &Value) -> bool {
            match (ours, theirs) {
                (Value::Number(a), Value::Number(b)) if a.is_f64() && b.is_f64() => {
                    let (a, b) = (a.as_f64().unwrap().to_bits(), b.as_f64().unwrap().to_bits());
                    let ulps = a.abs_diff(b);
                    self.inexact += usize::from(ulps > 0);
                    self.max_ulps = self.max_ulps.max(ulps);
                    ulps <= SERDE_ULPS
                }
                (Value::Array(a), Value::Array(b)) => {
                    a.len() == b.len() && a.iter().zip(b).all(|(a, b)| self.same(a, b))
                }
                (Value::Object(a), Value::Object(b)) => {
                    a.len() == b.len() && a.iter().zip(b).all(|((ka, a), (kb, b))| ka == kb && self.same(a, b))
                }
                _ => ours == theirs,
            }
        }

        /// Checks `doc` against serde_json: both accept it with the same value, or both refuse it.
        /// Returns our value.
        fn agree(&mut self, doc: &[u8]) -> Option<Value> {
            let shown = String::from_utf8_lossy(doc);
            // serde_json's value, converted: the same tree in the crate's type.
            match (parse_value_bytes(doc), serde_json::from_slice::<serde_json::Value>(doc).map(Value::from)) {
                (Ok(ours), Ok(theirs)) => {
                    assert!(self.same(&ours, &theirs), "{shown:?}: ours {ours}, serde_json {theirs}");
                    if let Ok(text) = std::str::from_utf8(doc) {
                        assert_eq!(parse_value(text).as_ref(), Ok(&ours), "{shown:?}: from text and from bytes");
                    }
                    self.accepted += 1;
                    Some(ours)
                }
                (Err(_), Err(_)) => {
                    self.refused += 1;
                    None
                }
                (Ok(ours), Err(e)) if e.to_string().starts_with("number out of range") => {
                    self.serde_overflow += 1;
                    Some(ours)
                }
                (ours, theirs) => panic!("{shown:?}: ours {ours:?}, serde_json {theirs:?}"),
            }
        }
    }

    /// Every JSON text of the fixtures: whole `.json` files and each SSE `data:` line.
    fn fixture_texts() -> Vec<(String, String)> {
        fn walk(dir: &Path, out: &mut Vec<(String, String)>) {
            let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
            entries.sort();
            for path in entries {
                let name = path.display().to_string();
                if path.is_dir() {
                    walk(&path, out);
                } else if name.ends_with(".json") {
                    out.push((name.clone(), std::fs::read_to_string(&path).unwrap()));
                } else if name.ends_with(".sse") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    for (i, line) in text.lines().enumerate() {
                        if let Some(data) = line.strip_prefix("data:") {
                            let data = data.strip_prefix(' ').unwrap_or(data);
                            out.push((format!("{name}:{}", i + 1), data.to_owned()));
                        }
                    }
                }
            }
        }
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
        let mut out = Vec::new();
        walk(&root.join("fixtures"), &mut out);
        walk(&root.join("conformance"), &mut out);
        out
    }

    /// The strings of a value that look like JSON documents themselves (tool arguments,
    /// structured output), for a second round.
    fn embedded_documents(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::String(s) if s.trim_start().starts_with(['{', '[']) => out.push(s.clone()),
            Value::Array(items) => items.iter().for_each(|v| embedded_documents(v, out)),
            Value::Object(map) => map.values().for_each(|v| embedded_documents(v, out)),
            _ => {}
        }
    }

    #[test]
    fn every_fixture_text_reads_as_serde_json_reads_it() {
        let texts = fixture_texts();
        let mut tally = Tally::default();
        let mut embedded = Vec::new();
        let mut json_files = 0;
        for (name, text) in &texts {
            let value = tally.agree(text.as_bytes());
            if name.ends_with(".json") {
                assert!(value.is_some(), "{name} is a JSON file");
                json_files += 1;
            }
            if let Some(value) = value {
                embedded_documents(&value, &mut embedded);
            }
        }
        let whole = tally.accepted;
        for doc in &embedded {
            tally.agree(doc.as_bytes());
        }
        assert!(json_files >= 70, "the fixture .json files are found ({json_files})");
        assert!(whole >= 1900, "the fixture texts are found ({whole}, {tally:?})");
        assert!(tally.accepted - whole >= 40, "tool arguments and such inside them too ({tally:?})");
        assert_eq!(tally.serde_overflow, 0, "{tally:?}");
        // `data: [DONE]` and the lines of multi-line events are not JSON: both refuse them.
        assert!(tally.refused > 0, "{tally:?}");
    }

    #[test]
    fn truncated_and_extended_fixture_texts_are_refused_as_serde_json_refuses_them() {
        let mut tally = Tally::default();
        for (_, text) in fixture_texts() {
            let bytes = text.as_bytes();
            // Every cut of the small texts, about a thousand spread over the large ones.
            let step = (bytes.len() / 1000).max(1);
            for end in (0..bytes.len()).step_by(step).chain([bytes.len().saturating_sub(1)]) {
                tally.agree(&bytes[..end]);
            }
            for tail in [" x", ",", "}", "]", " {}", "\"", "0", "\u{0}", " \n\t\r"] {
                tally.agree(format!("{text}{tail}").as_bytes());
            }
        }
        assert!(tally.refused > 100_000, "{tally:?}");
        assert!(tally.accepted > 2000, "whitespace after a document is fine ({tally:?})");
        assert_eq!(tally.serde_overflow, 0, "{tally:?}");
    }

    /// Edge cases written out: each is checked against the oracle (accepted or refused alike).
    const EDGE_CASES: &[&str] = &[
        // Structure and whitespace.
        "{}",
        "[]",
        " \t\r\n{ \t\r\n\"a\" \t\r\n: \t\r\n[ \t\r\n1 \t\r\n, \t\r\n2 \t\r\n] \t\r\n} \t\r\n",
        "\u{b}1",
        "\u{c}1",
        "\u{a0}1",
        "1\u{a0}",
        "\u{feff}1",
        "",
        "   ",
        "{\"a\":1,}",
        "[1,]",
        "[,1]",
        "[1 2]",
        "{\"a\" 1}",
        "{\"a\":}",
        "{a:1}",
        "{'a':1}",
        "{1:1}",
        "{null:1}",
        "{\"a\":1}}",
        "{\"a\":1",
        "[1]]",
        "[1}",
        "{\"a\":1]",
        "1 2",
        "1 x",
        "nullx",
        "[true,false,null]",
        "tru",
        "truex",
        "True",
        "nul",
        "fals",
        "NaN",
        "Infinity",
        "-Infinity",
        // Duplicate keys: the last value wins.
        "{\"a\":1,\"a\":2}",
        "{\"a\":{\"x\":1},\"b\":0,\"a\":[]}",
        "{\"\\u0061\":1,\"a\":2,\"\\u0061\":3}",
        "[{\"k\":1,\"k\":null},{\"k\":true}]",
        // Strings and escapes.
        "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"",
        "\"\\u0000\\u001f\\u007f\\u0080\\u07ff\\u0800\\uffff\\uFFFD\"",
        "\"\\ud83d\\ude00\\uD83D\\uDE00 \\udbff\\udfff \\ud800\\udc00\"",
        "\"\\ud83d\"",
        "\"\\ude00\"",
        "\"\\ud83d\\u0041\"",
        "\"\\ud83d\\ud83d\\ude00\"",
        "\"\\ud83dx\"",
        "\"\\ud83d\\\"",
        "\"\\ud83d\\n\"",
        "\"\\ud83d\\ude0\"",
        "\"\\ude00\\ud83d\"",
        "{\"\\ud83d\":1}",
        "{\"\\ude00\":1}",
        "{\"\\ud83d\\ude00\":1}",
        "\"\\u12\"",
        "\"\\u12g4\"",
        "\"\\U0041\"",
        "\"\\x41\"",
        "\"\\a\"",
        "\"\\'\"",
        "\"\\",
        "\"\\u",
        "\"abc",
        "\"tab\there\"",
        "\"new\nline\"",
        "\"\u{1}\"",
        "\"\u{1f}\"",
        "\"\u{7f}\"",
        "\"héllo wörld 🎉 中文\"",
        "{\"k\\u0065y\":\"v\\u00e9\"}",
        "\"a long string that crosses several eight byte words before its \\u0021 escape\"",
        // Numbers at the integer edges.
        "0",
        "-0",
        "0.0",
        "-0.0",
        "-0e0",
        "1",
        "-1",
        "18446744073709551615",
        "18446744073709551616",
        "-18446744073709551615",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "-9223372036854775809",
        "00018",
        "123456789012345678901234567890",
        "-123456789012345678901234567890",
        "18446744073709551615.0",
        "1e2",
        "1E+2",
        "1e-2",
        "100e-2",
        // Numbers at the f64 edges.
        "1.7976931348623157e308",
        "1.7976931348623158e308",
        "1.7976931348623159e308",
        "-1.7976931348623157e308",
        "1e308",
        "1e309",
        "-1e309",
        "5e-324",
        "2.4703282292062328e-324",
        "2e-324",
        "1e-400",
        "-1e-400",
        "2.2250738585072011e-308",
        "2.2250738585072014e-308",
        "0e999999999999",
        "0e-999999999999",
        "1e99999999999999999999",
        "1e-99999999999999999999",
        "-1e99999999999999999999",
        "0.1",
        "0.30000000000000004",
        "3.141592653589793",
        "9007199254740993",
        "9007199254740993.0",
        "123456789012345678901234567890.5e-10",
        // Malformed numbers.
        "01",
        "-01",
        "-",
        "--1",
        "+1",
        "1.",
        ".5",
        "1.e5",
        "1e",
        "1e+",
        "1e-",
        "1.5.2",
        "1ee2",
        "0x10",
        "1_000",
        "[1,2,3.]",
        "{\"a\":-}",
    ];

    #[test]
    fn edge_cases_read_as_serde_json_reads_them() {
        let mut tally = Tally::default();
        for doc in EDGE_CASES {
            tally.agree(doc.as_bytes());
            // The same case inside containers and keys, where it is not at the document's end.
            tally.agree(format!("[{doc}]").as_bytes());
            tally.agree(format!("{{\"k\":{doc},\"z\":0}}").as_bytes());
        }
        assert!(tally.accepted > 150 && tally.refused > 150, "{tally:?}");
        // `1.7976931348623158e308` is `f64::MAX` correctly rounded; serde_json's rounding takes it
        // past the range and refuses it (as a document, in the array, in the object).
        assert_eq!(tally.serde_overflow, 3, "{tally:?}");
    }

    #[test]
    fn values_are_the_expected_ones() {
        let v = |doc: &str| parse_value(doc).unwrap();
        assert_eq!(v("{\"a\":1,\"b\":0,\"a\":2}"), serde_json::json!({"a": 2, "b": 0}));
        assert_eq!(v("18446744073709551615"), Value::from(u64::MAX));
        assert_eq!(v("-9223372036854775808"), Value::from(i64::MIN));
        assert!(v("18446744073709551616").is_f64());
        assert!(v("-9223372036854775809").is_f64());
        assert!(v("1.0").is_f64());
        assert_eq!(v("-0").as_f64().map(f64::to_bits), Some((-0.0f64).to_bits()));
        assert_eq!(v("0").as_u64(), Some(0));
        assert_eq!(v("1e-400").as_f64(), Some(0.0));
        assert_eq!(v("\"\\ud83d\\ude00\\u00e9\\n\""), Value::String("😀é\n".into()));
        assert_eq!(v("{\"\\ud83d\\ude00\":[true,false,null]}"), serde_json::json!({"😀": [true, false, null]}));
    }

    #[test]
    fn floats_are_correctly_rounded() {
        // Long mantissas and large exponents, where serde_json's default parser can be a unit or
        // two in the last place off: ours is `str::parse`, exact.
        let mut tally = Tally::default();
        for i in 0..20_000 {
            let [shape, b, c, d] = [0, 1, 2, 3].map(|k| mix(4 * i + k));
            let digits = format!("{b}{c}{d}");
            let int_len = (shape >> 8) as usize % 26;
            let frac_len = (shape >> 16) as usize % 31;
            let mut doc = String::from(if shape & 1 == 0 { "-" } else { "" });
            doc.push_str(if int_len == 0 { "0" } else { &digits[..int_len] });
            if frac_len > 0 {
                doc.push('.');
                doc.push_str(&digits[int_len..int_len + frac_len]);
            }
            if (shape >> 24) % 3 > 0 {
                doc.push_str(&format!("e{}", (shape >> 32) as i64 % 700 - 350));
            }
            let Some(ours) = tally.agree(doc.as_bytes()) else { continue };
            if let Some(f) = ours.as_f64().filter(|_| ours.is_f64()) {
                assert_eq!(f.to_bits(), doc.parse::<f64>().unwrap().to_bits(), "{doc}");
            }
        }
        assert!(tally.accepted > 18_000, "{tally:?}");
        assert!(tally.inexact > 5000, "serde_json's floats differ, ours do not ({tally:?})");
        assert!(tally.refused > 0, "some are out of range ({tally:?})");
    }

    #[test]
    fn nesting_is_refused_at_serde_jsons_limit_without_recursing_further() {
        let mut tally = Tally::default();
        for depth in [1, 2, 64, 126, 127, 128, 129, 200, 100_000] {
            tally.agree(format!("{}{}", "[".repeat(depth), "]".repeat(depth)).as_bytes());
            tally.agree(format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth)).as_bytes());
            tally.agree(format!("{}0{}", "[{\"a\":".repeat(depth), "}]".repeat(depth)).as_bytes());
            // Unclosed: refused for the depth or for the end, never a stack overflow.
            tally.agree("[".repeat(depth).as_bytes());
        }
        assert_eq!(tally.accepted, 12, "{tally:?}");
        let deep = parse_value(&format!("{}{}", "[".repeat(128), "]".repeat(128))).unwrap_err();
        assert_eq!(deep.to_string(), "nested too deeply at byte 127");
        assert!(parse_value(&format!("{}{}", "[".repeat(127), "]".repeat(127))).is_ok());
    }

    #[test]
    fn control_characters_in_strings_are_refused_and_others_kept() {
        let mut tally = Tally::default();
        for c in (0u32..0x80).chain([0x85, 0xa0, 0x2028, 0x2029, 0xfeff, 0x1f389]) {
            let c = char::from_u32(c).unwrap();
            tally.agree(format!("\"a{c}b\"").as_bytes());
            tally.agree(format!("{{\"a{c}b\":0}}").as_bytes());
        }
        assert_eq!(tally.refused, 2 * 0x21, "the 32 controls, and the lone quote ({tally:?})");
    }

    #[test]
    fn invalid_utf8_in_strings_is_refused() {
        let mut tally = Tally::default();
        for doc in [&b"\"ab\xff\""[..], b"{\"\xc3\":1}", b"[\"\xed\xa0\x80\"]", b"\"\xf0\x9f\x8e\"", b"\xef\xbb\xbf1"] {
            tally.agree(doc);
        }
        assert_eq!(tally.refused, 5, "{tally:?}");
    }

    #[test]
    fn errors_say_what_and_where() {
        let err = |doc: &str| parse_value(doc).unwrap_err().to_string();
        assert_eq!(err("{\"a\":1,}"), "expected a key at byte 7");
        assert_eq!(err("[1] x"), "trailing characters at byte 4");
        assert_eq!(err("{\"a\":1"), "unexpected end of input at byte 6");
        assert_eq!(err("[1e400]"), "number out of range at byte 1");
        assert_eq!(err("{\"\\ud83d\":1}"), "lone leading surrogate in hex escape at byte 2");
        assert_eq!(err("\"a\u{1}\""), "control character in a string at byte 2");
        assert_eq!(err(""), "unexpected end of input at byte 0");
    }

    /// Values to combine: every kind, escapes of every sort, numbers at the edges.
    const ATOMS: &[&str] = &[
        "null",
        "true",
        "false",
        "0",
        "-0",
        "-0.0",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "1.7976931348623157e308",
        "5e-324",
        "1e-400",
        "2.5E+3",
        "\"\"",
        "\"a\\\"\\\\\\/\\b\\f\\n\\r\\tb\"",
        "\"\\u00e9\\uD83D\\uDE00 \\ud83d\\ude00 é😀\u{2028}\u{7f}\"",
        "\"\\u0000\\u001F\\uffff\"",
        "[]",
        "{}",
    ];

    /// Two values in documents: nested, with whitespace everywhere, and under duplicate keys
    /// (also spelt with escapes).
    fn documents(a: &str, b: &str) -> [String; 3] {
        [
            format!(" [ {a} ,\n{b}\t]\r\n"),
            format!("{{\"k\":{a},\"\\u006b\":{b},\"j\":{{\"k\" : [{a}] }}}}"),
            format!("[[[{{\"a\":{b}}}]],{{\"a\":{a},\"a\":[{b},{a}]}}]"),
        ]
    }

    /// `doc` with one byte removed, doubled or replaced by a byte that matters to JSON, at every
    /// position.
    fn single_byte_edits(doc: &[u8]) -> impl Iterator<Item = Vec<u8>> + '_ {
        const BYTES: &[u8] = b"\"\\{}[],:0.e-tu \x01\xff";
        (0..doc.len()).flat_map(move |at| {
            let removed = [&doc[..at], &doc[at + 1..]].concat();
            let doubled = [&doc[..=at], &doc[at..]].concat();
            let replaced = BYTES.iter().map(move |&byte| [&doc[..at], &[byte][..], &doc[at + 1..]].concat());
            [removed, doubled].into_iter().chain(replaced)
        })
    }

    #[test]
    fn combined_and_edited_documents_are_judged_as_serde_json_judges_them() {
        let mut tally = Tally::default();
        for a in ATOMS {
            for b in ATOMS {
                for doc in documents(a, b) {
                    assert!(tally.agree(doc.as_bytes()).is_some(), "{doc}");
                }
            }
        }
        assert_eq!(tally.refused, 0);
        // Every single-byte edit of the documents of each atom with itself and with `null`.
        for a in ATOMS {
            for doc in documents(a, a).iter().chain(&documents(a, "null")) {
                for edited in single_byte_edits(doc.as_bytes()) {
                    tally.agree(&edited);
                }
            }
        }
        assert!(tally.accepted > 20_000 && tally.refused > 90_000, "{tally:?}");
    }

    #[test]
    fn constructors_build_what_json_macros_build() {
        let built = object([("b", string("x")), ("a", Value::Null), ("b", object([("c", Value::Bool(true))]))]);
        assert_eq!(built, serde_json::json!({"a": null, "b": {"c": true}}));
        assert_eq!(object([]), serde_json::json!({}));
    }

    /// A well-mixed 64-bit number for `i` (splitmix64's finaliser): where the generated tests
    /// take their digits.
    fn mix(i: u64) -> u64 {
        let mut z = i.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

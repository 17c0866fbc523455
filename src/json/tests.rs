//! The reader is checked against `serde_json` itself: the same documents accepted and refused,
//! the same string values, the same lenient scalar text, on a table of edge cases and on
//! thousands of generated and mutated documents.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::{read_document, validate, Kind, Reader};

/// The reference: what serde-derived structs read for a lenient text field (the crate's own
/// `Scalar` before the reader, kept here as the oracle the reader is checked against).
struct SerdeScalar<'a>(Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for SerdeScalar<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ScalarVisitor;
        impl<'de> Visitor<'de> for ScalarVisitor {
            type Value = SerdeScalar<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(SerdeScalar(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(SerdeScalar(Some(Cow::Owned(v.to_owned()))))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(SerdeScalar(Some(Cow::Owned(v))))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(SerdeScalar(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(SerdeScalar(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                // The text serde_json writes for that f64.
                let text = serde_json::Number::from_f64(v).map_or_else(|| v.to_string(), |n| n.to_string());
                Ok(SerdeScalar(Some(Cow::Owned(text))))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
                Ok(SerdeScalar(Some(Cow::Borrowed(if v { "true" } else { "false" }))))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(SerdeScalar(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(SerdeScalar(None))
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                d.deserialize_any(self)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(SerdeScalar(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(SerdeScalar(None))
            }
        }
        deserializer.deserialize_any(ScalarVisitor)
    }
}

fn serde_accepts(doc: &[u8]) -> bool {
    serde_json::from_slice::<IgnoredAny>(doc).is_ok()
}

const EDGE_CASES: &[&str] = &[
    "{}",
    "[]",
    " \t\r\n{ } \n",
    "{\"a\":1,}",
    "[1,]",
    "[1 2]",
    "{\"a\" 1}",
    "{a:1}",
    "{\"a\":1}}",
    "{\"a\":1",
    "\"abc",
    "\"a\\qb\"",
    "\"a\\u12\"",
    "\"a\\u12g4\"",
    "\"tab\there\"",
    "\"\u{1}\"",
    "\"\\ud83c\\udf89\"",
    "\"\\ud83c\"",
    "\"\\udf89\"",
    "\"\\ud83cx\"",
    "\"\\/\\b\\f\\n\\r\\t\\\"\\\\\"",
    "01",
    "-",
    "-0",
    "1.",
    ".5",
    "1e",
    "1e+",
    "1E-7",
    "-12.5e3",
    "+1",
    "1.5.2",
    "tru",
    "true",
    "truex",
    "nul",
    "null",
    "false",
    "fals",
    "",
    "   ",
    "[[[[]]]]",
    "{\"a\":[{\"b\":{\"c\":[null,true,false,\"x\",1.5e-3]}}]}",
    "\"héllo wörld 🎉\"",
    "{\"k\\u0065y\":\"v\"}",
    "[\"a\" \"b\"]",
    "{\"a\":1 \"b\":2}",
    "1 2",
    "\"\\u0000\"",
    "\"abcdefghijklmnopqrstuvwxyz\\\"0123456789\"",
    "\"abcdefghijklmnop\u{7}qrstuvwxyz\"",
];

#[test]
fn accepts_and_refuses_what_serde_json_does_on_edge_cases() {
    for doc in EDGE_CASES {
        assert_eq!(validate(doc.as_bytes()).is_ok(), serde_accepts(doc.as_bytes()), "{doc:?}");
    }
}

#[test]
fn refuses_invalid_utf8_in_strings_it_returns() {
    let doc = b"\"ab\xff\"";
    let read = read_document(doc, |r| r.string());
    assert!(read.is_err());
    assert!(serde_json::from_slice::<String>(doc).is_err());
}

#[test]
fn nesting_is_bounded_like_serde_json() {
    for depth in [1, 64, 127, 128, 129, 200, 10_000] {
        // serde_json's own limit is on `Value` (its `IgnoredAny` walks without recursing).
        let value_accepts = |doc: &str| serde_json::from_str::<serde_json::Value>(doc).is_ok();
        let doc = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        assert_eq!(validate(doc.as_bytes()).is_ok(), value_accepts(&doc), "depth {depth}");
        let doc = format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth));
        assert_eq!(validate(doc.as_bytes()).is_ok(), value_accepts(&doc), "object depth {depth}");
    }
}

#[test]
fn string_values_equal_serde_jsons() {
    let cases = [
        "\"plain\"",
        "\"\"",
        "\"with \\\"quotes\\\" and \\\\ and \\/\"",
        "\"\\n\\r\\t\\b\\f\"",
        "\"\\u00e9\\u4e2d\\ud83c\\udf89 mixed é\"",
        "\"a long string that crosses several eight byte words before its \\u0021 escape\"",
    ];
    for doc in cases {
        let ours = read_document(doc.as_bytes(), |r| r.string()).unwrap().unwrap();
        let theirs: String = serde_json::from_str(doc).unwrap();
        assert_eq!(ours, theirs, "{doc}");
        let borrowed = matches!(ours, std::borrow::Cow::Borrowed(_));
        assert_eq!(borrowed, !doc.contains('\\'), "{doc}: borrowed only without escapes");
    }
}

#[test]
fn scalars_read_as_the_serde_scalar_reads_them() {
    let cases =
        ["\"text\"", "12", "-3", "12.0", "1.5e2", "0.1", "true", "false", "null", "{\"a\":1}", "[1,2]", "\"\\u0041\""];
    for doc in cases {
        let ours = read_document(doc.as_bytes(), |r| r.scalar()).unwrap();
        let theirs: SerdeScalar<'_> = serde_json::from_str(doc).unwrap();
        assert_eq!(ours, theirs.0, "{doc}");
    }
    // Numbers beyond 64-bit integers and beyond f64.
    let edges = [
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "123456789012345678901234567890",
        "1e308",
        "1e400",
        "-1e400",
        "-0",
        // (serde_json without `float_roundtrip` rounds some long fractions off by one ulp, so
        // those are left out: this reader parses with the standard library, correctly rounded.)
        "2.5e-3",
    ];
    for doc in edges {
        let ours = read_document(doc.as_bytes(), |r| r.scalar());
        let theirs = serde_json::from_str::<SerdeScalar<'_>>(doc);
        match theirs {
            Ok(theirs) => assert_eq!(ours.unwrap(), theirs.0, "{doc}"),
            Err(_) => assert!(ours.is_err(), "{doc}: serde refuses it, so must we"),
        }
    }
}

#[test]
fn index_reads_non_negative_integers_only() {
    let read = |doc: &str| read_document(doc.as_bytes(), |r| r.index()).unwrap();
    assert_eq!(read("3"), Some(3));
    assert_eq!(read("3.0"), Some(3));
    assert_eq!(read("0"), Some(0));
    assert_eq!(read("-1"), None);
    assert_eq!(read("-0"), None);
    assert_eq!(read("1.5"), None);
    assert_eq!(read("\"2\""), None);
    assert_eq!(read("null"), None);
    assert_eq!(read("18446744073709551615"), Some(u64::MAX));
    assert_eq!(read("18446744073709551616"), None);
}

#[test]
fn objects_hand_every_key_and_skip_what_the_caller_leaves() {
    let doc = br#"{"a": 1, "skip": {"deep": [1, {"x": "y"}]}, "k\u0065y": "v", "b": [true, null]}"#;
    let mut seen = Vec::new();
    let mut key_value = None;
    read_document(doc, |r| {
        r.object(|r, key| {
            seen.push(String::from_utf8(key.to_vec()).unwrap());
            if key == b"key" {
                key_value = r.string()?;
            }
            Ok(())
        })
    })
    .unwrap();
    assert_eq!(seen, ["a", "skip", "key", "b"]);
    assert_eq!(key_value.as_deref(), Some("v"));
}

#[test]
fn a_value_of_the_wrong_kind_is_skipped_not_refused() {
    let got = read_document(br#"[{"a":1}, "s", 5]"#, |r| {
        let mut kinds = Vec::new();
        r.array(|r| {
            kinds.push(r.peek()?);
            let is_object = r.object(|_, _| Ok(()))?;
            kinds.push(if is_object { Kind::Object } else { Kind::Null });
            Ok(())
        })?;
        Ok(kinds)
    })
    .unwrap();
    assert_eq!(got, [Kind::Object, Kind::Object, Kind::String, Kind::Null, Kind::Number, Kind::Null]);
}

#[test]
fn raw_returns_the_value_text() {
    let got = read_document(br#"{"u": {"a": [1, 2]} , "n": null}"#, |r| {
        let mut raws = Vec::new();
        r.object(|r, _| {
            raws.push(r.raw_non_null()?);
            Ok(())
        })?;
        Ok(raws)
    })
    .unwrap();
    assert_eq!(got, [Some(r#"{"a": [1, 2]}"#), None]);
}

/// A small seeded generator (xorshift) of JSON documents, rendered with random whitespace.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn ws(&mut self, out: &mut String) {
        for _ in 0..self.below(3) {
            out.push([' ', '\n', '\t', '\r'][self.below(4) as usize]);
        }
    }
    fn string(&mut self, out: &mut String) {
        out.push('"');
        for _ in 0..self.below(24) {
            match self.below(12) {
                0 => out.push_str("\\\""),
                1 => out.push_str("\\\\"),
                2 => out.push_str("\\n"),
                3 => out.push_str("\\u00e9"),
                4 => out.push_str("\\ud83d\\ude00"),
                5 => out.push('é'),
                6 => out.push('😀'),
                _ => out.push((b'a' + self.below(26) as u8) as char),
            }
        }
        out.push('"');
    }
    fn value(&mut self, out: &mut String, depth: u32) {
        self.ws(out);
        match self.below(if depth > 4 { 5 } else { 7 }) {
            0 => out.push_str("null"),
            1 => out.push_str(if self.below(2) == 0 { "true" } else { "false" }),
            2 => out.push_str(["0", "-7", "42", "3.25", "-0.5e-3", "1E9", "123456789012"][self.below(7) as usize]),
            3 | 4 => self.string(out),
            5 => {
                out.push('[');
                let n = self.below(4);
                for i in 0..n {
                    if i > 0 {
                        out.push(',');
                    }
                    self.value(out, depth + 1);
                }
                self.ws(out);
                out.push(']');
            }
            _ => {
                out.push('{');
                let n = self.below(4);
                for i in 0..n {
                    if i > 0 {
                        out.push(',');
                    }
                    self.ws(out);
                    self.string(out);
                    self.ws(out);
                    out.push(':');
                    self.value(out, depth + 1);
                }
                self.ws(out);
                out.push('}');
            }
        }
        self.ws(out);
    }
}

#[test]
fn generated_and_mutated_documents_are_judged_as_serde_json_judges_them() {
    let mut gen = Gen(0x9E37_79B9_7F4A_7C15);
    let mut refused = 0;
    for _ in 0..4000 {
        let mut doc = String::new();
        gen.value(&mut doc, 0);
        assert!(validate(doc.as_bytes()).is_ok(), "{doc}");
        let ours = read_document(doc.as_bytes(), |r| r.scalar()).unwrap();
        let theirs: SerdeScalar<'_> = serde_json::from_str(&doc).unwrap();
        assert_eq!(ours, theirs.0, "{doc}");
        // Mutations: drop, duplicate or replace one byte, or cut the document.
        let mut bytes = doc.into_bytes();
        let at = gen.below(bytes.len() as u64) as usize;
        match gen.below(4) {
            0 => {
                bytes.remove(at);
            }
            1 => bytes.insert(at, bytes[at]),
            2 => bytes[at] = b"\"\\{}[],:0.e-tu \x01"[gen.below(16) as usize],
            _ => bytes.truncate(at),
        }
        let accepted = validate(&bytes).is_ok();
        assert_eq!(accepted, serde_accepts(&bytes), "{:?}", String::from_utf8_lossy(&bytes));
        refused += usize::from(!accepted);
    }
    assert!(refused > 1000, "the mutations must produce invalid documents too ({refused})");
}

#[test]
fn errors_say_what_and_where() {
    let err = validate(b"{\"a\":1,}").unwrap_err();
    assert_eq!(err.to_string(), "expected a key at byte 7");
    let err = validate(b"[1] x").unwrap_err();
    assert_eq!(err.to_string(), "trailing characters at byte 4");
    let mut r = Reader { src: b"\"\\ud83c\"", pos: 0, depth: 0, key_at: 0 };
    assert!(r.string().is_err(), "a lone surrogate is refused where the text is read");
    assert!(validate(b"\"\\ud83c\"").is_ok(), "and not where it is skipped, as in serde_json");
    let keys = read_document(b"{\"\\udf89k\":1}", |r| {
        let mut keys = Vec::new();
        r.object(|_, key| {
            keys.push(String::from_utf8(key.to_vec()).unwrap());
            Ok(())
        })?;
        Ok(keys)
    });
    assert_eq!(keys.unwrap(), ["\u{FFFD}k"], "nor in a key, which is only compared");
}

/// A long string with every kind of escape reads as serde_json reads it, and the bound its buffer
/// is made with (measured before it is decoded) holds its bytes and is below its raw length.
#[test]
fn long_escaped_strings_are_measured_first_and_read_as_serde_reads_them() {
    let piece = r#"a\"b\\c\/d\ne\u0041\u00e9\u20ac\ud83d\ude42 é 🙂 "#;
    for doc in [["\"", &piece.repeat(5000), "\""].concat(), ["\"x", &piece.repeat(3000), "\\n\""].concat()] {
        let ours = read_document(doc.as_bytes(), |r| r.string()).unwrap().unwrap();
        let theirs: String = serde_json::from_str(&doc).unwrap();
        assert_eq!(ours, theirs);
        let bound = super::decoded_bound(doc.as_bytes(), 1);
        assert!(bound >= ours.len() && bound < doc.len(), "bound {bound} for {} bytes", ours.len());
    }
}

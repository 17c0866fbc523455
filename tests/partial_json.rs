//! Live partial JSON against a reference: for every prefix of generated documents (random
//! nesting, strings with escapes and multi-byte characters, numbers of every form, literals,
//! empty containers), split every way, the incremental value is the one a simple recursive
//! reader gives for that prefix on its own; and on the tool-call arguments and structured
//! answers of the recorded fixtures, delta by delta.

mod common;

use std::path::Path;

use common::{random_cuts, Rng};
use llm_wire::partial_json::{parse_partial_json, PartialJson, PartialOptions, PartialValue};
use llm_wire::{Accumulator, AccumulatorOptions, ErrorCode, Number, StreamEvent, Value};

// ---- the reference ------------------------------------------------------------------------

/// What a prefix holds of one value: all of it, or the prefix ends inside it (with what of it
/// can be shown). `Err` is the offset of the first byte no JSON text can have there.
enum Read {
    Done(PartialValue),
    Cut(Option<PartialValue>),
}

/// The reference reader: recursive descent over one prefix, by the rules of the contract.
/// Quadratic over a stream (every prefix read from the start), which is the point.
struct Reference<'a> {
    s: &'a [u8],
    i: usize,
}

impl Reference<'_> {
    /// What `prefix` shows (`None`: nothing yet), or where it stops being JSON.
    fn show(prefix: &[u8]) -> Result<Option<PartialValue>, usize> {
        Ok(match Reference::read(prefix)? {
            Read::Done(value) => Some(value),
            Read::Cut(shown) => shown,
        })
    }

    /// The value of `text` when it is a whole document (the end of the text completes a bare
    /// number: read as if a space followed).
    fn complete(text: &[u8]) -> Option<PartialValue> {
        match Reference::read(&[text, b" "].concat()) {
            Ok(Read::Done(value)) => Some(value),
            _ => None,
        }
    }

    fn read(text: &[u8]) -> Result<Read, usize> {
        let mut r = Reference { s: text, i: 0 };
        let read = r.value(0)?;
        r.ws();
        match r.peek() {
            Some(_) if matches!(read, Read::Done(_)) => Err(r.i),
            _ => Ok(read),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Result<Read, usize> {
        self.ws();
        match self.peek() {
            None => Ok(Read::Cut(None)),
            Some(b'{') => self.object(depth + 1),
            Some(b'[') => self.array(depth + 1),
            Some(b'"') => {
                let (text, done) = self.string()?;
                let value = PartialValue::String(text);
                Ok(if done { Read::Done(value) } else { Read::Cut(Some(value)) })
            }
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b't') => self.literal(b"true", PartialValue::Bool(true)),
            Some(b'f') => self.literal(b"false", PartialValue::Bool(false)),
            Some(b'n') => self.literal(b"null", PartialValue::Null),
            Some(_) => Err(self.i),
        }
    }

    fn object(&mut self, depth: usize) -> Result<Read, usize> {
        if depth > 127 {
            return Err(self.i);
        }
        self.i += 1;
        let mut map = Vec::new();
        // Members in the order they came; a key given twice keeps its place, with the new value.
        let insert =
            |map: &mut Vec<(String, PartialValue)>, key: String, value| match map.iter_mut().find(|(k, _)| *k == key) {
                Some(member) => member.1 = value,
                None => map.push((key, value)),
            };
        self.ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            return Ok(Read::Done(PartialValue::Object(map)));
        }
        loop {
            self.ws();
            match self.peek() {
                None => return Ok(Read::Cut(Some(PartialValue::Object(map)))),
                Some(b'"') => {}
                Some(_) => return Err(self.i),
            }
            let (key, done) = self.string()?;
            self.ws();
            if !done || self.peek().is_none() {
                return Ok(Read::Cut(Some(PartialValue::Object(map))));
            }
            if self.peek() != Some(b':') {
                return Err(self.i);
            }
            self.i += 1;
            match self.value(depth)? {
                Read::Done(value) => insert(&mut map, key, value),
                Read::Cut(shown) => {
                    if let Some(value) = shown {
                        insert(&mut map, key, value);
                    }
                    return Ok(Read::Cut(Some(PartialValue::Object(map))));
                }
            }
            self.ws();
            match self.peek() {
                None => return Ok(Read::Cut(Some(PartialValue::Object(map)))),
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(Read::Done(PartialValue::Object(map)));
                }
                Some(_) => return Err(self.i),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Read, usize> {
        if depth > 127 {
            return Err(self.i);
        }
        self.i += 1;
        let mut items = Vec::new();
        self.ws();
        if self.peek() == Some(b']') {
            self.i += 1;
            return Ok(Read::Done(PartialValue::Array(items)));
        }
        loop {
            match self.value(depth)? {
                Read::Done(value) => items.push(value),
                Read::Cut(shown) => {
                    items.extend(shown);
                    return Ok(Read::Cut(Some(PartialValue::Array(items))));
                }
            }
            self.ws();
            match self.peek() {
                None => return Ok(Read::Cut(Some(PartialValue::Array(items)))),
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(Read::Done(PartialValue::Array(items)));
                }
                Some(_) => return Err(self.i),
            }
        }
    }

    fn literal(&mut self, word: &[u8], value: PartialValue) -> Result<Read, usize> {
        for &want in word {
            match self.peek() {
                None => return Ok(Read::Cut(None)),
                Some(b) if b == want => self.i += 1,
                Some(_) => return Err(self.i),
            }
        }
        Ok(Read::Done(value))
    }

    /// The number here: done when a byte that is not part of it follows, cut at the end.
    fn number(&mut self) -> Result<Read, usize> {
        let start = self.i;
        while matches!(self.peek(), Some(b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')) {
            // The first byte that makes the text no number's beginning ends it or is wrong.
            if !is_number_start(&self.s[start..=self.i]) {
                break;
            }
            self.i += 1;
        }
        let text = std::str::from_utf8(&self.s[start..self.i]).unwrap();
        match self.peek() {
            None => Ok(Read::Cut(None)),
            Some(_) if !is_number(text) => Err(self.i),
            Some(_) => number_value(text).map(Read::Done).ok_or(start),
        }
    }

    /// The string here (at its quote): its text, and whether it closed. The text of a cut
    /// string leaves out an escape or a character the prefix cuts.
    fn string(&mut self) -> Result<(String, bool), usize> {
        self.i += 1;
        let mut out = String::new();
        loop {
            let Some(b) = self.peek() else { return Ok((out, false)) };
            match b {
                b'"' => {
                    self.i += 1;
                    return Ok((out, true));
                }
                0..=0x1F => return Err(self.i),
                b'\\' => match self.escape()? {
                    Some(c) => out.push(c),
                    None => return Ok((out, false)),
                },
                0x80.. => match self.utf8()? {
                    Some(c) => out.push(c),
                    None => return Ok((out, false)),
                },
                _ => {
                    out.push(b as char);
                    self.i += 1;
                }
            }
        }
    }

    /// One multi-byte character, `None` when the prefix cuts it.
    fn utf8(&mut self) -> Result<Option<char>, usize> {
        let start = self.i;
        for len in 1..=4 {
            let Some(bytes) = self.s.get(start..start + len) else { return Ok(None) };
            match std::str::from_utf8(bytes) {
                Ok(text) => {
                    self.i += len;
                    return Ok(text.chars().next());
                }
                Err(e) if e.error_len().is_none() => {}
                Err(_) => return Err(start + len - 1),
            }
        }
        unreachable!("a UTF-8 character has at most four bytes")
    }

    /// One escape (at its `\`), `None` when the prefix cuts it. A `\uXXXX` high surrogate
    /// takes its low half with it; each byte must fit the pattern that is left.
    fn escape(&mut self) -> Result<Option<char>, usize> {
        let start = self.i;
        let Some(kind) = self.s.get(start + 1).copied() else { return Ok(None) };
        if kind == b'u' {
            return self.unicode(start);
        }
        // RFC 8259 §7: the two-character escapes and what they stand for.
        const ESCAPES: [(u8, char); 8] = [
            (b'"', '"'),
            (b'\\', '\\'),
            (b'/', '/'),
            (b'b', '\u{8}'),
            (b'f', '\u{c}'),
            (b'n', '\n'),
            (b'r', '\r'),
            (b't', '\t'),
        ];
        let Some(&(_, simple)) = ESCAPES.iter().find(|(k, _)| *k == kind) else { return Err(start + 1) };
        self.i += 2;
        Ok(Some(simple))
    }

    fn unicode(&mut self, start: usize) -> Result<Option<char>, usize> {
        let Some(high) = self.digits(start + 2, false)? else { return Ok(None) };
        if !(0xD800..=0xDBFF).contains(&high) {
            self.i = start + 6;
            return Ok(Some(char::from_u32(high).unwrap()));
        }
        for (k, want) in [(6, b'\\'), (7, b'u')] {
            match self.s.get(start + k) {
                None => return Ok(None),
                Some(&b) if b == want => {}
                Some(_) => return Err(start + k),
            }
        }
        let Some(low) = self.digits(start + 8, true)? else { return Ok(None) };
        self.i = start + 12;
        Ok(Some(char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)).unwrap()))
    }

    /// Four hex digits at `at`. A low half (`low`) is `dc`-`df` then two more; anything else
    /// must not be one, which its second digit shows.
    fn digits(&self, at: usize, low: bool) -> Result<Option<u32>, usize> {
        let d = |b: u8| b.eq_ignore_ascii_case(&b'd');
        let c_to_f = |b: u8| b"cdefCDEF".contains(&b);
        for k in 0..4 {
            let Some(&b) = self.s.get(at + k) else { return Ok(None) };
            let fits = b.is_ascii_hexdigit()
                && match (low, k) {
                    (true, 0) => d(b),
                    (true, 1) => c_to_f(b),
                    (false, 1) => !(d(self.s[at]) && c_to_f(b)),
                    _ => true,
                };
            if !fits {
                return Err(at + k);
            }
        }
        let text = std::str::from_utf8(&self.s[at..at + 4]).unwrap();
        Ok(Some(u32::from_str_radix(text, 16).unwrap()))
    }
}

/// RFC 8259's number grammar.
fn is_number(t: &str) -> bool {
    let t = t.as_bytes();
    let digits = |mut i: usize| {
        let from = i;
        while t.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        (i > from).then_some(i)
    };
    let mut i = usize::from(t.first() == Some(&b'-'));
    i = match t.get(i) {
        Some(b'0') => i + 1,
        Some(b'1'..=b'9') => digits(i).unwrap(),
        _ => return false,
    };
    if t.get(i) == Some(&b'.') {
        let Some(next) = digits(i + 1) else { return false };
        i = next;
    }
    if matches!(t.get(i), Some(b'e' | b'E')) {
        i += 1 + usize::from(matches!(t.get(i + 1), Some(b'+' | b'-')));
        let Some(next) = digits(i) else { return false };
        i = next;
    }
    i == t.len()
}

/// Whether some number begins with `t`.
fn is_number_start(t: &[u8]) -> bool {
    let t = std::str::from_utf8(t).unwrap();
    is_number(t) || is_number(&format!("{t}0"))
}

/// A number's value as the crate reads it: an integer fitting `u64` (or `i64` when negative,
/// `-0` excepted) as an integer, anything else the nearest `f64`; `None` when that is infinite.
fn number_value(t: &str) -> Option<PartialValue> {
    if !t.contains(['.', 'e', 'E']) {
        if let Ok(n) = t.parse::<u64>() {
            return Some(PartialValue::Number(n.into()));
        }
        if let Ok(n) = t.parse::<i64>().map_err(drop).and_then(|n| if n == 0 { Err(()) } else { Ok(n) }) {
            return Some(PartialValue::Number(n.into()));
        }
    }
    Number::from_f64(t.parse().ok()?).map(PartialValue::Number)
}

// ---- generated documents ------------------------------------------------------------------

/// Random JSON text, up to `depth` levels deep, with whitespace anywhere it may be; with
/// `unique_keys`, no object has a key twice.
fn document(rng: &mut Rng, depth: u32, unique_keys: bool) -> String {
    let mut out = String::new();
    ws(rng, &mut out);
    value(rng, depth, unique_keys, &mut out);
    ws(rng, &mut out);
    out
}

fn pick<'a>(rng: &mut Rng, items: &[&'a str]) -> &'a str {
    items[rng.below(items.len() as u64) as usize]
}

fn ws(rng: &mut Rng, out: &mut String) {
    out.push_str(pick(rng, &["", "", "", " ", "\n  ", "\t", "\r\n", "  "]));
}

fn value(rng: &mut Rng, depth: u32, unique_keys: bool, out: &mut String) {
    let kinds = if depth == 0 { 3 } else { 6 };
    match rng.below(kinds) {
        0 => string(rng, out),
        1 => out.push_str(pick(rng, NUMBERS)),
        2 => out.push_str(pick(rng, &["true", "false", "null"])),
        3 | 4 if rng.below(2) == 0 => {
            let mut keys: Vec<String> = (0..rng.below(5)).map(|_| key(rng)).collect();
            if unique_keys {
                let mut seen = std::collections::HashSet::new();
                keys.retain(|key| seen.insert(serde_json::from_str::<String>(key).unwrap()));
            }
            out.push('{');
            for (i, key) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                ws(rng, out);
                out.push_str(key);
                ws(rng, out);
                out.push(':');
                ws(rng, out);
                value(rng, depth - 1, unique_keys, out);
                ws(rng, out);
            }
            out.push('}');
        }
        _ => {
            out.push('[');
            for i in 0..rng.below(5) {
                if i > 0 {
                    out.push(',');
                }
                ws(rng, out);
                value(rng, depth - 1, unique_keys, out);
                ws(rng, out);
            }
            out.push(']');
        }
    }
}

/// A key: short and often repeated (so some objects have a key twice), sometimes escaped.
fn key(rng: &mut Rng) -> String {
    match rng.below(4) {
        0 => {
            let mut out = String::new();
            string(rng, &mut out);
            out
        }
        _ => pick(rng, &["\"a\"", "\"b\"", "\"name\"", "\"k\\u00e9y\"", "\"日本\"", "\"\"", "\"0\"", "\"__proto__\""])
            .into(),
    }
}

const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "7",
    "42",
    "-13",
    "123456789",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775808",
    "-9223372036854775809",
    "3.25",
    "-0.5",
    "0.1",
    "1e5",
    "1E+5",
    "2.5e-3",
    "-1.0E-10",
    "6.02214076e23",
    "1e-7",
    "0.0",
    "-0.0",
    "100",
    "9007199254740993",
    "1.7976931348623157e308",
    "5e-324",
    "0e0",
    "10.50",
];

fn string(rng: &mut Rng, out: &mut String) {
    out.push('"');
    for _ in 0..rng.below(8) {
        out.push_str(pick(
            rng,
            &[
                "plain",
                " ",
                "a",
                "Z9",
                "é",
                "日本語",
                "🎉",
                "\\\"",
                "\\\\",
                "\\/",
                "\\b",
                "\\f",
                "\\n",
                "\\r",
                "\\t",
                "\\u00e9",
                "\\u0000",
                "\\u001F",
                "\\u4E2d",
                "\\ud83d\\ude00",
                "\\uD834\\uDD1E",
                "\\uFFFF",
                "'",
                "{[,:]}",
            ],
        ));
    }
    out.push('"');
}

// ---- the checks ---------------------------------------------------------------------------

/// The documents most checks run over: generated ones of every depth up to 5.
fn documents(count: u64) -> Vec<String> {
    let mut rng = Rng::new(7);
    (0..count).map(|i| document(&mut rng, (i % 6) as u32, false)).collect()
}

/// Feeds `text` in the pieces its `cuts` make; after each piece the value must be the
/// reference's for the prefix read so far, and at the end its value for the whole text.
fn check_pieces(text: &[u8], cuts: &[usize], what: &str) -> PartialValue {
    let mut partial = PartialJson::new(PartialOptions::default());
    let mut from = 0;
    for &cut in cuts.iter().chain([&text.len()]) {
        let shown = partial.push_bytes(&text[from..cut]).unwrap_or_else(|e| panic!("{what}: {e} after {cut} bytes"));
        let want = Reference::show(&text[..cut]).unwrap();
        let prefix = String::from_utf8_lossy(&text[..cut]);
        assert_eq!(shown, want.as_ref(), "{what}: after {cut} bytes {prefix:?}");
        from = cut;
    }
    let want = Reference::complete(text).unwrap();
    assert_eq!(partial.finish().unwrap(), &want, "{what}: at the end");
    want
}

#[test]
fn every_prefix_of_generated_documents_shows_what_the_reference_shows() {
    for (n, doc) in documents(600).iter().enumerate() {
        let every_byte: Vec<usize> = (1..doc.len()).collect();
        let end = check_pieces(doc.as_bytes(), &every_byte, &format!("document {n} {doc:?} byte by byte")).to_value();
        // The reference itself agrees with serde_json on the whole document.
        let theirs: serde_json::Value = serde_json::from_str(doc).unwrap();
        assert!(end == theirs || has_long_float(doc), "document {n}: the reference reads {end}, serde_json {theirs}");
    }
}

/// Numbers serde_json's default parser may round a unit off (see `json::value`).
fn has_long_float(doc: &str) -> bool {
    ["1.7976931348623157e308", "5e-324", "6.02214076e23", "18446744073709551616", "9223372036854775809"]
        .iter()
        .any(|n| doc.contains(n))
}

#[test]
fn every_split_point_gives_the_same_values() {
    for (n, doc) in documents(300).iter().enumerate() {
        for cut in 0..=doc.len() {
            check_pieces(doc.as_bytes(), &[cut], &format!("document {n} split at {cut}"));
        }
    }
}

#[test]
fn random_chunkings_give_the_same_values() {
    for (n, doc) in documents(600).iter().enumerate() {
        for seed in 0..20 {
            check_pieces(doc.as_bytes(), &random_cuts(doc.len(), seed), &format!("document {n} seed {seed}"));
        }
    }
}

#[test]
fn a_value_once_shown_only_grows() {
    let mut rng = Rng::new(11);
    for n in 0..400 {
        let doc = document(&mut rng, n % 6, true);
        let mut partial = PartialJson::new(PartialOptions::default());
        let mut before: Option<PartialValue> = None;
        for (i, byte) in doc.as_bytes().iter().enumerate() {
            let now = partial.push_bytes(&[*byte]).unwrap().cloned();
            if let (Some(before), Some(now)) = (&before, &now) {
                assert!(grows(before, now), "document {n} {doc:?} at byte {i}: {before} then {now}");
            }
            assert!(before.is_none() || now.is_some(), "document {n}: a value went away at byte {i}");
            before = now;
        }
    }
}

/// Whether `now` is `before` grown: the same scalar, a string extended at its end, an array
/// with the same elements grown and maybe more after, an object with the same members (in
/// the same places) grown and maybe more after.
fn grows(before: &PartialValue, now: &PartialValue) -> bool {
    match (before, now) {
        (PartialValue::String(a), PartialValue::String(b)) => b.starts_with(a.as_str()),
        (PartialValue::Array(a), PartialValue::Array(b)) => {
            a.len() <= b.len() && a.iter().zip(b).all(|(a, b)| grows(a, b))
        }
        (PartialValue::Object(a), PartialValue::Object(b)) => {
            a.len() <= b.len() && a.iter().zip(b).all(|((ka, a), (kb, b))| ka == kb && grows(a, b))
        }
        (a, b) => a == b,
    }
}

#[test]
fn text_that_stops_being_json_fails_at_the_first_wrong_byte_and_keeps_the_last_good_value() {
    let mut rng = Rng::new(99);
    let bad: &[u8] = b"x]}\",:{[0-.eE+\\u\x01\x80\xff\xed\xc3 ";
    let mut checked = 0;
    for doc in documents(400) {
        let mut text = doc.into_bytes();
        if text.is_empty() {
            continue;
        }
        let at = rng.below(text.len() as u64) as usize;
        text[at] = bad[rng.below(bad.len() as u64) as usize];
        // The reference's first prefix that is not JSON's beginning, if any, and where it
        // says the text went wrong (the byte, or the start of a number out of range).
        let stop = (1..=text.len()).find(|&n| Reference::show(&text[..n]).is_err());
        let wrong = stop.and_then(|n| Reference::show(&text[..n]).err());
        let mut partial = PartialJson::new(PartialOptions::default());
        for (i, byte) in text.iter().enumerate() {
            match partial.push_bytes(&[*byte]) {
                Ok(_) => {
                    assert!(stop.map_or(true, |n| i + 1 < n), "{:?}: accepted byte {i}", String::from_utf8_lossy(&text))
                }
                Err(e) => {
                    assert_eq!(Some(i + 1), stop, "{:?}: {e}", String::from_utf8_lossy(&text));
                    assert_eq!(e.code, ErrorCode::InvalidJson);
                    assert!(e.message.ends_with(&format!("at byte {}", wrong.unwrap())), "{e}");
                    let good = Reference::show(&text[..i]).unwrap();
                    assert_eq!(partial.value(), good.as_ref(), "the value of the last good prefix stays");
                    assert_eq!(partial.push("1").unwrap_err(), e, "the error stays");
                    checked += 1;
                    break;
                }
            }
        }
    }
    assert!(checked > 200, "only {checked} corrupted documents failed");
}

#[test]
fn one_shot_reads_what_pushing_the_text_shows_and_completes_what_is_complete() {
    for doc in documents(300) {
        let text = doc.trim_end();
        for cut in (0..=text.len()).filter(|&cut| text.is_char_boundary(cut)) {
            let prefix = &text[..cut];
            let shown = parse_partial_json(prefix, PartialOptions::default()).unwrap();
            let want = Reference::complete(prefix.as_bytes()).or_else(|| Reference::show(prefix.as_bytes()).unwrap());
            assert_eq!(shown, want, "{prefix:?}");
        }
    }
}

// ---- the recorded fixtures ----------------------------------------------------------------

/// The `.sse` fixtures of every stream directory, as (name, bytes).
fn stream_fixtures() -> Vec<(String, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut out = Vec::new();
    for (dir, _) in common::STREAM_DIRS {
        let mut files: Vec<_> = std::fs::read_dir(root.join(dir)).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        for path in files.into_iter().filter(|p| p.extension().is_some_and(|e| e == "sse")) {
            out.push((format!("{dir}/{}", path.file_name().unwrap().to_string_lossy()), std::fs::read(&path).unwrap()));
        }
    }
    out
}

/// Feeds `deltas` one by one: after each, the reference's value of the text so far; at the
/// end, its value of the whole text.
fn check_deltas(deltas: &[String], options: PartialOptions, what: &str) -> Value {
    let mut partial = PartialJson::new(options.clone());
    let mut text = String::new();
    for delta in deltas {
        text.push_str(delta);
        let shown = partial.push(delta).unwrap_or_else(|e| panic!("{what}: {e}"));
        if !options.lenient {
            assert_eq!(shown, Reference::show(text.as_bytes()).unwrap().as_ref(), "{what}: {text:?}");
        }
    }
    partial.finish().unwrap_or_else(|e| panic!("{what}: {e}")).to_value()
}

#[test]
fn tool_call_arguments_of_recorded_streams_read_delta_by_delta() {
    let mut calls = 0;
    for (name, body) in stream_fixtures() {
        let mut acc = Accumulator::new(AccumulatorOptions::default());
        let mut deltas: Vec<Vec<String>> = Vec::new();
        let mut ends = Vec::new();
        let mut events = acc.push(&body).map(<[_]>::to_vec).unwrap_or_default();
        events.extend(acc.flush().iter().cloned());
        for event in events {
            match event {
                StreamEvent::ToolCallDelta { index, arguments_delta, choice: 0 } => {
                    let index = index as usize;
                    deltas.resize_with(deltas.len().max(index + 1), Vec::new);
                    deltas[index].push(arguments_delta);
                }
                StreamEvent::ToolCallEnd { index, arguments, choice: 0, .. } => ends.push((index as usize, arguments)),
                _ => {}
            }
        }
        for (index, arguments) in ends {
            if arguments.trim().is_empty() {
                continue;
            }
            let what = format!("{name} call {index}");
            let end = check_deltas(&deltas[index], PartialOptions::default(), &what);
            let theirs: serde_json::Value = serde_json::from_str(&arguments).unwrap();
            assert_eq!(end, theirs, "{what}");
            // And split every other way.
            let bytes = arguments.as_bytes();
            for cut in 0..=bytes.len() {
                check_pieces(bytes, &[cut], &what);
            }
            calls += 1;
        }
    }
    assert!(calls >= 14, "only {calls} recorded tool calls with arguments");
}

/// The text answers of the recorded fixtures (streamed and not) that are JSON, or JSON in the
/// usual wrapping: read leniently, delta by delta, they end as `parse_structured_output` reads
/// them.
#[test]
fn structured_answers_of_recorded_fixtures_read_leniently_delta_by_delta() {
    let mut answers = 0;
    for (name, body) in stream_fixtures() {
        let mut acc = Accumulator::new(AccumulatorOptions::default());
        let mut events = acc.push(&body).map(<[_]>::to_vec).unwrap_or_default();
        events.extend(acc.flush().iter().cloned());
        let deltas: Vec<String> = events
            .into_iter()
            .filter_map(|e| match e {
                StreamEvent::Text { text, choice: 0 } => Some(text),
                _ => None,
            })
            .collect();
        answers += check_answer(&deltas, &name);
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    for file in [
        "deepseek/vercel-json-output.json",
        "ollama/pyd-local-json-schema.json",
        "openai-chat/gomodel-json-mode.json",
        "openai-chat/pyd-structured-output-json-schema.json",
    ] {
        let body = std::fs::read_to_string(root.join(file)).unwrap();
        let message = llm_wire::to_message(body.as_str(), None).unwrap();
        // Deltas of a few bytes, as a stream would bring them.
        let chars: Vec<char> = message.text.chars().collect();
        let deltas: Vec<String> = chars.chunks(3).map(|c| c.iter().collect()).collect();
        assert_eq!(check_answer(&deltas, file), 1, "{file} holds a JSON answer");
        answers += 1;
    }
    assert!(answers >= 4, "only {answers} recorded JSON answers");
}

/// Checks one text answer given as deltas, when it holds a JSON object; 1 when it did.
fn check_answer(deltas: &[String], what: &str) -> usize {
    let text: String = deltas.concat();
    let options = llm_wire::StructuredOptions { lenient: true };
    let Ok(want) = llm_wire::parse_structured_output(&text, &properties_of(&text), options) else { return 0 };
    let end = check_deltas(deltas, PartialOptions { lenient: true, outputs: Vec::new() }, what);
    assert_eq!(end, want, "{what}");
    1
}

/// Optional properties of any kind named as the keys of the object in `text` (found leniently),
/// so `parse_structured_output` reads it without refusing its keys.
fn properties_of(text: &str) -> Vec<llm_wire::Property> {
    let Ok(Some(PartialValue::Object(members))) =
        parse_partial_json(text, PartialOptions { lenient: true, outputs: Vec::new() })
    else {
        return Vec::new();
    };
    members
        .iter()
        .map(|(name, _)| llm_wire::Property { name: name.clone(), kind: "any".into(), ..Default::default() })
        .collect()
}

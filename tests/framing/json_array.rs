//! The streamed JSON array splitter: arrays built from the Gemini and Vertex recordings' chunks
//! in several white-space styles, edge cases, malformed arrays, limits and hostile input.

use llm_wire::framing::json_array::JsonArrayDecoder;
use llm_wire::sse::SseDecoder;
use llm_wire::{ErrorCode, Limits};

use super::{recordings, run_to_end, same_at_every_split, same_at_random_splits};

/// An element, or the error that ended the stream.
#[derive(Debug, Clone, PartialEq)]
pub enum Got {
    Element(String),
    Failed(ErrorCode, String),
}

fn element(text: &str) -> Got {
    Got::Element(text.to_owned())
}

pub fn decode_with(limits: &Limits, pieces: &[&[u8]]) -> Vec<Got> {
    let mut decoder = JsonArrayDecoder::new(limits);
    let mut out = Vec::new();
    let error = run_to_end(pieces, &mut |piece| match piece {
        Some(piece) => decoder.feed(piece, &mut |bytes| {
            out.push(Got::Element(String::from_utf8(bytes.to_vec()).unwrap()));
            Ok(())
        }),
        None => decoder.finish(),
    });
    if let Some(err) = error {
        out.push(Got::Failed(err.code, err.message.clone()));
    }
    out
}

fn decode(pieces: &[&[u8]]) -> Vec<Got> {
    decode_with(&Limits::default(), pieces)
}

/// The JSON data of each event of a recorded SSE stream.
pub fn sse_chunks(body: &[u8]) -> Vec<String> {
    let mut decoder = SseDecoder::new(&Limits::default());
    let mut out = Vec::new();
    let mut push = |e: llm_wire::sse::SseEvent<'_>| {
        out.push(String::from_utf8(e.data.to_vec()).unwrap());
        Ok(())
    };
    decoder.feed(body, &mut push).unwrap();
    decoder.finish(&mut push).unwrap();
    out
}

/// The recordings of the JSON-array form no one recorded: `(file, chunks)`.
pub fn gemini_chunks() -> Vec<(String, Vec<String>)> {
    let mut all = recordings("gemini", ".sse");
    all.extend(recordings("vertex", ".sse"));
    all.into_iter().map(|(file, body)| (file, sse_chunks(&body))).collect()
}

/// `elements` as one array: `open` before the first, `separator` between two, `close` after
/// the last.
pub fn array(elements: &[String], open: &str, separator: &str, close: &str) -> Vec<u8> {
    [open, &elements.join(separator), close].concat().into_bytes()
}

/// White-space styles around the elements: (name, open, separator, close).
pub const STYLES: &[(&str, &str, &str, &str)] = &[
    ("compact", "[", ",", "]"),
    ("as Google streams it", "[", "\n,\r\n", "\n]"),
    ("one per line with a trailing newline", "[\n", ",\n", "\n]\n"),
    ("with a bom and crlf", "\u{FEFF}[\r\n", "\r\n,\r\n", "\r\n]\r\n"),
    ("with tabs and spaces", " \t[ \t", " \t,\t ", "\t ] \n\n"),
];

#[test]
fn arrays_of_the_gemini_and_vertex_chunks_split_into_those_chunks_in_every_style() {
    for (file, chunks) in gemini_chunks() {
        let want: Vec<Got> = chunks.iter().map(|c| element(c)).collect();
        for (style, open, separator, close) in STYLES {
            let name = format!("{file}, {style}");
            let got = same_at_every_split(&name, &array(&chunks, open, separator, close), &decode);
            assert_eq!(got, want, "{name}");
        }
    }
}

#[test]
fn pretty_printed_elements_split_whole() {
    for (file, chunks) in gemini_chunks() {
        let values: Vec<serde_json::Value> = chunks.iter().map(|c| serde_json::from_str(c).unwrap()).collect();
        let pretty: Vec<String> = values.iter().map(|v| serde_json::to_string_pretty(v).unwrap()).collect();
        let got = same_at_random_splits(&file, &array(&pretty, "[", "\n,\r\n", "\n]\n"), &decode);
        let parsed: Vec<serde_json::Value> = got
            .iter()
            .map(|g| match g {
                Got::Element(text) => serde_json::from_str(text).unwrap(),
                other => panic!("{file}: {other:?}"),
            })
            .collect();
        assert_eq!(parsed, values, "{file}");
    }
}

#[test]
fn elements_are_split_at_their_top_level_only() {
    let cases: &[(&str, &str, &[&str])] = &[
        ("an empty array has no elements", "[]", &[]),
        ("an empty array with white space has no elements", " [ \r\n ] \n", &[]),
        ("brackets and commas inside a string", r#"[{"a":"],[{}"},{"b":1}]"#, &[r#"{"a":"],[{}"}"#, r#"{"b":1}"#]),
        ("an escaped quote does not end a string", r#"[{"a":"x\"],"},2]"#, &[r#"{"a":"x\"],"}"#, "2"]),
        ("an escaped backslash before a quote ends it", r#"[{"a":"x\\"},2]"#, &[r#"{"a":"x\\"}"#, "2"]),
        ("a run of backslashes", r#"[{"a":"\\\\\"\\"}]"#, &[r#"{"a":"\\\\\"\\"}"#]),
        ("a key with brackets", r#"[{"}]":[1,{"[":"{"}]}]"#, &[r#"{"}]":[1,{"[":"{"}]}"#]),
        ("nested arrays", "[[1,[2,[3]]],[]]", &["[1,[2,[3]]]", "[]"]),
        (
            "scalars of every kind",
            r#"[1,-2.5e+3,true,false,null,"s"]"#,
            &["1", "-2.5e+3", "true", "false", "null", r#""s""#],
        ),
        ("scalars with white space", "[ 1 ,\n2\r\n,\t3 ]", &["1", "2", "3"]),
        ("a string element with brackets", r#"["a,]b","[\""]"#, &[r#""a,]b""#, r#""[\"""#]),
        ("utf-8 in an element", r#"[{"t":"héllo — 世界 🎉"}]"#, &[r#"{"t":"héllo — 世界 🎉"}"#]),
        ("white space inside an element is kept", "[{ \"a\" :\r\n 1 }]", &["{ \"a\" :\r\n 1 }"]),
        ("an element with unbalanced kinds of bracket is passed on", "[{]]", &["{]"]),
    ];
    for (name, input, want) in cases {
        let got = same_at_every_split(name, input.as_bytes(), &decode);
        let want: Vec<Got> = want.iter().map(|w| element(w)).collect();
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn a_malformed_array_is_an_error_after_the_elements_before_it() {
    let cases: &[(&str, &[u8], &[&str], &str)] = &[
        ("nothing at all", b"", &[], "the input ended before the JSON array began"),
        ("only white space", b" \n", &[], "the input ended before the JSON array began"),
        ("junk before the array", b"x[1]", &[], "expected [ to open the JSON array (found 'x') at byte 0"),
        ("an object instead of an array", b"{\"a\":1}", &[], "expected [ to open the JSON array (found '{') at byte 0"),
        ("a cut bom", b"\xEF\xBB", &[], "the input ended before the JSON array began"),
        ("a bom cut by another byte", b"\xEF[]", &[], "a broken byte-order mark (found '[') at byte 1"),
        ("junk after the array", b"[1]x", &["1"], "data after the end of the JSON array (found 'x') at byte 3"),
        ("a second array", b"[1][2]", &["1"], "data after the end of the JSON array (found '[') at byte 3"),
        ("an extra bracket", b"[[1]]]", &["[1]"], "data after the end of the JSON array (found ']') at byte 5"),
        (
            "objects without a comma",
            b"[{},{}{}]",
            &["{}", "{}"],
            "expected , or ] after an element of the JSON array (found '{') at byte 6",
        ),
        (
            "scalars without a comma",
            b"[1 2]",
            &["1"],
            "expected , or ] after an element of the JSON array (found '2') at byte 3",
        ),
        (
            "a scalar running into a string",
            b"[1\"a\"]",
            &["1"],
            "expected , or ] after an element of the JSON array (found '\"') at byte 2",
        ),
        ("a trailing comma", b"[1,]", &["1"], "a comma before ] in the JSON array (found ']') at byte 3"),
        ("an empty first element", b"[,1]", &[], "an empty element in the JSON array (found ',') at byte 1"),
        ("an empty element", b"[1,,2]", &["1"], "an empty element in the JSON array (found ',') at byte 3"),
        ("an unbalanced brace", b"[}]", &[], "an unbalanced } in the JSON array (found '}') at byte 1"),
        (
            "a control byte after an element",
            b"[{}\x01]",
            &["{}"],
            "expected , or ] after an element of the JSON array (found byte 0x01) at byte 3",
        ),
        ("no closing bracket", b"[{\"a\":1}\n", &["{\"a\":1}"], "the JSON array ended without its closing ] at byte 9"),
        ("no closing bracket after a comma", b"[1,", &["1"], "the JSON array ended without its closing ] at byte 3"),
        ("a cut object", b"[{\"a\":1},{\"b\"", &["{\"a\":1}"], "the JSON array ended inside an element at byte 13"),
        ("an unterminated string", b"[\"abc", &[], "the JSON array ended inside an element at byte 5"),
        (
            "an unterminated string in an object",
            b"[{\"a\":\"b}]",
            &[],
            "the JSON array ended inside an element at byte 10",
        ),
        ("a cut scalar", b"[12", &[], "the JSON array ended inside an element at byte 3"),
    ];
    for (name, input, before, error) in cases {
        let got = same_at_every_split(name, input, &decode);
        let mut want: Vec<Got> = before.iter().map(|w| element(w)).collect();
        want.push(Got::Failed(ErrorCode::InvalidJson, error.to_string()));
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn an_element_over_a_limit_is_refused_whether_borrowed_or_buffered() {
    let event = Limits { max_event_bytes: 10, max_buffered_bytes: 100, ..Limits::default() };
    let buffered = Limits { max_event_bytes: 100, max_buffered_bytes: 10, ..Limits::default() };
    /// (name, limits, input, elements before the error, the error)
    type Case<'a> = (&'a str, &'a Limits, &'a str, &'a [&'a str], Option<&'a str>);
    let cases: &[Case] = &[
        ("an element of exactly maxEventBytes passes", &event, r#"[1,"12345678"]"#, &["1", r#""12345678""#], None),
        (
            "an element one byte over maxEventBytes is refused",
            &event,
            r#"[1,"123456789"]"#,
            &["1"],
            Some("a JSON array element is larger than maxEventBytes (10 bytes)"),
        ),
        (
            "an unterminated element over maxEventBytes is refused",
            &event,
            r#"[1,{"a":"123456789"#,
            &["1"],
            Some("a JSON array element is larger than maxEventBytes (10 bytes)"),
        ),
        ("an element of exactly maxBufferedBytes passes", &buffered, r#"[[12345678]]"#, &["[12345678]"], None),
        (
            "an element over maxBufferedBytes is refused",
            &buffered,
            r#"[[123456789]]"#,
            &[],
            Some("a JSON array element is larger than maxBufferedBytes (10 bytes)"),
        ),
        ("white space between elements is not held", &event, "[1          ,          2]", &["1", "2"], None),
    ];
    for (name, limits, input, before, error) in cases {
        let got = same_at_every_split(name, input.as_bytes(), &|pieces| decode_with(limits, pieces));
        let mut want: Vec<Got> = before.iter().map(|w| element(w)).collect();
        if let Some(error) = error {
            want.push(Got::Failed(ErrorCode::LimitExceeded, error.to_string()));
        }
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn a_hundred_thousand_elements_come_out_in_order() {
    let elements: Vec<String> =
        (0..100_000).map(|i| format!("{{\"i\":{i},\"s\":\"{}\"}}", ",]".repeat(i % 5))).collect();
    let body = array(&elements, "[", "\n,\r\n", "\n]");
    for pieces in [vec![&body[..]], body.chunks(1).collect(), body.chunks(4096).collect(), body.chunks(7).collect()] {
        let got = decode(&pieces);
        assert_eq!(got.len(), elements.len());
        for (i, (got, want)) in got.iter().zip(&elements).enumerate() {
            assert_eq!(got, &element(want), "element {i}");
        }
    }
}

#[test]
fn deep_nesting_is_counted_not_recursed() {
    let depth = 1_000_000;
    let deep = format!("{}{}", "[{\"a\":".repeat(depth), "}]".repeat(depth));
    let body = format!("[{deep},1]");
    for pieces in [vec![body.as_bytes()], body.as_bytes().chunks(1).collect(), body.as_bytes().chunks(999).collect()] {
        assert_eq!(decode(&pieces), [element(&deep), element("1")]);
    }
}

#[test]
fn a_huge_string_full_of_brackets_is_one_element() {
    let text = "[{\\\"],\\\\".repeat(1 << 20);
    let body = format!("[\"{text}\",{{\"after\":\"{text}\"}}]");
    let want = [element(&format!("\"{text}\"")), element(&format!("{{\"after\":\"{text}\"}}"))];
    for pieces in [vec![body.as_bytes()], body.as_bytes().chunks(1).collect(), body.as_bytes().chunks(65_536).collect()]
    {
        assert_eq!(decode(&pieces), want);
    }
}

/// An element fed one byte at a time is never rescanned: 16 MB of bytes are looked at once each.
#[test]
fn an_element_of_sixteen_megabytes_fed_byte_by_byte_splits() {
    let body = format!("[{{\"a\":\"{}\"}}]", "x\\\"".repeat((16 << 20) / 3 - 10));
    let mut decoder = JsonArrayDecoder::new(&Limits::default());
    let mut lengths = Vec::new();
    for byte in body.as_bytes().chunks(1) {
        decoder
            .feed(byte, &mut |e| {
                lengths.push(e.len());
                Ok(())
            })
            .unwrap();
    }
    decoder.finish().unwrap();
    assert_eq!(lengths, [body.len() - 2]);
}

#[test]
fn an_unterminated_string_is_refused_when_it_passes_the_limit() {
    let limits = Limits { max_event_bytes: 1 << 20, ..Limits::default() };
    let mut decoder = JsonArrayDecoder::new(&limits);
    decoder.feed(b"[{\"a\":\"", &mut |_| panic!("no element")).unwrap();
    let piece = vec![b'x'; 4096];
    let mut fed = 7;
    let err = loop {
        match decoder.feed(&piece, &mut |_| panic!("no element")) {
            Ok(()) => fed += piece.len(),
            Err(err) => break err,
        }
        assert!(fed <= 1 << 20, "fed {fed} bytes without an error");
    };
    assert_eq!(err.code, ErrorCode::LimitExceeded);
    // Refused with the piece that took the held element (from its `{`) past the limit.
    let held_after = |pieces: usize| 6 + pieces * piece.len();
    let accepted = (fed - 7) / piece.len();
    assert!(held_after(accepted) <= 1 << 20 && held_after(accepted + 1) > 1 << 20, "{accepted} pieces accepted");
}

#[test]
fn an_error_from_the_caller_stops_the_decoder_after_that_element() {
    let mut decoder = JsonArrayDecoder::new(&Limits::default());
    let mut seen = Vec::new();
    let err = decoder
        .feed(b"[1,2,3]", &mut |e| {
            seen.push(e.to_vec());
            match e {
                b"2" => Err(llm_wire::Error::new(ErrorCode::ProviderError, "stop here")),
                _ => Ok(()),
            }
        })
        .unwrap_err();
    assert_eq!(err.message, "stop here");
    assert_eq!(seen, [b"1", b"2"]);
    assert_eq!(decoder.finish().unwrap_err(), err);
}

#[test]
fn a_finished_decoder_takes_a_new_array() {
    let mut decoder = JsonArrayDecoder::new(&Limits::default());
    let mut seen = Vec::new();
    for body in [&b"[1]"[..], b"\xEF\xBB\xBF[2]"] {
        decoder
            .feed(body, &mut |e| {
                seen.push(e.to_vec());
                Ok(())
            })
            .unwrap();
        decoder.finish().unwrap();
    }
    assert_eq!(seen, [b"1", b"2"]);
}

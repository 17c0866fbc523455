//! The rules of partial JSON in tables: what a text shows, where it fails, the changes each
//! piece makes, lenient reading, schema checks. The reference comparison over generated
//! documents and the fixtures is `tests/partial_json.rs`.

use super::*;
use crate::json::value::parse_value;

/// `text` pushed in one piece: what it shows, as JSON text (`-` for nothing).
fn shown(text: &str, options: PartialOptions) -> Result<String> {
    let mut partial = PartialJson::new(options);
    Ok(partial.push(text)?.map_or("-".into(), |v| v.to_string()))
}

#[test]
fn what_a_prefix_shows() {
    let table = [
        ("", "-"),
        ("  ", "-"),
        ("{", "{}"),
        (r#"{""#, "{}"),
        (r#"{"ke"#, "{}"),
        (r#"{"key""#, "{}"),
        (r#"{"key":"#, "{}"),
        (r#"{"key": ""#, r#"{"key":""}"#),
        (r#"{"key": "va"#, r#"{"key":"va"}"#),
        (r#"{"key": 1"#, "{}"),
        (r#"{"key": 12"#, "{}"),
        (r#"{"key": 12 "#, r#"{"key":12}"#),
        (r#"{"key": 12,"#, r#"{"key":12}"#),
        (r#"{"key": -"#, "{}"),
        (r#"{"key": 1.5e"#, "{}"),
        (r#"{"key": 1.5e3}"#, r#"{"key":1500.0}"#),
        (r#"{"key": t"#, "{}"),
        (r#"{"key": tru"#, "{}"),
        (r#"{"key": true"#, r#"{"key":true}"#),
        (r#"{"key": nul"#, "{}"),
        (r#"{"key": null"#, r#"{"key":null}"#),
        (r#"{"key": ["#, r#"{"key":[]}"#),
        (r#"{"key": [1, 2"#, r#"{"key":[1]}"#),
        (r#"{"key": [1, 2]"#, r#"{"key":[1,2]}"#),
        (r#"{"key": {"#, r#"{"key":{}}"#),
        (r#"{"a": {"b": [{"c": "d"#, r#"{"a":{"b":[{"c":"d"}]}}"#),
        ("[", "[]"),
        ("[[], {}, \"\"", r#"[[],{},""]"#),
        ("7", "-"),
        ("-0", "-"),
        ("7 ", "7"),
        ("\"", "\"\""),
        ("\"ab", "\"ab\""),
        ("true", "true"),
        ("fals", "-"),
        // An escape or a character cut by the end waits for the rest.
        (r#""a\"#, "\"a\""),
        (r#""a\u00"#, "\"a\""),
        (r#""a\u00e9"#, "\"aé\""),
        (r#""a\ud83d"#, "\"a\""),
        (r#""a\ud83d\"#, "\"a\""),
        (r#""a\ud83d\ude0"#, "\"a\""),
        (r#""a\ud83d\ude00"#, "\"a😀\""),
        (r#"{"k\u00e9y": 1}"#, r#"{"kéy":1}"#),
        // A key given twice: the later value replaces the earlier one when it starts.
        (r#"{"a": [1], "a": "#, r#"{"a":[1]}"#),
        (r#"{"a": [1], "a": ""#, r#"{"a":""}"#),
    ];
    for (text, want) in table {
        assert_eq!(shown(text, PartialOptions::default()).unwrap(), want, "{text:?}");
    }
}

#[test]
fn a_utf8_character_cut_between_pieces_waits_for_its_last_byte() {
    let text = "[\"日\"]".as_bytes();
    let mut partial = PartialJson::new(PartialOptions::default());
    assert_eq!(partial.push_bytes(&text[..3]).unwrap().unwrap().to_string(), r#"[""]"#);
    assert_eq!(partial.push_bytes(&text[3..4]).unwrap().unwrap().to_string(), r#"[""]"#);
    assert_eq!(partial.push_bytes(&text[4..]).unwrap().unwrap().to_string(), r#"["日"]"#);
    assert!(partial.changes().iter().any(|c| *c == Change::Append("日".into())));
}

/// `text` pushed in one piece, then finished: the error.
fn failure(text: &[u8], options: PartialOptions) -> Error {
    let mut partial = PartialJson::new(options);
    match partial.push_bytes(text) {
        Ok(_) => partial.finish().map(drop).unwrap_err(),
        Err(e) => e,
    }
}

#[test]
fn text_that_is_not_json_fails_at_its_first_wrong_byte() {
    let table: &[(&[u8], &str, &str)] = &[
        (b"x", "expected a value at byte 0", "$"),
        (b"{x", "expected a key at byte 1", "$"),
        (b"{\"a\" 1", "expected `:` at byte 5", "$"),
        (b"{\"a\":1 2", "expected `,` or `}` at byte 7", "$"),
        (b"[1 2", "expected `,` or `]` at byte 3", "$"),
        (b"[1,]", "expected a value at byte 3", "$"),
        (b"{\"a\":1,}", "expected a key at byte 7", "$"),
        (b"[1}", "expected `,` or `]` at byte 2", "$"),
        (b"{\"a\": [tx", "expected a value at byte 8", "$.a"),
        (b"{\"a\": [[1x", "expected `,` or `]` at byte 9", "$.a[0]"),
        (b"01", "trailing characters at byte 1", "$"),
        (b"-a", "invalid number at byte 1", "$"),
        (b"1.e", "invalid number at byte 2", "$"),
        (b"[1e+]", "invalid number at byte 4", "$"),
        (b"[1e400]", "number out of range at byte 1", "$"),
        (b"1 2", "trailing characters at byte 2", "$"),
        (b"\"a\nb\"", "control character in a string at byte 2", "$"),
        (b"\"\\x\"", "invalid escape at byte 2", "$"),
        (b"\"\\u12g4\"", "invalid escape at byte 5", "$"),
        (b"\"\\udc00\"", "lone trailing surrogate in hex escape at byte 4", "$"),
        (b"\"\\ud800x\"", "lone leading surrogate in hex escape at byte 7", "$"),
        (b"\"\\ud800\\n\"", "lone leading surrogate in hex escape at byte 8", "$"),
        (b"\"\\ud800\\u0041\"", "lone leading surrogate in hex escape at byte 9", "$"),
        (b"\"\\ud800\\ud800\"", "lone leading surrogate in hex escape at byte 10", "$"),
        (b"\"\xff\"", "invalid UTF-8 in a string at byte 1", "$"),
        (b"\"\xe6\x97\"", "invalid UTF-8 in a string at byte 3", "$"),
        (b"\"\xe6A\"", "invalid UTF-8 in a string at byte 2", "$"),
        (b"\"\xed\xa0\x80\"", "invalid UTF-8 in a string at byte 2", "$"),
        (b"{\"a\":", "unexpected end of input at byte 5", "$"),
        (b"\"ab", "unexpected end of input at byte 3", "$"),
        (b"\"\\u00", "unexpected end of input at byte 5", "$"),
        (b"-", "unexpected end of input at byte 1", "$"),
        (b"", "unexpected end of input at byte 0", "$"),
    ];
    for &(text, message, path) in table {
        let e = failure(text, PartialOptions::default());
        let shown = String::from_utf8_lossy(text);
        assert_eq!(
            (e.code, e.message.as_str(), e.path.as_deref()),
            (ErrorCode::InvalidJson, message, Some(path)),
            "{shown:?}"
        );
        // The crate's reader refuses the same texts.
        assert!(parse_value(&shown).is_err() || !shown.is_ascii(), "{shown:?}");
    }
}

#[test]
fn an_error_keeps_the_last_good_value_and_comes_back_on_every_later_call() {
    let mut partial = PartialJson::new(PartialOptions::default());
    partial.push(r#"{"a": [1, "b"#).unwrap();
    let e = partial.push(r#"c", 2 3]"#).unwrap_err();
    assert_eq!(e.message, "expected `,` or `]` at byte 18");
    // Nothing of the failed piece is applied, not even what came before the wrong byte.
    assert_eq!(partial.value().unwrap().to_string(), r#"{"a":[1,"b"]}"#);
    assert!(partial.changes().is_empty());
    assert_eq!(partial.push("]}").unwrap_err(), e);
    assert_eq!(partial.finish().unwrap_err(), e);
}

#[test]
fn push_after_finish_is_refused() {
    let mut partial = PartialJson::new(PartialOptions::default());
    partial.push("[1]").unwrap();
    assert_eq!(partial.finish().unwrap().to_string(), "[1]");
    assert_eq!(partial.push(" ").unwrap_err().code, ErrorCode::Finished);
}

#[test]
fn nesting_is_limited_as_the_crate_reader_limits_it() {
    let deepest = "[".repeat(127) + &"]".repeat(127);
    assert!(parse_value(&deepest).is_ok());
    assert_eq!(
        parse_partial_json(&deepest, PartialOptions::default()).unwrap().unwrap(),
        parse_value(&deepest).unwrap()
    );
    let too_deep = "[".repeat(128);
    let e = failure(too_deep.as_bytes(), PartialOptions::default());
    assert_eq!(e.message, "nested too deeply at byte 127");
    assert!(parse_value(&(too_deep + &"]".repeat(128))).is_err());
}

#[test]
fn one_shot_completes_a_whole_document_and_shows_a_partial_one() {
    let table = [
        ("42", "42"),
        ("42 ", "42"),
        ("-", "-"),
        ("[1, 4", "[1]"),
        (r#"{"a": tr"#, "{}"),
        (r#"{"a": "b"}"#, r#"{"a":"b"}"#),
        ("", "-"),
    ];
    for (text, want) in table {
        let value = parse_partial_json(text, PartialOptions::default()).unwrap();
        assert_eq!(value.map_or("-".into(), |v| v.to_string()), want, "{text:?}");
    }
    assert_eq!(
        parse_partial_json("[1,,", PartialOptions::default()).unwrap_err().message,
        "expected a value at byte 3"
    );
}

/// The change list each piece writes, for the JS side.
fn change_lists(pieces: &[&str]) -> Vec<String> {
    let mut partial = PartialJson::new(PartialOptions::default());
    let mut lists = Vec::new();
    for piece in pieces {
        partial.push(piece).unwrap();
        let mut out = String::new();
        write_changes(partial.changes(), &mut out);
        lists.push(out);
    }
    partial.finish().unwrap();
    let mut out = String::new();
    write_changes(partial.changes(), &mut out);
    lists.push(out);
    lists
}

#[test]
fn each_piece_says_what_it_changed_in_one_flat_list() {
    let table: &[(&[&str], &[&str])] = &[
        (&["{", "}"], &[r#"[2,{}]"#, "[0]", "[]"]),
        (&["{}"], &[r#"[1,{}]"#, "[]"]),
        // A string opened and closed in one piece is one complete member.
        (&[r#"{"a": "xy"}"#], &[r#"[2,{},3,"a","xy",0]"#, "[]"]),
        // A string that grows over pieces: opened, appended to, closed.
        (&[r#"{"a": "x"#, "y", r#"z"}"#], &[r#"[2,{},4,"a","x"]"#, r#"["y"]"#, r#"["z",0,0]"#, "[]"]),
        (&[r#"["a\n"#, r#"\u00e9"]"#], &[r#"[2,[],2,"a\n"]"#, r#"["é",0,0]"#, "[]"]),
        // A piece inside an escape changes nothing.
        (&[r#"["\u00"#, r#"e9"]"#], &[r#"[2,[],2,""]"#, r#"["é",0,0]"#, "[]"]),
        // Numbers appear when a delimiter follows, a bare one at the end.
        (&["[1", "2,", "3]"], &[r#"[2,[]]"#, "[1,12]", "[1,3,0]", "[]"]),
        (&["12", "3"], &["[]", "[]", "[1,123]"]),
        (&[r#"{"a": [tr"#, r#"ue, {}, []]}"#], &[r#"[2,{},4,"a",[]]"#, r#"[1,true,1,{},1,[],0,0]"#, "[]"]),
        (&[r#"{"k": 1.50, "n": null}"#], &[r#"[2,{},3,"k",1.5,3,"n",null,0]"#, "[]"]),
    ];
    for (pieces, want) in table {
        assert_eq!(change_lists(pieces), *want, "{pieces:?}");
    }
}

/// Every string a change list holds as an item is found at its position in the written list:
/// where the wasm module sets a long one after `JSON.parse`.
#[test]
fn each_change_string_is_at_its_position_in_the_list() {
    let documents: &[&[&str]] = &[
        &[r#"{"a": "x"#, "y", r#"z", "b": ["p", "q"#, r#"", 1, {"c": "r"}]}"#],
        &[r#"["s", "#, r#""t"]"#],
        &[r#"{"k": 1, "m": {"n": "#, r#""o", "p": [true, "u"#, r#"v"]}}"#],
    ];
    for pieces in documents {
        let mut partial = PartialJson::new(PartialOptions::default());
        let mut found = 0;
        for piece in *pieces {
            partial.push(piece).unwrap();
            let mut out = String::new();
            write_changes(partial.changes(), &mut out);
            let Value::Array(items) = parse_value(&out).unwrap() else { panic!("{out}") };
            for (at, text) in change_strings(partial.changes()) {
                assert_eq!(items[at].as_str(), Some(text), "{out} at {at}");
                found += 1;
            }
        }
        assert!(found >= 2, "{pieces:?}");
    }
}

#[test]
fn every_change_list_is_json() {
    for pieces in [&["[\"\\u0001\\\"", "\u{2028}\"]"][..], &["{\"\\\"\": \"", "\"}"]] {
        for list in change_lists(pieces) {
            assert!(parse_value(&list).is_ok(), "{list}");
        }
    }
}

fn lenient() -> PartialOptions {
    PartialOptions { lenient: true, outputs: Vec::new() }
}

#[test]
fn lenient_mode_reads_model_output_as_the_lenient_structured_output_parser_does() {
    let table = [
        (r#"{"a": 1}"#, r#"{"a":1}"#),
        ("Here you go:\n```json\n{\"a\": [1, 2,], \"b\": 2,}\n```\nAnything else?", r#"{"a":[1,2],"b":2}"#),
        ("Sure! {\"a\": \"x`y\"} and more prose { unbalanced", r#"{"a":"x`y"}"#),
        ("```\n{\"a\": true}\n```", r#"{"a":true}"#),
        ("``json {\"a\": 0}", r#"{"a":0}"#),
    ];
    for (text, want) in table {
        let mut partial = PartialJson::new(lenient());
        for piece in text.as_bytes().chunks(3) {
            partial.push_bytes(piece).unwrap();
        }
        assert_eq!(partial.finish().unwrap().to_string(), want, "{text:?}");
        let options = crate::StructuredOptions { lenient: true };
        let outputs = ["a", "b"].map(|name| Property { name: name.into(), kind: "any".into(), ..Default::default() });
        let theirs = crate::parse_structured_output(text, &outputs, options).unwrap();
        assert_eq!(theirs.to_string(), want, "{text:?}: parse_structured_output");
    }
    assert_eq!(shown("prose ```json\n", lenient()).unwrap(), "-");
    assert_eq!(shown("prose ```json\n{\"a\": \"b", lenient()).unwrap(), r#"{"a":"b"}"#);
    let table = [
        ("no object here", "no JSON object in the text at byte 14"),
        ("```json\nnone\n```", "no JSON object in the fenced block at byte 15"),
        ("```json\n{\"a\": 1\n```", "expected `,` or `}` at byte 16"),
        ("[1, 2]", "no JSON object in the text at byte 6"),
    ];
    for (text, want) in table {
        assert_eq!(failure(text.as_bytes(), lenient()).message, want, "{text:?}");
    }
}

/// Output properties: `city` (string, required), `days` (integer), `tags` (strings),
/// `unit` ("c" or "f"), `where` (an object with a number `lat`).
fn outputs() -> Vec<Property> {
    let property = |name: &str, kind: &str| Property { name: name.into(), kind: kind.into(), ..Default::default() };
    vec![
        Property { required: true, ..property("city", "string") },
        property("days", "integer"),
        Property { items: Some(Box::new(property("", "string"))), ..property("tags", "array") },
        Property { enum_values: Some(vec!["c".into(), "f".into()]), ..property("unit", "string") },
        Property { properties: Some(vec![property("lat", "number")]), ..property("where", "object") },
        property("notes", "object"),
    ]
}

#[test]
fn a_partial_answer_that_breaks_the_schema_says_so_when_it_is_read() {
    let table = [
        (
            r#"{"city": "Paris", "extra""#,
            r#"{"city":"Paris"}"#,
            "\"extra\" is not a property of the output schema",
            "$.extra",
        ),
        (r#"{"days": "#, "{}", "", ""),
        (r#"{"days": ""#, "{}", "expected integer, got a string", "$.days"),
        (r#"{"days": 1.5,"#, "{}", "expected integer, got a non-integer number", "$.days"),
        (r#"{"days": 2.0,"#, r#"{"days":2.0}"#, "", ""),
        (r#"{"tags": ["a", 1"#, r#"{"tags":["a"]}"#, "expected string, got a number", "$.tags[1]"),
        (r#"{"tags": ["a", null"#, r#"{"tags":["a"]}"#, "expected an item, got null", "$.tags[1]"),
        (r#"{"unit": "c"#, r#"{"unit":"c"}"#, "", ""),
        (r#"{"unit": "k"#, r#"{"unit":""}"#, "a string beginning \"k\" is not one of [\"c\",\"f\"]", "$.unit"),
        (r#"{"unit": "cc"#, r#"{"unit":"c"}"#, "a string beginning \"cc\" is not one of [\"c\",\"f\"]", "$.unit"),
        (
            r#"{"where": {"lat": 1, "lon""#,
            r#"{"where":{"lat":1}}"#,
            "\"lon\" is not a property of the output schema",
            "$.where.lon",
        ),
        (
            r#"{"notes": {"any": [1]}, "city": null"#,
            r#"{"notes":{"any":[1]}}"#,
            "the required property \"city\" is missing",
            "$.city",
        ),
        (r#"{"days": 3}"#, "{}", "the required property \"city\" is missing", "$.city"),
        (r#"["#, "-", "expected an object, got an array", "$"),
    ];
    for (text, value, message, path) in table {
        let mut partial = PartialJson::new(PartialOptions { lenient: false, outputs: outputs() });
        // Byte by byte: the error comes at the byte that shows it, the value before it stays.
        let result = text.as_bytes().chunks(1).try_for_each(|b| partial.push_bytes(b).map(drop));
        assert_eq!(partial.value().map_or("-".into(), |v| v.to_string()), value, "{text:?}");
        match result {
            Ok(()) => assert_eq!(message, "", "{text:?}"),
            Err(e) => {
                assert_eq!(
                    (e.code, e.message.as_str(), e.path.as_deref()),
                    (ErrorCode::ValidationFailed, message, Some(path))
                );
            }
        }
    }
}

#[test]
fn an_answer_the_schema_accepts_ends_as_parse_structured_output_reads_it() {
    let text = r#"{"city": "Paris", "days": 3, "tags": ["a", "b"], "unit": "f", "where": {"lat": 48.85}, "notes": {}}"#;
    let partial = parse_partial_json(text, PartialOptions { lenient: false, outputs: outputs() }).unwrap().unwrap();
    let theirs = crate::parse_structured_output(text, &outputs(), Default::default()).unwrap();
    assert_eq!(partial, theirs);
}

#[test]
fn options_read_from_json_say_where_they_are_wrong() {
    let read = |text: &str| PartialOptions::from_json(&parse_value(text).unwrap());
    assert!(!read("null").unwrap().lenient);
    assert!(read(r#"{"lenient": true}"#).unwrap().lenient);
    let options = read(r#"{"outputs": [{"name": "city", "kind": "string", "required": true}]}"#).unwrap();
    assert_eq!((options.outputs[0].name.as_str(), options.outputs[0].required), ("city", true));
    let table = [
        ("1", "options"),
        (r#"{"lenient": "yes"}"#, "options.lenient"),
        (r#"{"outputs": [{"name": "city"}]}"#, "options.outputs[0].kind"),
    ];
    for (text, path) in table {
        let e = read(text).unwrap_err();
        assert_eq!((e.code, e.path.as_deref()), (ErrorCode::InvalidInput, Some(path)), "{text}");
    }
}

/// Long pieces decode their strings in place, short ones through the reader's buffer: the same
/// values after every piece either way, cut anywhere (inside escapes and characters too).
#[test]
fn long_pieces_show_what_short_pieces_show() {
    let long = |seed: &str| [seed, " é \"q\" \\ \u{1F642} \n"].concat().repeat(9000);
    let text = format!(
        r#"{{"a": {}, "b": [{}, 1, {{"c": {}}}], "d": "x"}}"#,
        crate::json::write::quoted(&long("a")),
        crate::json::write::quoted(&long("b")),
        crate::json::write::quoted(&long("c")),
    );
    assert!(text.len() > 3 * super::parser::SIZED);
    for piece in [70_001, 100_000, 250_003, text.len()] {
        let (mut long_pieces, mut short_pieces) =
            (PartialJson::new(PartialOptions::default()), PartialJson::new(PartialOptions::default()));
        for (at, chunk) in text.as_bytes().chunks(piece).enumerate() {
            let shown = long_pieces.push_bytes(chunk).unwrap().cloned();
            for small in chunk.chunks(4096) {
                short_pieces.push_bytes(small).unwrap();
            }
            assert_eq!(shown.as_ref(), short_pieces.value(), "pieces of {piece}, after piece {at}");
        }
        let expected = parse_value(&text).unwrap();
        assert_eq!(long_pieces.finish().unwrap().to_value(), expected, "pieces of {piece}");
    }
}

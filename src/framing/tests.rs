//! Detection, case by case, and the incremental detector against the one-shot function.

use super::*;

/// A valid 12-byte event-stream prelude: a 16-byte message with no headers.
fn prelude() -> Vec<u8> {
    let mut bytes = vec![0, 0, 0, 16, 0, 0, 0, 0];
    bytes.extend_from_slice(&crc32::crc32(&bytes).to_be_bytes());
    bytes
}

#[test]
fn every_start_detects_its_framing_or_waits() {
    let bad_crc = {
        let mut bytes = prelude();
        bytes[11] ^= 1;
        bytes
    };
    let cases: &[(&str, &[u8], Option<Framing>)] = &[
        ("nothing yet tells nothing", b"", None),
        ("white space alone waits", b" \t\r\n\r\n", None),
        ("a bom alone waits", b"\xEF\xBB\xBF", None),
        ("part of a bom waits", b"\xEF\xBB", None),
        ("a bom and white space wait", b"\xEF\xBB\xBF\n ", None),
        ("an opening bracket is a json array", b"[", Some(Framing::JsonArray)),
        ("a bracket after white space is a json array", b"\r\n  [{", Some(Framing::JsonArray)),
        ("a bracket after a bom is a json array", b"\xEF\xBB\xBF[", Some(Framing::JsonArray)),
        ("a data line is sse", b"data: {}", Some(Framing::Sse)),
        ("an event line is sse", b"event: message_start\n", Some(Framing::Sse)),
        ("a comment is sse", b": OPENROUTER PROCESSING", Some(Framing::Sse)),
        ("a data line after blank lines is sse", b"\n\ndata: x", Some(Framing::Sse)),
        ("a data line after a bom is sse", b"\xEF\xBB\xBFdata: x", Some(Framing::Sse)),
        ("a json object is not an array", b"{\"a\":1}", Some(Framing::Sse)),
        ("a broken bom is sse", b"\xEF\xBBx", Some(Framing::Sse)),
        ("a zero byte waits for the prelude", b"\0", None),
        ("eleven prelude bytes wait", &prelude()[..11], None),
        ("a prelude with its crc is an event stream", &prelude(), Some(Framing::EventStream)),
        ("a prelude with a wrong crc is not an event stream", &bad_crc, Some(Framing::Sse)),
        ("a zero byte after white space is not a prelude", b" \0\0\0\x10", Some(Framing::Sse)),
    ];
    for (name, bytes, want) in cases {
        assert_eq!(detect(bytes), *want, "{name}");
        // Byte by byte, the detector decides as soon as the bytes so far decide.
        let mut detector = Detector::default();
        let decided = bytes.iter().enumerate().find_map(|(i, b)| Some(i).zip(detector.push(std::slice::from_ref(b))));
        assert_eq!(decided.map(|(_, framing)| framing), *want, "{name}: byte by byte");
        if let Some((i, _)) = decided {
            assert_eq!(detect(&bytes[..i]), None, "{name}: decided late");
        }
    }
}

#[test]
fn a_stream_ended_undecided_falls_back_by_what_it_had_begun() {
    let cases: &[(&str, &[u8], Framing)] = &[
        ("an empty stream is sse", b"", Framing::Sse),
        ("white space alone is sse", b"\n\n", Framing::Sse),
        ("a bom alone is sse", b"\xEF\xBB\xBF", Framing::Sse),
        ("a cut prelude is an event stream", b"\0\0\0", Framing::EventStream),
    ];
    for (name, bytes, want) in cases {
        let mut detector = Detector::default();
        assert_eq!(detector.push(bytes), None, "{name}");
        assert_eq!(detector.fallback(), *want, "{name}");
    }
}

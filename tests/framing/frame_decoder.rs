//! The decoder over any framing: detection from the first bytes at every split, the same frames
//! as each framing's own decoder, and exceptions and errors as frames of their own kind.

use llm_wire::framing::{detect, Frame, FrameDecoder, FrameKind, Framing};
use llm_wire::sse::SseDecoder;
use llm_wire::{ErrorCode, Limits};

use super::encoder::{self, Value};
use super::json_array::{array, gemini_chunks, STYLES};
use super::{recordings, run_to_end, same_at_every_split, same_at_random_splits};

/// A frame, owned, or the error that ended the stream.
#[derive(Debug, Clone, PartialEq)]
enum Got {
    Frame { kind: FrameKind, name: String, data: Vec<u8>, message: String },
    Failed(ErrorCode, String),
}

impl From<Frame<'_>> for Got {
    fn from(f: Frame<'_>) -> Self {
        Got::Frame { kind: f.kind, name: f.name.into(), data: f.data.to_vec(), message: f.message.into() }
    }
}

fn event(name: &str, data: &[u8]) -> Got {
    Got::Frame { kind: FrameKind::Event, name: name.into(), data: data.to_vec(), message: String::new() }
}

/// The framing detected (or fallen back to) and the frames.
fn decode_with(limits: &Limits, pieces: &[&[u8]]) -> (Option<Framing>, Vec<Got>) {
    let mut decoder = FrameDecoder::new(limits);
    let mut out = Vec::new();
    let error = run_to_end(pieces, &mut |piece| {
        let mut push = |f: Frame<'_>| {
            out.push(Got::from(f));
            Ok(())
        };
        match piece {
            Some(piece) => decoder.feed(piece, &mut push),
            None => decoder.finish(&mut push),
        }
    });
    if let Some(err) = error {
        out.push(Got::Failed(err.code, err.message.clone()));
    }
    (decoder.framing(), out)
}

fn decode(pieces: &[&[u8]]) -> (Option<Framing>, Vec<Got>) {
    decode_with(&Limits::default(), pieces)
}

/// What the SSE decoder alone makes of `body`.
fn sse_frames(body: &[u8]) -> Vec<Got> {
    let mut decoder = SseDecoder::new(&Limits::default());
    let mut out = Vec::new();
    let mut push = |e: llm_wire::sse::SseEvent<'_>| {
        out.push(Got::from(Frame::from(e)));
        Ok(())
    };
    decoder.feed(body, &mut push).unwrap();
    decoder.finish(&mut push).unwrap();
    out
}

/// Every recorded SSE stream, of every provider.
fn sse_recordings() -> Vec<(String, Vec<u8>)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut dirs: Vec<String> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().into_string().unwrap())
        .collect();
    dirs.sort();
    let has_sse = |dir: &String| {
        std::fs::read_dir(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(dir))
            .unwrap()
            .any(|e| e.unwrap().file_name().to_string_lossy().ends_with(".sse"))
    };
    dirs.iter().filter(|d| has_sse(d)).flat_map(|d| recordings(d, ".sse")).collect()
}

#[test]
fn every_recorded_sse_stream_is_detected_and_gives_the_sse_decoders_frames() {
    let all = sse_recordings();
    assert!(all.len() >= 50, "{} recordings", all.len());
    for (file, body) in all {
        assert_eq!(detect(&body), Some(Framing::Sse), "{file}");
        let want = sse_frames(&body);
        assert!(!want.is_empty(), "{file}");
        let got = same_at_random_splits(&file, &body, &decode);
        assert_eq!(got, (Some(Framing::Sse), want), "{file}");
    }
}

#[test]
fn every_recorded_event_stream_is_detected_and_gives_its_messages_as_frames() {
    for (file, body) in recordings("bedrock", ".eventstream") {
        assert_eq!(detect(&body), Some(Framing::EventStream), "{file}");
        let (framing, got) = same_at_every_split(&file, &body, &decode);
        assert_eq!(framing, Some(Framing::EventStream), "{file}");
        let messages = super::event_stream::decode_with(&Limits::default(), &[&body]);
        assert_eq!(got.len(), messages.len(), "{file}");
        for (got, message) in got.iter().zip(messages) {
            let super::event_stream::Got::Message { kind: super::event_stream::Kind::Event(name), payload, .. } =
                message
            else {
                panic!("{file}: {message:?}")
            };
            assert_eq!(got, &event(&name, &payload), "{file}");
        }
    }
}

/// A Gemini stream gives the same frames whether it came as SSE or as a JSON array.
#[test]
fn a_json_array_gives_the_frames_its_sse_form_gives() {
    for ((file, body), (_, chunks)) in recordings("gemini", ".sse").into_iter().zip(gemini_chunks()) {
        let want = sse_frames(&body);
        for (style, open, separator, close) in STYLES {
            let name = format!("{file}, {style}");
            let got = same_at_random_splits(&name, &array(&chunks, open, separator, close), &decode);
            assert_eq!(got, (Some(Framing::JsonArray), want.clone()), "{name}");
        }
    }
}

#[test]
fn exceptions_and_errors_are_frames_of_their_own_kind() {
    let body = [
        encoder::event("messageStart", br#"{"role":"assistant"}"#),
        encoder::exception("throttlingException", br#"{"message":"Too many tokens, please wait."}"#),
        encoder::error("InternalFailure", "The request processing has failed."),
        encoder::event("contentBlockDelta", br#"{"delta":{"text":"late"},"contentBlockIndex":0}"#),
    ]
    .concat();
    let (framing, got) = same_at_every_split("exceptions", &body, &decode);
    assert_eq!(framing, Some(Framing::EventStream));
    assert_eq!(
        got,
        [
            event("messageStart", br#"{"role":"assistant"}"#),
            Got::Frame {
                kind: FrameKind::Exception,
                name: "throttlingException".into(),
                data: br#"{"message":"Too many tokens, please wait."}"#.to_vec(),
                message: String::new(),
            },
            Got::Frame {
                kind: FrameKind::Error,
                name: "InternalFailure".into(),
                data: vec![],
                message: "The request processing has failed.".into(),
            },
            event("contentBlockDelta", br#"{"delta":{"text":"late"},"contentBlockIndex":0}"#),
        ]
    );
}

#[test]
fn the_start_of_a_stream_decides_its_framing_whatever_the_pieces() {
    let message = encoder::event("messageStart", b"{}");
    let bad_crc = {
        let mut m = message.clone();
        m[10] ^= 1;
        m
    };
    let cases: Vec<(&str, Vec<u8>, Framing, Vec<Got>)> = vec![
        ("an empty stream is sse with nothing in it", vec![], Framing::Sse, vec![]),
        ("blank lines alone are sse with nothing in it", b"\r\n\r\n\n".to_vec(), Framing::Sse, vec![]),
        ("a bom alone is sse with nothing in it", b"\xEF\xBB\xBF".to_vec(), Framing::Sse, vec![]),
        (
            "sse after blank lines and a bom",
            b"\xEF\xBB\xBF\r\n\r\ndata: {}\r\n\r\n".to_vec(),
            Framing::Sse,
            vec![event("message", b"{}")],
        ),
        (
            "a line starting with a space is ignored as sse ignores it",
            b"  data: no\n\ndata: yes\n\n".to_vec(),
            Framing::Sse,
            vec![event("message", b"yes")],
        ),
        (
            "a json array after white space",
            b"\n \t[{},\n{}]\n".to_vec(),
            Framing::JsonArray,
            vec![event("message", b"{}"), event("message", b"{}")],
        ),
        ("an event stream", message.clone(), Framing::EventStream, vec![event("messageStart", b"{}")]),
        (
            "a cut first prelude is an event stream cut short",
            message[..5].to_vec(),
            Framing::EventStream,
            vec![Got::Failed(
                ErrorCode::InvalidJson,
                "the event stream ended inside a message's prelude at byte 0".into(),
            )],
        ),
        ("a zero byte and a bad prelude crc is not an event stream", bad_crc, Framing::Sse, vec![]),
    ];
    for (name, body, framing, want) in cases {
        let got = same_at_every_split(name, &body, &decode);
        assert_eq!(got, (Some(framing), want), "{name}");
    }
}

#[test]
fn a_known_framing_is_not_detected() {
    let mut decoder = FrameDecoder::with_framing(Framing::JsonArray, &Limits::default());
    assert_eq!(decoder.framing(), Some(Framing::JsonArray));
    let err = decoder.feed(b"data: [1]\n\n", &mut |_| panic!("no frame")).unwrap_err();
    assert_eq!(err.message, "expected [ to open the JSON array (found 'd') at byte 0");
}

#[test]
fn white_space_before_the_first_frame_is_held_within_the_limit() {
    let limits = Limits { max_buffered_bytes: 1000, ..Limits::default() };
    // Empty lines are nothing: not held, however many.
    let (framing, got) = decode_with(&limits, &[&[b'\n'; 999], b"\r\n\n", b"[1]"]);
    assert_eq!((framing, got), (Some(Framing::JsonArray), vec![event("message", b"1")]));
    // White space on the first line is held, as that line's start, up to the limit.
    let (framing, got) = decode_with(&limits, &[b"\n\n", &[b' '; 1000], b"[1]"]);
    assert_eq!((framing, got), (Some(Framing::JsonArray), vec![event("message", b"1")]));
    let (framing, got) = decode_with(&limits, &[b"\n", &[b' '; 999], b"\t\t", b"[1]"]);
    assert_eq!(framing, None);
    assert_eq!(
        got,
        [Got::Failed(
            ErrorCode::LimitExceeded,
            "more than maxBufferedBytes (1000 bytes) of white space before the stream's first frame".into()
        )]
    );
}

#[test]
fn headers_of_every_type_reach_no_frame() {
    let body = encoder::message(
        &encoder::headers(&[
            ("b", Value::True),
            (":message-type", Value::Str("event")),
            ("t", Value::Timestamp(0)),
            (":event-type", Value::Str("chunk")),
            ("u", Value::Uuid([0; 16])),
        ]),
        br#"{"bytes":"e30="}"#,
    );
    assert_eq!(decode(&[&body]), (Some(Framing::EventStream), vec![event("chunk", br#"{"bytes":"e30="}"#)]));
}

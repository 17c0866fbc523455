//! The AWS event-stream decoder: Bedrock's recordings, hand-made messages of every kind, every
//! header type, damaged and cut streams, and the limits.

use llm_wire::framing::event_stream::{EventStreamDecoder, Message, MessageType};
use llm_wire::{ErrorCode, Limits};

use super::encoder::{self, Value};
use super::{recordings, run_to_end, same_at_every_split};

/// What the decoder gave: a message, or the error that ended the stream.
#[derive(Debug, Clone, PartialEq)]
pub enum Got {
    Message { kind: Kind, content_type: Option<String>, payload: Vec<u8> },
    Failed { code: ErrorCode, message: String },
}

#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Event(String),
    Exception(String),
    Error(String, String),
}

impl From<Message<'_>> for Got {
    fn from(m: Message<'_>) -> Self {
        let kind = match m.message_type {
            MessageType::Event { event_type } => Kind::Event(event_type.into()),
            MessageType::Exception { exception_type } => Kind::Exception(exception_type.into()),
            MessageType::Error { code, message } => Kind::Error(code.into(), message.into()),
        };
        Got::Message { kind, content_type: m.content_type.map(Into::into), payload: m.payload.to_vec() }
    }
}

fn event(name: &str, payload: &[u8]) -> Got {
    Got::Message {
        kind: Kind::Event(name.into()),
        content_type: Some("application/json".into()),
        payload: payload.to_vec(),
    }
}

/// Decodes `pieces` in order, then finishes.
pub fn decode_with(limits: &Limits, pieces: &[&[u8]]) -> Vec<Got> {
    let mut decoder = EventStreamDecoder::new(limits);
    let mut out = Vec::new();
    let error = run_to_end(pieces, &mut |piece| match piece {
        Some(piece) => decoder.feed(piece, &mut |m| {
            out.push(Got::from(m));
            Ok(())
        }),
        None => decoder.finish(),
    });
    if let Some(err) = error {
        out.push(Got::Failed { code: err.code, message: err.message.clone() });
    }
    out
}

fn decode(pieces: &[&[u8]]) -> Vec<Got> {
    decode_with(&Limits::default(), pieces)
}

/// The recording's line of `SOURCES.tsv`: its byte count and its messages' event types.
fn listed(file: &str) -> (usize, Vec<String>) {
    let sources = include_str!("../fixtures/SOURCES.tsv");
    let line = sources
        .lines()
        .find(|l| l.split('\t').next() == Some(file))
        .unwrap_or_else(|| panic!("{file} is not in SOURCES.tsv"));
    let number_before = |text: &str, what: &str| -> usize {
        let end = text.find(what).unwrap_or_else(|| panic!("{file}: no {what:?}"));
        let start = text[..end].rfind(|c: char| !c.is_ascii_digit()).map_or(0, |i| i + 1);
        text[start..end].parse().unwrap()
    };
    let bytes = number_before(line, " bytes, ");
    let count = number_before(line, " event-stream messages, CRCs verified): ");
    let (_, names) = line.split_once("CRCs verified): ").unwrap();
    let names: Vec<String> = names.split_whitespace().map(String::from).collect();
    assert_eq!(names.len(), count, "{file}: SOURCES.tsv lists {} names for {count} messages", names.len());
    (bytes, names)
}

/// The byte ranges of the messages of a well-formed stream, read from their length fields.
fn message_ends(body: &[u8]) -> Vec<usize> {
    let mut ends = Vec::new();
    let mut at = 0;
    while at < body.len() {
        at += u32::from_be_bytes(body[at..at + 4].try_into().unwrap()) as usize;
        ends.push(at);
    }
    assert_eq!(at, body.len());
    ends
}

#[test]
fn every_recording_decodes_to_the_messages_its_sources_line_lists() {
    for (file, body) in recordings("bedrock", ".eventstream") {
        let (bytes, names) = listed(&file);
        assert_eq!(body.len(), bytes, "{file}");
        let got = decode(&[&body]);
        let got_names: Vec<&str> = got
            .iter()
            .map(|g| match g {
                Got::Message { kind: Kind::Event(name), content_type, payload } => {
                    assert_eq!(content_type.as_deref(), Some("application/json"), "{file}");
                    let json: serde_json::Value = serde_json::from_slice(payload).unwrap();
                    assert!(json.is_object(), "{file}: {json}");
                    name.as_str()
                }
                other => panic!("{file}: {other:?}"),
            })
            .collect();
        assert_eq!(got_names, names, "{file}");
    }
}

#[test]
fn every_recording_decodes_the_same_at_every_split() {
    for (file, body) in recordings("bedrock", ".eventstream") {
        let whole = same_at_every_split(&file, &body, &decode);
        assert_eq!(whole.len(), listed(&file).1.len(), "{file}");
    }
}

/// The encoder is checked against the wire before it is trusted with what no recording shows.
#[test]
fn the_test_encoder_writes_every_recorded_message_byte_for_byte() {
    for (file, body) in recordings("bedrock", ".eventstream") {
        let mut written = Vec::new();
        for got in decode(&[&body]) {
            let Got::Message { kind: Kind::Event(name), payload, .. } = got else { panic!("{file}: {got:?}") };
            written.extend(encoder::event(&name, &payload));
        }
        assert!(written == body, "{file}: re-encoded differently");
    }
}

#[test]
fn every_damaged_byte_of_a_recording_is_an_error_after_the_messages_before_it() {
    for (file, body) in recordings("bedrock", ".eventstream") {
        let whole = decode(&[&body]);
        let ends = message_ends(&body);
        for at in 0..body.len() {
            let mut damaged = body.clone();
            damaged[at] ^= 0x20;
            let got = decode(&[&damaged]);
            let before = ends.iter().take_while(|&&end| end <= at).count();
            assert_eq!(got[..got.len() - 1], whole[..before], "{file}: byte {at}");
            let Some(Got::Failed { code: ErrorCode::InvalidJson, message }) = got.last() else {
                panic!("{file}: byte {at} damaged gave {:?}", got.last())
            };
            assert!(message.contains("CRC does not match"), "{file}: byte {at}: {message}");
        }
    }
}

#[test]
fn a_recording_cut_at_every_byte_keeps_its_whole_messages_and_reports_the_cut() {
    for (file, body) in recordings("bedrock", ".eventstream") {
        let whole = decode(&[&body]);
        let ends = message_ends(&body);
        for cut in 0..=body.len() {
            let complete = ends.iter().take_while(|&&end| end <= cut).count();
            for got in [decode(&[&body[..cut]]), decode(&body[..cut].chunks(1).collect::<Vec<_>>())] {
                assert_eq!(got[..complete], whole[..complete], "{file}: cut at {cut}");
                if cut == 0 || ends.contains(&cut) {
                    assert_eq!(got.len(), complete, "{file}: cut at {cut}, between messages");
                    continue;
                }
                let Some(Got::Failed { code: ErrorCode::InvalidJson, message }) = got.last() else {
                    panic!("{file}: cut at {cut} gave {:?}", got.last())
                };
                assert!(message.contains("the event stream ended"), "{file}: {message}");
                assert_eq!(got.len(), complete + 1, "{file}: cut at {cut}");
            }
        }
    }
}

/// Every header type, before and after the headers the decoder reads.
fn every_header_type() -> Vec<(&'static str, Value<'static>)> {
    vec![
        ("true", Value::True),
        ("false", Value::False),
        ("byte", Value::Byte(-7)),
        ("short", Value::Short(-300)),
        ("int", Value::Int(0x0700_0000)),
        ("long", Value::Long(-1)),
        ("bytes", Value::Bytes(b"\0\x07\x00\x05event")),
        ("string", Value::Str(":message-type")),
        ("timestamp", Value::Timestamp(1_700_000_000_000)),
        ("uuid", Value::Uuid([7; 16])),
        ("", Value::Bytes(b"")),
    ]
}

#[test]
fn hand_made_messages_decode_to_what_they_say() {
    let mut all_types = every_header_type();
    all_types.push((":message-type", Value::Str("event")));
    all_types.push((":event-type", Value::Str("chunk")));
    all_types.extend(every_header_type());
    let binary: Vec<u8> = (0..=255).collect();
    let cases: Vec<(&str, Vec<u8>, Got)> = vec![
        (
            "an exception names its type and carries its body",
            encoder::exception("throttlingException", br#"{"message":"Too many requests, please wait."}"#),
            Got::Message {
                kind: Kind::Exception("throttlingException".into()),
                content_type: Some("application/json".into()),
                payload: br#"{"message":"Too many requests, please wait."}"#.to_vec(),
            },
        ),
        (
            "an error carries its code and message in headers",
            encoder::error("InternalFailure", "The request processing has failed."),
            Got::Message {
                kind: Kind::Error("InternalFailure".into(), "The request processing has failed.".into()),
                content_type: None,
                payload: vec![],
            },
        ),
        (
            "an error without code or message is still an error",
            encoder::message(&encoder::headers(&[(":message-type", Value::Str("error"))]), b""),
            Got::Message { kind: Kind::Error(String::new(), String::new()), content_type: None, payload: vec![] },
        ),
        (
            "headers of every type are skipped",
            encoder::message(&encoder::headers(&all_types), b"{}"),
            Got::Message { kind: Kind::Event("chunk".into()), content_type: None, payload: b"{}".to_vec() },
        ),
        (
            "a repeated header counts once, the last one",
            encoder::message(
                &encoder::headers(&[
                    (":event-type", Value::Str("first")),
                    (":message-type", Value::Str("event")),
                    (":event-type", Value::Str("second")),
                ]),
                b"",
            ),
            Got::Message { kind: Kind::Event("second".into()), content_type: None, payload: vec![] },
        ),
        (
            "a payload is any bytes",
            encoder::message(
                &encoder::headers(&[(":message-type", Value::Str("event")), (":event-type", Value::Str("bin"))]),
                &binary,
            ),
            Got::Message { kind: Kind::Event("bin".into()), content_type: None, payload: binary.clone() },
        ),
        (
            "utf-8 in a header survives",
            encoder::event("ünïcödé — 世界", "{\"t\":\"🎉\"}".as_bytes()),
            event("ünïcödé — 世界", "{\"t\":\"🎉\"}".as_bytes()),
        ),
    ];
    for (name, bytes, want) in cases {
        // Between two ordinary messages, so the boundaries on both sides are exercised.
        let body = [encoder::event("messageStart", b"{}"), bytes, encoder::event("metadata", b"{}")].concat();
        let got = same_at_every_split(name, &body, &decode);
        assert_eq!(got, [event("messageStart", b"{}"), want, event("metadata", b"{}")], "{name}");
    }
}

#[test]
fn a_damaged_message_is_an_error_after_the_messages_before_it() {
    let good = encoder::event("messageStart", br#"{"role":"assistant"}"#);
    let headers = |list: &[(&str, Value<'_>)]| encoder::headers(list);
    let event_headers = headers(&[(":message-type", Value::Str("event")), (":event-type", Value::Str("x"))]);
    let bad_prelude_crc = {
        let mut m = encoder::event("x", b"{}");
        m[9] ^= 1;
        m
    };
    let bad_message_crc = {
        let mut m = encoder::event("x", b"{}");
        *m.last_mut().unwrap() ^= 1;
        m
    };
    let lying_longer = {
        // Announces 8 bytes more than it has: the message CRC is read from the next message.
        let honest = encoder::event("x", b"{}");
        let mut lie = encoder::with_lengths(honest.len() as u32 + 8, 0, &honest[12..honest.len() - 4]);
        lie.truncate(honest.len());
        [lie, good.clone()].concat()
    };
    let lying_shorter = {
        let honest = encoder::event("x", b"{\"long\":\"payload\"}");
        let mut lie = honest.clone();
        lie[..4].copy_from_slice(&(honest.len() as u32 - 6).to_be_bytes());
        let crc = encoder::crc32(&lie[..8]).to_be_bytes();
        lie[8..12].copy_from_slice(&crc);
        lie
    };
    let mut bad_utf8 = headers(&[(":message-type", Value::Str("event")), (":event-type", Value::Str("ab"))]);
    let last = bad_utf8.len() - 1;
    bad_utf8[last] = 0xFF;
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("a bad prelude crc", bad_prelude_crc, "prelude CRC does not match"),
        ("a bad message crc", bad_message_crc, "message's CRC does not match"),
        ("a length that claims more than the message", lying_longer, "message's CRC does not match"),
        ("a length that claims less than the message", lying_shorter, "message's CRC does not match"),
        ("a length below the minimum", encoder::with_lengths(15, 0, b""), "below the minimum of 16"),
        ("a length of zero", encoder::with_lengths(0, 0, b""), "below the minimum of 16"),
        ("headers longer than the message", encoder::with_lengths(20, 5, b"abcd"), "do not fit its length"),
        ("an unknown header type", encoder::message(b"\x01a\x0A", b""), "unknown value type 10"),
        ("a header name past the headers", encoder::message(b"\x09:too-long", b""), "runs past the end"),
        ("a header without its type", encoder::message(b"\x01a", b""), "runs past the end"),
        (
            "a string longer than the headers",
            encoder::message(b"\x01a\x07\x00\x09abc", b"xxxxxxxx"),
            "runs past the end",
        ),
        ("a value cut short", encoder::message(b"\x01a\x05\0\0\0\0", b""), "runs past the end"),
        ("a uuid cut short", encoder::message(&[b"\x01a\x09".as_slice(), &[0; 15]].concat(), b""), "runs past the end"),
        (
            "a message type that is not a string",
            encoder::message(&headers(&[(":message-type", Value::Bytes(b"event"))]), b""),
            ":message-type is not a string",
        ),
        ("a header that is not utf-8", encoder::message(&bad_utf8, b""), ":event-type is not UTF-8"),
        (
            "an unknown message type",
            encoder::message(&headers(&[(":message-type", Value::Str("ping"))]), b""),
            "unknown :message-type \"ping\"",
        ),
        ("no message type", encoder::message(&headers(&[(":event-type", Value::Str("x"))]), b"{}"), "no :message-type"),
        ("no headers at all", encoder::message(b"", b"{}"), "no :message-type"),
        (
            "an event without its type",
            encoder::message(&headers(&[(":message-type", Value::Str("event"))]), b"{}"),
            "no :event-type",
        ),
        (
            "an exception without its type",
            encoder::message(&headers(&[(":message-type", Value::Str("exception"))]), b"{}"),
            "no :exception-type",
        ),
        (
            "a message good but for its headers",
            encoder::message(&event_headers[..event_headers.len() - 1], b""),
            "runs past the end",
        ),
    ];
    for (name, bad, error) in cases {
        let body = [good.clone(), bad, good.clone()].concat();
        let got = same_at_every_split(name, &body, &decode);
        assert_eq!(got[..1], [event("messageStart", br#"{"role":"assistant"}"#)], "{name}");
        let [_, Got::Failed { code: ErrorCode::InvalidJson, message }] = &got[..] else { panic!("{name}: {got:?}") };
        assert!(message.contains(error), "{name}: {message}");
        assert!(message.ends_with(&format!("at byte {}", good.len())), "{name}: {message}");
    }
}

#[test]
fn a_message_over_a_limit_is_refused_once_its_prelude_is_in() {
    let small = Limits { max_event_bytes: 100, max_buffered_bytes: 200, ..Limits::default() };
    let buffered = Limits { max_event_bytes: 200, max_buffered_bytes: 100, ..Limits::default() };
    let sized = |total: usize| encoder::event("x", &vec![b' '; total - encoder::event("x", b"").len()]);
    let cases: &[(&str, &Limits, usize, Option<&str>)] = &[
        ("a message of exactly maxEventBytes passes", &small, 100, None),
        (
            "a message one byte over maxEventBytes is refused",
            &small,
            101,
            Some("larger than maxEventBytes (100 bytes)"),
        ),
        ("a message of exactly maxBufferedBytes passes", &buffered, 100, None),
        (
            "a message over maxBufferedBytes is refused",
            &buffered,
            101,
            Some("larger than maxBufferedBytes (100 bytes)"),
        ),
    ];
    for (name, limits, total, error) in cases {
        let bytes = sized(*total);
        let got = same_at_every_split(name, &bytes, &|pieces| decode_with(limits, pieces));
        match error {
            None => assert!(matches!(&got[..], [Got::Message { .. }]), "{name}: {got:?}"),
            Some(error) => {
                let [Got::Failed { code: ErrorCode::LimitExceeded, message }] = &got[..] else {
                    panic!("{name}: {got:?}")
                };
                assert!(message.contains(error), "{name}: {message}");
                // Refused on the prelude alone, before any of the rest is held.
                assert_eq!(decode_with(limits, &[&bytes[..12]]).len(), 1, "{name}");
            }
        }
    }
}

#[test]
fn a_prelude_announcing_four_gigabytes_is_refused_at_once() {
    let prelude = &encoder::with_lengths(u32::MAX, 0, b"")[..12];
    let mut decoder = EventStreamDecoder::new(&Limits::default());
    let err = decoder.feed(prelude, &mut |_| panic!("no message")).unwrap_err();
    assert_eq!(err.code, ErrorCode::LimitExceeded);
    assert_eq!(err.message, "an event-stream message is larger than maxEventBytes (16777216 bytes)");
}

#[test]
fn an_error_from_the_caller_stops_the_decoder_after_that_message() {
    let body = [encoder::event("a", b"1"), encoder::event("b", b"2"), encoder::event("c", b"3")].concat();
    let mut decoder = EventStreamDecoder::new(&Limits::default());
    let mut seen = Vec::new();
    let err = decoder
        .feed(&body, &mut |m| {
            seen.push(m.payload.to_vec());
            match m.payload {
                b"2" => Err(llm_wire::Error::new(ErrorCode::ProviderError, "stop here")),
                _ => Ok(()),
            }
        })
        .unwrap_err();
    assert_eq!(err.message, "stop here");
    assert_eq!(seen, [b"1", b"2"]);
    assert_eq!(decoder.feed(b"", &mut |_| Ok(())).unwrap_err(), err);
}

#[test]
fn a_finished_decoder_takes_a_new_stream() {
    let mut decoder = EventStreamDecoder::new(&Limits::default());
    let mut seen = Vec::new();
    for name in ["first", "second"] {
        decoder
            .feed(&encoder::event(name, b"{}"), &mut |m| {
                seen.push(Got::from(m));
                Ok(())
            })
            .unwrap();
        decoder.finish().unwrap();
    }
    assert_eq!(seen, [event("first", b"{}"), event("second", b"{}")]);
}

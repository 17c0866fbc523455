//! Every WHATWG rule the decoder follows, as a named case in one table. Each case runs with the
//! input as written, cut at every single point, and fed one byte at a time.

use super::*;
use crate::framing::gathered::PART as LONG_PART;

type Expected = &'static [(&'static str, &'static str, &'static str)];

/// (name, input, expected (event, data, last id) in order)
const CASES: &[(&str, &[u8], Expected)] = &[
    ("an lf-terminated event dispatches once", b"data: a\n\n", &[("message", "a", "")]),
    ("a crlf-terminated event dispatches once", b"data: a\r\n\r\n", &[("message", "a", "")]),
    ("a cr-terminated event dispatches once", b"data: a\r\r", &[("message", "a", "")]),
    (
        "mixed line ends in one stream all count",
        b"data: a\r\n\ndata: b\r\rdata: c\n\r\n",
        &[("message", "a", ""), ("message", "b", ""), ("message", "c", "")],
    ),
    ("data without a space after the colon keeps all of its value", b"data:a\n\n", &[("message", "a", "")]),
    ("only one leading space is removed from a value", b"data:  a\n\n", &[("message", " a", "")]),
    ("several data lines are joined with lf", b"data: a\ndata: b\ndata:\n\n", &[("message", "a\nb\n", "")]),
    ("an empty data line dispatches an empty event", b"data:\n\n", &[("message", "", "")]),
    ("a field line without a colon is the field with an empty value", b"data\n\n", &[("message", "", "")]),
    ("a comment line is ignored", b": keep-alive\ndata: x\n\n", &[("message", "x", "")]),
    ("a comment alone dispatches nothing", b": OPENROUTER PROCESSING\n\n", &[]),
    ("the event field names the event", b"event: ping\ndata: {}\n\n", &[("ping", "{}", "")]),
    (
        "the event name does not leak into the next event",
        b"event: error\ndata: 1\n\ndata: 2\n\n",
        &[("error", "1", ""), ("message", "2", "")],
    ),
    ("an event name without data dispatches nothing and is reset", b"event: x\n\ndata: 2\n\n", &[("message", "2", "")]),
    (
        "the id persists across events",
        b"id: 7\ndata: a\n\ndata: b\n\n",
        &[("message", "a", "7"), ("message", "b", "7")],
    ),
    (
        "an id containing nul is ignored",
        b"id: 1\ndata: a\n\nid: 2\0\ndata: b\n\n",
        &[("message", "a", "1"), ("message", "b", "1")],
    ),
    ("an unknown field is ignored", b"foo: bar\ndata: a\n\n", &[("message", "a", "")]),
    ("a retry line is not data", b"retry: 3000\ndata: a\n\n", &[("message", "a", "")]),
    ("the bom is stripped once at the start", b"\xEF\xBB\xBFdata: a\n\n", &[("message", "a", "")]),
    ("a second bom is content", b"\xEF\xBB\xBF\xEF\xBB\xBFdata: a\n\n", &[]),
    ("a bom-like prefix that is not a bom is kept", b"\xEFdata: a\n\ndata: b\n\n", &[("message", "b", "")]),
    ("utf-8 in data survives every cut", "data: héllo — 世界 🎉\n\n".as_bytes(), &[("message", "héllo — 世界 🎉", "")]),
    ("a colon inside the value is kept", b"data: {\"a\":1}\n\n", &[("message", "{\"a\":1}", "")]),
    (
        "an unterminated last event is flushed at finish",
        b"data: a\n\ndata: tail",
        &[("message", "a", ""), ("message", "tail", "")],
    ),
    ("an unterminated event after its data line is flushed at finish", b"data: tail\n", &[("message", "tail", "")]),
    ("a cr at the end of the input ends the line", b"data: a\r", &[("message", "a", "")]),
    ("blank lines alone dispatch nothing", b"\n\n\r\n\r\r", &[]),
    ("trailing spaces after json are kept", b"data: {\"x\":1}   \n\n", &[("message", "{\"x\":1}   ", "")]),
];

fn run(chunks: &[&[u8]]) -> Vec<(String, String, String)> {
    let mut decoder = SseDecoder::new(&Limits::default());
    let mut out = Vec::new();
    let mut sink = |e: SseEvent<'_>| {
        out.push((
            e.event.to_string(),
            String::from_utf8(e.data.to_vec()).expect("complete lines are whole UTF-8"),
            String::from_utf8_lossy(e.id).into_owned(),
        ));
        Ok(())
    };
    for chunk in chunks {
        decoder.feed(chunk, &mut sink).unwrap();
    }
    decoder.finish(&mut sink).unwrap();
    out
}

fn expected(case: Expected) -> Vec<(String, String, String)> {
    case.iter().map(|(e, d, i)| (e.to_string(), d.to_string(), i.to_string())).collect()
}

#[test]
fn every_rule_holds_for_the_whole_input() {
    for (name, input, want) in CASES {
        assert_eq!(run(&[input]), expected(want), "case {name:?}");
    }
}

#[test]
fn every_rule_holds_at_every_single_cut() {
    for (name, input, want) in CASES {
        for cut in 0..=input.len() {
            let (a, b) = input.split_at(cut);
            assert_eq!(run(&[a, b]), expected(want), "case {name:?} cut at byte {cut}");
        }
    }
}

#[test]
fn every_rule_holds_one_byte_at_a_time() {
    for (name, input, want) in CASES {
        let bytes: Vec<&[u8]> = input.chunks(1).collect();
        assert_eq!(run(&bytes), expected(want), "case {name:?} fed byte by byte");
    }
}

#[test]
fn a_cr_ending_one_chunk_and_an_lf_starting_the_next_are_one_line_end() {
    // Were they two line ends, the empty line between them would dispatch "a" early and the
    // second data line would become an event of its own.
    assert_eq!(run(&[b"data: a\r", b"\ndata: b\n\n"]), expected(&[("message", "a\nb", "")]));
}

#[test]
fn a_blank_cr_line_ending_a_chunk_dispatches_the_pending_event_exactly_once() {
    assert_eq!(run(&[b"data: a\n\r", b"\ndata: b\n\n"]), expected(&[("message", "a", ""), ("message", "b", "")]));
}

#[test]
fn an_empty_chunk_changes_nothing() {
    assert_eq!(run(&[b"data: a\r", b"", b"\n\n"]), expected(&[("message", "a", "")]));
}

#[test]
fn a_retry_field_sets_the_reconnection_time_only_when_all_digits() {
    let mut decoder = SseDecoder::new(&Limits::default());
    let mut sink = |_: SseEvent<'_>| Ok(());
    decoder.feed(b"retry: 1500\n", &mut sink).unwrap();
    assert_eq!(decoder.retry(), Some(1500));
    decoder.feed(b"retry: 15x\n", &mut sink).unwrap();
    assert_eq!(decoder.retry(), Some(1500));
}

#[test]
fn an_endless_line_is_refused_past_max_event_bytes() {
    let limits = Limits { max_event_bytes: 64, ..Limits::default() };
    let mut decoder = SseDecoder::new(&limits);
    let mut sink = |_: SseEvent<'_>| Ok(());
    let mut failed = None;
    for _ in 0..100 {
        if let Err(e) = decoder.feed(b"data: xxxxxxxx", &mut sink) {
            failed = Some(e);
            break;
        }
    }
    let err = failed.expect("an endless line must be refused");
    assert_eq!(err.code, ErrorCode::LimitExceeded);
    assert!(decoder.partial.len() <= 64, "the buffer stays bounded");
}

#[test]
fn a_giant_event_of_many_lines_is_refused_past_max_event_bytes() {
    let limits = Limits { max_event_bytes: 64, ..Limits::default() };
    let mut decoder = SseDecoder::new(&limits);
    let mut sink = |_: SseEvent<'_>| Ok(());
    let err = decoder.feed(&b"data: 0123456789\n".repeat(10), &mut sink).unwrap_err();
    assert_eq!(err.code, ErrorCode::LimitExceeded);
}

#[test]
fn a_single_data_line_meets_max_event_bytes_at_the_same_length_in_every_chunking() {
    // A data line followed by its blank line in the same chunk is dispatched from the chunk; cut
    // anywhere else it is copied first. Both refuse it at the same length: the line (`data: `
    // and the value) must fit in maxEventBytes.
    let limits = Limits { max_event_bytes: 16, ..Limits::default() };
    let outcome = |chunks: &[&[u8]]| {
        let mut decoder = SseDecoder::new(&limits);
        let mut data = Vec::new();
        let mut sink = |e: SseEvent<'_>| {
            data.push(e.data.to_vec());
            Ok(())
        };
        let fed = chunks.iter().try_for_each(|chunk| decoder.feed(chunk, &mut sink));
        fed.map(|()| data).map_err(|e| (e.code, e.message.clone()))
    };
    for len in 8..=12 {
        let input = [b"data: ".as_slice(), &b"x".repeat(len), b"\n\n"].concat();
        let whole = outcome(&[&input]);
        match &whole {
            Ok(events) => assert!(len <= 10 && events == &[b"x".repeat(len)], "length {len}: {events:?}"),
            Err((code, _)) => assert!(len > 10 && *code == ErrorCode::LimitExceeded, "length {len}: {whole:?}"),
        }
        let bytes: Vec<&[u8]> = input.chunks(1).collect();
        assert_eq!(outcome(&bytes), whole, "length {len} fed byte by byte");
        for cut in 0..=input.len() {
            let (a, b) = input.split_at(cut);
            assert_eq!(outcome(&[a, b]), whole, "length {len} cut at byte {cut}");
        }
    }
}

#[test]
fn a_large_event_sent_in_pieces_arrives_whole_and_its_buffer_is_let_go() {
    let value = "0123456789".repeat(20_000);
    let input = format!("event: big\ndata: {value}\ndata: tail\n\ndata: small\n\n");
    let want = [("big", format!("{value}\ntail"), ""), ("message", "small".to_owned(), "")];
    let want: Vec<(String, String, String)> =
        want.iter().map(|(e, d, i)| (e.to_string(), d.clone(), i.to_string())).collect();
    for size in [1000, 4096, 65_536] {
        let pieces: Vec<&[u8]> = input.as_bytes().chunks(size).collect();
        assert_eq!(run(&pieces), want, "pieces of {size} bytes");
    }
    let mut decoder = SseDecoder::new(&Limits::default());
    for piece in input.as_bytes().chunks(1000) {
        decoder.feed(piece, &mut |_| Ok(())).unwrap();
    }
    let held = decoder.partial.capacity() + decoder.state.data.capacity();
    assert!(held <= 64 * 1024, "{held} bytes held after the large event");
}

/// A line longer than `LONG_PART` is kept in parts until it ends: every way of cutting it
/// gives the events the whole input gives, whatever field the line is and also when the stream
/// ends inside it.
#[test]
fn long_lines_kept_in_parts_give_the_same_events_for_every_chunk_size() {
    let long = "é\"x ".repeat(3 * LONG_PART / 5);
    let input = [
        "data: a\n\ndata: ",
        &long,
        "\n\n: ",
        &long,
        "\nid: ",
        &long,
        "\r\ndata: b\r\n\r\ndata: ",
        &long,
        "\ndata: ",
        &long,
    ]
    .concat();
    let whole = run(&[input.as_bytes()]);
    let data = |d: &str| ("message".to_owned(), d.to_owned(), long.clone());
    assert_eq!(whole[1], ("message".to_owned(), long.clone(), String::new()));
    assert_eq!(whole[2..], [data("b"), data(&[long.as_str(), "\n", &long].concat())]);
    for size in [1000, LONG_PART - 1, LONG_PART, LONG_PART + 1, 3 * LONG_PART] {
        let chunks: Vec<&[u8]> = input.as_bytes().chunks(size).collect();
        assert_eq!(run(&chunks), whole, "chunks of {size} bytes");
    }
}

/// The parts of a long line count against `maxBufferedBytes` as one buffer would.
#[test]
fn a_long_line_in_parts_is_refused_past_max_buffered_bytes() {
    let limits = Limits { max_buffered_bytes: 5 * LONG_PART, ..Limits::default() };
    let mut decoder = SseDecoder::new(&limits);
    let piece = vec![b'x'; LONG_PART];
    let mut sink = |_: SseEvent<'_>| Ok(());
    decoder.feed(b"data: ", &mut sink).unwrap();
    let fed = (0..10).take_while(|_| decoder.feed(&piece, &mut sink).is_ok()).count();
    assert_eq!(fed, 4, "the fifth part would pass the limit");
    assert!(decoder.partial.len() <= 5 * LONG_PART);
}

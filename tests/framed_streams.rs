//! The accumulator reads every framing: bytes that are not SSE reach the format decoders as the
//! same frames, and failures the framing itself reports become the stream's error.

#[path = "framing/encoder.rs"]
#[allow(dead_code)] // the encoder covers every header type; these tests use a few
mod encoder;

use llm_wire::model::StreamEvent;
use llm_wire::{Accumulator, AccumulatorOptions, FinalMessage};

const CHUNKS: [&str; 2] = [
    r#"{"id":"c1","model":"m","choices":[{"index":0,"delta":{"content":"Hel"}}]}"#,
    r#"{"id":"c1","model":"m","choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}]}"#,
];

/// An InvokeModelWithResponseStream `chunk` payload: `{"bytes": "<base64 of event>"}`.
fn chunk(event: &str) -> Vec<u8> {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut b64 = String::new();
    for group in event.as_bytes().chunks(3) {
        let n = group.iter().enumerate().fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            let c = if i <= group.len() { ALPHABET[(n >> (18 - 6 * i) & 63) as usize] } else { b'=' };
            b64.push(c as char);
        }
    }
    format!(r#"{{"bytes":"{b64}"}}"#).into_bytes()
}

/// The message and the error events of `body` fed in pieces cut at `cuts`.
fn read(body: &[u8], cuts: &[usize]) -> (FinalMessage, Vec<StreamEvent>) {
    let mut acc = Accumulator::new(AccumulatorOptions::default());
    let mut errors = Vec::new();
    let mut from = 0;
    for &cut in cuts.iter().chain([body.len()].iter()) {
        let events = acc.push(&body[from..cut]).expect("no fatal error");
        errors.extend(events.iter().filter(|e| matches!(e, StreamEvent::Error { .. })).cloned());
        from = cut;
    }
    errors.extend(acc.flush().iter().filter(|e| matches!(e, StreamEvent::Error { .. })).cloned());
    (acc.finish(), errors)
}

/// The message and whether a limit was reached, `body` pushed in pieces cut at `cuts` with
/// `max_buffered_bytes` small (128: just over the longest line of [`CHUNKS`]).
fn read_with_small_buffer(body: &[u8], cuts: &[usize]) -> (FinalMessage, bool) {
    let mut options = AccumulatorOptions::default();
    options.limits.max_buffered_bytes = 128;
    let mut acc = Accumulator::new(options);
    let (mut from, mut limit) = (0, false);
    for &cut in cuts.iter().chain([body.len()].iter()) {
        match acc.push(&body[from..cut]) {
            Ok(events) => {
                limit |= events.iter().any(
                    |e| matches!(e, StreamEvent::Error { error } if error.code.as_deref() == Some("limit_exceeded")),
                )
            }
            Err(_) => break,
        }
        from = cut;
    }
    (acc.finish(), limit)
}

/// White space before the first frame: empty lines are nothing, whatever their number and
/// wherever the stream is split; the white space of the first line counts as that line does.
/// (Found by fuzzing: empty lines held across pushes reached `maxBufferedBytes` split, not
/// whole.)
#[test]
fn white_space_before_the_first_frame_reaches_a_limit_only_when_its_line_does() {
    let data: String = CHUNKS.iter().map(|c| format!("data: {c}\n\n")).collect();
    let array = format!("[{}\r\n,\n{}]\n", CHUNKS[0], CHUNKS[1]);
    let blank = "\n\r\n  \t\r\r\n".repeat(20);
    // (body, whether a limit is reached, the text). Spaces that begin a line are part of it: a
    // first line `   data: ...` is a field named `   data`, ignored, split or not.
    for (body, limited, text) in [
        ([blank.as_str(), &data].concat(), false, "Hello"),
        (["\u{feff}", &blank, &data].concat(), false, "Hello"),
        ([blank.as_str(), &array].concat(), false, "Hello"),
        ([blank.as_str(), "\t".repeat(129).as_str(), &data].concat(), true, ""),
        ([blank.as_str(), "   ", &data].concat(), false, "lo"),
        // A malformed array's error names the byte where it broke, counted from the stream's
        // start however many empty lines came first.
        ([blank.as_str(), "[", CHUNKS[0], " x]"].concat(), false, "Hel"),
    ] {
        let body = body.as_bytes();
        let (whole, whole_limit) = read_with_small_buffer(body, &[]);
        assert_eq!(whole_limit, limited, "{body:?}");
        if !limited {
            assert_eq!(whole.text, text, "{body:?}");
        }
        if let Some(error) = whole.error.as_ref().filter(|_| !limited) {
            let at = body.len() - 2;
            assert!(error.message.ends_with(&format!("at byte {at}")), "{error:?}");
        }
        let one_by_one: Vec<usize> = (1..body.len()).collect();
        for cuts in (0..=body.len()).map(|cut| vec![cut]).chain([one_by_one]) {
            let (message, limit) = read_with_small_buffer(body, &cuts);
            assert_eq!(limit, limited, "cut at {cuts:?}");
            if !limited {
                assert_eq!(message, whole, "cut at {cuts:?}");
            }
        }
    }
}

#[test]
fn a_streamed_json_array_of_chunks_reads_as_their_sse_form_at_every_split() {
    let body = format!("[{}\r\n,\n{}]\n", CHUNKS[0], CHUNKS[1]);
    let sse: String = CHUNKS.iter().map(|c| format!("data: {c}\n\n")).collect();
    let (expected, _) = read(sse.as_bytes(), &[]);
    assert_eq!((expected.text.as_str(), expected.complete), ("Hello", true));
    for cut in 0..=body.len() {
        let (message, errors) = read(body.as_bytes(), &[cut]);
        assert_eq!(message, expected, "cut at {cut}");
        assert!(errors.is_empty(), "cut at {cut}: {errors:?}");
    }
}

#[test]
fn an_event_stream_exception_is_the_streams_error_and_keeps_the_text_before_it() {
    let mut body = encoder::event("chunk", &chunk(CHUNKS[0]));
    body.extend(encoder::exception("throttlingException", br#"{"message":"Too many requests, slow down."}"#));
    for cut in 0..=body.len() {
        let (message, errors) = read(&body, &[cut]);
        assert_eq!(message.text, "Hel", "cut at {cut}");
        assert!(!message.complete);
        let error = message.error.as_ref().expect("the exception is the error");
        assert_eq!(error.message, "Too many requests, slow down.");
        assert_eq!(error.code.as_deref(), Some("throttlingException"));
        assert_eq!(error.retryable, Some(true), "AWS documents throttling as retryable");
        assert_eq!(errors.len(), 1, "cut at {cut}");
    }
}

#[test]
fn an_event_stream_error_message_carries_its_code_and_message() {
    let mut body = encoder::event("chunk", &chunk(CHUNKS[0]));
    body.extend(encoder::error("ValidationError", "the input is not valid"));
    let (message, _) = read(&body, &[]);
    let error = message.error.expect("the error message is the error");
    assert_eq!((error.code.as_deref(), error.message.as_str()), (Some("ValidationError"), "the input is not valid"));
    assert_eq!(error.retryable, Some(false));
}

#[test]
fn a_damaged_event_stream_keeps_what_came_before_and_refuses_the_rest() {
    let mut body = encoder::event("chunk", &chunk(CHUNKS[0]));
    let second = encoder::event("chunk", &chunk(CHUNKS[1]));
    let damaged = body.len() + second.len() - 1;
    body.extend(second);
    body[damaged] ^= 0xFF; // the second message's CRC
    let mut acc = Accumulator::new(AccumulatorOptions::default());
    acc.push(&body).unwrap();
    assert!(acc.push(b"more").is_err(), "the framing cannot resynchronise");
    let message = acc.finish();
    assert_eq!(message.text, "Hel");
    assert!(!message.complete);
    assert!(message.error.is_some());
}

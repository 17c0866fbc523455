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

//! The SSE decoder on arbitrary bytes at arbitrary split points: never a panic, and the same
//! events (and the same error, if any) as feeding the whole input at once.
#![no_main]

use libfuzzer_sys::fuzz_target;
use llm_wire::sse::SseDecoder;
use llm_wire::{ErrorCode, Limits};
use llm_wire_fuzz::StreamInput;

#[derive(Debug, PartialEq, Eq)]
struct Owned {
    event: String,
    data: Vec<u8>,
    id: Vec<u8>,
}

#[derive(Debug, PartialEq, Eq)]
struct Run {
    events: Vec<Owned>,
    error: Option<ErrorCode>,
    retry: Option<u64>,
}

fn run(limits: &Limits, chunks: &[&[u8]]) -> Run {
    let mut decoder = SseDecoder::new(limits);
    let mut events = Vec::new();
    let mut on_event = |e: llm_wire::sse::SseEvent<'_>| {
        assert!(e.data.len() <= limits.max_event_bytes, "an event larger than maxEventBytes");
        events.push(Owned { event: e.event.to_owned(), data: e.data.to_vec(), id: e.id.to_vec() });
        Ok(())
    };
    let mut error = None;
    for chunk in chunks {
        if let Err(e) = decoder.feed(chunk, &mut on_event) {
            error = Some(e.code);
            break;
        }
    }
    if error.is_none() {
        if let Err(e) = decoder.finish(&mut on_event) {
            error = Some(e.code);
        }
    }
    if let Some(code) = error {
        assert_eq!(code, ErrorCode::LimitExceeded, "the decoder only fails on a limit");
    }
    Run { events, error, retry: decoder.retry() }
}

fuzz_target!(|input: &[u8]| {
    let Some(input) = StreamInput::parse(input) else { return };
    let limits = input.limits();
    let whole = run(&limits, &[input.data]);
    let split = run(&limits, &input.chunks());
    // A limit is reached at the same line whatever the split (the partial-line check and the
    // complete-line check measure the same line), so even the events before it agree.
    assert_eq!(whole, split, "split variance at {:?}", input.cuts);
    // Byte by byte, the worst split, on short inputs.
    if input.data.len() <= 256 {
        let bytes: Vec<&[u8]> = input.data.chunks(1).collect();
        assert_eq!(whole, run(&limits, &bytes), "byte-by-byte variance");
    }
});

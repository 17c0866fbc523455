//! Hostile streams against the framings' limits, with the heap measured: an endless JSON array
//! element, an event-stream message announcing a gibibyte and endless white space before the
//! first frame are each refused with `limit_exceeded` and a peak heap near the bound, and long
//! streams of small frames run in constant memory.
#![cfg(not(target_arch = "wasm32"))]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{Mutex, MutexGuard};

use llm_wire::framing::{FrameDecoder, Framing};
use llm_wire::{ErrorCode, Limits};

/// The system allocator, counting the bytes live and their peak.
struct Measured;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Measured {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        PEAK.fetch_max(LIVE.fetch_add(layout.size(), Relaxed) + layout.size(), Relaxed);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static HEAP: Measured = Measured;

/// The heap is shared by the whole process: the tests take turns, from building their input on.
static TURN: Mutex<()> = Mutex::new(());

fn my_turn() -> MutexGuard<'static, ()> {
    TURN.lock().unwrap_or_else(|e| e.into_inner())
}

const MIB: usize = 1 << 20;

/// What a hostile run came to.
struct Run {
    error: Option<llm_wire::Error>,
    /// Bytes fed without an error.
    accepted: usize,
    frames: usize,
    /// Heap growth at its highest, the pieces fed included.
    peak: usize,
}

/// Feeds `start`, then `piece` over and over until `total` bytes or an error, to a decoder
/// that detects the framing.
fn run(limits: Limits, start: &[u8], piece: &[u8], total: usize) -> Run {
    run_with(FrameDecoder::new(&limits), start, piece, total)
}

fn run_with(mut decoder: FrameDecoder, start: &[u8], piece: &[u8], total: usize) -> Run {
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let mut frames = 0;
    let mut count = |_: llm_wire::framing::Frame<'_>| {
        frames += 1;
        Ok(())
    };
    let mut accepted = 0;
    let mut outcome = decoder.feed(start, &mut count).map(|_| accepted += start.len());
    while outcome.is_ok() && accepted < total {
        outcome = decoder.feed(piece, &mut count).map(|_| accepted += piece.len());
    }
    let error = outcome.err();
    let peak = PEAK.load(Relaxed).saturating_sub(base);
    eprintln!("{accepted} bytes accepted, {frames} frames, peak heap growth {peak} bytes");
    Run { error, accepted, frames, peak }
}

#[test]
fn an_endless_json_array_element_is_refused_near_max_event_bytes() {
    let _turn = my_turn();
    let limits = Limits { max_event_bytes: MIB, ..Limits::default() };
    let run = run(limits, b"[{\"a\":1},{\"text\":\"", &[b'x'; 65_536], 1 << 30);
    assert_eq!(run.error.map(|e| e.code), Some(ErrorCode::LimitExceeded));
    assert!(run.accepted <= MIB + 65_536, "refused after {} bytes", run.accepted);
    assert_eq!(run.frames, 1);
    assert!(run.peak < 3 * MIB, "peak heap {} bytes", run.peak);
}

#[test]
fn an_event_stream_message_announcing_a_gibibyte_is_refused_before_it_is_held() {
    let _turn = my_turn();
    let mut prelude = (1u32 << 30).to_be_bytes().to_vec();
    prelude.extend_from_slice(&[0, 0, 0, 0]);
    prelude.extend_from_slice(&crc32(&prelude).to_be_bytes());
    // Its length starts with a byte other than zero: only a known framing reads it as a prelude.
    let decoder = FrameDecoder::with_framing(Framing::EventStream, &Limits::default());
    let run = run_with(decoder, &prelude, &[0; 65_536], 1 << 30);
    assert_eq!(run.error.map(|e| e.code), Some(ErrorCode::LimitExceeded));
    assert_eq!(run.accepted, 0, "refused on the prelude");
    assert!(run.peak < 1024, "peak heap {} bytes", run.peak);
}

#[test]
fn endless_white_space_on_one_line_before_the_first_frame_is_refused_at_max_buffered_bytes() {
    let _turn = my_turn();
    let limits = Limits { max_buffered_bytes: MIB, ..Limits::default() };
    let run = run(limits, b"", &[b' '; 65_536], 1 << 30);
    assert_eq!(run.error.map(|e| e.code), Some(ErrorCode::LimitExceeded));
    assert_eq!(run.accepted, MIB);
    assert!(run.peak < 3 * MIB, "peak heap {} bytes", run.peak);
}

/// Empty lines before the first frame are nothing in any framing: they are not held, however
/// many, as empty lines after it are not.
#[test]
fn endless_empty_lines_before_the_first_frame_run_in_constant_memory() {
    let _turn = my_turn();
    let limits = Limits { max_buffered_bytes: MIB, ..Limits::default() };
    let run = run(limits, b"", &[b"  \r\n".repeat(16_384), b"\t".repeat(9)].concat(), 256 * MIB);
    assert!(run.error.is_none(), "{:?}", run.error);
    assert!(run.peak < 16 * 1024, "peak heap {} bytes", run.peak);
}

#[test]
fn a_long_json_array_of_small_elements_runs_in_constant_memory() {
    let _turn = my_turn();
    // 100 elements per piece, the pieces cut mid-element so that one element in each is held.
    let elements = "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"a [bracket], a \\\"quote\\\"\"}]}}]}\n,\r\n"
        .repeat(100)
        .into_bytes();
    let (head, tail) = elements.split_at(40);
    let run = run(Limits::default(), &[b"[", head].concat(), &[tail, head].concat(), 256 * MIB);
    assert!(run.error.is_none());
    assert!(run.frames > 300_000);
    assert!(run.peak < 16 * 1024, "peak heap {} bytes over 256 MiB", run.peak);
}

#[test]
fn a_long_event_stream_of_small_messages_runs_in_constant_memory() {
    let _turn = my_turn();
    let message = event(b"{\"contentBlockIndex\":0,\"delta\":{\"text\":\"hi\"},\"p\":\"abcdefgh\"}");
    // 100 messages per piece, the pieces cut mid-message so that one message in each is held.
    let messages = message.repeat(100);
    let (head, tail) = messages.split_at(37);
    let run = run(Limits::default(), head, &[tail, head].concat(), 256 * MIB);
    assert!(run.error.is_none(), "{:?}", run.error);
    assert!(run.frames > 1_000_000);
    assert!(run.peak < 16 * 1024, "peak heap {} bytes over 256 MiB", run.peak);
}

#[test]
fn the_streams_above_are_the_framings_they_were_meant_to_be() {
    let cases: [(&[u8], Framing); 3] =
        [(b"[{", Framing::JsonArray), (&event(b"{}"), Framing::EventStream), (b"\n\ndata:", Framing::Sse)];
    for (start, framing) in cases {
        assert_eq!(llm_wire::framing::detect(start), Some(framing));
    }
}

/// A `contentBlockDelta` message as Bedrock frames it.
fn event(payload: &[u8]) -> Vec<u8> {
    let mut headers = Vec::new();
    for (name, value) in [(":event-type", "contentBlockDelta"), (":message-type", "event")] {
        headers.push(name.len() as u8);
        headers.extend_from_slice(name.as_bytes());
        headers.push(7);
        headers.extend_from_slice(&(value.len() as u16).to_be_bytes());
        headers.extend_from_slice(value.as_bytes());
    }
    let mut message = ((16 + headers.len() + payload.len()) as u32).to_be_bytes().to_vec();
    message.extend_from_slice(&(headers.len() as u32).to_be_bytes());
    message.extend_from_slice(&crc32(&message).to_be_bytes());
    message.extend_from_slice(&headers);
    message.extend_from_slice(payload);
    message.extend_from_slice(&crc32(&message).to_be_bytes());
    message
}

fn crc32(bytes: &[u8]) -> u32 {
    !bytes.iter().fold(!0u32, |crc, &byte| {
        (0..8).fold(crc ^ byte as u32, |c, _| if c & 1 == 1 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 })
    })
}

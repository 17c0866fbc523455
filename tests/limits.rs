//! Hostile streams against the limits, with the heap measured by a counting allocator: an
//! endless line, a giant event, giant tool arguments and an endless answer each give
//! `limit_exceeded`, the accumulator then refuses input with the same error, the text so far is
//! kept, and the peak heap stays near the configured bound however much is sent (1 GiB here).
#![cfg(not(target_arch = "wasm32"))]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use llm_wire::{Accumulator, AccumulatorOptions, ErrorCode, Format, Limits, StreamEvent};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The heap is process-wide: the measured tests take turns.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

const GIB: usize = 1 << 30;
const MIB: usize = 1 << 20;

/// Feeds `total` bytes produced by `piece(i)` and returns (the error that stopped input, bytes
/// accepted before it, peak heap growth, the final message's text).
fn hostile(
    limits: Limits,
    prefix: &[u8],
    total: usize,
    piece: &dyn Fn(usize) -> Vec<u8>,
) -> (Option<llm_wire::Error>, usize, usize, String, bool) {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let mut acc = Accumulator::new(AccumulatorOptions { format: Format::OpenAiChat, limits, ..Default::default() });
    acc.push(prefix).unwrap();
    let (mut sent, mut i, mut stopped, mut limit_event) = (0, 0, None, false);
    while sent < total {
        let chunk = piece(i);
        i += 1;
        match acc.push(&chunk) {
            Ok(events) => {
                limit_event |= events.iter().any(
                    |e| matches!(e, StreamEvent::Error { error } if error.code.as_deref() == Some("limit_exceeded")),
                );
                sent += chunk.len();
            }
            Err(err) => {
                // Refused from now on, with the same error, however much more comes.
                assert_eq!(acc.push(b"data: more\n\n").unwrap_err(), err);
                stopped = Some(err);
                break;
            }
        }
    }
    let message = acc.finish();
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(base);
    eprintln!(
        "hostile stream: {sent} bytes accepted, peak heap growth {peak} bytes, stopped: {:?}",
        stopped.as_ref().map(|e| e.code)
    );
    (stopped, sent, peak, message.text, limit_event)
}

const HELLO: &[u8] = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"kept\"}}]}\n\n";

#[test]
fn an_endless_line_of_a_gibibyte_is_refused_with_bounded_memory() {
    let limits = Limits { max_event_bytes: MIB, ..Limits::default() };
    let chunk = vec![b'x'; 64 * 1024];
    let (stopped, sent, peak, text, flagged) = hostile(limits, b"data: ", GIB, &|_| chunk.clone());
    assert_eq!(stopped.map(|e| e.code), Some(ErrorCode::LimitExceeded));
    assert!(flagged, "the push that crossed the bound reports it as an error event");
    assert!(sent <= 2 * MIB, "refused after {sent} bytes");
    assert!(peak < 4 * MIB, "peak heap {peak} bytes");
    assert_eq!(text, "");
}

#[test]
fn a_giant_event_of_many_data_lines_is_refused_and_the_text_before_it_kept() {
    let limits = Limits { max_event_bytes: MIB, ..Limits::default() };
    let line = b"data: 0123456789abcdef0123456789abcdef\n".repeat(1024);
    let (stopped, _, peak, text, _) = hostile(limits, HELLO, GIB, &|_| line.clone());
    assert_eq!(stopped.map(|e| e.code), Some(ErrorCode::LimitExceeded));
    assert!(peak < 4 * MIB, "peak heap {peak} bytes");
    assert_eq!(text, "kept");
}

#[test]
fn giant_tool_arguments_are_refused_at_max_tool_argument_bytes() {
    let limits = Limits { max_tool_argument_bytes: MIB, ..Limits::default() };
    let start = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"f\",\"arguments\":\"\"}}]}}]}\n\n";
    let delta = format!("data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":0,\"function\":{{\"arguments\":\"{}\"}}}}]}}}}]}}\n\n", "a".repeat(4000)).into_bytes();
    let (stopped, sent, peak, _, _) = hostile(limits, start, GIB, &|_| delta.clone());
    assert_eq!(stopped.map(|e| e.code), Some(ErrorCode::LimitExceeded));
    assert!(sent <= 2 * MIB, "refused after {sent} bytes");
    assert!(peak < 8 * MIB, "peak heap {peak} bytes");
}

#[test]
fn an_endless_answer_of_a_gibibyte_stops_at_max_message_bytes() {
    let limits = Limits { max_message_bytes: 16 * MIB, ..Limits::default() };
    let delta =
        format!("data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{}\"}}}}]}}\n\n", "é".repeat(2000))
            .repeat(16)
            .into_bytes();
    let (stopped, sent, peak, text, _) = hostile(limits, b"", GIB, &|_| delta.clone());
    assert_eq!(stopped.map(|e| e.code), Some(ErrorCode::LimitExceeded));
    assert!(sent < 20 * MIB, "refused after {sent} bytes");
    assert!(peak < 64 * MIB, "peak heap {peak} bytes (text kept: {} bytes)", text.len());
    assert!(text.len() > 15 * MIB, "the text up to the bound is kept");
}

#[test]
fn a_gibibyte_of_keep_alives_and_empty_deltas_runs_in_constant_memory() {
    let chunk = b": keep-alive\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\"}}]}\n\n".repeat(512);
    let (stopped, sent, peak, text, _) = hostile(Limits::default(), HELLO, GIB, &|_| chunk.clone());
    assert!(stopped.is_none());
    assert!(sent >= GIB);
    assert!(peak < MIB, "peak heap {peak} bytes over 1 GiB");
    assert_eq!(text, "kept");
}

//! A global allocator that counts the bytes live and the most live at once, for the test
//! binaries that measure heap (each names it with `#[global_allocator]`: one per binary).
#![allow(dead_code)] // each binary uses part of it

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{Mutex, MutexGuard};

pub struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        System.dealloc(p, layout);
        LIVE.fetch_sub(layout.size(), Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let q = System.realloc(p, layout, new_size);
        if !q.is_null() && new_size > layout.size() {
            // Counted as a move, old and new live at once: a block cannot always grow in place.
            grew(new_size);
            LIVE.fetch_sub(layout.size(), Relaxed);
        } else if !q.is_null() {
            LIVE.fetch_sub(layout.size() - new_size, Relaxed);
        }
        q
    }
}

fn grew(n: usize) {
    let live = LIVE.fetch_add(n, Relaxed) + n;
    PEAK.fetch_max(live, Relaxed);
}

/// Starts a measurement: returns the bytes live now, the base [`peak_since`] counts from.
pub fn start() -> usize {
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    base
}

/// The most bytes live at once since [`start`] returned `base`, over `base`.
pub fn peak_since(base: usize) -> usize {
    PEAK.load(Relaxed).saturating_sub(base)
}

/// The most bytes live at once while `f` runs, over what was live when it started.
pub fn peak_of(f: impl FnOnce()) -> usize {
    let base = start();
    f();
    peak_since(base)
}

/// The counters are process-wide: tests that measure take turns, each for the whole of it
/// (building its input allocates too).
pub fn turn() -> MutexGuard<'static, ()> {
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

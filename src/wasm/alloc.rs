//! The module's allocator: the standard library's (dlmalloc on `wasm32-unknown-unknown`), with
//! wasm memory grown ahead of need when small blocks fill it.
//!
//! dlmalloc asks wasm for just the pages an allocation is short of, so a heap built of many small
//! blocks (a parsed agent with 100,000 tools) grows memory a page at a time, thousands of times,
//! and V8 answers growth of wasm memory with full collections of the JS heap, whose size is the
//! input's too: the cost grew with the square of the input. Grown by half of what the small
//! blocks hold instead (at most 16 MiB at a time), memory grows a few dozen times at the most. A
//! block of a page or more already grows memory by its own size, and the buffers that double
//! make that growth geometric, so it reserves nothing. Nor does what large blocks hold count
//! toward a reserve: sized by all of memory, the reserve made after one 10 MB event (when the
//! next small block found the heap full) added half the event again to its peak.
//! Measured: `buildChatArgs` with a 100,000-operation OpenAPI document, 31 s and 239 full
//! collections before, 2.2 s and 6 after (bench/FINDINGS.md, "Growing wasm memory").

use core::arch::wasm32::memory_size;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

const PAGE: usize = 64 * 1024;

/// The most one reserve adds: memory past it grows by 16 MiB steps, a few dozen growths for
/// the largest heap, so a heap near an edge runtime's limit (128 MB in a Worker) is not pushed
/// over it by half again of what it holds.
const MAX_RESERVE_PAGES: usize = 256;

/// The bytes asked for in blocks smaller than a page and not yet freed. (The module has one
/// thread: the atomic is a plain load and store.)
static SMALL_BYTES: AtomicUsize = AtomicUsize::new(0);

/// Counts a block of `size` bytes taken (`taken`) or given back in [`SMALL_BYTES`].
#[inline]
fn count_small(size: usize, taken: bool) {
    if size < PAGE {
        if taken {
            SMALL_BYTES.fetch_add(size, Relaxed);
        } else {
            SMALL_BYTES.fetch_sub(size, Relaxed);
        }
    }
}

/// dlmalloc, growing wasm memory by half of what small blocks hold when a small block must grow
/// it.
pub struct GrowAhead;

// SAFETY: every block comes from `System` and goes back to it with its own layout; the reserve
// block is freed at once and never handed out.
unsafe impl GlobalAlloc for GrowAhead {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grown_ahead(layout.size(), || System.alloc(layout))
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        grown_ahead(layout.size(), || System.alloc_zeroed(layout))
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let block = grown_ahead(new_size, || System.realloc(ptr, layout, new_size));
        if !block.is_null() {
            count_small(layout.size(), false);
        }
        block
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count_small(layout.size(), false);
        System.dealloc(ptr, layout)
    }
}

/// Runs one allocation of `size` bytes; when a block smaller than a page made memory grow by less
/// than half of what the small blocks hold, reserves the rest of that half (at most 16 MiB).
fn grown_ahead(size: usize, allocate: impl FnOnce() -> *mut u8) -> *mut u8 {
    let pages = memory_size(0);
    let block = allocate();
    if block.is_null() {
        return block;
    }
    count_small(size, true);
    let grown = memory_size(0) - pages;
    let ahead = (SMALL_BYTES.load(Relaxed) / PAGE / 2).min(MAX_RESERVE_PAGES);
    if grown > 0 && size < PAGE && grown < ahead {
        reserve((ahead - grown) * PAGE);
    }
    block
}

/// Adds `bytes` to dlmalloc's free memory at the top of the heap: a block taken and freed at
/// once merges back into it, and dlmalloc on wasm never returns memory. Out of memory, it
/// reserves nothing and the next allocation asks for just what it needs.
fn reserve(bytes: usize) {
    let Ok(layout) = Layout::from_size_align(bytes, 1) else { return };
    // SAFETY: `grown_ahead` reserves at least a page; the block is freed with its own layout.
    unsafe {
        let block = System.alloc(layout);
        if !block.is_null() {
            System.dealloc(block, layout);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn many_small_blocks_grow_memory_a_few_times_not_a_page_at_a_time() {
        // Small blocks kept alive, as a parsed agent keeps its strings and maps, until memory is
        // four times what it was: a page at a time that is dozens of growths at the least.
        let start = memory_size(0);
        let (mut grew, mut last) = (0, start);
        let mut blocks: Vec<Box<[u8; 48]>> = Vec::new();
        while memory_size(0) < 4 * start {
            blocks.push(Box::new([1; 48]));
            grew += usize::from(memory_size(0) != last);
            last = memory_size(0);
        }
        // By half at a time, four times the memory takes four growths, and the list of blocks
        // grows by doubling, a few more.
        assert!(grew <= 12, "memory grew {grew} times from {start} pages");
        assert!(blocks.iter().all(|block| block[47] == 1));
    }
}

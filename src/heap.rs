//! The wasm heap: power-of-two size classes, one free list per class, new blocks cut from
//! memory the module grows itself.
//!
//! Rust hands the allocator the layout again on `dealloc` and `realloc`, so a block needs no
//! header: its class follows from the layout. A freed block goes to the head of its class's list
//! and is the next one of that class handed out. Blocks are never split or merged; a `Vec` or
//! `String` growing by doubling moves up one class at a time, and its old block serves the next
//! value of that size. This replaces the standard library's `dlmalloc` (about 7 KB of code in
//! the module) with a few hundred bytes, and is no slower: an allocation is a class index and a
//! list pop. The cost is memory: a block is up to twice its request, and memory a class holds
//! is not given to another class (wasm memory never shrinks, so no allocator gives it back).
//!
//! Blocks of class `2^k` are aligned to `min(2^k, MAX_ALIGN)`; a layout asking for more than
//! [`MAX_ALIGN`] gets null (the crate asks for 16 at most).

use core::alloc::Layout;

/// The largest alignment handed out.
pub const MAX_ALIGN: usize = 64;
/// Bytes of one page of memory.
const PAGE: usize = 65536;
/// Pages asked for at least, so that small allocations do not grow memory one page at a time.
const MIN_GROW_PAGES: usize = 16;
/// Class `k` holds blocks of `2^k` bytes; the smallest is 8 (a free block stores one pointer).
const MIN_SHIFT: u32 = 3;
const CLASSES: usize = usize::BITS as usize;

/// Where new memory comes from: `grow(pages)` returns the address of the new region (the old
/// end of memory) or `None`.
pub trait Memory {
    fn grow(&mut self, pages: usize) -> Option<usize>;
}

/// The allocator state. `free[k]` is the address of the first free block of class `k` (0: none);
/// each free block's first word is the address of the next.
pub struct Heap<M> {
    free: [usize; CLASSES],
    next: usize,
    end: usize,
    memory: M,
}

/// The class of a layout: `k` with `2^k >= max(size, align, 8)`, or `None` beyond the address space.
fn class(layout: Layout) -> Option<u32> {
    let size = layout.size().max(layout.align()).max(1 << MIN_SHIFT);
    let k = usize::BITS - (size - 1).leading_zeros();
    (k < usize::BITS).then_some(k)
}

impl<M: Memory> Heap<M> {
    pub const fn new(memory: M) -> Self {
        Heap { free: [0; CLASSES], next: 0, end: 0, memory }
    }

    /// # Safety
    /// As `GlobalAlloc::alloc`.
    #[cfg_attr(llw_speed, optimize(speed))]
    pub unsafe fn alloc(&mut self, layout: Layout) -> *mut u8 {
        match class(layout) {
            Some(k) if layout.align() <= MAX_ALIGN => self.alloc_class(k) as *mut u8,
            _ => core::ptr::null_mut(),
        }
    }

    #[cfg_attr(llw_speed, optimize(speed))]
    unsafe fn alloc_class(&mut self, k: u32) -> usize {
        let head = self.free[k as usize];
        if head != 0 {
            self.free[k as usize] = *(head as *const usize);
            return head;
        }
        let size = 1usize << k;
        let align = size.min(MAX_ALIGN);
        let fits = |next: usize, end: usize| {
            let start = next.checked_add(align - 1)? & !(align - 1);
            (start.checked_add(size)? <= end).then_some(start)
        };
        let start = match fits(self.next, self.end) {
            Some(start) => start,
            None => {
                let Some(pages) = size.checked_add(align).map(|n| n.div_ceil(PAGE).max(MIN_GROW_PAGES)) else {
                    return 0;
                };
                let Some(region) = self.memory.grow(pages) else { return 0 };
                // Memory grown right after the current region extends it; otherwise the rest
                // of the current region is left unused.
                if region != self.end {
                    self.next = region;
                }
                self.end = region + pages * PAGE;
                match fits(self.next, self.end) {
                    Some(start) => start,
                    None => return 0,
                }
            }
        };
        self.next = start + size;
        start
    }

    /// # Safety
    /// As `GlobalAlloc::dealloc`.
    #[cfg_attr(llw_speed, optimize(speed))]
    pub unsafe fn dealloc(&mut self, ptr: *mut u8, layout: Layout) {
        if let Some(k) = class(layout) {
            *(ptr as *mut usize) = self.free[k as usize];
            self.free[k as usize] = ptr as usize;
        }
    }

    /// # Safety
    /// As `GlobalAlloc::realloc`.
    #[cfg_attr(llw_speed, optimize(speed))]
    pub unsafe fn realloc(&mut self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let Ok(new_layout) = Layout::from_size_align(new_size, layout.align()) else {
            return core::ptr::null_mut();
        };
        if class(layout) == class(new_layout) {
            return ptr;
        }
        let new = self.alloc(new_layout);
        if !new.is_null() {
            core::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
            self.dealloc(ptr, layout);
        }
        new
    }
}

#[cfg(target_arch = "wasm32")]
mod global {
    use super::{Heap, Memory, PAGE};
    use core::alloc::{GlobalAlloc, Layout};
    use core::cell::UnsafeCell;

    struct Wasm;

    impl Memory for Wasm {
        fn grow(&mut self, pages: usize) -> Option<usize> {
            let old = core::arch::wasm32::memory_grow(0, pages);
            (old != usize::MAX).then(|| old * PAGE)
        }
    }

    struct Global(UnsafeCell<Heap<Wasm>>);

    // wasm32-unknown-unknown without the atomics feature runs one thread.
    unsafe impl Sync for Global {}

    unsafe impl GlobalAlloc for Global {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            (*self.0.get()).alloc(layout)
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            (*self.0.get()).dealloc(ptr, layout)
        }
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            (*self.0.get()).realloc(ptr, layout, new_size)
        }
    }

    #[global_allocator]
    static HEAP: Global = Global(UnsafeCell::new(Heap::new(Wasm)));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Memory over a real buffer: `grow` hands out its pages in order, optionally leaving a gap
    /// (memory grown by someone else) before each region, and fails past the buffer's end.
    struct Arena {
        buffer: Vec<u64>,
        used: usize,
        gap: usize,
        grown: usize,
    }

    impl Arena {
        fn new(pages: usize, gap: usize) -> Self {
            Arena { buffer: vec![0; (pages + 1) * PAGE / 8], used: 0, gap, grown: 0 }
        }
    }

    impl Memory for Arena {
        fn grow(&mut self, pages: usize) -> Option<usize> {
            // Regions start on a page boundary of real addresses, as wasm memory does.
            let base = (self.buffer.as_ptr() as usize).next_multiple_of(PAGE);
            let start = self.used + self.gap;
            if (start + pages) * PAGE + PAGE > self.buffer.len() * 8 {
                return None;
            }
            self.used = start + pages;
            self.grown += 1;
            Some(base + start * PAGE)
        }
    }

    /// A small deterministic generator (xorshift), so a failure can be replayed.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    struct Live {
        ptr: *mut u8,
        layout: Layout,
        fill: u8,
    }

    fn fill(live: &Live) {
        unsafe { core::ptr::write_bytes(live.ptr, live.fill, live.layout.size()) }
    }

    fn intact(live: &Live, len: usize) -> bool {
        (0..len).all(|i| unsafe { *live.ptr.add(i) } == live.fill)
    }

    fn random_layout(rng: &mut Rng) -> Layout {
        let size = match rng.below(4) {
            0 => rng.below(16) + 1,
            1 => rng.below(300) + 1,
            2 => rng.below(5000) + 1,
            _ => rng.below(200_000) + 1,
        };
        Layout::from_size_align(size, 1 << rng.below(7)).unwrap()
    }

    /// Every live block is aligned, inside memory the heap was given, apart from every other
    /// live block, and keeps its bytes through other blocks' allocation, release and growth.
    fn run(gap: usize, seed: u64, steps: usize) {
        let mut heap = Heap::new(Arena::new(1200, gap));
        let mut rng = Rng(seed);
        let mut live: Vec<Live> = Vec::new();
        for step in 0..steps {
            match rng.below(10) {
                0..=4 => {
                    let layout = random_layout(&mut rng);
                    let ptr = unsafe { heap.alloc(layout) };
                    assert!(!ptr.is_null(), "step {step}: {layout:?}");
                    assert_eq!(ptr as usize % layout.align(), 0, "step {step}");
                    let block = Live { ptr, layout, fill: (step % 251) as u8 };
                    fill(&block);
                    live.push(block);
                }
                5..=7 if !live.is_empty() => {
                    let block = live.swap_remove(rng.below(live.len()));
                    assert!(intact(&block, block.layout.size()), "step {step}");
                    unsafe { heap.dealloc(block.ptr, block.layout) };
                }
                _ if !live.is_empty() => {
                    let i = rng.below(live.len());
                    let new_size = random_layout(&mut rng).size();
                    let old = &live[i];
                    let ptr = unsafe { heap.realloc(old.ptr, old.layout, new_size) };
                    assert!(!ptr.is_null());
                    assert_eq!(ptr as usize % old.layout.align(), 0);
                    let kept = old.layout.size().min(new_size);
                    let moved = Live {
                        ptr,
                        layout: Layout::from_size_align(new_size, old.layout.align()).unwrap(),
                        fill: old.fill,
                    };
                    assert!(intact(&moved, kept), "step {step}: realloc lost bytes");
                    fill(&moved);
                    live[i] = moved;
                }
                _ => {}
            }
        }
        let mut spans: Vec<(usize, usize)> =
            live.iter().map(|b| (b.ptr as usize, b.ptr as usize + b.layout.size())).collect();
        spans.sort();
        assert!(spans.windows(2).all(|w| w[0].1 <= w[1].0), "live blocks overlap");
        assert!(live.iter().all(|b| intact(b, b.layout.size())));
    }

    #[test]
    fn random_use_keeps_blocks_apart_aligned_and_intact() {
        for seed in 1..=6u64 {
            run(0, seed.wrapping_mul(0x9E37_79B9_7F4A_7C15), 4000);
        }
    }

    #[test]
    fn memory_grown_elsewhere_in_between_is_skipped() {
        for seed in 1..=3u64 {
            run(1, seed.wrapping_mul(0x2545_F491_4F6C_DD1D), 2000);
        }
    }

    #[test]
    fn a_freed_block_serves_the_next_request_of_its_class() {
        let mut heap = Heap::new(Arena::new(64, 0));
        let a = Layout::from_size_align(100, 8).unwrap();
        let b = Layout::from_size_align(120, 4).unwrap();
        unsafe {
            let first = heap.alloc(a);
            heap.dealloc(first, a);
            assert_eq!(heap.alloc(b), first, "100 and 120 bytes share the 128-byte class");
            let other = heap.alloc(b);
            assert_ne!(other, first);
        }
    }

    #[test]
    fn realloc_within_a_class_keeps_the_block() {
        let mut heap = Heap::new(Arena::new(64, 0));
        let layout = Layout::from_size_align(70, 1).unwrap();
        unsafe {
            let p = heap.alloc(layout);
            assert_eq!(heap.realloc(p, layout, 128), p);
            let q = heap.realloc(p, Layout::from_size_align(128, 1).unwrap(), 129);
            assert_ne!(q, p);
        }
    }

    #[test]
    fn a_steady_workload_stops_growing_memory() {
        // A stream's pattern: buffers doubling up to 256 KB, freed, and again.
        let mut heap = Heap::new(Arena::new(256, 0));
        let mut grown_after_first = 0;
        for round in 0..50 {
            let mut size = 8;
            let mut layout = Layout::from_size_align(size, 1).unwrap();
            let mut p = unsafe { heap.alloc(layout) };
            while size < 256 * 1024 {
                p = unsafe { heap.realloc(p, layout, size * 2) };
                size *= 2;
                layout = Layout::from_size_align(size, 1).unwrap();
            }
            unsafe { heap.dealloc(p, layout) };
            if round == 0 {
                grown_after_first = heap.memory.grown;
            }
        }
        assert_eq!(heap.memory.grown, grown_after_first);
    }

    #[test]
    fn refusals_are_null_not_panics() {
        let mut heap = Heap::new(Arena::new(32, 0));
        unsafe {
            assert!(heap.alloc(Layout::from_size_align(8, 128).unwrap()).is_null(), "alignment above MAX_ALIGN");
            assert!(heap.alloc(Layout::from_size_align(64 * PAGE, 1).unwrap()).is_null(), "more than memory has");
            assert!(
                heap.alloc(Layout::from_size_align(isize::MAX as usize - 64, 1).unwrap()).is_null(),
                "half the address space"
            );
            // The heap still works after the refusals.
            assert!(!heap.alloc(Layout::from_size_align(1000, 8).unwrap()).is_null());
        }
    }
}

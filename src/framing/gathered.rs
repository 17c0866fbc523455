//! The bytes of one frame gathered from chunk after chunk, for a framing that cannot know the
//! frame's size before its end: an SSE line, a JSON array element.

/// Past this many bytes, what is gathered is kept in parts rather than grown.
pub(crate) const PART: usize = 64 * 1024;

/// The largest buffer a framing keeps from one frame for the next.
const KEPT: usize = 64 * 1024;

/// A framing's buffer emptied for its next use. One grown past [`KEPT`] by one large frame is
/// let go rather than kept, empty, for the small frames after it.
pub(crate) fn emptied(mut buffer: Vec<u8>) -> Vec<u8> {
    if buffer.capacity() > KEPT {
        return Vec::new();
    }
    buffer.clear();
    buffer
}

/// A frame's bytes so far. Small, they are one buffer, reused from frame to frame. Past [`PART`]
/// bytes they are kept in parts, as the chunks filled them, and joined once, into a buffer of
/// exactly their size, when the frame ends: one buffer grown by doubling would hold up to twice
/// the frame and leave each old copy behind as a hole in wasm memory, which never shrinks. The
/// parts, freed together, leave one space of the frame's size for what reading it allocates
/// next.
#[derive(Debug, Default)]
pub(crate) struct Gathered {
    /// The earlier parts of a long frame.
    parts: Vec<Vec<u8>>,
    /// The bytes in `parts`.
    parts_len: usize,
    /// The part being filled.
    last: Vec<u8>,
    /// The longest frame the limits allow, for the room the list of parts takes.
    max_frame: usize,
}

impl Gathered {
    /// For frames of at most `max_frame` bytes (a limit checked by the caller).
    pub(crate) fn new(max_frame: usize) -> Self {
        Gathered { max_frame, ..Gathered::default() }
    }

    /// The bytes gathered.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.parts_len + self.last.len()
    }

    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes of memory held, gathered or not.
    #[cfg(test)]
    pub(crate) fn capacity(&self) -> usize {
        self.parts.iter().map(Vec::capacity).sum::<usize>() + self.last.capacity()
    }

    /// Adds `bytes` at the end.
    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn push(&mut self, bytes: &[u8]) {
        if self.last.len() >= PART && self.last.len() + bytes.len() > self.last.capacity() {
            if self.parts.is_empty() {
                // Room for the parts of the longest frame, made once: the list growing between
                // the parts would split the space they leave into pieces too small to reuse.
                self.parts.reserve((self.max_frame / PART).clamp(1, 1024));
            }
            self.parts_len += self.last.len();
            self.parts.push(std::mem::take(&mut self.last));
        }
        self.last.extend_from_slice(bytes);
    }

    /// The bytes gathered with `tail` after them, in one buffer; `self` is then empty. Give the
    /// buffer back with [`Self::reuse`] when done with it.
    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn take_with(&mut self, tail: &[u8]) -> Vec<u8> {
        if self.parts.is_empty() {
            let mut whole = std::mem::take(&mut self.last);
            whole.extend_from_slice(tail);
            return whole;
        }
        // The tail is gathered too, so that the space the parts leave is the whole frame's: the
        // largest string read from the frame next (a call's arguments) fits in it.
        self.push(tail);
        let mut whole = Vec::with_capacity(self.len());
        // The list goes too: the parts and the list between them leave one free space.
        for part in std::mem::take(&mut self.parts) {
            whole.extend_from_slice(&part);
        }
        whole.extend_from_slice(&self.last);
        self.last = Vec::new();
        self.parts_len = 0;
        whole
    }

    /// Keeps a buffer from [`Self::take_with`] for the next frame, as [`emptied`] keeps one.
    pub(crate) fn reuse(&mut self, buffer: Vec<u8>) {
        if self.is_empty() {
            self.last = emptied(buffer);
        }
    }

    /// Drops everything gathered, and the memory it held.
    pub(crate) fn release(&mut self) {
        *self = Gathered::new(self.max_frame);
    }
}

#[cfg(test)]
mod tests {
    use super::{Gathered, PART};

    #[test]
    fn bytes_pushed_in_any_pieces_come_back_whole_with_the_tail() {
        let bytes: Vec<u8> = (0..3 * PART + 17).map(|i| (i % 251) as u8).collect();
        for piece in [1, 1000, PART - 1, PART, PART + 1, 2 * PART + 5] {
            let mut gathered = Gathered::default();
            for chunk in bytes.chunks(piece) {
                gathered.push(chunk);
            }
            assert_eq!(gathered.len(), bytes.len(), "pieces of {piece}");
            let whole = gathered.take_with(b"end");
            assert_eq!(&whole[..bytes.len()], &bytes[..], "pieces of {piece}");
            assert_eq!(&whole[bytes.len()..], b"end");
            assert!(gathered.is_empty(), "taking empties it");
        }
    }

    #[test]
    fn a_long_frame_is_joined_into_a_buffer_of_its_size() {
        let mut gathered = Gathered::default();
        for _ in 0..40 {
            gathered.push(&[7; PART / 4 + 3]);
        }
        let len = gathered.len();
        let whole = gathered.take_with(b"]");
        assert_eq!(whole.len(), len + 1);
        assert_eq!(whole.capacity(), len + 1, "no room left over from doubling");
    }

    #[test]
    fn only_a_small_buffer_is_kept_for_the_next_frame() {
        let mut gathered = Gathered::default();
        gathered.push(b"{\"a\":");
        let small = gathered.take_with(b"1}");
        gathered.reuse(small);
        assert!(gathered.is_empty());
        assert!(gathered.last.capacity() > 0, "a small buffer is reused");

        gathered.push(&vec![1; 3 * PART]);
        let large = gathered.take_with(b"");
        gathered.reuse(large);
        assert_eq!(gathered.last.capacity(), 0, "a large one is freed");
    }
}

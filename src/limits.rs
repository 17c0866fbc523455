//! Every bound on memory the streaming side keeps, in one documented settings struct.

/// Limits on what an [`crate::Accumulator`] buffers. Exceeding one is a `limit_exceeded` error
/// value, never a panic or an unbounded allocation; after it the accumulator refuses further
/// input with the same error, and `finish` still returns everything received before it.
///
/// JSON nesting is bounded too, at the fixed depth of 128 that serde_json enforces on every
/// document this crate parses (deeper input is `invalid_json`, never a stack overflow); it is
/// not configurable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The largest single SSE event (its joined `data:` lines), and the longest single line.
    ///
    /// ### Default
    /// 16 MiB: far above any real event (an Anthropic web-search result is about 80 KB), small
    /// enough that a hostile endless line cannot exhaust a Worker isolate.
    pub max_event_bytes: usize,
    /// The most bytes of unterminated input (a partial line plus the pending event) held between
    /// two `push` calls.
    ///
    /// ### Default
    /// 32 MiB.
    pub max_buffered_bytes: usize,
    /// The largest arguments string of one tool call.
    ///
    /// ### Default
    /// 8 MiB.
    pub max_tool_argument_bytes: usize,
    /// The most bytes one message may keep, all choices together: everything the accumulator
    /// holds for it counts, as it arrives. That is its text and reasoning, tool calls (id,
    /// name, arguments, and the item key they are found by), signatures and redacted
    /// reasoning, citations, blocks kept whole (`other`, a server tool's start and streamed
    /// input), refusal text, finish reasons, stream item ids, and 128 bytes for each choice,
    /// block, tool call, citation, open block and stream item or part besides their strings,
    /// so that a stream of empty entries is bounded too. The message id, model, provider, usage
    /// and error count once for each message the final message carries them in: once, or with
    /// several choices once per choice and once more on top.
    ///
    /// ### Default
    /// 256 MiB.
    pub max_message_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_event_bytes: 16 << 20,
            max_buffered_bytes: 32 << 20,
            max_tool_argument_bytes: 8 << 20,
            max_message_bytes: 256 << 20,
        }
    }
}

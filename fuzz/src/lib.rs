//! Helpers shared by the fuzz targets.
//!
//! Stream targets (`sse`, `accumulator`) read a small header before the stream bytes:
//!
//! ```text
//! byte 0        configuration (target-specific: the format)
//! bytes 1..5    the limits, one byte each (see [`StreamInput::limits`]): 0 keeps the default
//! byte 5        number of split points k (low 4 bits, so at most 15)
//! bytes 6..6+2k k little-endian u16 split offsets (taken modulo len+1, then sorted)
//! rest          the stream
//! ```
//!
//! `fuzz/seed.sh` writes the fixtures with such a header (default and small limits, `k = 0`),
//! so seeds are real streams.

use llm_wire::Limits;

/// The stream inputs: configuration byte, the stream, and its chunks at the split points.
pub struct StreamInput<'a> {
    pub config: u8,
    limit_bytes: [u8; 4],
    pub data: &'a [u8],
    pub cuts: Vec<usize>,
}

impl<'a> StreamInput<'a> {
    pub fn parse(input: &'a [u8]) -> Option<StreamInput<'a>> {
        let (&config, rest) = input.split_first()?;
        let (limit_bytes, rest) = rest.split_first_chunk::<4>()?;
        let (&count, mut rest) = rest.split_first()?;
        let count = (count & 0x0f) as usize;
        let mut raw = Vec::with_capacity(count);
        for _ in 0..count {
            if rest.len() < 2 {
                break;
            }
            raw.push(u16::from_le_bytes([rest[0], rest[1]]) as usize);
            rest = &rest[2..];
        }
        let mut cuts: Vec<usize> = raw.into_iter().map(|c| c % (rest.len() + 1)).collect();
        cuts.sort_unstable();
        Some(StreamInput { config, limit_bytes: *limit_bytes, data: rest, cuts })
    }

    /// The limits the header chooses, one byte each for the event, buffered input, tool
    /// argument and message limits: 0 keeps the default, any other `n` makes the limit small
    /// (`n` × 16 bytes, tool arguments `n` × 4), so every limit path and its edges are reached.
    pub fn limits(&self) -> Limits {
        let small = |byte: u8, unit: usize, default: usize| match byte {
            0 => default,
            n => usize::from(n) * unit,
        };
        let [event, buffered, arguments, message] = self.limit_bytes;
        let mut limits = Limits::default();
        limits.max_event_bytes = small(event, 16, limits.max_event_bytes);
        limits.max_buffered_bytes = small(buffered, 16, limits.max_buffered_bytes);
        limits.max_tool_argument_bytes = small(arguments, 4, limits.max_tool_argument_bytes);
        limits.max_message_bytes = small(message, 16, limits.max_message_bytes);
        limits
    }

    /// The stream cut at every split point (empty chunks included: they are legal input).
    pub fn chunks(&self) -> Vec<&'a [u8]> {
        let mut out = Vec::with_capacity(self.cuts.len() + 1);
        let mut start = 0;
        for &cut in &self.cuts {
            out.push(&self.data[start..cut]);
            start = cut;
        }
        out.push(&self.data[start..]);
        out
    }
}

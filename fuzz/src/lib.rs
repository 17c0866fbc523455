//! Helpers shared by the fuzz targets.
//!
//! Stream targets (`sse`, `accumulator`) read a small header before the stream bytes:
//!
//! ```text
//! byte 0        configuration (target-specific: format, limits)
//! byte 1        number of split points k (low 4 bits, so at most 15)
//! bytes 2..2+2k k little-endian u16 split offsets (taken modulo len+1, then sorted)
//! rest          the stream
//! ```
//!
//! `fuzz/seed.sh` writes the fixtures with a header of `k = 0`, so seeds are real streams.

use llm_wire::Limits;

/// The stream inputs: configuration byte, the stream, and its chunks at the split points.
pub struct StreamInput<'a> {
    pub config: u8,
    pub data: &'a [u8],
    pub cuts: Vec<usize>,
}

impl<'a> StreamInput<'a> {
    pub fn parse(input: &'a [u8]) -> Option<StreamInput<'a>> {
        let (&config, rest) = input.split_first()?;
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
        Some(StreamInput { config, data: rest, cuts })
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

/// Limits chosen by two bits: the defaults, or small ones so that the limit paths run too.
pub fn limits(selector: u8) -> Limits {
    match selector & 3 {
        0 => Limits::default(),
        1 => Limits { max_event_bytes: 4096, ..Default::default() },
        2 => Limits { max_tool_argument_bytes: 64, max_message_bytes: 512, ..Default::default() },
        _ => Limits {
            max_event_bytes: 1024,
            max_buffered_bytes: 1536,
            max_tool_argument_bytes: 256,
            max_message_bytes: 2048,
        },
    }
}

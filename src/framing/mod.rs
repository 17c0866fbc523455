//! The framings a streamed body can arrive in, below the format decoders: bytes in, split
//! anywhere, one unit at a time out.
//!
//! - [`json_array`]: one JSON array whose elements arrive one by one, Gemini's
//!   `streamGenerateContent` without `alt=sse`.
//! - [`event_stream`]: AWS `application/vnd.amazon.eventstream`, Bedrock's ConverseStream and
//!   InvokeModelWithResponseStream.
//!
//! Each framing is bounded by [`Limits`] and linear in its input.

mod crc32;
pub mod event_stream;
pub mod json_array;

use crate::error::{Error, ErrorCode, Result};
use crate::Limits;

/// The error that ended a stream, if one did: the framings cannot resynchronise after an error,
/// so every later call returns it again.
#[derive(Debug, Default)]
struct Ended(Option<Error>);

impl Ended {
    fn check(&self) -> Result<()> {
        match &self.0 {
            Some(err) => Err(err.clone()),
            None => Ok(()),
        }
    }

    /// Keeps the error of `outcome`, if any, and passes it on.
    fn record(&mut self, outcome: Result<()>) -> Result<()> {
        if let Err(err) = &outcome {
            self.0 = Some(err.clone());
        }
        outcome
    }
}

/// A framing that does not decode. The error codes are a closed set; `invalid_json` is the one
/// for a stream event that does not parse.
fn malformed(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::InvalidJson, message)
}

fn at_byte(what: &str, offset: u64) -> String {
    format!("{what} at byte {offset}")
}

/// `len` bytes of one unit (an element, a message) against both limits.
fn check_size(what: &str, len: usize, limits: &Limits) -> Result<()> {
    if len > limits.max_event_bytes {
        return Err(Error::new(
            ErrorCode::LimitExceeded,
            format!("{what} is larger than maxEventBytes ({} bytes)", limits.max_event_bytes),
        ));
    }
    if len > limits.max_buffered_bytes {
        return Err(Error::new(
            ErrorCode::LimitExceeded,
            format!("{what} is larger than maxBufferedBytes ({} bytes)", limits.max_buffered_bytes),
        ));
    }
    Ok(())
}

//! Byte-level `text/event-stream` decoder (WHATWG HTML §9.2.6), provider-blind: bytes in,
//! [`SseEvent`]s out.
//!
//! Lines are split on bytes (LF, CR, CRLF; a CR ending one chunk and an LF starting the next are
//! one line end) and only complete lines are interpreted, so a UTF-8 sequence cut by the network
//! is never decoded half-way. A partial line is kept as one growing fragment (in parts, once it is
//! long) and joined once its terminator arrives (no re-joining on every feed), bounded by
//! [`Limits`].

#[cfg(test)]
mod tests;

use crate::error::{Error, ErrorCode, Result};
use crate::framing::gathered::{emptied, Gathered};
use crate::Limits;

const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];
const BOM_DONE: u8 = u8::MAX;

/// One dispatched event. `data` is the `data:` lines joined with `\n`; `event` is the `event:`
/// field, or `"message"` when the event had none. Both borrow the decoder's buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SseEvent<'a> {
    pub event: &'a str,
    pub data: &'a [u8],
    /// The last event id seen so far in the stream (the `id:` field persists across events).
    pub id: &'a [u8],
}

/// The incremental decoder. Feed it with [`SseDecoder::feed`] and end it with
/// [`SseDecoder::finish`], which flushes an unterminated last event (WHATWG would drop it; real
/// servers that close without a final blank line still mean it).
#[derive(Debug, Default)]
pub struct SseDecoder {
    /// A line whose terminator has not arrived yet: kept in parts once long, and joined once
    /// into a buffer of the line's size when it ends.
    partial: Gathered,
    state: EventState,
    after_cr: bool,
    bom: u8,
    max_event_bytes: usize,
    max_buffered_bytes: usize,
}

#[derive(Debug, Default)]
struct EventState {
    data: Vec<u8>,
    has_data: bool,
    event: String,
    id: Vec<u8>,
    retry: Option<u64>,
}

impl SseDecoder {
    pub fn new(limits: &Limits) -> Self {
        SseDecoder {
            partial: Gathered::new(limits.max_event_bytes),
            max_event_bytes: limits.max_event_bytes,
            max_buffered_bytes: limits.max_buffered_bytes,
            ..SseDecoder::default()
        }
    }

    /// The reconnection time from the last valid `retry:` field, in milliseconds.
    pub fn retry(&self) -> Option<u64> {
        self.state.retry
    }

    /// Decodes `chunk`, calling `on_event` for every event it completes. Costs O(len) plus the
    /// callback; bytes of an unfinished line are copied once into the partial-line buffer.
    #[cfg_attr(llw_speed, optimize(speed))]
    pub fn feed<F>(&mut self, mut chunk: &[u8], on_event: &mut F) -> Result<()>
    where
        F: FnMut(SseEvent<'_>) -> Result<()>,
    {
        if self.bom != BOM_DONE {
            chunk = self.skip_bom(chunk);
        }
        if chunk.is_empty() {
            return Ok(());
        }
        if self.after_cr {
            self.after_cr = false;
            if chunk[0] == b'\n' {
                chunk = &chunk[1..];
            }
        }
        // The value of a `data:` line starting an event, not copied yet: when the next line is
        // the blank one (nearly always: one data line per event, both in the chunk), the event is
        // dispatched from the chunk itself.
        let mut held: Option<&[u8]> = None;
        while let Some(pos) = find_line_end(chunk) {
            let (line, rest) = chunk.split_at(pos);
            if self.partial.is_empty() {
                if let Some(data) = held.take() {
                    if line.is_empty() {
                        self.state.dispatch_data(data, on_event)?;
                        chunk = after_line_end(rest, &mut self.after_cr);
                        continue;
                    }
                    self.state.keep(data);
                }
                self.check_line(line.len())?;
                match self.state.first_data(line) {
                    Some(data) => held = Some(data),
                    None => self.state.line(line, self.max_event_bytes, on_event)?,
                }
            } else {
                self.check_line(self.partial.len() + line.len())?;
                let mut joined = self.partial.take_with(line);
                let spare = match self.state.first_data(&joined) {
                    // A large event arrives in pieces as one long data line: it becomes the
                    // event's data in place instead of being copied there, without the room
                    // the line grew for, as the event is read while the message copies it.
                    Some(value) => {
                        joined.drain(..joined.len() - value.len());
                        if joined.capacity() > 64 * 1024 {
                            joined.shrink_to_fit();
                        }
                        self.state.has_data = true;
                        std::mem::replace(&mut self.state.data, joined)
                    }
                    None => {
                        let outcome = self.state.line(&joined, self.max_event_bytes, on_event);
                        outcome?;
                        joined
                    }
                };
                self.partial.reuse(spare);
            }
            chunk = after_line_end(rest, &mut self.after_cr);
        }
        if let Some(data) = held {
            self.state.keep(data);
        }
        if !chunk.is_empty() {
            self.check_line(self.partial.len() + chunk.len())?;
            self.partial.push(chunk);
        }
        Ok(())
    }

    /// Ends the input: an unterminated last line is taken as a line, and a pending event is
    /// dispatched. The decoder is reset and may be reused.
    pub fn finish<F>(&mut self, on_event: &mut F) -> Result<()>
    where
        F: FnMut(SseEvent<'_>) -> Result<()>,
    {
        if self.bom != BOM_DONE && self.bom > 0 {
            // The stream ended inside what looked like a BOM: those bytes were content.
            self.partial.push(&BOM[..self.bom as usize]);
        }
        self.bom = BOM_DONE;
        if !self.partial.is_empty() {
            let line = self.partial.take_with(b"");
            self.state.line(&line, self.max_event_bytes, on_event)?;
        }
        self.state.dispatch(on_event)
    }

    /// Strips the byte-order mark once, at the very start, even when it is split across chunks.
    fn skip_bom<'c>(&mut self, mut chunk: &'c [u8]) -> &'c [u8] {
        while self.bom < 3 {
            match chunk.first() {
                None => return chunk,
                Some(&b) if b == BOM[self.bom as usize] => {
                    self.bom += 1;
                    chunk = &chunk[1..];
                }
                Some(_) => {
                    // Not a BOM after all: the bytes matched so far belong to the first line.
                    self.partial.push(&BOM[..self.bom as usize]);
                    break;
                }
            }
        }
        self.bom = BOM_DONE;
        chunk
    }

    #[cfg_attr(llw_speed, optimize(speed))]
    fn check_line(&self, line_len: usize) -> Result<()> {
        if line_len > self.max_event_bytes {
            return Err(Error::new(
                ErrorCode::LimitExceeded,
                format!("an SSE line is longer than maxEventBytes ({} bytes)", self.max_event_bytes),
            ));
        }
        if line_len + self.state.data.len() > self.max_buffered_bytes {
            return Err(Error::new(
                ErrorCode::LimitExceeded,
                format!("more than maxBufferedBytes ({} bytes) of unterminated input", self.max_buffered_bytes),
            ));
        }
        Ok(())
    }
}

impl EventState {
    /// Interprets one complete line (without its terminator).
    #[cfg_attr(llw_speed, optimize(speed))]
    fn line<F>(&mut self, line: &[u8], max_event_bytes: usize, on_event: &mut F) -> Result<()>
    where
        F: FnMut(SseEvent<'_>) -> Result<()>,
    {
        if line.is_empty() {
            return self.dispatch(on_event);
        }
        if line[0] == b':' {
            return Ok(()); // a comment (keep-alives, `: OPENROUTER PROCESSING`)
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        match field {
            b"data" => {
                if self.data.len() + value.len() + 1 > max_event_bytes {
                    return Err(Error::new(
                        ErrorCode::LimitExceeded,
                        format!("an SSE event is larger than maxEventBytes ({max_event_bytes} bytes)"),
                    ));
                }
                if self.has_data {
                    self.data.push(b'\n');
                }
                self.data.extend_from_slice(value);
                self.has_data = true;
            }
            b"event" => {
                self.event.clear();
                self.event.push_str(&String::from_utf8_lossy(value));
            }
            // An id with a NUL is ignored, as is a retry that is not all digits.
            b"id" if !value.contains(&0) => {
                self.id.clear();
                self.id.extend_from_slice(value);
            }
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                self.retry = std::str::from_utf8(value).ok().and_then(|digits| digits.parse().ok());
            }
            _ => {} // unknown fields are ignored
        }
        Ok(())
    }

    /// The value of `line` when it is a `data:` line that starts an event's data: the caller
    /// may then hold it instead of copying it (see [`Self::keep`]). No event limit to check:
    /// the line passed `check_line`, so its value is shorter than `maxEventBytes`, as `line`
    /// requires of a first data line.
    #[inline(always)]
    fn first_data<'c>(&self, line: &'c [u8]) -> Option<&'c [u8]> {
        // Slice patterns, not `strip_prefix`: no call left in the loop at any inline threshold.
        let value = match line {
            [b'd', b'a', b't', b'a', b':', b' ', value @ ..] | [b'd', b'a', b't', b'a', b':', value @ ..] => value,
            _ => return None,
        };
        (!self.has_data).then_some(value)
    }

    /// A held `data:` value taken in, as [`Self::line`] would have when it was read.
    #[cfg_attr(llw_speed, optimize(speed))]
    fn keep(&mut self, data: &[u8]) {
        self.data.extend_from_slice(data);
        self.has_data = true;
    }

    /// An event dispatched with `data` (a held `data:` value, or the joined lines), its name
    /// then reset.
    #[cfg_attr(llw_speed, optimize(speed))]
    fn dispatch_data<F>(&mut self, data: &[u8], on_event: &mut F) -> Result<()>
    where
        F: FnMut(SseEvent<'_>) -> Result<()>,
    {
        let event = if self.event.is_empty() { "message" } else { self.event.as_str() };
        let outcome = on_event(SseEvent { event, data, id: &self.id });
        self.event.clear();
        outcome
    }

    /// A blank line: dispatch the pending event, if it has data, and reset for the next one.
    #[cfg_attr(llw_speed, optimize(speed))]
    fn dispatch<F>(&mut self, on_event: &mut F) -> Result<()>
    where
        F: FnMut(SseEvent<'_>) -> Result<()>,
    {
        // The buffer is lent to `dispatch_data` and put back, emptied.
        let data = std::mem::take(&mut self.data);
        let outcome = if std::mem::take(&mut self.has_data) {
            self.dispatch_data(&data, on_event)
        } else {
            self.event.clear();
            Ok(())
        };
        self.data = emptied(data);
        outcome
    }
}

/// The rest of a chunk after the line end at the start of `rest` (`\n`, `\r\n` or `\r`); a
/// `\r` ending the chunk sets `after_cr`, so that a `\n` starting the next one is skipped.
#[inline]
fn after_line_end<'c>(rest: &'c [u8], after_cr: &mut bool) -> &'c [u8] {
    if rest[0] == b'\r' {
        match rest.get(1) {
            Some(b'\n') => &rest[2..],
            Some(_) => &rest[1..],
            None => {
                *after_cr = true;
                &rest[1..]
            }
        }
    } else {
        &rest[1..]
    }
}

/// The position of the next CR or LF.
#[inline]
fn find_line_end(bytes: &[u8]) -> Option<usize> {
    // SWAR: eight bytes at a time; the lowest flagged byte is exact (borrows only run upwards).
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let mut i = 0;
    while i + 8 <= bytes.len() {
        let w = crate::json::word_at(bytes, i);
        let a = w ^ (LO * b'\n' as u64);
        let b = w ^ (LO * b'\r' as u64);
        let m = ((a.wrapping_sub(LO) & !a) | (b.wrapping_sub(LO) & !b)) & HI;
        if m != 0 {
            return Some(i + (m.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    bytes[i..].iter().position(|&b| b == b'\n' || b == b'\r').map(|p| i + p)
}

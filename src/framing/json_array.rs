//! A streamed JSON array (Gemini's `streamGenerateContent` without `alt=sse`) split into its
//! top-level elements: bytes in, split anywhere, each element's bytes out.
//!
//! The splitter follows strings, escapes and nesting depth byte by byte and keeps that state
//! between chunks, so every byte is looked at once whatever the chunking. Elements are not
//! validated as JSON (the format decoder parses them); only the array around them is: an
//! optional BOM and white space, `[`, elements separated by `,`, `]`, white space.

use super::gathered::Gathered;
use super::{at_byte, check_size, malformed, Ended};
use crate::error::{Error, Result};
use crate::Limits;

const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// Where the splitter is in the array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before `[`, with this many bytes of a leading BOM matched.
    Start(u8),
    /// Before `[`, past the BOM.
    Open,
    /// After `[`: the first element or `]`.
    First,
    /// After `,`: an element.
    Next,
    /// Inside an object or array element.
    Nested { depth: usize, in_string: bool, escaped: bool },
    /// Inside a string element.
    String { escaped: bool },
    /// Inside a number or literal element.
    Scalar,
    /// After an element: `,` or `]`.
    After,
    /// After `]`: only white space may follow.
    Done,
}

/// The incremental splitter. Feed it with [`JsonArrayDecoder::feed`] and end it with
/// [`JsonArrayDecoder::finish`].
///
/// An element whole in one chunk is passed borrowed from the chunk; one that spans chunks is
/// gathered (each byte copied once, a long one joined once at its end: [`Gathered`]) and passed
/// from there. A malformed array, an element over `max_event_bytes` or more than
/// `max_buffered_bytes` held is an error, after which every call returns that error again.
#[derive(Debug)]
pub struct JsonArrayDecoder {
    state: State,
    /// The start of the element in progress, from earlier chunks.
    held: Gathered,
    /// Bytes consumed before the current chunk, for error positions.
    offset: u64,
    limits: Limits,
    ended: Ended,
}

impl JsonArrayDecoder {
    pub fn new(limits: &Limits) -> Self {
        JsonArrayDecoder {
            state: State::Start(0),
            held: Gathered::new(limits.max_event_bytes),
            offset: 0,
            limits: *limits,
            ended: Ended::default(),
        }
    }

    /// A decoder for a stream whose first `skipped` bytes (empty lines before the array) it is not
    /// given: the positions its errors give are the stream's.
    pub(crate) fn after(skipped: u64, limits: &Limits) -> Self {
        JsonArrayDecoder { offset: skipped, ..JsonArrayDecoder::new(limits) }
    }

    /// Splits `chunk`, calling `on_element` with every element it completes. Costs O(len)
    /// plus the callback.
    pub fn feed<F>(&mut self, chunk: &[u8], on_element: &mut F) -> Result<()>
    where
        F: FnMut(&[u8]) -> Result<()>,
    {
        self.ended.check()?;
        let outcome = self.split(chunk, on_element);
        self.offset += chunk.len() as u64;
        self.fail_on(outcome)
    }

    /// Ends the input: the array must have been closed. The decoder is then reset and may be
    /// reused.
    pub fn finish(&mut self) -> Result<()> {
        self.ended.check()?;
        let outcome = match self.state {
            State::Done => Ok(()),
            State::Start(_) | State::Open => Err(malformed("the input ended before the JSON array began")),
            State::First | State::Next | State::After => {
                Err(malformed(at_byte("the JSON array ended without its closing ]", self.offset)))
            }
            State::Nested { .. } | State::String { .. } | State::Scalar => {
                Err(malformed(at_byte("the JSON array ended inside an element", self.offset)))
            }
        };
        if outcome.is_ok() {
            *self = JsonArrayDecoder::new(&self.limits);
        }
        self.fail_on(outcome)
    }

    /// Records an error, releasing what was held.
    fn fail_on(&mut self, outcome: Result<()>) -> Result<()> {
        if outcome.is_err() {
            self.held.release();
        }
        self.ended.record(outcome)
    }

    #[cfg_attr(llw_speed, optimize(speed))]
    fn split<F>(&mut self, chunk: &[u8], on_element: &mut F) -> Result<()>
    where
        F: FnMut(&[u8]) -> Result<()>,
    {
        // Where the element in progress starts in this chunk (0 when it began in an earlier one).
        let mut start = 0;
        let mut i = 0;
        while i < chunk.len() {
            let byte = chunk[i];
            match &mut self.state {
                State::Start(matched) => {
                    if byte == BOM[*matched as usize] {
                        *matched += 1;
                        if *matched == 3 {
                            self.state = State::Open;
                        }
                    } else if *matched == 0 {
                        self.state = State::Open;
                        continue; // the same byte, read as what follows a BOM
                    } else {
                        return Err(self.unexpected("a broken byte-order mark", chunk, i));
                    }
                }
                State::Open => match byte {
                    b'[' => self.state = State::First,
                    _ if is_space(byte) => {}
                    _ => return Err(self.unexpected("expected [ to open the JSON array", chunk, i)),
                },
                State::First | State::Next => {
                    let first = self.state == State::First;
                    self.state = match byte {
                        _ if is_space(byte) => {
                            i += 1;
                            continue;
                        }
                        b']' if first => State::Done,
                        b']' => return Err(self.unexpected("a comma before ] in the JSON array", chunk, i)),
                        b',' => return Err(self.unexpected("an empty element in the JSON array", chunk, i)),
                        b'}' => return Err(self.unexpected("an unbalanced } in the JSON array", chunk, i)),
                        b'{' | b'[' => State::Nested { depth: 1, in_string: false, escaped: false },
                        b'"' => State::String { escaped: false },
                        _ => State::Scalar,
                    };
                    start = i;
                    if self.state == State::Scalar {
                        continue; // a scalar's first byte may be its last
                    }
                }
                State::Nested { .. } | State::String { .. } | State::Scalar => {
                    let rest = &chunk[i..];
                    let len = match &mut self.state {
                        State::Nested { depth, in_string, escaped } => scan_nested(rest, depth, in_string, escaped),
                        State::String { escaped } => end_of_string(rest, escaped),
                        // A scalar ends before the byte that ends it, which is read as a separator.
                        _ => rest.iter().position(|&b| ends_scalar(b)),
                    };
                    match len {
                        Some(len) => {
                            i += len;
                            self.state = State::After;
                            self.emit(chunk, start, i, on_element)?;
                        }
                        None => i = chunk.len(),
                    }
                    continue;
                }
                State::After => match byte {
                    b',' => self.state = State::Next,
                    b']' => self.state = State::Done,
                    _ if is_space(byte) => {}
                    _ => return Err(self.unexpected("expected , or ] after an element of the JSON array", chunk, i)),
                },
                State::Done => {
                    if !is_space(byte) {
                        return Err(self.unexpected("data after the end of the JSON array", chunk, i));
                    }
                }
            }
            i += 1;
        }
        if matches!(self.state, State::Nested { .. } | State::String { .. } | State::Scalar) {
            let part = &chunk[start..];
            self.check_size(self.held.len() + part.len())?;
            self.held.push(part);
        }
        Ok(())
    }

    /// Passes on the element ending at `end` in `chunk`: borrowed when it began in this chunk,
    /// else completed in the buffer.
    fn emit<F>(&mut self, chunk: &[u8], start: usize, end: usize, on_element: &mut F) -> Result<()>
    where
        F: FnMut(&[u8]) -> Result<()>,
    {
        if self.held.is_empty() {
            self.check_size(end - start)?;
            return on_element(&chunk[start..end]);
        }
        self.check_size(self.held.len() + end)?;
        let element = self.held.take_with(&chunk[..end]);
        let outcome = on_element(&element);
        self.held.reuse(element);
        outcome
    }

    fn check_size(&self, len: usize) -> Result<()> {
        check_size("a JSON array element", len, &self.limits)
    }

    fn unexpected(&self, what: &str, chunk: &[u8], i: usize) -> Error {
        let found = match chunk[i] {
            b @ 0x21..=0x7E => format!("{what} (found {:?})", b as char),
            b => format!("{what} (found byte 0x{b:02X})"),
        };
        malformed(at_byte(&found, self.offset + i as u64))
    }
}

/// JSON white space.
fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r')
}

/// The bytes that end a number or literal: white space and the structural characters.
fn ends_scalar(byte: u8) -> bool {
    is_space(byte) || matches!(byte, b',' | b']' | b'[' | b'{' | b'}' | b'"')
}

/// Inside an object or array: the length of `bytes` up to and including the bracket that
/// closes it, or `None` when it goes on past them. `depth`, `in_string` and `escaped` carry
/// the scan from one chunk to the next.
#[cfg_attr(llw_speed, optimize(speed))]
fn scan_nested(bytes: &[u8], depth: &mut usize, in_string: &mut bool, escaped: &mut bool) -> Option<usize> {
    let mut i = 0;
    loop {
        if *in_string {
            match end_of_string(&bytes[i..], escaped) {
                Some(len) => {
                    *in_string = false;
                    i += len;
                }
                None => return None,
            }
        }
        match bytes.get(i)? {
            b'"' => *in_string = true,
            b'{' | b'[' => *depth += 1,
            b'}' | b']' => {
                *depth -= 1;
                if *depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
}

/// Inside a string: the length of `bytes` up to and including the closing quote, or `None`
/// when the string goes on past them. `escaped` carries a backslash ending one chunk over to
/// the next.
#[cfg_attr(llw_speed, optimize(speed))]
fn end_of_string(bytes: &[u8], escaped: &mut bool) -> Option<usize> {
    let mut i = 0;
    if std::mem::take(escaped) {
        if bytes.is_empty() {
            *escaped = true;
            return None;
        }
        i = 1;
    }
    while let Some(at) = bytes[i..].iter().position(|&b| b == b'"' || b == b'\\') {
        i += at;
        if bytes[i] == b'"' {
            return Some(i + 1);
        }
        if i + 1 == bytes.len() {
            *escaped = true;
            return None;
        }
        i += 2;
    }
    None
}

//! AWS `application/vnd.amazon.eventstream` (Bedrock's ConverseStream and
//! InvokeModelWithResponseStream): bytes in, split anywhere, each message out.
//!
//! A message is a prelude (total length u32 BE, headers length u32 BE, the CRC-32 of those 8
//! bytes), the headers, the payload and the CRC-32 of everything before it. Both CRCs are
//! checked. The lengths are checked as soon as the prelude is in, so a message that could never
//! fit the limits is refused before its bytes are buffered. The framing has no way to find the
//! next message after a damaged one: the first error ends the stream.

use super::crc32::crc32;
use super::gathered::emptied;
use super::{at_byte, check_size, malformed, Ended};
use crate::error::{Error, Result};
use crate::Limits;

/// Total length, headers length and the prelude's CRC.
const PRELUDE_LEN: usize = 12;
/// The prelude and the message CRC around empty headers and payload.
const MIN_MESSAGE_LEN: usize = PRELUDE_LEN + 4;

/// What a message is, from its `:message-type` header, with the header that names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageType<'a> {
    /// `event`, named by `:event-type` (`contentBlockDelta`, `chunk`, ...).
    Event { event_type: &'a str },
    /// `exception`: a modelled error, named by `:exception-type` (`throttlingException`, ...);
    /// its payload is the exception's JSON body.
    Exception { exception_type: &'a str },
    /// `error`: an error outside the model, its `:error-code` and `:error-message` (each empty
    /// when the header is absent).
    Error { code: &'a str, message: &'a str },
}

/// One decoded message, borrowing from the input chunk when it arrived whole in it, else from
/// the decoder's buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Message<'a> {
    pub message_type: MessageType<'a>,
    /// The `:content-type` header (`application/json` on Bedrock).
    pub content_type: Option<&'a str>,
    pub payload: &'a [u8],
}

/// The incremental decoder. Feed it with [`EventStreamDecoder::feed`] and end it with
/// [`EventStreamDecoder::finish`].
///
/// A bad CRC, an impossible length, a malformed header or a message over the limits is an
/// error: the messages before it have been passed on, and every later call returns that error.
#[derive(Debug)]
pub struct EventStreamDecoder {
    /// A message that has not arrived whole: its prelude first, then the rest.
    held: Vec<u8>,
    /// The held message's total length once its prelude is in and checked, else 0.
    total: usize,
    /// Where the current message starts in the stream, for error positions.
    offset: u64,
    limits: Limits,
    ended: Ended,
}

impl EventStreamDecoder {
    pub fn new(limits: &Limits) -> Self {
        EventStreamDecoder { held: Vec::new(), total: 0, offset: 0, limits: *limits, ended: Ended::default() }
    }

    /// Decodes `chunk`, calling `on_message` for every message it completes. Costs O(len) plus
    /// the callback; a message split across chunks is copied once into the buffer.
    pub fn feed<F>(&mut self, chunk: &[u8], on_message: &mut F) -> Result<()>
    where
        F: FnMut(Message<'_>) -> Result<()>,
    {
        self.ended.check()?;
        let outcome = self.decode(chunk, on_message);
        self.fail_on(outcome)
    }

    /// Ends the input, which must end between two messages. The decoder is then reset and may
    /// be reused.
    pub fn finish(&mut self) -> Result<()> {
        self.ended.check()?;
        if self.held.is_empty() {
            *self = EventStreamDecoder::new(&self.limits);
            return Ok(());
        }
        let err = match self.total {
            0 => "the event stream ended inside a message's prelude".to_owned(),
            total => format!("the event stream ended {} bytes into a message of {total}", self.held.len()),
        };
        self.fail_on(Err(malformed(at_byte(&err, self.offset))))
    }

    /// Records an error, releasing what was held.
    fn fail_on(&mut self, outcome: Result<()>) -> Result<()> {
        if outcome.is_err() {
            self.held = Vec::new();
        }
        self.ended.record(outcome)
    }

    #[cfg_attr(llw_speed, optimize(speed))]
    fn decode<F>(&mut self, mut chunk: &[u8], on_message: &mut F) -> Result<()>
    where
        F: FnMut(Message<'_>) -> Result<()>,
    {
        while !chunk.is_empty() {
            if self.held.is_empty() && chunk.len() >= PRELUDE_LEN {
                let total = self.prelude(chunk)?;
                if chunk.len() >= total {
                    let (message, rest) = chunk.split_at(total);
                    self.message(message, on_message)?;
                    chunk = rest;
                    continue;
                }
                self.total = total;
            }
            // Held: the prelude is gathered first, then the message it announces.
            let want = if self.total == 0 { PRELUDE_LEN } else { self.total };
            let take = (want - self.held.len()).min(chunk.len());
            if self.held.len() + take > self.held.capacity() {
                // Doubled as the bytes arrive (room for what a prelude announces is not taken
                // before its bytes come), but never past the message: a buffer grown freely
                // would hold up to twice it.
                let room = (self.held.capacity() * 2).max(self.held.len() + take).min(want);
                self.held.reserve_exact(room - self.held.len());
            }
            self.held.extend_from_slice(&chunk[..take]);
            chunk = &chunk[take..];
            if self.held.len() < want {
                break;
            }
            if self.total == 0 {
                self.total = self.prelude(&self.held)?;
            } else {
                let message = std::mem::take(&mut self.held);
                let outcome = self.message(&message, on_message);
                self.held = emptied(message);
                self.total = 0;
                outcome?;
            }
        }
        Ok(())
    }

    /// The total length announced by the prelude at the start of `bytes`, checked.
    fn prelude(&self, bytes: &[u8]) -> Result<usize> {
        let total = be_u32(&bytes[0..4]) as usize;
        let headers = be_u32(&bytes[4..8]) as usize;
        if crc32(&bytes[..8]) != be_u32(&bytes[8..12]) {
            return Err(self.error("an event-stream message's prelude CRC does not match"));
        }
        if total < MIN_MESSAGE_LEN {
            return Err(self.error(&format!("an event-stream message's length {total} is below the minimum of 16")));
        }
        if headers > total - MIN_MESSAGE_LEN {
            return Err(self.error(&format!(
                "an event-stream message's headers ({headers} bytes) do not fit its length ({total})"
            )));
        }
        check_size("an event-stream message", total, &self.limits)?;
        Ok(total)
    }

    /// Checks and passes on one whole message whose prelude has been checked.
    fn message<F>(&mut self, message: &[u8], on_message: &mut F) -> Result<()>
    where
        F: FnMut(Message<'_>) -> Result<()>,
    {
        let (body, crc) = message.split_at(message.len() - 4);
        if crc32(body) != be_u32(crc) {
            return Err(self.error("an event-stream message's CRC does not match"));
        }
        let headers_end = PRELUDE_LEN + be_u32(&message[4..8]) as usize;
        let decoded = match read_headers(&body[PRELUDE_LEN..headers_end]) {
            Ok(headers) => headers.message(&body[headers_end..]),
            Err(err) => Err(err),
        };
        let decoded = decoded.map_err(|err| self.error(&err))?;
        self.offset += message.len() as u64;
        on_message(decoded)
    }

    fn error(&self, what: &str) -> Error {
        malformed(at_byte(what, self.offset))
    }
}

/// The headers this decoder reads; every other header is skipped.
#[derive(Default)]
struct Headers<'a> {
    message_type: Option<&'a str>,
    event_type: Option<&'a str>,
    exception_type: Option<&'a str>,
    error_code: Option<&'a str>,
    error_message: Option<&'a str>,
    content_type: Option<&'a str>,
}

impl<'a> Headers<'a> {
    fn message(self, payload: &'a [u8]) -> Result<Message<'a>, String> {
        let named = |name: Option<&'a str>, header: &str| {
            name.ok_or_else(|| format!("an event-stream message has no {header} header"))
        };
        let message_type = match self.message_type {
            Some("event") => MessageType::Event { event_type: named(self.event_type, ":event-type")? },
            Some("exception") => {
                MessageType::Exception { exception_type: named(self.exception_type, ":exception-type")? }
            }
            Some("error") => MessageType::Error {
                code: self.error_code.unwrap_or_default(),
                message: self.error_message.unwrap_or_default(),
            },
            Some(other) => return Err(format!("an event-stream message has the unknown :message-type {other:?}")),
            None => return Err("an event-stream message has no :message-type header".to_owned()),
        };
        Ok(Message { message_type, content_type: self.content_type, payload })
    }
}

/// The header value types of the event-stream format.
const BOOL_TRUE: u8 = 0;
const BOOL_FALSE: u8 = 1;
const BYTE: u8 = 2;
const SHORT: u8 = 3;
const INT: u8 = 4;
const LONG: u8 = 5;
const BYTES: u8 = 6;
const STRING: u8 = 7;
const TIMESTAMP: u8 = 8;
const UUID: u8 = 9;

/// Reads the header section: each header is a name length (u8), the name, a type (u8) and a
/// value whose size the type gives (`bytes` and `string`: a u16 BE length first).
fn read_headers(mut bytes: &[u8]) -> Result<Headers<'_>, String> {
    let mut headers = Headers::default();
    while let Some((&name_len, rest)) = bytes.split_first() {
        let (name, rest) = take(rest, name_len as usize)?;
        let (&kind, rest) = rest.split_first().ok_or_else(past_the_end)?;
        let (value, rest) = match kind {
            BOOL_TRUE | BOOL_FALSE => (&rest[..0], rest),
            BYTE => take(rest, 1)?,
            SHORT => take(rest, 2)?,
            INT => take(rest, 4)?,
            LONG | TIMESTAMP => take(rest, 8)?,
            UUID => take(rest, 16)?,
            BYTES | STRING => {
                let (len, rest) = take(rest, 2)?;
                take(rest, u16::from_be_bytes([len[0], len[1]]) as usize)?
            }
            other => return Err(format!("an event-stream header has the unknown value type {other}")),
        };
        bytes = rest;
        let (slot, header) = match name {
            b":message-type" => (&mut headers.message_type, ":message-type"),
            b":event-type" => (&mut headers.event_type, ":event-type"),
            b":exception-type" => (&mut headers.exception_type, ":exception-type"),
            b":error-code" => (&mut headers.error_code, ":error-code"),
            b":error-message" => (&mut headers.error_message, ":error-message"),
            b":content-type" => (&mut headers.content_type, ":content-type"),
            _ => continue,
        };
        if kind != STRING {
            return Err(format!("the event-stream header {header} is not a string"));
        }
        let text = std::str::from_utf8(value).map_err(|_| format!("the event-stream header {header} is not UTF-8"))?;
        *slot = Some(text);
    }
    Ok(headers)
}

/// The first `len` bytes of `bytes` and the rest, or an error when the header section ends
/// before them.
fn take(bytes: &[u8], len: usize) -> Result<(&[u8], &[u8]), String> {
    if bytes.len() < len {
        return Err(past_the_end());
    }
    Ok(bytes.split_at(len))
}

fn past_the_end() -> String {
    "an event-stream header runs past the end of the headers".to_owned()
}

fn be_u32(bytes: &[u8]) -> u32 {
    u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
}

//! The framings a streamed body can arrive in, below the format decoders: bytes in, split
//! anywhere, [`Frame`]s out, whatever the framing.
//!
//! - [`Framing::Sse`]: `text/event-stream` ([`crate::sse`]), what every format but Bedrock
//!   streams.
//! - [`Framing::JsonArray`]: one JSON array whose elements arrive one by one ([`json_array`]),
//!   Gemini's `streamGenerateContent` without `alt=sse`.
//! - [`Framing::EventStream`]: AWS `application/vnd.amazon.eventstream` ([`event_stream`]),
//!   Bedrock's ConverseStream and InvokeModelWithResponseStream.
//!
//! [`FrameDecoder`] holds one of the three, chosen up front or detected from the first bytes
//! ([`detect`]). Each framing is bounded by [`Limits`] and linear in its input.

mod crc32;
pub mod event_stream;
pub(crate) mod gathered;
pub mod json_array;
#[cfg(test)]
mod tests;

use crate::error::{Error, ErrorCode, Result};
use crate::sse::{SseDecoder, SseEvent};
use crate::Limits;
use event_stream::{EventStreamDecoder, Message, MessageType};
use json_array::JsonArrayDecoder;

/// One unit of a stream, the same shape from every framing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame<'a> {
    pub kind: FrameKind,
    /// What the frame is called: the SSE `event:` name (`"message"` when it has none, and for
    /// every JSON array element), or the event stream's `:event-type`, `:exception-type` or
    /// `:error-code`.
    pub name: &'a str,
    /// The SSE event's data, the JSON array element, or the event-stream payload.
    pub data: &'a [u8],
    /// The `:error-message` of an [`FrameKind::Error`] frame; empty otherwise.
    pub message: &'a str,
}

/// Whether a frame carries an event or says the stream failed. Only the event stream marks
/// failures in the framing itself; SSE and JSON array errors are in the data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameKind {
    Event,
    /// A modelled exception (`:message-type: exception`): `name` is its type
    /// (`throttlingException`), `data` its JSON body.
    Exception,
    /// An error outside the model (`:message-type: error`): `name` is its code, `message` its
    /// message.
    Error,
}

impl<'a> Frame<'a> {
    /// An event named `name` carrying `data`.
    pub fn event(name: &'a str, data: &'a [u8]) -> Self {
        Frame { kind: FrameKind::Event, name, data, message: "" }
    }
}

impl<'a> From<SseEvent<'a>> for Frame<'a> {
    fn from(event: SseEvent<'a>) -> Self {
        Frame::event(event.event, event.data)
    }
}

impl<'a> From<Message<'a>> for Frame<'a> {
    fn from(message: Message<'a>) -> Self {
        let data = message.payload;
        match message.message_type {
            MessageType::Event { event_type } => Frame::event(event_type, data),
            MessageType::Exception { exception_type } => {
                Frame { kind: FrameKind::Exception, name: exception_type, data, message: "" }
            }
            MessageType::Error { code, message } => Frame { kind: FrameKind::Error, name: code, data, message },
        }
    }
}

/// How a stream is framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    Sse,
    JsonArray,
    EventStream,
}

/// The framing of a stream that starts with `first_bytes`, or `None` while they cannot tell
/// yet (nothing, only white space or part of a BOM, or fewer than 12 bytes of what may be an
/// event-stream prelude).
///
/// An event-stream message starts with its big-endian length, so with a zero byte for any
/// message under 16 MiB, and its first 12 bytes end with the CRC of the 8 before: both must
/// hold. A JSON array starts with `[` after an optional BOM and white space. Anything else is
/// SSE, which also ignores a leading BOM and blank lines.
pub fn detect(first_bytes: &[u8]) -> Option<Framing> {
    Detector::default().push(first_bytes)
}

/// [`detect`] fed piece by piece: each byte is looked at once, however many pieces the
/// undecided start arrives in.
#[derive(Debug, Default)]
struct Detector {
    state: Detecting,
    prelude: [u8; 12],
    /// The stream began with a BOM.
    bom: bool,
    /// Bytes of empty lines dropped before the first frame.
    dropped: u64,
}

#[derive(Debug, Clone, Copy)]
enum Detecting {
    /// At the start, with this many bytes of a BOM matched.
    Bom(u8),
    /// Past the BOM: white space so far.
    Space,
    /// This many bytes of what may be an event-stream prelude gathered.
    Prelude(u8),
}

impl Default for Detecting {
    fn default() -> Self {
        Detecting::Bom(0)
    }
}

const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

impl Detector {
    fn push(&mut self, bytes: &[u8]) -> Option<Framing> {
        for &byte in bytes {
            self.state = match self.state {
                // The prelude's first byte, zero, is already in place.
                Detecting::Bom(0) if byte == 0 => Detecting::Prelude(1),
                Detecting::Bom(2) if byte == BOM[2] => {
                    self.bom = true;
                    Detecting::Space
                }
                Detecting::Bom(n) if byte == BOM[n as usize] => Detecting::Bom(n + 1),
                Detecting::Bom(0) | Detecting::Space => match byte {
                    b' ' | b'\t' | b'\n' | b'\r' => Detecting::Space,
                    b'[' => return Some(Framing::JsonArray),
                    _ => return Some(Framing::Sse),
                },
                // A broken BOM: SSE reads those bytes as content.
                Detecting::Bom(_) => return Some(Framing::Sse),
                Detecting::Prelude(n) => {
                    self.prelude[n as usize] = byte;
                    if n < 11 {
                        Detecting::Prelude(n + 1)
                    } else {
                        let crc = u32::from_be_bytes([self.prelude[8], self.prelude[9], self.prelude[10], byte]);
                        let valid = crc32::crc32(&self.prelude[..8]) == crc;
                        return Some(if valid { Framing::EventStream } else { Framing::Sse });
                    }
                }
            };
        }
        None
    }

    /// Only white space (after a BOM, if any) so far.
    fn in_space(&self) -> bool {
        matches!(self.state, Detecting::Space)
    }

    /// The framing of a stream that ended undecided: a cut prelude is an event stream (which
    /// reports the cut), anything else SSE.
    fn fallback(&self) -> Framing {
        match self.state {
            Detecting::Prelude(_) => Framing::EventStream,
            _ => Framing::Sse,
        }
    }
}

/// A stream decoder over any framing: raw bytes in, [`Frame`]s out.
///
/// ```
/// use llm_wire::framing::{FrameDecoder, Framing};
/// use llm_wire::Limits;
///
/// let mut decoder = FrameDecoder::new(&Limits::default());
/// let mut data = Vec::new();
/// for piece in [&b"[{\"a\":1}\n,"[..], b"\r\n{\"b\":\"]\"}", b"]\n"] {
///     decoder.feed(piece, &mut |frame| { data.push(frame.data.to_vec()); Ok(()) }).unwrap();
/// }
/// decoder.finish(&mut |_| Ok(())).unwrap();
/// assert_eq!(decoder.framing(), Some(Framing::JsonArray));
/// assert_eq!(data, [&b"{\"a\":1}"[..], b"{\"b\":\"]\"}"]);
/// ```
#[derive(Debug)]
pub struct FrameDecoder {
    state: State,
    limits: Limits,
    ended: Ended,
}

#[derive(Debug)]
enum State {
    /// The framing is not known yet: the bytes so far, held to be decoded once it is.
    Detecting(Detector, Vec<u8>),
    Sse(SseDecoder),
    JsonArray(JsonArrayDecoder),
    EventStream(EventStreamDecoder),
}

impl FrameDecoder {
    /// A decoder that detects the framing from the first bytes.
    pub fn new(limits: &Limits) -> Self {
        FrameDecoder {
            state: State::Detecting(Detector::default(), Vec::new()),
            limits: *limits,
            ended: Ended::default(),
        }
    }

    /// A decoder for a known framing (from the request, or a `Content-Type` header).
    pub fn with_framing(framing: Framing, limits: &Limits) -> Self {
        FrameDecoder { state: start(framing, limits, 0), limits: *limits, ended: Ended::default() }
    }

    /// The framing in use, or `None` while it is still being detected.
    pub fn framing(&self) -> Option<Framing> {
        match self.state {
            State::Detecting(..) => None,
            State::Sse(_) => Some(Framing::Sse),
            State::JsonArray(_) => Some(Framing::JsonArray),
            State::EventStream(_) => Some(Framing::EventStream),
        }
    }

    /// Decodes `chunk`, calling `on_frame` for every frame it completes. An error (malformed
    /// framing, a limit, or one returned by `on_frame`) comes after the frames before it, and
    /// every later call returns it again.
    #[cfg_attr(llw_speed, optimize(speed))]
    pub fn feed<F>(&mut self, chunk: &[u8], on_frame: &mut F) -> Result<()>
    where
        F: FnMut(Frame<'_>) -> Result<()>,
    {
        self.ended.check()?;
        let outcome = self.detect_and_decode(chunk, on_frame);
        self.ended.record(outcome)
    }

    /// Ends the input: the framing's last frame is passed on, and an input that ended where
    /// its framing cannot end (inside an event-stream message or a JSON array) is an error.
    pub fn finish<F>(&mut self, on_frame: &mut F) -> Result<()>
    where
        F: FnMut(Frame<'_>) -> Result<()>,
    {
        self.ended.check()?;
        if let State::Detecting(detector, held) = &mut self.state {
            let (held, dropped) = (std::mem::take(held), detector.dropped);
            self.state = start(detector.fallback(), &self.limits, dropped);
            let outcome = self.decode(&held, on_frame);
            self.ended.record(outcome)?;
        }
        let outcome = match &mut self.state {
            State::Sse(sse) => sse.finish(&mut |event| on_frame(event.into())),
            State::JsonArray(array) => array.finish(),
            State::EventStream(stream) => stream.finish(),
            State::Detecting(..) => Ok(()),
        };
        self.ended.record(outcome)
    }

    /// Holds `chunk` while the framing is undecided; once it is known, decodes what was held,
    /// then `chunk`.
    fn detect_and_decode<F>(&mut self, chunk: &[u8], on_frame: &mut F) -> Result<()>
    where
        F: FnMut(Frame<'_>) -> Result<()>,
    {
        if let State::Detecting(detector, held) = &mut self.state {
            let Some(framing) = detector.push(chunk) else {
                // White space up to a line break is empty lines, nothing in any framing: only the
                // BOM and what follows the last break (the start of the first line) are held, and
                // counted as a line held between pushes is, so that where the stream is split
                // does not decide whether a limit is reached. (Otherwise what is held is part of
                // a BOM or of an event-stream prelude: at most 12 bytes.)
                if detector.in_space() {
                    let bom = if detector.bom { BOM.len() } else { 0 };
                    let last_break = chunk.iter().rposition(|&b| b == b'\n' || b == b'\r');
                    let line = match last_break {
                        Some(at) => chunk.len() - at - 1,
                        None => (held.len() + chunk.len()).saturating_sub(bom),
                    };
                    if line > self.limits.max_buffered_bytes {
                        return Err(Error::new(
                            ErrorCode::LimitExceeded,
                            format!(
                                "more than maxBufferedBytes ({} bytes) of white space before the stream's first frame",
                                self.limits.max_buffered_bytes
                            ),
                        ));
                    }
                    if let Some(at) = last_break {
                        let before = held.len() + chunk.len();
                        held.clear();
                        held.extend_from_slice(&BOM[..bom]);
                        held.extend_from_slice(&chunk[at + 1..]);
                        detector.dropped += (before - held.len()) as u64;
                        return Ok(());
                    }
                }
                held.extend_from_slice(chunk);
                return Ok(());
            };
            let (held, dropped) = (std::mem::take(held), detector.dropped);
            self.state = start(framing, &self.limits, dropped);
            self.decode(&held, on_frame)?;
        }
        self.decode(chunk, on_frame)
    }

    #[cfg_attr(llw_speed, optimize(speed))]
    fn decode<F>(&mut self, chunk: &[u8], on_frame: &mut F) -> Result<()>
    where
        F: FnMut(Frame<'_>) -> Result<()>,
    {
        match &mut self.state {
            State::Sse(sse) => sse.feed(chunk, &mut |event| on_frame(event.into())),
            State::JsonArray(array) => array.feed(chunk, &mut |element| on_frame(Frame::event("message", element))),
            State::EventStream(stream) => stream.feed(chunk, &mut |message| on_frame(message.into())),
            State::Detecting(..) => Ok(()),
        }
    }
}

/// The decoder of `framing`, after `dropped` bytes of empty lines that it is not given (a JSON
/// array counts them in the positions its errors give).
fn start(framing: Framing, limits: &Limits, dropped: u64) -> State {
    match framing {
        Framing::Sse => State::Sse(SseDecoder::new(limits)),
        Framing::JsonArray => State::JsonArray(JsonArrayDecoder::after(dropped, limits)),
        Framing::EventStream => State::EventStream(EventStreamDecoder::new(limits)),
    }
}

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

//! JSON data: the crate's own [`Value`], [`Number`] and [`Map`] (what the public types hold,
//! in place of serde_json's, convertible both ways with `From`), and, inside the crate, a small
//! borrowed JSON reader for the stream hot path and the writer of every JSON text.
//!
//! The reader: stream events are read into borrowed structs by hand with it instead of serde
//! derives. It validates the whole document as strictly as `serde_json` does (RFC 8259 grammar,
//! escapes, control characters, UTF-8 of every string it returns, nesting depth 128), borrows
//! every string without escapes, and skips the values nobody asked for eight bytes at a time.
//! A caller reads a document into a struct first and acts on it after, so an invalid event is
//! never half-applied.

pub(crate) mod float;
pub(crate) mod map;
#[cfg(test)]
mod tests;
mod tree;
#[cfg(test)]
mod tree_tests;
pub(crate) mod value;
pub(crate) mod write;

pub use map::{Iter, IterMut, Map};
pub use tree::{Index, Number, Value};

use std::borrow::Cow;
use std::fmt;

/// `serde_json`'s nesting limit (127 levels are read, 128 refused); deeper documents are
/// refused, never recursed into.
const MAX_DEPTH: u32 = 128;

/// Why a document is not JSON, and the byte offset where that was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JsonError {
    pub(crate) what: &'static str,
    pub(crate) at: usize,
}

impl JsonError {
    /// A document that is JSON but not the object it must be.
    pub(crate) fn not_an_object() -> Self {
        JsonError { what: "expected an object", at: 0 }
    }

    /// `what at byte N`, the text every message that reports a JSON error carries.
    pub(crate) fn message(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.what, self.at)
    }
}

pub(crate) type JsonResult<T> = Result<T, JsonError>;

/// The kind of the next value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Object,
    Array,
    String,
    Number,
    Bool,
    Null,
}

/// A cursor over one JSON document.
pub(crate) struct Reader<'a> {
    src: &'a [u8],
    pos: usize,
    depth: u32,
    key_at: usize,
}

/// Reads the one value of `src` with `read` and checks that only whitespace follows.
pub(crate) fn read_document<'a, T>(
    src: &'a [u8],
    read: impl FnOnce(&mut Reader<'a>) -> JsonResult<T>,
) -> JsonResult<T> {
    finish_document(Reader { src, pos: 0, depth: 0, key_at: 0 }, read)
}

/// Reads the rest of a document whose bytes before `at` are known to be valid JSON that ends
/// inside its top-level object, just before a member (after `{` or a `,`): in practice, bytes
/// identical to the start of a document read before. `read` continues with
/// [`Reader::members`]; only whitespace may follow the object.
pub(crate) fn resume_document<'a, T>(
    src: &'a [u8],
    at: usize,
    read: impl FnOnce(&mut Reader<'a>) -> JsonResult<T>,
) -> JsonResult<T> {
    finish_document(Reader { src, pos: at, depth: 1, key_at: at }, read)
}

/// A reader on the value starting at `at` of a document known to be valid up to that value.
pub(crate) fn value_at<'a, T>(
    src: &'a [u8],
    at: usize,
    read: impl FnOnce(&mut Reader<'a>) -> JsonResult<T>,
) -> JsonResult<T> {
    read(&mut Reader { src, pos: at, depth: 1, key_at: at })
}

fn finish_document<'a, T>(mut r: Reader<'a>, read: impl FnOnce(&mut Reader<'a>) -> JsonResult<T>) -> JsonResult<T> {
    let value = read(&mut r)?;
    r.skip_ws();
    if r.pos != r.src.len() {
        return Err(r.err("trailing characters"));
    }
    Ok(value)
}

/// An object read key by key into a default `T` (`field` reads the values it wants, the others
/// are skipped), or `None`, the value skipped, when it is not an object.
pub(crate) fn read_object<'a, T: Default>(
    r: &mut Reader<'a>,
    mut field: impl FnMut(&mut T, &mut Reader<'a>, &[u8]) -> JsonResult<()>,
) -> JsonResult<Option<T>> {
    let mut value = T::default();
    let is_object = r.object(|r, key| field(&mut value, r, key))?;
    Ok(is_object.then_some(value))
}

/// A whole document that must be one object, read into a default `T` as [`read_object`] does;
/// an error when it is not JSON, or not an object.
pub(crate) fn read_object_document<'a, T: Default>(
    src: &'a [u8],
    field: impl FnMut(&mut T, &mut Reader<'a>, &[u8]) -> JsonResult<()>,
) -> JsonResult<T> {
    read_document(src, |r| read_object(r, field)?.ok_or_else(JsonError::not_an_object))
}

/// An array read element by element with `read`; empty (the value skipped) when it is not an
/// array.
pub(crate) fn read_list<'a, T>(
    r: &mut Reader<'a>,
    mut read: impl FnMut(&mut Reader<'a>) -> JsonResult<T>,
) -> JsonResult<Vec<T>> {
    let mut items = Vec::new();
    r.array(|r| {
        items.push(read(r)?);
        Ok(())
    })?;
    Ok(items)
}

/// Checks that `src` is one JSON document.
#[cfg(test)]
pub(crate) fn validate(src: &[u8]) -> JsonResult<()> {
    read_document(src, |r| r.skip())
}

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// Flags (high bit per byte) every `"`, `\` and control character of an eight-byte word. The
/// lowest flag is exact: a false flag can only sit above a true one.
#[inline(always)]
fn string_stops(w: u64) -> u64 {
    let q = w ^ (LO * b'"' as u64);
    let s = w ^ (LO * b'\\' as u64);
    ((q.wrapping_sub(LO) & !q) | (s.wrapping_sub(LO) & !s) | (w.wrapping_sub(LO * 0x20) & !w)) & HI
}

/// The eight bytes of `src` at `at` as a little-endian word (`src` must hold them). A plain
/// load at every optimisation level: `copy_from_slice` stays a call in the size-optimised build.
#[inline(always)]
pub(crate) fn word_at(src: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(*<&[u8; 8]>::try_from(&src[at..at + 8]).unwrap_or(&[0; 8]))
}

/// At most how many bytes the rest of a string, from `from` to its closing quote (or the end of
/// `src`), decodes to: an escape gives one byte, a `\u` escape at most three (a surrogate pair,
/// twelve bytes, gives four).
fn decoded_bound(src: &[u8], mut from: usize) -> usize {
    let mut bound = 0;
    loop {
        let stop = next_string_stop(src, from).min(src.len());
        bound += stop - from;
        if src.get(stop) != Some(&b'\\') {
            return bound;
        }
        let (raw, decoded) = if src.get(stop + 1) == Some(&b'u') { (6, 3) } else { (2, 1) };
        bound += decoded;
        from = (stop + raw).min(src.len());
    }
}

/// The position of the next `"`, `\\` or control character in `src` from `from` (or its
/// length), eight bytes at a time: the bytes a JSON string must escape, and where a string
/// being read stops.
#[inline]
#[cfg_attr(llw_speed, optimize(speed))]
pub(crate) fn next_string_stop(src: &[u8], from: usize) -> usize {
    let mut i = from;
    while i + 8 <= src.len() {
        let m = string_stops(word_at(src, i));
        if m != 0 {
            return i + (m.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < src.len() && !matches!(src[i], b'"' | b'\\' | 0..=0x1F) {
        i += 1;
    }
    i
}

impl<'a> Reader<'a> {
    fn err(&self, what: &'static str) -> JsonError {
        JsonError { what, at: self.pos }
    }

    #[inline]
    #[cfg_attr(llw_speed, optimize(speed))]
    fn skip_ws(&mut self) {
        while let Some(&b) = self.src.get(self.pos) {
            if !matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                break;
            }
            self.pos += 1;
        }
    }

    /// The kind of the next value (after whitespace), or an error at the end or a bad byte.
    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn peek(&mut self) -> JsonResult<Kind> {
        self.skip_ws();
        match self.src.get(self.pos) {
            Some(b'{') => Ok(Kind::Object),
            Some(b'[') => Ok(Kind::Array),
            Some(b'"') => Ok(Kind::String),
            Some(b'-' | b'0'..=b'9') => Ok(Kind::Number),
            Some(b't' | b'f') => Ok(Kind::Bool),
            Some(b'n') => Ok(Kind::Null),
            Some(_) => Err(self.err("expected a value")),
            None => Err(self.err("unexpected end of input")),
        }
    }

    #[cfg_attr(llw_speed, optimize(speed))]
    fn expect(&mut self, byte: u8, what: &'static str) -> JsonResult<()> {
        self.skip_ws();
        if self.src.get(self.pos) == Some(&byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.err(what))
        }
    }

    #[cfg_attr(llw_speed, optimize(speed))]
    fn enter(&mut self) -> JsonResult<()> {
        self.depth += 1;
        if self.depth >= MAX_DEPTH {
            return Err(self.err("nested too deeply"));
        }
        self.pos += 1;
        Ok(())
    }

    /// Reads an object, calling `entry` with each key; `entry` reads the value (any value it
    /// leaves unread is skipped). Returns `false`, the value skipped, when it is not an object.
    pub(crate) fn object(&mut self, mut entry: impl FnMut(&mut Self, &[u8]) -> JsonResult<()>) -> JsonResult<bool> {
        self.object_dyn(&mut entry)
    }

    // The walks over objects and arrays take their callbacks as `dyn`: one copy of each loop
    // instead of one per call site, measured no slower.
    #[cfg_attr(llw_speed, optimize(speed))]
    fn object_dyn(&mut self, entry: &mut dyn FnMut(&mut Self, &[u8]) -> JsonResult<()>) -> JsonResult<bool> {
        match self.open(Kind::Object, b'}')? {
            None => return Ok(false),
            Some(true) => return Ok(true),
            Some(false) => {}
        }
        self.members_dyn(entry)?;
        Ok(true)
    }

    /// The members of an object from one that starts at `pos` (after `{` or a `,`) to its `}`.
    /// `entry` sees each key; `self.pos` is then its value's start.
    pub(crate) fn members(&mut self, mut entry: impl FnMut(&mut Self, &[u8]) -> JsonResult<()>) -> JsonResult<()> {
        self.members_dyn(&mut entry)
    }

    #[cfg_attr(llw_speed, optimize(speed))]
    fn members_dyn(&mut self, entry: &mut dyn FnMut(&mut Self, &[u8]) -> JsonResult<()>) -> JsonResult<()> {
        loop {
            self.skip_ws();
            if self.src.get(self.pos) != Some(&b'"') {
                return Err(self.err("expected a key"));
            }
            self.key_at = self.pos;
            // Keys are nearly always plain: borrowed straight, without the general string path.
            let src = self.src;
            let plain_end = next_string_stop(src, self.pos + 1);
            let key = if src.get(plain_end) == Some(&b'"') {
                let key = &src[self.pos + 1..plain_end];
                self.pos = plain_end + 1;
                Cow::Borrowed(key)
            } else {
                self.string_bytes(true)?
            };
            self.expect(b':', "expected `:`")?;
            self.skip_ws();
            let start = self.pos;
            entry(self, &key)?;
            if self.pos == start {
                self.skip()?;
            }
            if self.closes(b'}', "expected `,` or `}`")? {
                return Ok(());
            }
        }
    }

    /// Opens a container of `kind`: `None` (the value skipped) when the next value is not one,
    /// `Some(true)` when it is empty (and already closed), `Some(false)` when items follow.
    #[inline]
    #[cfg_attr(llw_speed, optimize(speed))]
    fn open(&mut self, kind: Kind, close: u8) -> JsonResult<Option<bool>> {
        if self.peek()? != kind {
            self.skip()?;
            return Ok(None);
        }
        self.enter()?;
        self.skip_ws();
        if self.src.get(self.pos) == Some(&close) {
            self.pos += 1;
            self.depth -= 1;
            return Ok(Some(true));
        }
        Ok(Some(false))
    }

    /// After a member or element: `,` (another follows: `false`) or `close` (the container
    /// ends: `true`, one level up).
    #[inline]
    #[cfg_attr(llw_speed, optimize(speed))]
    fn closes(&mut self, close: u8, what: &'static str) -> JsonResult<bool> {
        self.skip_ws();
        match self.src.get(self.pos) {
            Some(b',') => {
                self.pos += 1;
                Ok(false)
            }
            Some(&b) if b == close => {
                self.pos += 1;
                self.depth -= 1;
                Ok(true)
            }
            Some(_) => Err(self.err(what)),
            None => Err(self.err("unexpected end of input")),
        }
    }

    /// Where the key last handed to an `object`/`members` callback starts (its quote).
    pub(crate) fn key_at(&self) -> usize {
        self.key_at
    }

    /// The current position: inside an `object`/`members` callback, the value's start.
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    /// Reads an array, calling `item` for each element (an element it leaves unread is
    /// skipped). Returns `false`, the value skipped, when it is not an array.
    pub(crate) fn array(&mut self, mut item: impl FnMut(&mut Self) -> JsonResult<()>) -> JsonResult<bool> {
        self.array_dyn(&mut item)
    }

    #[cfg_attr(llw_speed, optimize(speed))]
    fn array_dyn(&mut self, item: &mut dyn FnMut(&mut Self) -> JsonResult<()>) -> JsonResult<bool> {
        match self.open(Kind::Array, b']')? {
            None => return Ok(false),
            Some(true) => return Ok(true),
            Some(false) => {}
        }
        loop {
            self.skip_ws();
            let start = self.pos;
            item(self)?;
            if self.pos == start {
                self.skip()?;
            }
            if self.closes(b']', "expected `,` or `]`")? {
                return Ok(true);
            }
        }
    }

    /// A string value, or `None` (the value skipped) for any other kind.
    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn string(&mut self) -> JsonResult<Option<Cow<'a, str>>> {
        if self.peek()? != Kind::String {
            self.skip()?;
            return Ok(None);
        }
        self.string_token().map(Some)
    }

    /// Any scalar as text, leniently: a string as itself, a number as its text (integers that
    /// fit 64 bits as written, others as serde_json writes the f64 it reads: `1.5e2` as
    /// `150.0`, `1e21` as `1e+21`), a boolean as `true`/`false`; `None` for null,
    /// objects and arrays (skipped).
    pub(crate) fn scalar(&mut self) -> JsonResult<Option<Cow<'a, str>>> {
        match self.peek()? {
            Kind::String => self.string_token().map(Some),
            Kind::Number => {
                let at = self.pos;
                let (text, integer) = self.number_token()?;
                let fits = match text.strip_prefix('-') {
                    // serde_json reads `-0` as the float -0.0.
                    Some(_) => text != "-0" && text.parse::<i64>().is_ok(),
                    None => text.parse::<u64>().is_ok(),
                };
                if integer && fits {
                    return Ok(Some(Cow::Borrowed(text)));
                }
                // As serde_json: other numbers are read as f64, and one out of its range is an
                // error; the text is serde_json's for that f64.
                let value = float::parse(text).filter(|v| v.is_finite());
                let value = value.ok_or(JsonError { what: "number out of range", at })?;
                let mut out = String::new();
                float::write(&mut out, value);
                Ok(Some(Cow::Owned(out)))
            }
            Kind::Bool => {
                let value = self.src[self.pos] == b't';
                self.skip()?;
                Ok(Some(Cow::Borrowed(write::boolean(value))))
            }
            Kind::Null | Kind::Object | Kind::Array => {
                self.skip()?;
                Ok(None)
            }
        }
    }

    /// A plain non-negative integer literal of at most 15 digits (`0`, `2310`), read in one pass;
    /// `None`, with nothing read, for any other value. Fifteen digits are exact in a double, so
    /// the value is the one reading the literal as a float gives. Token counts come on every
    /// Gemini chunk: read through the number's text and `str::parse` they were a quarter of a
    /// streamed chunk's instructions (callgrind).
    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn short_uint(&mut self) -> Option<u64> {
        self.skip_ws();
        let digits = self.src[self.pos..].iter().take_while(|b| b.is_ascii_digit()).count();
        let end = self.pos + digits;
        let plain = (1..=15).contains(&digits)
            && (digits == 1 || self.src[self.pos] != b'0')
            && !matches!(self.src.get(end), Some(b'.' | b'e' | b'E'));
        if !plain {
            return None;
        }
        let value = self.src[self.pos..end].iter().fold(0, |n, d| n * 10 + u64::from(d - b'0'));
        self.pos = end;
        Some(value)
    }

    /// A number that is a non-negative integer fitting `u64` (`3`, also `3.0`), else `None`
    /// (the value skipped).
    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn index(&mut self) -> JsonResult<Option<u64>> {
        if self.peek()? != Kind::Number {
            self.skip()?;
            return Ok(None);
        }
        let (text, integer) = self.number_token()?;
        if integer {
            return Ok(text.parse().ok());
        }
        let value = float::parse(text).ok_or_else(|| self.err("invalid number"))?;
        let whole = value >= 0.0 && value.fract() == 0.0 && value < u64::MAX as f64;
        Ok(whole.then_some(value as u64))
    }

    /// The next value's JSON text, validated, without surrounding whitespace.
    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn raw(&mut self) -> JsonResult<&'a str> {
        self.skip_ws();
        let start = self.pos;
        self.skip()?;
        self.text_from(start)
    }

    /// The next value's JSON text as [`Self::raw`] gives it, with what `read` makes of the value
    /// in the same pass; `None` for that when `read` fails on it, and the value is then read
    /// again by `raw`, so that any error is the one `raw` gives. `read` reads one whole value.
    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn raw_read<T>(
        &mut self,
        read: impl FnOnce(&mut Self) -> JsonResult<T>,
    ) -> JsonResult<(&'a str, Option<T>)> {
        self.skip_ws();
        let (start, depth) = (self.pos, self.depth);
        if let Ok(value) = read(self) {
            return Ok((self.text_from(start)?, Some(value)));
        }
        self.pos = start;
        self.depth = depth;
        Ok((self.raw()?, None))
    }

    /// The text from `start` to the current position, which must be UTF-8.
    fn text_from(&self, start: usize) -> JsonResult<&'a str> {
        std::str::from_utf8(&self.src[start..self.pos]).map_err(|_| JsonError { what: "invalid UTF-8", at: start })
    }

    /// `Some(raw text)` of the next value, or `None` for `null`.
    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn raw_non_null(&mut self) -> JsonResult<Option<&'a str>> {
        if self.peek()? == Kind::Null {
            self.skip()?;
            return Ok(None);
        }
        self.raw().map(Some)
    }

    /// Skips one value, validating it.
    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn skip(&mut self) -> JsonResult<()> {
        match self.peek()? {
            Kind::Object => {
                self.object(|_, _| Ok(()))?;
            }
            Kind::Array => {
                self.array(|_| Ok(()))?;
            }
            Kind::String => self.skip_string()?,
            Kind::Number => {
                self.number_token()?;
            }
            Kind::Bool | Kind::Null => {
                let rest = &self.src[self.pos..];
                let len = if rest.starts_with(b"true") || rest.starts_with(b"null") {
                    4
                } else if rest.starts_with(b"false") {
                    5
                } else {
                    return Err(self.err("expected a value"));
                };
                self.pos += len;
            }
        }
        Ok(())
    }

    /// Moves `pos` (just after an opening quote or an escape) to the next `"`, `\\` or control
    /// character.
    #[inline]
    #[cfg_attr(llw_speed, optimize(speed))]
    fn scan_string(&mut self) {
        self.pos = next_string_stop(self.src, self.pos);
    }

    /// Skips a string (at its opening quote), checking escapes and control characters.
    #[cfg_attr(llw_speed, optimize(speed))]
    fn skip_string(&mut self) -> JsonResult<()> {
        self.pos += 1;
        loop {
            self.scan_string();
            match self.src.get(self.pos) {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(b'\\') => {
                    self.escape(&mut None, false)?;
                }
                Some(_) => return Err(self.err("control character in a string")),
                None => return Err(self.err("unterminated string")),
            }
        }
    }

    /// Reads a string at its opening quote: borrowed when it has no escapes.
    #[cfg_attr(llw_speed, optimize(speed))]
    fn string_token(&mut self) -> JsonResult<Cow<'a, str>> {
        let start = self.pos;
        let invalid = JsonError { what: "invalid UTF-8 in a string", at: start };
        match self.string_bytes(false)? {
            // Most strings are short and ASCII: a word-at-a-time ASCII check is far cheaper than
            // `from_utf8`'s byte-by-byte path for them.
            Cow::Borrowed(bytes) if bytes.is_ascii() => {
                // SAFETY: ASCII bytes are valid UTF-8.
                Ok(Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(bytes) }))
            }
            Cow::Borrowed(bytes) => std::str::from_utf8(bytes).map(Cow::Borrowed).map_err(|_| invalid),
            Cow::Owned(bytes) => String::from_utf8(bytes).map(Cow::Owned).map_err(|_| invalid),
        }
    }

    /// A string's bytes, unescaped, UTF-8 unchecked. With `lenient` (object keys, which are
    /// only compared) a lone surrogate escape reads as U+FFFD.
    #[cfg_attr(llw_speed, optimize(speed))]
    fn string_bytes(&mut self, lenient: bool) -> JsonResult<Cow<'a, [u8]>> {
        self.pos += 1;
        let start = self.pos;
        self.scan_string();
        let src = self.src;
        if src.get(self.pos) == Some(&b'"') {
            self.pos += 1;
            return Ok(Cow::Borrowed(&src[start..self.pos - 1]));
        }
        // The string is measured to its end first: a buffer that doubles would hold up to twice
        // its bytes, and growing a short one cost more than measuring it (callgrind: 4 % of a
        // Gemini stream's instructions went to growing its escaped texts).
        let mut out = Some(Vec::with_capacity(self.pos - start + decoded_bound(src, self.pos)));
        let mut from = start;
        loop {
            match src.get(self.pos) {
                Some(b'"') => {
                    let mut bytes = out.unwrap_or_default();
                    bytes.extend_from_slice(&src[from..self.pos]);
                    self.pos += 1;
                    return Ok(Cow::Owned(bytes));
                }
                Some(b'\\') => {
                    if let Some(bytes) = out.as_mut() {
                        bytes.extend_from_slice(&src[from..self.pos]);
                    }
                    self.escape(&mut out, lenient)?;
                    from = self.pos;
                }
                Some(_) => return Err(self.err("control character in a string")),
                None => return Err(self.err("unterminated string")),
            }
            self.scan_string();
        }
    }

    /// Reads one escape at `\`, appending what it stands for to `out` when there is one.
    fn escape(&mut self, out: &mut Option<Vec<u8>>, lenient: bool) -> JsonResult<()> {
        let Some(&kind) = self.src.get(self.pos + 1) else { return Err(self.err("unterminated string")) };
        let simple = match kind {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'b' => 0x08,
            b'f' => 0x0C,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' if out.is_none() => {
                // Skipped text is not decoded (as with serde_json): only the digits are checked.
                self.hex4(self.pos + 2)?;
                self.pos += 6;
                return Ok(());
            }
            b'u' => {
                let c = match self.unicode_escape() {
                    Ok(c) => c,
                    Err(_) if lenient => {
                        self.hex4(self.pos + 2)?;
                        self.pos += 6;
                        char::REPLACEMENT_CHARACTER
                    }
                    Err(err) => return Err(err),
                };
                if let Some(bytes) = out.as_mut() {
                    let mut buf = [0u8; 4];
                    bytes.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                return Ok(());
            }
            _ => return Err(self.err("invalid escape")),
        };
        self.pos += 2;
        if let Some(bytes) = out.as_mut() {
            bytes.push(simple);
        }
        Ok(())
    }

    /// `\uXXXX` (with its low half when it is a high surrogate) at `\`; `pos` moves only on
    /// success.
    fn unicode_escape(&mut self) -> JsonResult<char> {
        let at = self.pos;
        let high = self.hex4(at + 2)?;
        let (code, len) = match high {
            0xD800..=0xDBFF => {
                if self.src.get(at + 6..at + 8) != Some(b"\\u") {
                    return Err(self.err("lone leading surrogate in hex escape"));
                }
                let low = self.hex4(at + 8)?;
                if !(0xDC00..=0xDFFF).contains(&low) {
                    return Err(self.err("lone leading surrogate in hex escape"));
                }
                (0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00), 12)
            }
            0xDC00..=0xDFFF => return Err(self.err("lone trailing surrogate in hex escape")),
            _ => (high, 6),
        };
        self.pos = at + len;
        char::from_u32(code).ok_or_else(|| self.err("invalid unicode escape"))
    }

    fn hex4(&self, at: usize) -> JsonResult<u32> {
        let Some(digits) = self.src.get(at..at + 4) else { return Err(self.err("unterminated string")) };
        let mut value = 0;
        for &d in digits {
            let v = match d {
                b'0'..=b'9' => d - b'0',
                b'a'..=b'f' => d - b'a' + 10,
                b'A'..=b'F' => d - b'A' + 10,
                _ => return Err(self.err("invalid escape")),
            };
            value = value * 16 + v as u32;
        }
        Ok(value)
    }

    /// Reads a number; returns its text and whether it is a plain non-negative-or-negative
    /// integer (no fraction, no exponent).
    #[cfg_attr(llw_speed, optimize(speed))]
    fn number_token(&mut self) -> JsonResult<(&'a str, bool)> {
        let src = self.src;
        let start = self.pos;
        let mut i = start;
        let digit = |i: usize| src.get(i).is_some_and(u8::is_ascii_digit);
        if src.get(i) == Some(&b'-') {
            i += 1;
        }
        match src.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => {
                while digit(i) {
                    i += 1;
                }
            }
            _ => return Err(JsonError { what: "invalid number", at: i }),
        }
        let mut integer = true;
        if src.get(i) == Some(&b'.') {
            integer = false;
            i += 1;
            if !digit(i) {
                return Err(JsonError { what: "invalid number", at: i });
            }
            while digit(i) {
                i += 1;
            }
        }
        if matches!(src.get(i), Some(b'e' | b'E')) {
            integer = false;
            i += 1;
            if matches!(src.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            if !digit(i) {
                return Err(JsonError { what: "invalid number", at: i });
            }
            while digit(i) {
                i += 1;
            }
        }
        self.pos = i;
        // Only ASCII digits and signs were accepted above.
        let text = std::str::from_utf8(&src[start..i]).map_err(|_| JsonError { what: "invalid number", at: start })?;
        Ok((text, integer))
    }
}

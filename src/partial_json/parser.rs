//! The incremental reader: JSON text in pieces, split anywhere, and for each piece the changes
//! it makes to the value shown (see the module documentation for the rules).
//!
//! Every byte is looked at once: the reader keeps the containers open on the path to where it
//! is, the text of a number or a key not yet complete, and at most eleven bytes of an escape or
//! a UTF-8 character cut by the end of a piece, which wait for the next one. String text is
//! copied in runs found eight bytes at a time (the crate's JSON reader's scan).

use super::schema::{Schema, Shape};
use super::{Change, PartialOptions};
use crate::error::{Error, ErrorCode, Result};
use crate::json::{Map, Value};

/// The crate's JSON reader's nesting limit: 127 containers open, the 128th refused.
const MAX_DEPTH: usize = 127;

/// What the reader expects next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// Lenient: prose before the object, skipped up to its `{`; `ticks` backticks in a row so
    /// far, `fenced` once an opening fence's line is behind.
    Prose { ticks: u8, fenced: bool },
    /// Lenient: the rest of the opening fence's line (its info string, `json`).
    FenceLine,
    /// The document's value, or a member's after its `:`.
    Value,
    /// After `[`: an element or `]`.
    FirstElement,
    /// After `,` in an array: an element (lenient: or `]`).
    NextElement,
    /// After `{`: a key or `}`.
    FirstKey,
    /// After `,` in an object: a key (lenient: or `}`).
    NextKey,
    /// Inside a key.
    Key,
    /// After a key: `:`.
    Colon,
    /// After a member or an element: `,` or the end of the container.
    Separator,
    /// Inside a string value.
    Str,
    /// Inside a number, its text so far in `token`.
    Number(Num),
    /// Inside `true`, `false` or `null`: the word and how many of its bytes are read.
    Literal(&'static [u8], usize),
    /// After the document's value: only whitespace (lenient: anything, unread).
    End,
}

/// Where a number is in its grammar (RFC 8259 §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Num {
    Minus,
    Zero,
    Int,
    Point,
    Frac,
    E,
    ESign,
    Exp,
}

impl Num {
    /// The part after `b`, or `None` when `b` cannot continue the number.
    fn next(self, b: u8) -> Option<Num> {
        use Num::*;
        Some(match (self, b) {
            (Minus, b'0') => Zero,
            (Minus | Int, b'1'..=b'9') | (Int, b'0') => Int,
            (Zero | Int, b'.') => Point,
            (Point | Frac, b'0'..=b'9') => Frac,
            (Zero | Int | Frac, b'e' | b'E') => E,
            (E, b'+' | b'-') => ESign,
            (E | ESign | Exp, b'0'..=b'9') => Exp,
            _ => return None,
        })
    }

    /// Whether the number may end here.
    fn complete(self) -> bool {
        matches!(self, Num::Zero | Num::Int | Num::Frac | Num::Exp)
    }
}

/// Where a container sits in its parent, for error paths.
#[derive(Debug)]
enum Seg {
    Root,
    Key(String),
    Index(usize),
}

/// An open array or object.
#[derive(Debug)]
struct Frame {
    object: bool,
    seg: Seg,
    /// Elements begun so far (arrays).
    len: usize,
    /// Its node in the schema, when the agent's outputs describe it.
    node: Option<usize>,
    /// Which of its declared properties have been seen (objects with a schema).
    seen: Vec<bool>,
}

/// The incremental reader underneath [`super::PartialJson`]: it keeps no value, only where it
/// is, and says per piece what changed (the accumulator feeds one per tool call).
pub struct Parser {
    expect: Expect,
    lenient: bool,
    schema: Option<Schema>,
    stack: Vec<Frame>,
    /// The key of the member whose value comes next, and its schema node.
    key: Option<String>,
    key_node: Option<usize>,
    /// The text of the number or the key being read.
    token: String,
    /// Where the number being read starts.
    token_at: usize,
    /// The schema node of the scalar or string being read, and its path segment.
    node: Option<usize>,
    seg: Seg,
    /// The text so far of a string whose schema limits it to an enum.
    enum_text: Option<String>,
    /// Bytes of an escape or a UTF-8 character cut by the end of the last piece.
    carry: Vec<u8>,
    /// The offset of the next piece's first byte (of the carry, if any) in the whole text.
    start: usize,
    /// The first error, returned again by every later call.
    failed: Option<Error>,
    finished: bool,
    /// Decoded string text of the current piece, before it joins the changes (short pieces).
    text: String,
}

/// Past this many bytes left in a piece, a string's text is decoded in place, sized first by a
/// scan of its bytes; below, through the reader's buffer (decoding each string into its own
/// change was 2-5 % slower on pieces of 24 B and 4 KB, paired).
pub(super) const SIZED: usize = 64 * 1024;

/// A failure inside a piece: the message and the offset in that piece.
type Fail = (&'static str, usize);

impl Parser {
    pub fn new(options: &PartialOptions) -> Self {
        Parser {
            expect: if options.lenient { Expect::Prose { ticks: 0, fenced: false } } else { Expect::Value },
            lenient: options.lenient,
            schema: Schema::new(&options.outputs),
            stack: Vec::new(),
            key: None,
            key_node: None,
            token: String::new(),
            token_at: 0,
            node: None,
            seg: Seg::Root,
            enum_text: None,
            carry: Vec::new(),
            start: 0,
            failed: None,
            finished: false,
            text: String::new(),
        }
    }

    /// Reads the next piece of text and appends the changes it makes to `changes`. After an
    /// error (`invalid_json` with the byte offset, or `validation_failed` with the path) the
    /// changes appended by this call must be dropped: the value stays as the last good piece
    /// left it, and every later call returns the same error.
    pub fn push(&mut self, piece: &[u8], changes: &mut Vec<Change>) -> Result<()> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        if self.finished {
            return Err(Error::new(ErrorCode::Finished, "the partial JSON reader has ended: push after finish"));
        }
        let joined;
        let input = if self.carry.is_empty() {
            piece
        } else {
            // At most eleven bytes, joined once to the piece: linear whatever the splits.
            joined = [std::mem::take(&mut self.carry), piece.to_vec()].concat();
            &joined[..]
        };
        let result = self.run(input, changes);
        self.fail_on(result)?;
        self.start += input.len() - self.carry.len();
        Ok(())
    }

    /// Ends the text: a number at the top level is complete now. An error when the value is
    /// not complete (`invalid_json`, `unexpected end of input`).
    pub fn finish(&mut self, changes: &mut Vec<Change>) -> Result<()> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        self.finished = true;
        let end = self.start + self.carry.len();
        let result = match self.expect {
            Expect::End => Ok(()),
            Expect::Number(part) if part.complete() && self.stack.is_empty() && self.carry.is_empty() => {
                self.end_number(changes)
            }
            Expect::Prose { .. } | Expect::FenceLine => Err(self.invalid("no JSON object in the text", end)),
            _ => Err(self.invalid("unexpected end of input", end)),
        };
        self.fail_on(result)
    }

    /// About what the reader keeps now, in bytes: its open containers (a declared object's
    /// seen-list included), the key or number being read and the text it holds for a piece.
    /// The accumulator counts it against `maxMessageBytes`.
    pub fn kept_bytes(&self) -> usize {
        let frames: usize = self
            .stack
            .iter()
            .map(|f| {
                let seg = if let Seg::Key(key) = &f.seg { key.capacity() } else { 0 };
                std::mem::size_of::<Frame>() + f.seen.capacity() + seg
            })
            .sum();
        let strings = [self.key.as_ref(), self.enum_text.as_ref(), Some(&self.token), Some(&self.text)]
            .into_iter()
            .flatten()
            .map(String::capacity)
            .sum::<usize>();
        frames + strings + self.carry.capacity()
    }

    /// Whether [`Parser::finish`] would succeed now: the value is complete, or is a top-level
    /// number that the end of the text completes.
    pub fn can_finish(&self) -> bool {
        match self.expect {
            Expect::End => true,
            Expect::Number(part) => part.complete() && self.stack.is_empty() && self.carry.is_empty(),
            _ => false,
        }
    }

    /// Keeps the first error for every later call.
    fn fail_on(&mut self, result: Result<()>) -> Result<()> {
        if let Err(error) = &result {
            self.failed = Some(error.clone());
        }
        result
    }

    /// Reads `input` (the carry, then the piece) to its end.
    fn run(&mut self, input: &[u8], changes: &mut Vec<Change>) -> Result<()> {
        let mut i = 0;
        while i < input.len() {
            let b = input[i];
            let at = self.start + i;
            i = match self.expect {
                Expect::Str => self.string_value(input, i, changes)?,
                Expect::Key => self.key_text(input, i)?,
                Expect::Number(part) => self.number(input, i, part, changes)?,
                Expect::Value
                | Expect::FirstElement
                | Expect::NextElement
                | Expect::FirstKey
                | Expect::NextKey
                | Expect::Colon
                | Expect::Separator
                | Expect::End
                    if is_ws(b) =>
                {
                    i + 1
                }
                Expect::Prose { ticks, fenced } => {
                    self.prose(b, ticks, fenced, at).map(|()| i + usize::from(b != b'{'))?
                }
                Expect::FenceLine => {
                    if b == b'\n' {
                        self.expect = Expect::Prose { ticks: 0, fenced: true };
                    }
                    i + 1
                }
                Expect::Value => self.begin(b, at, changes).map(|()| i + 1)?,
                Expect::FirstElement | Expect::NextElement if b == b']' => {
                    self.close_after_comma(false, at, changes).map(|()| i + 1)?
                }
                Expect::FirstElement | Expect::NextElement => self.begin(b, at, changes).map(|()| i + 1)?,
                Expect::FirstKey | Expect::NextKey if b == b'}' => {
                    self.close_after_comma(true, at, changes).map(|()| i + 1)?
                }
                Expect::FirstKey | Expect::NextKey if b == b'"' => {
                    self.token.clear();
                    self.expect = Expect::Key;
                    i + 1
                }
                Expect::FirstKey | Expect::NextKey => return Err(self.invalid("expected a key", at)),
                Expect::Colon if b == b':' => {
                    self.expect = Expect::Value;
                    i + 1
                }
                Expect::Colon => return Err(self.invalid("expected `:`", at)),
                Expect::Separator => self.separator(b, at, changes).map(|()| i + 1)?,
                Expect::Literal(word, read) => self.literal(b, at, word, read, changes).map(|()| i + 1)?,
                Expect::End if self.lenient => input.len(),
                Expect::End => return Err(self.invalid("trailing characters", at)),
            };
        }
        Ok(())
    }

    /// Lenient prose before the object; its `{` is read again as the value's start.
    fn prose(&mut self, b: u8, ticks: u8, fenced: bool, at: usize) -> Result<()> {
        match b {
            b'{' => self.expect = Expect::Value,
            b'`' if ticks == 2 && fenced => return Err(self.invalid("no JSON object in the fenced block", at)),
            b'`' if ticks == 2 => self.expect = Expect::FenceLine,
            b'`' => self.expect = Expect::Prose { ticks: ticks + 1, fenced },
            _ => self.expect = Expect::Prose { ticks: 0, fenced },
        }
        Ok(())
    }

    /// `]` or `}` where a value or a key could also come: right after `,` only lenient mode
    /// takes it (a trailing comma).
    fn close_after_comma(&mut self, object: bool, at: usize, changes: &mut Vec<Change>) -> Result<()> {
        if matches!(self.expect, Expect::NextElement | Expect::NextKey) && !self.lenient {
            return Err(self.invalid(if object { "expected a key" } else { "expected a value" }, at));
        }
        self.close(changes)
    }

    /// After a value in a container: `,` or its end.
    fn separator(&mut self, b: u8, at: usize, changes: &mut Vec<Change>) -> Result<()> {
        let object = self.stack.last().is_some_and(|f| f.object);
        match b {
            b',' => self.expect = if object { Expect::NextKey } else { Expect::NextElement },
            b'}' if object => self.close(changes)?,
            b']' if !object => self.close(changes)?,
            _ if object => return Err(self.invalid("expected `,` or `}`", at)),
            _ => return Err(self.invalid("expected `,` or `]`", at)),
        }
        Ok(())
    }

    /// The value after it ended: a separator, or the end of the document.
    fn after_value(&mut self) {
        self.expect = if self.stack.is_empty() { Expect::End } else { Expect::Separator };
    }

    /// Where the next value goes: its key (objects) and its schema node, the path segment
    /// for errors, and whether it is an array's item.
    fn slot(&mut self) -> (Option<String>, Option<usize>, Seg, bool) {
        let schema = self.schema.as_ref();
        match self.stack.last_mut() {
            None => (None, schema.map(|_| 0), Seg::Root, false),
            Some(frame) if frame.object => {
                let key = self.key.take().unwrap_or_default();
                let seg = Seg::Key(key.clone());
                (Some(key), self.key_node.take(), seg, false)
            }
            Some(frame) => {
                frame.len += 1;
                let node = frame.node.and_then(|node| schema?.items(node));
                (None, node, Seg::Index(frame.len - 1), true)
            }
        }
    }

    /// A value begins with `b`.
    fn begin(&mut self, b: u8, at: usize, changes: &mut Vec<Change>) -> Result<()> {
        let shape = match b {
            b'{' => Shape::Object,
            b'[' => Shape::Array,
            b'"' => Shape::String,
            b'-' | b'0'..=b'9' => Shape::Number,
            b't' | b'f' => Shape::Boolean,
            b'n' => Shape::Null,
            _ => return Err(self.invalid("expected a value", at)),
        };
        let (key, node, seg, item) = self.slot();
        if let (Some(schema), Some(node)) = (&self.schema, node) {
            if let Err(why) = schema.begin(node, shape, item) {
                return Err(self.violation(why, Some(&seg)));
            }
        }
        match shape {
            Shape::Object | Shape::Array => {
                if self.stack.len() >= MAX_DEPTH {
                    return Err(self.invalid("nested too deeply", at));
                }
                let object = shape == Shape::Object;
                let value = if object { Value::Object(Map::new()) } else { Value::Array(Vec::new()) };
                changes.push(Change::Add { key, value, open: true });
                let fields = match (&self.schema, node) {
                    (Some(schema), Some(node)) if object => schema.field_count(node),
                    _ => 0,
                };
                self.stack.push(Frame { object, seg, len: 0, node, seen: vec![false; fields] });
                self.expect = if object { Expect::FirstKey } else { Expect::FirstElement };
            }
            Shape::String => {
                changes.push(Change::Add { key, value: Value::String(String::new()), open: true });
                self.hold(None, node, seg);
                let limited = matches!((&self.schema, node), (Some(schema), Some(node)) if schema.has_enum(node));
                self.enum_text = limited.then(String::new);
                self.expect = Expect::Str;
            }
            Shape::Number => {
                self.hold(key, node, seg);
                self.token.clear();
                self.token.push(b as char);
                self.token_at = at;
                self.expect =
                    Expect::Number(if b == b'-' { Num::Minus } else { Num::Minus.next(b).unwrap_or(Num::Int) });
            }
            Shape::Boolean | Shape::Null => {
                self.hold(key, node, seg);
                let word: &'static [u8] = match b {
                    b't' => b"true",
                    b'f' => b"false",
                    _ => b"null",
                };
                self.expect = Expect::Literal(word, 1);
            }
        }
        Ok(())
    }

    /// Keeps a scalar's key (a string's is in its change already), schema node and path
    /// segment while it is read.
    fn hold(&mut self, key: Option<String>, node: Option<usize>, seg: Seg) {
        self.key = key;
        self.node = node;
        self.seg = seg;
    }

    /// A scalar is complete: it joins the value, its key with it.
    fn emit(&mut self, value: Value, changes: &mut Vec<Change>) -> Result<()> {
        if let (Some(schema), Some(node)) = (&self.schema, self.node) {
            if let Err(why) = schema.scalar(node, &value) {
                return Err(self.violation(why, Some(&self.seg)));
            }
        }
        changes.push(Change::Add { key: self.key.take(), value, open: false });
        self.after_value();
        Ok(())
    }

    /// The next byte of a literal.
    fn literal(&mut self, b: u8, at: usize, word: &'static [u8], read: usize, changes: &mut Vec<Change>) -> Result<()> {
        if word[read] != b {
            return Err(self.invalid("expected a value", at));
        }
        if read + 1 < word.len() {
            self.expect = Expect::Literal(word, read + 1);
            return Ok(());
        }
        let value = match word[0] {
            b't' => Value::Bool(true),
            b'f' => Value::Bool(false),
            _ => Value::Null,
        };
        // A null needs no schema check here: `begin` knew it from its first byte.
        if value.is_null() {
            self.node = None;
        }
        self.emit(value, changes)
    }

    /// Number text from `i`: the position after what was read. The number is complete at the
    /// first byte that cannot continue it, when that byte may follow a value there.
    fn number(&mut self, input: &[u8], mut i: usize, mut part: Num, changes: &mut Vec<Change>) -> Result<usize> {
        while let Some(&b) = input.get(i) {
            match part.next(b) {
                Some(next) => {
                    part = next;
                    self.token.push(b as char);
                    i += 1;
                }
                None if !part.complete() => return Err(self.invalid("invalid number", self.start + i)),
                None => {
                    if !self.may_follow_value(b) {
                        self.after_value();
                        // The byte is read where the number ended, which refuses it.
                        return Ok(i);
                    }
                    self.end_number(changes)?;
                    return Ok(i);
                }
            }
        }
        self.expect = Expect::Number(part);
        Ok(i)
    }

    /// Whether `b` may follow a value here: whitespace, or `,` and the container's end.
    fn may_follow_value(&self, b: u8) -> bool {
        match self.stack.last() {
            _ if is_ws(b) => true,
            None => self.lenient,
            Some(frame) => b == b',' || b == if frame.object { b'}' } else { b']' },
        }
    }

    /// The number in `token` is complete.
    fn end_number(&mut self, changes: &mut Vec<Change>) -> Result<()> {
        match crate::json::value::parse_value(&self.token) {
            Ok(value) => self.emit(value, changes),
            Err(e) => Err(self.invalid(e.what, self.token_at)),
        }
    }

    /// String value text from `i`: the position after what was read.
    fn string_value(&mut self, input: &[u8], i: usize, changes: &mut Vec<Change>) -> Result<usize> {
        let decoded = if input.len() - i > SIZED {
            self.decode_in_place(input, i, changes)?
        } else {
            self.decode_copied(input, i, changes)?
        };
        match decoded.map_err(|(what, at)| self.invalid(what, self.start + at))? {
            Decoded::Closed(next) => {
                if let (Some(schema), Some(node), Some(so_far)) = (&self.schema, self.node, self.enum_text.take()) {
                    if let Err(why) = schema.scalar(node, &Value::String(so_far)) {
                        return Err(self.violation(why, Some(&self.seg)));
                    }
                }
                close_top(changes);
                self.after_value();
                Ok(next)
            }
            Decoded::More => Ok(input.len()),
            Decoded::Cut(at) => {
                self.carry.extend_from_slice(&input[at..]);
                Ok(input.len())
            }
        }
    }

    /// A string's text from `i` decoded into the reader's own buffer, warm from string to
    /// string, then appended to the string's change of this piece (a new `Append` when it has
    /// none).
    fn decode_copied(&mut self, input: &[u8], i: usize, changes: &mut Vec<Change>) -> Result<Result<Decoded, Fail>> {
        let mut text = std::mem::take(&mut self.text);
        text.clear();
        let decoded = decode(input, i, &mut text);
        let checked = self.check_string(&text);
        if checked.is_ok() && !text.is_empty() {
            match growing(changes) {
                Some(s) => s.push_str(&text),
                None => changes.push(Change::Append(text.clone())),
            }
        }
        self.text = text;
        checked.map(|()| decoded)
    }

    /// A string's text from `i` decoded straight into its change (a new `Append` when it has
    /// none), sized first for the bytes the piece holds of it: a long string is decoded once,
    /// in place, not into a buffer that doubles and then copied.
    fn decode_in_place(&mut self, input: &[u8], i: usize, changes: &mut Vec<Change>) -> Result<Result<Decoded, Fail>> {
        let mut text = growing(changes).map(std::mem::take).unwrap_or_default();
        let before = text.len();
        text.reserve(string_span(input, i));
        let decoded = decode(input, i, &mut text);
        let checked = self.check_string(&text[before..]);
        if checked.is_err() {
            text.truncate(before);
        }
        match growing(changes) {
            Some(s) => *s = text,
            None if !text.is_empty() => changes.push(Change::Append(text)),
            None => {}
        }
        checked.map(|()| decoded)
    }

    /// Checks the text a string value grew by against an enum its schema limits it to.
    fn check_string(&mut self, text: &str) -> Result<()> {
        if text.is_empty() {
            return Ok(());
        }
        if let (Some(schema), Some(node), Some(so_far)) = (&self.schema, self.node, self.enum_text.as_mut()) {
            so_far.push_str(text);
            if let Err(why) = schema.string_so_far(node, so_far) {
                return Err(self.violation(why, Some(&self.seg)));
            }
        }
        Ok(())
    }

    /// Key text from `i`: the position after what was read.
    fn key_text(&mut self, input: &[u8], i: usize) -> Result<usize> {
        let decoded = decode(input, i, &mut self.token).map_err(|(what, at)| self.invalid(what, self.start + at))?;
        match decoded {
            Decoded::Closed(next) => {
                let key = std::mem::take(&mut self.token);
                self.key_node = None;
                let frame = self.stack.last_mut().filter(|f| f.node.is_some());
                if let (Some(schema), Some(frame)) = (&self.schema, frame) {
                    match schema.field(frame.node.unwrap_or_default(), &key) {
                        Ok(Some((at, node))) => {
                            frame.seen[at] = true;
                            self.key_node = Some(node);
                        }
                        Ok(None) => {}
                        Err(why) => return Err(self.violation(why, Some(&Seg::Key(key)))),
                    }
                }
                self.key = Some(key);
                self.expect = Expect::Colon;
                Ok(next)
            }
            Decoded::More => Ok(input.len()),
            Decoded::Cut(at) => {
                self.carry.extend_from_slice(&input[at..]);
                Ok(input.len())
            }
        }
    }

    /// The open container ends.
    fn close(&mut self, changes: &mut Vec<Change>) -> Result<()> {
        if let Some(frame) = self.stack.last() {
            if let (Some(schema), Some(node)) = (&self.schema, frame.node.filter(|_| frame.object)) {
                if let Some((name, why)) = schema.missing(node, &frame.seen) {
                    return Err(self.violation(why, Some(&Seg::Key(name))));
                }
            }
        }
        self.stack.pop();
        close_top(changes);
        self.after_value();
        Ok(())
    }

    /// `invalid_json` at byte `at` of the whole text, with the path of the open container.
    fn invalid(&self, what: &str, at: usize) -> Error {
        let message = format!("{what} at byte {at}");
        Error::new(ErrorCode::InvalidJson, message).with_path(self.path(None))
    }

    /// `validation_failed` at the path of the open container and then `seg`.
    fn violation(&self, why: String, seg: Option<&Seg>) -> Error {
        Error::new(ErrorCode::ValidationFailed, why).with_path(self.path(seg))
    }

    /// `$`, `$.items[2]`, `$["odd key"]`: the open containers' path, then `last`.
    fn path(&self, last: Option<&Seg>) -> String {
        let mut path = String::from("$");
        for seg in self.stack.iter().map(|frame| &frame.seg).chain(last) {
            match seg {
                Seg::Root => {}
                Seg::Index(i) => {
                    path.push('[');
                    crate::json::write::uint(&mut path, *i as u64);
                    path.push(']');
                }
                Seg::Key(key) if is_name(key) => {
                    path.push('.');
                    path.push_str(key);
                }
                Seg::Key(key) => {
                    path.push('[');
                    crate::json::write::string(&mut path, key);
                    path.push(']');
                }
            }
        }
        path
    }
}

/// Whether a key can follow a `.` in a path (`$.name`), as `parse_structured_output` writes
/// paths; others are written `$["odd key"]`.
fn is_name(key: &str) -> bool {
    let word = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'$';
    key.as_bytes().first().is_some_and(|b| !b.is_ascii_digit()) && key.as_bytes().iter().all(word)
}

/// The string, array or object open at the top ends: the change that opened it is marked
/// complete when it is the last one (opened in this piece, nothing added since), else a
/// [`Change::Close`] follows.
fn close_top(changes: &mut Vec<Change>) {
    match changes.last_mut() {
        Some(Change::Add { open: open @ true, .. }) => *open = false,
        _ => changes.push(Change::Close),
    }
}

/// JSON whitespace.
fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Where [`decode`] stopped.
#[derive(Debug, PartialEq, Eq)]
enum Decoded {
    /// At the closing quote; the position after it.
    Closed(usize),
    /// At the end of the input, inside the string.
    More,
    /// At an escape or a character the end of the input cut: from there the bytes wait for
    /// the next piece.
    Cut(usize),
}

/// The string the last of `changes` grows, when it is one: the value an `Add` opened, or an
/// `Append` (a string's text of one piece goes to one change).
fn growing(changes: &mut [Change]) -> Option<&mut String> {
    match changes.last_mut() {
        Some(Change::Add { value: Value::String(s), open: true, .. } | Change::Append(s)) => Some(s),
        _ => None,
    }
}

/// The bytes of `input` from `at` to the end of the string being read (its closing quote) or
/// of the piece: at least what they decode to.
fn string_span(input: &[u8], mut at: usize) -> usize {
    let start = at;
    while at < input.len() {
        let stop = crate::json::next_string_stop(input, at);
        if input.get(stop) != Some(&b'\\') {
            return stop.min(input.len()) - start;
        }
        // The escaped byte cannot end the string: skip it with its backslash.
        at = stop + 2;
    }
    input.len() - start
}

/// Decodes string text from `at` into `out`, up to the closing quote or the end of `input`.
/// Text that can no longer be JSON fails at its first wrong byte (offset in `input`).
fn decode(input: &[u8], mut at: usize, out: &mut String) -> Result<Decoded, Fail> {
    loop {
        let stop = crate::json::next_string_stop(input, at);
        let run = &input[at..stop];
        match std::str::from_utf8(run) {
            Ok(text) => out.push_str(text),
            Err(e) => {
                let valid = e.valid_up_to();
                out.push_str(std::str::from_utf8(&run[..valid]).unwrap_or_default());
                let bad = match e.error_len() {
                    None if stop == input.len() => return Ok(Decoded::Cut(at + valid)),
                    // A character cut short by the quote, backslash or control byte after it.
                    None => stop,
                    Some(_) => at + utf8_error_at(run, e),
                };
                return Err(("invalid UTF-8 in a string", bad));
            }
        }
        match input.get(stop) {
            None => return Ok(Decoded::More),
            Some(b'"') => return Ok(Decoded::Closed(stop + 1)),
            Some(b'\\') => match escape(input, stop, out)? {
                Some(next) => at = next,
                None => return Ok(Decoded::Cut(stop)),
            },
            Some(_) => return Err(("control character in a string", stop)),
        }
    }
}

/// The first byte of `run` that no UTF-8 text can have there (`e` is its error): the
/// offending sequence's first byte, or the byte that broke a sequence begun well.
fn utf8_error_at(run: &[u8], e: std::str::Utf8Error) -> usize {
    let at = e.valid_up_to();
    let len = e.error_len().unwrap_or(run.len() - at);
    let begun_well = std::str::from_utf8(&run[at..at + len]).is_err_and(|e| e.error_len().is_none());
    at + if begun_well { len } else { 0 }
}

/// The escape at `at` (its `\`) appended to `out`: the position after it, or `None` when the
/// input ends before it does.
fn escape(input: &[u8], at: usize, out: &mut String) -> Result<Option<usize>, Fail> {
    let Some(&kind) = input.get(at + 1) else { return Ok(None) };
    let simple = match kind {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => return unicode_escape(input, at, out),
        _ => return Err(("invalid escape", at + 1)),
    };
    out.push(simple);
    Ok(Some(at + 2))
}

/// `\uXXXX` at `at`, with its low half `\uXXXX` when it is a high surrogate (the crate's
/// reader, like serde_json, refuses lone surrogates: Rust strings cannot hold them).
fn unicode_escape(input: &[u8], at: usize, out: &mut String) -> Result<Option<usize>, Fail> {
    let Some(high) = hex4(input, at + 2, false)? else { return Ok(None) };
    if !(0xD800..=0xDBFF).contains(&high) {
        out.push(char::from_u32(high).unwrap_or(char::REPLACEMENT_CHARACTER));
        return Ok(Some(at + 6));
    }
    for (k, want) in [(6, b'\\'), (7, b'u')] {
        match input.get(at + k) {
            None => return Ok(None),
            Some(&b) if b == want => {}
            Some(_) => return Err(("lone leading surrogate in hex escape", at + k)),
        }
    }
    let Some(low) = hex4(input, at + 8, true)? else { return Ok(None) };
    let code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
    out.push(char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER));
    Ok(Some(at + 12))
}

/// Four hex digits at `at`, `None` when the input ends first. Each digit is checked as it
/// comes, the surrogate rules at the digit that decides them: `low` wants `DC00`–`DFFF`, and
/// otherwise `DC00`–`DFFF` is a lone low half.
fn hex4(input: &[u8], at: usize, low: bool) -> Result<Option<u32>, Fail> {
    let mut value = 0;
    for k in 0..4 {
        let Some(&d) = input.get(at + k) else { return Ok(None) };
        let digit = match d {
            b'0'..=b'9' => d - b'0',
            b'a'..=b'f' => d - b'a' + 10,
            b'A'..=b'F' => d - b'A' + 10,
            _ => return Err(("invalid escape", at + k)),
        };
        value = value * 16 + u32::from(digit);
        match k {
            0 if low && value != 0xD => return Err(("lone leading surrogate in hex escape", at + k)),
            1 if low && !(0xDC..=0xDF).contains(&value) => {
                return Err(("lone leading surrogate in hex escape", at + k))
            }
            1 if !low && (0xDC..=0xDF).contains(&value) => {
                return Err(("lone trailing surrogate in hex escape", at + k))
            }
            _ => {}
        }
    }
    Ok(Some(value))
}

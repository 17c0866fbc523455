//! The last event of a stream kept as a template: in a long stream nearly every event is the one
//! before it with another text in one string (`{..."delta":{"content":"<text>"}...}`), and at
//! most a few other strings that the decoder skips changed as well (OpenAI's `obfuscation`,
//! random padding on every chunk). When an event's bytes equal the template's everywhere outside
//! those string tokens, it reads exactly as the template did with the new text, so its strings
//! are the only things read.
//!
//! Why that is exact: JSON is read left to right, and a string token ends at its first unescaped
//! quote whatever it holds. Up to the first marked string the bytes are the template's, so reading
//! reaches the same state at the same offset; there it meets a string token, which is read as the
//! whole read reads it (the text as a string, a skipped value skipped: the same checks, so the
//! same verdict); after it the reader is in the same state as after the template's token, and
//! the same argument carries on to the next marked string and to the end. So the event is valid
//! exactly when its strings are, and it reads as the template with the new text. The decoder
//! keeps a template only for an event it read whole and whose whole effect is one call with that
//! text (its `action`), and it keeps it until it reads another such event.

use std::borrow::Cow;

use crate::json::{value_at, word_at, JsonResult, Kind, Reader};
use crate::providers::Scalar;

/// Where a string token sits in an event: its opening quote and the byte after its closing one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    open: usize,
    close: usize,
}

/// A text field read as [`Scalar::read`] reads it, with its token's span when it was a string.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Marked<'a> {
    pub(crate) text: Scalar<'a>,
    pub(crate) span: Option<Span>,
}

impl<'a> Marked<'a> {
    pub(crate) fn read(r: &mut Reader<'a>) -> JsonResult<Self> {
        let is_string = r.peek()? == Kind::String;
        let open = r.pos();
        let text = Scalar::read(r)?;
        Ok(Marked { text, span: is_string.then(|| Span { open, close: r.pos() }) })
    }
}

/// The template: the last event kept, as [`Shape`], and its action.
#[derive(Debug)]
pub(crate) struct Template<A> {
    shape: Shape,
    action: Option<A>,
}

/// The bytes of the event, and its string tokens that may differ, in order: `true` for the text,
/// `false` for a value the decoder skips.
#[derive(Debug, Default)]
struct Shape {
    bytes: Vec<u8>,
    strings: Vec<(Span, bool)>,
}

/// An event longer than this is not kept: filling the template saves reading the bytes around
/// the text, the same for a long event as for a short one, and a long one would be copied (and
/// held) for it.
const MAX_TEMPLATE: usize = 16 * 1024;

impl<A> Default for Template<A> {
    fn default() -> Self {
        Template { shape: Shape::default(), action: None }
    }
}

impl<A: Copy> Template<A> {
    /// The action and the new text when `data` is the template with other strings; `None` when
    /// it is not, or when one of those strings is invalid (reading `data` whole says why).
    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn fill<'a>(&self, data: &'a [u8]) -> Option<(A, Cow<'a, str>)> {
        let action = self.action?;
        Some((action, self.shape.fill(data)?))
    }

    /// Keeps `data`, read whole and valid, as the template when its whole effect is `action`
    /// with the string at `span`, the strings at `skipped` (in document order) being values the
    /// decoder skipped, and it is not long; any other event leaves the template as it is.
    pub(crate) fn offer(&mut self, data: &[u8], found: Option<(A, Span)>, skipped: &[Span]) {
        if data.len() > MAX_TEMPLATE {
            return;
        }
        if let Some((action, span)) = found {
            self.shape.keep(data, span, skipped);
            self.action = Some(action);
        }
    }
}

impl Shape {
    #[cfg_attr(llw_speed, optimize(speed))]
    fn fill<'a>(&self, data: &'a [u8]) -> Option<Cow<'a, str>> {
        let (mut at, mut from, mut text) = (0, 0, None);
        for &(Span { open, close }, is_text) in &self.strings {
            let same = &self.bytes[from..open];
            if data.get(at + same.len()) != Some(&b'"') || !same_bytes(&data[at..at + same.len()], same) {
                return None;
            }
            at += same.len();
            at = if is_text {
                let (read, end) = value_at(data, at, |r| Ok((r.string()?, r.pos()))).ok()?;
                text = Some(read?);
                end
            } else {
                value_at(data, at, |r| r.skip().map(|()| r.pos())).ok()?
            };
            from = close;
        }
        let tail = &self.bytes[from..];
        (data.len() - at == tail.len() && same_bytes(&data[at..], tail)).then_some(text?)
    }

    fn keep(&mut self, data: &[u8], span: Span, skipped: &[Span]) {
        self.bytes.clear();
        self.bytes.extend_from_slice(data);
        // The text goes in its place among the skipped strings.
        self.strings.clear();
        self.strings.extend(skipped.iter().map(|s| (*s, false)));
        let at = self.strings.iter().position(|(s, _)| s.open > span.open).unwrap_or(self.strings.len());
        self.strings.insert(at, (span, true));
    }
}

/// A string value the decoder does not use, skipped as reading whole would skip it, with its
/// span; `None` (nothing read) when the value is not a string.
pub(crate) fn skip_marked(r: &mut Reader<'_>) -> JsonResult<Option<Span>> {
    if r.peek()? != Kind::String {
        return Ok(None);
    }
    let open = r.pos();
    r.skip()?;
    Ok(Some(Span { open, close: r.pos() }))
}

/// `a == b`, eight bytes at a time (as words: no call to a byte comparison per eight bytes).
#[cfg_attr(llw_speed, optimize(speed))]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    // Two words a step, as plain index loops: the same code at every optimisation level (the
    // size-optimised build neither unrolls nor fuses iterator adaptors).
    let mut i = 0;
    while i + 16 <= a.len() {
        if (word_at(a, i) ^ word_at(b, i)) | (word_at(a, i + 8) ^ word_at(b, i + 8)) != 0 {
            return false;
        }
        i += 16;
    }
    if i + 8 <= a.len() {
        if word_at(a, i) != word_at(b, i) {
            return false;
        }
        i += 8;
    }
    a[i..] == b[i..]
}

/// What the decoders' tests of their templates share: the recorded streams, and a chunk changed
/// in every way that matters at every position.
#[cfg(test)]
pub(crate) mod testing {
    use crate::accumulator::MessageBuilder;
    use crate::error::Result;
    use crate::providers::Handled;
    use crate::sse::{SseDecoder, SseEvent};
    use crate::Limits;

    /// A stream decoder with a template.
    pub(crate) trait Templated: Default {
        fn event(&mut self, event: &SseEvent<'_>, b: &mut MessageBuilder) -> Result<Handled>;
        fn forget(&mut self);
        fn fills(&self, data: &[u8]) -> bool;
    }

    /// Feeds `events` to a decoder that uses its template and to one that forgets it before each
    /// event (so reads each whole), checks that both return the same and leave their builders
    /// in the same state after every event, and counts the events that filled the template.
    pub(crate) fn same_as_whole<D: Templated>(events: &[(&str, &[u8])]) -> usize {
        let (mut fast, mut whole) = (D::default(), D::default());
        let (mut bf, mut bw) =
            (MessageBuilder::new(Limits::default(), None), MessageBuilder::new(Limits::default(), None));
        let mut filled = 0;
        for &(event, data) in events {
            filled += usize::from(fast.fills(data));
            whole.forget();
            let event = SseEvent { event, data, id: b"" };
            let a = (format!("{:?}", fast.event(&event, &mut bf)), format!("{bf:?}"));
            let b = (format!("{:?}", whole.event(&event, &mut bw)), format!("{bw:?}"));
            assert_eq!(a, b, "{}", String::from_utf8_lossy(data));
        }
        filled
    }

    /// [`same_as_whole`] on every recorded stream in `dirs`: (events, events that filled).
    pub(crate) fn replay_recorded<D: Templated>(dirs: &[&str]) -> (usize, usize) {
        let (mut count, mut filled) = (0, 0);
        for events in recorded_events(dirs) {
            let events: Vec<(&str, &[u8])> = events.iter().map(|(e, d)| (e.as_str(), d.as_slice())).collect();
            count += events.len();
            filled += same_as_whole::<D>(&events);
        }
        (count, filled)
    }

    /// [`replay_recorded`] on `dirs`, and [`same_as_whole`] on `before` then each of the
    /// [`variants`] of `next`, for each case `(before, next, whether next may fill the template)`.
    pub(crate) fn check_template<D: Templated>(dirs: &[&str], name: &str, cases: &[(Vec<String>, String, bool)]) {
        let (_, filled) = replay_recorded::<D>(dirs);
        assert!(filled > 30, "the template must actually be filled ({filled} times)");
        for (before, next, fills) in cases {
            let events = |last: &[u8]| {
                let mut events: Vec<(&str, &[u8])> = before.iter().map(|d| (name, d.as_bytes())).collect();
                events.push((name, last));
                same_as_whole::<D>(&events)
            };
            assert_eq!(events(next.as_bytes()), usize::from(*fills), "{next}");
            let filled: usize = variants(next.as_bytes()).iter().map(|variant| events(variant)).sum();
            assert!(!fills || filled > 3, "{next}: filled by {filled} variants");
        }
    }

    /// The events (name, data) of every recorded stream in the fixture folders `dirs`.
    pub(crate) fn recorded_events(dirs: &[&str]) -> Vec<Vec<(String, Vec<u8>)>> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let mut streams = Vec::new();
        for dir in dirs {
            let Ok(files) = std::fs::read_dir(root.join(dir)) else { continue };
            for file in files.flatten().filter(|f| f.path().extension().is_some_and(|e| e == "sse")) {
                let body = std::fs::read(file.path()).unwrap();
                let mut events = Vec::new();
                let mut sse = SseDecoder::new(&Limits::default());
                let mut keep = |e: SseEvent<'_>| {
                    events.push((e.event.to_owned(), e.data.to_vec()));
                    Ok(())
                };
                sse.feed(&body, &mut keep).unwrap();
                sse.finish(&mut keep).unwrap();
                streams.push(events);
            }
        }
        streams
    }

    /// `data` with each byte replaced by a quote, a backslash, a brace, a letter, a space, a
    /// control character, a lone UTF-8 lead byte, digits and the other bytes of numbers; cut at
    /// each position; and with a quote or a digit inserted at each position.
    pub(crate) fn variants(data: &[u8]) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for at in 0..=data.len() {
            out.push(data[..at].to_vec());
            for inserted in [b"\"", b"5"] {
                out.push([&data[..at], inserted.as_slice(), &data[at..]].concat());
            }
            if at < data.len() {
                for byte in [b'"', b'\\', b'}', b'x', b' ', 0x01, 0xC3, b'0', b'7', b'.', b'e', b'-'] {
                    let mut changed = data.to_vec();
                    changed[at] = byte;
                    out.push(changed);
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::{same_bytes, skip_marked, Marked, Template};
    use crate::json::read_document;

    /// Words, pairs of words and the tail: any one byte changed anywhere, at every length up to
    /// three pairs of words and a tail, is seen; equal bytes are equal; lengths must match.
    #[test]
    fn same_bytes_sees_every_byte() {
        for len in 0..56usize {
            let a: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
            assert!(same_bytes(&a, &a.clone()), "len {len}");
            for at in 0..len {
                let mut b = a.clone();
                b[at] ^= 0x20;
                assert!(!same_bytes(&a, &b) && !same_bytes(&b, &a), "len {len}, byte {at}");
            }
            assert!(!same_bytes(&a, &[a.as_slice(), b"x"].concat()), "len {len} against one more");
        }
    }

    /// A template from `{"a":[1,{"t":"x"}],"b":null}` with action 7.
    fn template() -> Template<u8> {
        let source = br#"{"a":[1,{"t":"x"}],"b":null}"#;
        let span = read_document(source, |r| {
            let mut span = None;
            r.object(|r, key| {
                if key == b"a" {
                    r.array(|r| {
                        r.object(|r, _| {
                            span = Marked::read(r)?.span;
                            Ok(())
                        })?;
                        Ok(())
                    })?;
                }
                Ok(())
            })?;
            Ok(span)
        })
        .unwrap();
        let mut template = Template::default();
        template.offer(source, span.map(|span| (7, span)), &[]);
        template
    }

    #[test]
    fn only_the_template_with_another_valid_string_fills_it() {
        let template = template();
        let fill = |data: &str| template.fill(data.as_bytes()).map(|(action, text)| (action, text.into_owned()));
        assert_eq!(fill(r#"{"a":[1,{"t":"x"}],"b":null}"#), Some((7, "x".into())));
        assert_eq!(fill(r#"{"a":[1,{"t":""}],"b":null}"#), Some((7, "".into())));
        assert_eq!(fill(r#"{"a":[1,{"t":"\"}\u00e9\n"}],"b":null}"#), Some((7, "\"}é\n".into())));
        for other in [
            r#"{"a":[1,{"t":"x"}],"b":nul}"#,
            r#"{"a":[1,{"t":"x"}],"b":null} "#,
            r#"{"a":[2,{"t":"x"}],"b":null}"#,
            r#"{"a":[1,{"t":"x"},"b":null}"#,
            r#"{"a":[1,{"t":"\x"}],"b":null}"#,
            r#"{"a":[1,{"t":"\ud800"}],"b":null}"#,
            r#"{"a":[1,{"t":"x"#,
            r#"{"a":[1,{"t":"#,
            "",
        ] {
            assert_eq!(fill(other), None, "{other}");
        }
        assert!(template.fill(b"{\"a\":[1,{\"t\":\"\x01\"}],\"b\":null}").is_none());
        assert!(template.fill(b"{\"a\":[1,{\"t\":\"\xC3\"}],\"b\":null}").is_none());
    }

    #[test]
    fn strings_the_decoder_skips_may_differ_but_must_stay_valid_strings() {
        let source = br#"{"a":"x","o":"pad","b":1}"#;
        let (text, skipped) = read_document(source, |r| {
            let mut found = (None, None);
            r.object(|r, key| {
                match key {
                    b"a" => found.0 = Marked::read(r)?.span,
                    b"o" => found.1 = skip_marked(r)?,
                    _ => {}
                }
                Ok(())
            })?;
            Ok(found)
        })
        .unwrap();
        let mut template = Template::default();
        template.offer(source, text.map(|span| (1, span)), &[skipped.unwrap()]);
        let fill = |data: &str| template.fill(data.as_bytes()).map(|(_, text)| text.into_owned());
        assert_eq!(fill(r#"{"a":"y","o":"a longer pad","b":1}"#), Some("y".into()));
        assert_eq!(fill(r#"{"a":"","o":"","b":1}"#), Some("".into()));
        for other in [
            r#"{"a":"y","o":"\x","b":1}"#,
            r#"{"a":"y","o":7,"b":1}"#,
            r#"{"a":"y","o":"p","b":2}"#,
            r#"{"a":"y","o":"p""#,
            r#"{"a":"y","#,
        ] {
            assert_eq!(fill(other), None, "{other}");
        }
    }

    #[test]
    fn a_value_that_is_not_a_string_marks_nothing_and_an_empty_template_fills_nothing() {
        assert_eq!(read_document(b"12", |r| Ok(Marked::read(r)?.span)).unwrap(), None);
        assert!(Template::<u8>::default().fill(b"\"\"").is_none());
    }
}

//! The last event of a stream kept as a template: in a long stream nearly every event is the one
//! before it with another text in one string (`{..."delta":{"content":"<text>"}...}`). When an
//! event's bytes equal the template's everywhere outside that string, it reads exactly as the
//! template did with the new text, so its string is the only thing read.
//!
//! Why that is exact: JSON is read left to right, and a string token ends at its first unescaped
//! quote whatever it holds. The bytes before the string are the template's, so reading reaches the
//! same state at the same offset; the string token is read and validated as any string is; after
//! it the reader is in the same state as after the template's string, and the bytes that follow
//! are the template's too. So the new event is valid exactly when its string is, and it reads as
//! the template with that string. The decoder keeps a template only for an event it read whole
//! and whose whole effect is one call with that string (its `action`), and it keeps it until it
//! reads another such event.

use std::borrow::Cow;

use crate::json::{value_at, JsonResult, Kind, Reader};
use crate::providers::Scalar;

/// Where a string token sits in an event: its opening quote and the byte after its closing one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    open: usize,
    close: usize,
}

/// A text field read as [`Scalar::read`] reads it, with its token's span when it was a string.
pub(crate) fn read_marked<'a>(r: &mut Reader<'a>) -> JsonResult<(Scalar<'a>, Option<Span>)> {
    let is_string = r.peek()? == Kind::String;
    let open = r.pos();
    let value = Scalar::read(r)?;
    Ok((value, is_string.then(|| Span { open, close: r.pos() })))
}

/// The template: the bytes of the last event kept, its string's span, and its action.
#[derive(Debug)]
pub(crate) struct Template<A> {
    bytes: Vec<u8>,
    span: Span,
    action: Option<A>,
}

impl<A> Default for Template<A> {
    fn default() -> Self {
        Template { bytes: Vec::new(), span: Span { open: 0, close: 0 }, action: None }
    }
}

impl<A: Copy> Template<A> {
    /// The action and the new text when `data` is the template with another string; `None` when
    /// it is not, or when that string is invalid (reading `data` whole then reports why).
    pub(crate) fn fill<'a>(&self, data: &'a [u8]) -> Option<(A, Cow<'a, str>)> {
        let action = self.action?;
        let Span { open, close } = self.span;
        let tail = &self.bytes[close..];
        if data.len() < open + 2 + tail.len() || !same_bytes(&data[..open], &self.bytes[..open]) {
            return None;
        }
        let (text, end) = value_at(data, open, |r| Ok((r.string()?, r.pos()))).ok()?;
        (data.len() - end == tail.len() && same_bytes(&data[end..], tail)).then_some((action, text?))
    }

    /// Keeps `data`, read whole and valid, as the template when its whole effect is `action`
    /// with the string at `span`; any other event leaves the template as it is.
    pub(crate) fn offer(&mut self, data: &[u8], found: Option<(A, Span)>) {
        if let Some((action, span)) = found {
            self.bytes.clear();
            self.bytes.extend_from_slice(data);
            self.span = span;
            self.action = Some(action);
        }
    }
}

/// `a == b`, eight bytes at a time.
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let words = a.chunks_exact(8).zip(b.chunks_exact(8));
    let tail = a.len() / 8 * 8;
    a.len() == b.len() && words.into_iter().all(|(x, y)| x == y) && a[tail..] == b[tail..]
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

    /// [`same_as_whole`] on every recorded stream in `dirs`, and on `before` then each of the
    /// [`variants`] of `next` for each case `(before, next, whether next may fill the template)`.
    pub(crate) fn check_template<D: Templated>(dirs: &[&str], name: &str, cases: &[(&[&str], &str, bool)]) {
        let mut filled = 0;
        for events in recorded_events(dirs) {
            let events: Vec<(&str, &[u8])> = events.iter().map(|(e, d)| (e.as_str(), d.as_slice())).collect();
            filled += same_as_whole::<D>(&events);
        }
        assert!(filled > 30, "the template must actually be filled ({filled} times)");
        for &(before, next, fills) in cases {
            let events = |last: &[u8]| {
                let mut events: Vec<(&str, &[u8])> = before.iter().map(|d| (name, d.as_bytes())).collect();
                events.push((name, last));
                same_as_whole::<D>(&events)
            };
            assert_eq!(events(next.as_bytes()), usize::from(fills), "{next}");
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
    /// control character and a lone UTF-8 lead byte; cut at each position; and with a quote
    /// inserted at each position.
    pub(crate) fn variants(data: &[u8]) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for at in 0..=data.len() {
            out.push(data[..at].to_vec());
            out.push([&data[..at], b"\"".as_slice(), &data[at..]].concat());
            if at < data.len() {
                for byte in [b'"', b'\\', b'}', b'x', b' ', 0x01, 0xC3] {
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
    use super::{read_marked, Template};
    use crate::json::read_document;

    /// A template from `{"a":[1,{"t":"x"}],"b":null}` with action 7.
    fn template() -> Template<u8> {
        let source = br#"{"a":[1,{"t":"x"}],"b":null}"#;
        let span = read_document(source, |r| {
            let mut span = None;
            r.object(|r, key| {
                if key == b"a" {
                    r.array(|r| {
                        r.object(|r, _| {
                            span = read_marked(r)?.1;
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
        template.offer(source, span.map(|span| (7, span)));
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
    fn a_value_that_is_not_a_string_marks_nothing_and_an_empty_template_fills_nothing() {
        assert_eq!(read_document(b"12", |r| Ok(read_marked(r)?.1)).unwrap(), None);
        assert!(Template::<u8>::default().fill(b"\"\"").is_none());
    }
}

//! The last chunk whose whole effect was one candidate's text (or thought) and the usage, kept
//! as a template. In a long Gemini stream nearly every chunk is the one before it with another
//! text and another `usageMetadata` (its counts grow): a chunk whose bytes equal the template's
//! outside the text's string token and the usage value reads as the template did with that text
//! and that usage, so only those two are read.
//!
//! This is the argument of `providers::template` with the usage value as one more hole: JSON is
//! read left to right, so up to a hole the reader is where reading whole would be; the hole is
//! read as reading whole reads it (the text as a string, the usage validated as its raw text:
//! the same checks, the same verdict), which leaves the reader in the same state after it as
//! after the template's value, and so on to the end. A usage that is the template's own with
//! other integers (the counts grown) is not read at all: it is valid exactly when the template's
//! was, and has counts exactly when that one had.

use std::borrow::Cow;

use super::usage::{read_counts, Counts};
use crate::json::{read_document, value_at, Kind};
use crate::providers::template::same_bytes;

/// A chunk longer than this is not kept: filling saves reading the bytes around the holes, the
/// same for a long chunk as for a short one, and a long one would be copied (and held) for it.
const MAX_TEMPLATE: usize = 16 * 1024;

/// Where a value sits in a chunk: its first byte and the byte after it.
pub(super) type Range = (usize, usize);

/// What a chunk that can be the template does: the text of candidate `choice` (a thought when
/// `thought`), at `text`, and the usage value at `usage` when it has one.
#[derive(Debug, Clone, Copy)]
pub(super) struct OnlyText {
    pub(super) choice: u32,
    pub(super) thought: bool,
    pub(super) text: Range,
    pub(super) usage: Option<Range>,
}

/// A chunk filled into the template: its text, and its `usageMetadata` (`None` when `null`)
/// as text with whether it has any count.
pub(super) struct Filled<'a> {
    pub(super) choice: u32,
    pub(super) thought: bool,
    pub(super) text: Cow<'a, str>,
    pub(super) usage: Option<(&'a str, bool)>,
}

#[derive(Debug, Default)]
pub(super) struct TextTemplate {
    bytes: Vec<u8>,
    kept: Option<OnlyText>,
    /// Whether the kept chunk's usage has any count.
    usage_counted: bool,
    /// The integer members of the kept chunk's usage (see [`integer_runs`]), from its start.
    usage_integers: Vec<Range>,
}

impl TextTemplate {
    /// `data` read as the template with its own text and usage; `None` when it differs
    /// elsewhere, or when one of those is invalid (reading `data` whole says why).
    #[cfg_attr(llw_speed, optimize(speed))]
    pub(super) fn fill<'a>(&self, data: &'a [u8]) -> Option<Filled<'a>> {
        let kept = self.kept?;
        let usage_first = kept.usage.is_some_and(|usage| usage.0 < kept.text.0);
        let holes = if usage_first {
            [kept.usage.map(|usage| (usage, true)), Some((kept.text, false))]
        } else {
            [Some((kept.text, false)), kept.usage.map(|usage| (usage, true))]
        };
        let (mut at, mut from) = (0, 0);
        let (mut text, mut usage) = (None, None);
        for ((open, close), is_usage) in holes.into_iter().flatten() {
            let same = &self.bytes[from..open];
            let end = at + same.len();
            if data.len() <= end || !same_bytes(&data[at..end], same) {
                return None;
            }
            let kept_usage = &self.bytes[open..close];
            let same_shape = if is_usage && kept_usage.starts_with(b"{") {
                same_but_integers(&data[end..], kept_usage, &self.usage_integers)
            } else {
                None
            };
            at = if let Some(len) = same_shape {
                // The template's own object, or the same with other integers (Gemini's counts
                // grow on every chunk): valid, with counts when the template's has them, and not
                // read (paired, a Gemini stream took 0.88 of the time in 64 B-4 KB chunks, 0.83 whole).
                let close = end + len;
                usage = Some((std::str::from_utf8(&data[end..close]).ok()?, self.usage_counted));
                close
            } else if is_usage {
                // Read once for its counts; what they refuse is left to reading whole, which
                // then says why as it always did.
                let (counts, close) = value_at(data, end, |r| {
                    let counts =
                        if r.peek()? == Kind::Null { r.skip().map(|()| None) } else { read_counts(r).map(Some) };
                    Ok((counts?, r.pos()))
                })
                .ok()?;
                if let Some(counts) = counts {
                    let counted = counts.as_ref().is_some_and(Counts::any);
                    usage = Some((std::str::from_utf8(&data[end..close]).ok()?, counted));
                }
                close
            } else {
                if data[end] != b'"' {
                    return None;
                }
                let (read, end) = value_at(data, end, |r| Ok((r.string()?, r.pos()))).ok()?;
                text = read;
                end
            };
            from = close;
        }
        let tail = &self.bytes[from..];
        if data.len() - at != tail.len() || !same_bytes(&data[at..], tail) {
            return None;
        }
        Some(Filled { choice: kept.choice, thought: kept.thought, text: text?, usage })
    }

    /// Keeps `data`, read whole and valid, when its whole effect is `found`; any other chunk
    /// leaves the template as it is.
    pub(super) fn offer(&mut self, data: &[u8], found: Option<OnlyText>) {
        if let (Some(found), true) = (found, data.len() <= MAX_TEMPLATE) {
            self.bytes.clear();
            self.bytes.extend_from_slice(data);
            self.kept = Some(found);
            let usage = found.usage.map_or(&[][..], |(open, close)| &data[open..close]);
            self.usage_counted = read_document(usage, read_counts).is_ok_and(|counts| counts.is_some_and(|c| c.any()));
            self.usage_integers = integer_runs(usage);
        }
    }
}

/// The digit runs of `usage` that are a member's whole value: after a `:`, before a `,` or `}`.
fn integer_runs(usage: &[u8]) -> Vec<Range> {
    let mut runs = Vec::new();
    let mut at = 0;
    while let Some(colon) = usage[at..].iter().position(|&b| b == b':') {
        let start = at + colon + 1;
        let end = start + digits(&usage[start..]);
        if end > start && matches!(usage.get(end), Some(b',' | b'}')) {
            runs.push((start, end));
        }
        at = end.max(start);
    }
    runs
}

/// How many ASCII digits `bytes` starts with.
fn digits(bytes: &[u8]) -> usize {
    bytes.iter().take_while(|b| b.is_ascii_digit()).count()
}

/// The length of the value `data` starts with when it is `kept` with other integers: the same
/// bytes, except that each run of `integers` (digits that are a member's whole value) may be any
/// other run of 1 to 15 digits without a leading zero. Such a value is valid JSON exactly when
/// `kept` is, and has the same keys; a member that held an integer (a count) holds one still.
fn same_but_integers(data: &[u8], kept: &[u8], integers: &[Range]) -> Option<usize> {
    let (mut from, mut j) = (0, 0);
    for &(start, end) in integers {
        let same = &kept[from..start];
        if data.len() < j + same.len() || !same_bytes(&data[j..j + same.len()], same) {
            return None;
        }
        j += same.len();
        let n = digits(&data[j..]);
        if !(1..=15).contains(&n) || (n > 1 && data[j] == b'0') {
            return None;
        }
        (from, j) = (end, j + n);
    }
    let rest = &kept[from..];
    (data.len() >= j + rest.len() && same_bytes(&data[j..j + rest.len()], rest)).then_some(j + rest.len())
}

#[cfg(test)]
mod tests {
    use super::{integer_runs, same_but_integers};

    /// Only digits that are a member's whole value vary, each by another plain integer of up to
    /// 15 digits; everything else, the rest of a number included, must be the same.
    #[test]
    fn a_usage_is_the_same_but_for_its_integers() {
        let kept = br#"{"a":12,"b":1.5,"c":-3,"d":"x:7,y","e":0}"#;
        let runs = integer_runs(kept);
        let text = |(start, end): (usize, usize)| std::str::from_utf8(&kept[start..end]).unwrap();
        assert_eq!(runs.iter().map(|&run| text(run)).collect::<Vec<_>>(), ["12", "7", "0"]);
        let same = |data: &[u8]| same_but_integers(data, kept, &runs);
        let other = br#"{"a":123456789012345,"b":1.5,"c":-3,"d":"x:70,y","e":9} tail"#;
        assert_eq!(same(other), Some(other.len() - " tail".len()));
        assert_eq!(same(kept), Some(kept.len()));
        for changed in [
            &br#"{"a":1234567890123456,"b":1.5,"c":-3,"d":"x:7,y","e":0}"#[..],
            br#"{"a":012,"b":1.5,"c":-3,"d":"x:7,y","e":0}"#,
            br#"{"a":,"b":1.5,"c":-3,"d":"x:7,y","e":0}"#,
            br#"{"a":12,"b":2.5,"c":-3,"d":"x:7,y","e":0}"#,
            br#"{"a":12,"b":1.5,"c":-4,"d":"x:7,y","e":0}"#,
            br#"{"a":12.5,"b":1.5,"c":-3,"d":"x:7,y","e":0}"#,
            br#"{"a":12,"b":1.5,"c":-3,"d":"x:7,y","e":0"#,
        ] {
            assert_eq!(same(changed), None, "{}", String::from_utf8_lossy(changed));
        }
    }
}

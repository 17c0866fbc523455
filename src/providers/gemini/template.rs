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
//! after the template's value, and so on to the end.

use std::borrow::Cow;

use super::usage::{read_counts, Counts};
use crate::json::{value_at, Kind};
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
/// as text with its counts.
pub(super) struct Filled<'a> {
    pub(super) choice: u32,
    pub(super) thought: bool,
    pub(super) text: Cow<'a, str>,
    pub(super) usage: Option<(&'a str, UsageCounts)>,
}

/// The counts of a filled chunk's usage.
pub(super) enum UsageCounts {
    /// Read (`None` when the value is not an object).
    Read(Option<Counts>),
    /// Not read: the value is the template's own object, to be converted only if it is new.
    Unread,
}

#[derive(Debug, Default)]
pub(super) struct TextTemplate {
    bytes: Vec<u8>,
    kept: Option<OnlyText>,
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
            let restated = is_usage
                && kept_usage.starts_with(b"{")
                && data.get(end..end + kept_usage.len()).is_some_and(|value| same_bytes(value, kept_usage));
            at = if restated {
                // The template's own object (one that a longer value only begins with fails the
                // comparison after it): valid, and read only when it is not the last usage.
                let close = end + kept_usage.len();
                usage = Some((std::str::from_utf8(&data[end..close]).ok()?, UsageCounts::Unread));
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
                    usage = Some((std::str::from_utf8(&data[end..close]).ok()?, UsageCounts::Read(counts)));
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
        }
    }
}

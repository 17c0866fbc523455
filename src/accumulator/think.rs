//! Splits content text into text and reasoning at inline thinking tags: `<think>…</think>` and
//! MiniMax's `<|im_start|>thinking…<|im_end|>` (case-insensitive), cut anywhere across deltas.
//!
//! A tag never reaches the text: a `<` that could still begin a tag is held back (at most one
//! tag's length) until the next delta shows it is one, or shows it is not and releases it as
//! text. A stray closing tag outside a thinking section is dropped for the same reason. Text
//! held when the choice ends is released by `flush`.

use crate::error::Result;

const THINK_OPEN: &str = "<think>";
const THINK_CLOSE: &str = "</think>";
const IM_OPEN: &str = "<|im_start|>thinking";
const IM_CLOSE: &str = "<|im_end|>";

/// Which side of a tag a piece of content falls on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    Text,
    Reasoning,
}

#[derive(Debug, Default)]
pub(crate) struct ThinkSplitter {
    /// Inside a thinking section: the closing tag that ends it.
    inside: Option<&'static str>,
    /// A suffix of the input that is a proper prefix of a tag.
    held: String,
}

enum Found {
    /// A whole tag of this many bytes; `Some(close)` opens a section, `None` closes or drops.
    Tag(usize, Option<&'static str>),
    /// The rest of the input could still become a tag.
    Prefix,
    NotATag,
}

impl ThinkSplitter {
    /// Splits `input`, calling `out` for each non-empty piece in order.
    #[cfg_attr(llw_speed, optimize(speed))]
    pub(crate) fn feed<F>(&mut self, input: &str, out: &mut F) -> Result<()>
    where
        F: FnMut(Part, &str) -> Result<()>,
    {
        if self.held.is_empty() {
            return self.scan(input, out);
        }
        let mut joined = std::mem::take(&mut self.held);
        joined.push_str(input);
        self.scan(&joined, out)
    }

    /// The side all of `input` falls on when [`Self::feed`] would pass it on whole, unchanged:
    /// nothing is held back and it has no `<` that could begin a tag.
    pub(crate) fn passes_whole(&self, input: &str) -> Option<Part> {
        (self.held.is_empty() && !input.as_bytes().contains(&b'<')).then(|| self.part())
    }

    /// Ends the content: the held-back text (possibly empty), to be released on the side it
    /// was on.
    pub(crate) fn flush(&mut self) -> (Part, String) {
        (self.part(), std::mem::take(&mut self.held))
    }

    fn part(&self) -> Part {
        if self.inside.is_some() {
            Part::Reasoning
        } else {
            Part::Text
        }
    }

    #[cfg_attr(llw_speed, optimize(speed))]
    fn scan<F>(&mut self, s: &str, out: &mut F) -> Result<()>
    where
        F: FnMut(Part, &str) -> Result<()>,
    {
        let bytes = s.as_bytes();
        let mut emitted = 0;
        let mut at = 0;
        while let Some(offset) = bytes[at..].iter().position(|&b| b == b'<') {
            let lt = at + offset;
            match self.find(&bytes[lt..]) {
                Found::Tag(len, opens) => {
                    if lt > emitted {
                        out(self.part(), &s[emitted..lt])?;
                    }
                    self.inside = opens;
                    at = lt + len;
                    emitted = at;
                }
                Found::Prefix => {
                    if lt > emitted {
                        out(self.part(), &s[emitted..lt])?;
                    }
                    self.held.push_str(&s[lt..]);
                    return Ok(());
                }
                Found::NotATag => at = lt + 1,
            }
        }
        if bytes.len() > emitted {
            out(self.part(), &s[emitted..])?;
        }
        Ok(())
    }

    /// What the bytes starting at a `<` are, given the current side.
    fn find(&self, rest: &[u8]) -> Found {
        let candidates: &[(&'static str, Option<&'static str>)] = match self.inside {
            Some(close) if close == THINK_CLOSE => &[(THINK_CLOSE, None)],
            Some(_) => &[(IM_CLOSE, None)],
            None => {
                &[(THINK_OPEN, Some(THINK_CLOSE)), (IM_OPEN, Some(IM_CLOSE)), (THINK_CLOSE, None), (IM_CLOSE, None)]
            }
        };
        let mut prefix = false;
        for &(tag, opens) in candidates {
            let tag = tag.as_bytes();
            if rest.len() >= tag.len() {
                if rest[..tag.len()].eq_ignore_ascii_case(tag) {
                    return Found::Tag(tag.len(), opens);
                }
            } else if tag[..rest.len()].eq_ignore_ascii_case(rest) {
                prefix = true;
            }
        }
        if prefix {
            Found::Prefix
        } else {
            Found::NotATag
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(pieces: &[&str]) -> (String, String) {
        let mut splitter = ThinkSplitter::default();
        let (mut text, mut reasoning) = (String::new(), String::new());
        let mut out = |part: Part, s: &str| {
            assert!(!s.is_empty(), "no empty pieces are emitted");
            match part {
                Part::Text => text.push_str(s),
                Part::Reasoning => reasoning.push_str(s),
            }
            Ok(())
        };
        for piece in pieces {
            splitter.feed(piece, &mut out).unwrap();
        }
        let (part, held) = splitter.flush();
        if !held.is_empty() {
            out(part, &held).unwrap();
        }
        (text, reasoning)
    }

    /// Every way to cut `whole` into two or three pieces gives the same split.
    fn check_all_cuts(whole: &str, text: &str, reasoning: &str) {
        let bounds: Vec<usize> = (0..=whole.len()).filter(|&i| whole.is_char_boundary(i)).collect();
        for &a in &bounds {
            for &b in bounds.iter().filter(|&&b| b >= a) {
                let got = split(&[&whole[..a], &whole[a..b], &whole[b..]]);
                assert_eq!(got, (text.to_string(), reasoning.to_string()), "{whole:?} cut at {a} and {b}");
            }
        }
    }

    #[test]
    fn a_think_section_becomes_reasoning_at_every_cut() {
        check_all_cuts("<think>plan</think>answer", "answer", "plan");
    }

    #[test]
    fn a_minimax_thinking_section_becomes_reasoning_at_every_cut() {
        check_all_cuts("<|im_start|>thinking分析中<|im_end|>回复", "回复", "分析中");
    }

    #[test]
    fn text_that_only_looks_like_a_tag_start_is_released_as_text() {
        check_all_cuts("a <b> c < d <thin", "a <b> c < d <thin", "");
        check_all_cuts("x <|im_start|>assistant y", "x <|im_start|>assistant y", "");
    }

    #[test]
    fn tags_match_case_insensitively() {
        check_all_cuts("<THINK>r</Think>t", "t", "r");
    }

    #[test]
    fn an_unclosed_think_section_stays_reasoning() {
        check_all_cuts("<think>still thinking", "", "still thinking");
    }

    #[test]
    fn a_stray_closing_tag_never_leaks_into_text() {
        check_all_cuts("a</think>b<|im_end|>c", "abc", "");
    }

    #[test]
    fn a_less_than_sign_inside_reasoning_is_reasoning() {
        check_all_cuts("<think>a < b</think>c", "c", "a < b");
    }

    #[test]
    fn several_sections_alternate() {
        check_all_cuts("<think>1</think>a<think>2</think>b", "ab", "12");
    }
}

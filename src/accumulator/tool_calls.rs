//! The tool-call tracker shared by every format: calls keyed by id, then by index.

use std::collections::BTreeMap;

use super::ids::IdMap;
use crate::model::ToolCall;

/// How many characters of the message id an invented call id keeps: with `call_`, `_` and the
/// call's number it stays within the 40 characters OpenAI Chat takes for an id.
const STEM_CHARS: usize = 24;

/// The stem of the ids invented for a message's calls: the last [`STEM_CHARS`] letters, digits,
/// `_` and `-` of its id. Made once, when the message id is known: made per call, a long id
/// cost its length for every call.
pub(crate) fn call_id_stem(message_id: &str) -> String {
    let allowed = |c: &char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-');
    let mut stem: Vec<char> = message_id.chars().rev().filter(allowed).take(STEM_CHARS).collect();
    stem.reverse();
    stem.into_iter().collect()
}

/// One tool call being assembled.
#[derive(Debug, Clone, Default)]
pub(crate) struct ToolCallState {
    pub call: ToolCall,
    pub ended: bool,
}

/// The tool calls of one choice in order, with the names the provider gives them indexed, so
/// that finding a call costs the same however many came before.
#[derive(Debug, Default)]
pub(crate) struct ToolCalls {
    pub calls: Vec<ToolCallState>,
    /// The latest call with each non-empty id, of the calls without an item key (the decoder
    /// that gives one finds those calls by it, never by their id).
    by_id: IdMap,
    /// The latest call at each provider index (OpenAI Chat `index`, Anthropic block index,
    /// Responses `output_index`).
    by_index: BTreeMap<u64, usize>,
    /// Calls that may not have ended, in order.
    open: Vec<usize>,
}

impl ToolCalls {
    /// What keeping a call with this id and key costs besides its name and arguments: the id
    /// in the call, and the key (in the decoder's index), or else the id, in an index.
    pub(crate) fn bytes_of(id: &str, key: Option<&str>) -> usize {
        id.len() + key.map_or(id.len(), str::len)
    }

    /// Adds a call under its id, unless it is `keyed` (its decoder finds it by an item key of
    /// its own), and under its provider index; returns its position.
    pub(crate) fn push(&mut self, call: ToolCall, provider_index: Option<u64>, keyed: bool) -> usize {
        let at = self.calls.len();
        if !keyed && !call.id.is_empty() {
            self.by_id.insert(&call.id, at);
        }
        if let Some(index) = provider_index {
            self.by_index.insert(index, at);
        }
        self.calls.push(ToolCallState { call, ended: false });
        self.open.push(at);
        at
    }

    /// The id of call `n` of the choice when the provider sent none (docs/design.md, "Tool
    /// calls"): `call_<stem>_<n>` with the message's [`call_id_stem`], or `call_<n>` when the
    /// message has no id yet. The same bytes give the same id, the message id keeps turns apart,
    /// and `_<k>` is added when an id of the choice already is that.
    pub(crate) fn invented_id(&self, stem: &str) -> String {
        let n = self.calls.len();
        let id = if stem.is_empty() { format!("call_{n}") } else { format!("call_{stem}_{n}") };
        let mut unique = id.clone();
        let mut k = 0;
        while self.by_id.contains(&unique) {
            k += 1;
            unique = format!("{id}_{k}");
        }
        unique
    }

    /// Which existing call an OpenAI-style tool-call entry continues, or `None` for a new call.
    ///
    /// A non-empty id names its call: a known id continues it, a new id is a new call even at an
    /// index already used (servers that send `index: 0` for every parallel call). Without an id
    /// (`id: ""` on continuations, or no id at all) the entry continues the latest call at its
    /// index; when the server omits `index` too, the latest call, unless the entry carries a
    /// name and that call has one already: then only the name tells the calls apart, and a new
    /// one starts.
    ///
    /// `list_start` is the number of calls before the list the entry is in: each entry of one
    /// list is a call of its own (§8.1: one ToolCall per entry of a body), so an entry never
    /// continues a call that an earlier entry of its list opened.
    pub(crate) fn resolve(
        &self,
        index: Option<u64>,
        id: Option<&str>,
        name: Option<&str>,
        list_start: usize,
    ) -> Option<usize> {
        let found = match id.filter(|id| !id.is_empty()) {
            Some(id) => self.by_id.get(id),
            None => match index {
                Some(index) => self.by_index.get(&index).copied(),
                None => {
                    let named = name.is_some_and(|name| !name.is_empty());
                    let latest = self.calls.len().checked_sub(1);
                    latest.filter(|&at| !named || self.calls[at].call.name.is_empty())
                }
            },
        };
        found.filter(|&at| at < list_start)
    }

    /// The latest call at the provider index.
    pub(crate) fn find(&self, provider_index: u64) -> Option<usize> {
        self.by_index.get(&provider_index).copied()
    }

    /// The calls that may still be open, in order; each is listed once.
    pub(crate) fn take_open(&mut self) -> Vec<usize> {
        std::mem::take(&mut self.open)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calls(list: &[(&str, Option<u64>)]) -> ToolCalls {
        let mut calls = ToolCalls::default();
        for (id, index) in list {
            calls.push(ToolCall { id: (*id).into(), ..ToolCall::default() }, *index, false);
        }
        calls
    }

    /// `resolve` for an entry of a list that follows every call made so far.
    fn resolve(calls: &ToolCalls, index: Option<u64>, id: Option<&str>, name: Option<&str>) -> Option<usize> {
        calls.resolve(index, id, name, calls.calls.len())
    }

    #[test]
    fn a_known_id_continues_its_call() {
        let calls = calls(&[("a", Some(0)), ("b", Some(1))]);
        assert_eq!(resolve(&calls, Some(1), Some("a"), None), Some(0));
        assert_eq!(resolve(&calls, Some(1), Some("a"), Some("f")), Some(0));
    }

    #[test]
    fn a_new_id_at_a_used_index_is_a_new_call() {
        let calls = calls(&[("a", Some(0))]);
        assert_eq!(resolve(&calls, Some(0), Some("b"), None), None);
    }

    #[test]
    fn an_empty_id_continues_the_latest_call_at_its_index() {
        let calls = calls(&[("a", Some(0)), ("b", Some(0)), ("c", Some(1))]);
        assert_eq!(resolve(&calls, Some(0), Some(""), None), Some(1));
    }

    #[test]
    fn a_repeated_id_names_its_latest_call() {
        let calls = calls(&[("a", Some(0)), ("b", Some(1)), ("a", Some(2))]);
        assert_eq!(resolve(&calls, None, Some("a"), None), Some(2));
    }

    #[test]
    fn no_id_and_no_index_continues_the_latest_call() {
        let calls = calls(&[("a", None), ("b", None)]);
        assert_eq!(resolve(&calls, None, None, None), Some(1));
        assert_eq!(resolve(&ToolCalls::default(), None, None, None), None);
    }

    /// Without id and index only the name tells calls apart: a name given to a call that has
    /// one is a new call; a call still without a name takes it.
    #[test]
    fn no_id_and_no_index_with_a_name_starts_a_new_call_after_a_named_one() {
        let mut calls = ToolCalls::default();
        calls.push(ToolCall { name: "f".into(), ..ToolCall::default() }, None, false);
        assert_eq!(resolve(&calls, None, None, Some("g")), None);
        assert_eq!(resolve(&calls, None, None, Some("f")), None);
        assert_eq!(resolve(&calls, None, None, Some("")), Some(0));
        calls.push(ToolCall::default(), None, false);
        assert_eq!(resolve(&calls, None, None, Some("g")), Some(1));
    }

    #[test]
    fn an_unknown_index_without_id_is_a_new_call() {
        let calls = calls(&[("a", Some(0))]);
        assert_eq!(resolve(&calls, Some(1), None, None), None);
    }

    /// Each entry of one list is a call of its own: a call opened by the list (at or after its
    /// start) is never continued, whatever names it; one made before the list is.
    #[test]
    fn an_entry_never_continues_a_call_opened_by_its_own_list() {
        let calls = calls(&[("a", Some(0)), ("b", Some(1)), ("", None)]);
        let cases = [
            (Some(1), Some("a"), None, 1, Some(0)),
            (Some(1), Some("b"), None, 1, None),
            (Some(1), None, None, 1, None),
            (Some(0), None, None, 1, Some(0)),
            (None, None, None, 2, None),
            (None, None, None, 3, Some(2)),
            (None, Some("a"), Some("f"), 0, None),
        ];
        for (index, id, name, list_start, expected) in cases {
            assert_eq!(calls.resolve(index, id, name, list_start), expected, "{index:?} {id:?} from {list_start}");
        }
    }

    /// An invented id keeps the message id's last 24 letters, digits, `_` and `-`, numbers the
    /// call by its position, and never repeats an id the choice has.
    #[test]
    fn an_invented_id_is_made_of_the_message_id_and_the_calls_position() {
        let two = calls(&[("call_a.b:c_1", None), ("", None)]);
        assert_eq!(two.invented_id(""), "call_2");
        assert_eq!(two.invented_id(&call_id_stem("")), "call_2");
        assert_eq!(
            two.invented_id(&call_id_stem("chatcmpl-12345678901234567890ABCD")),
            "call_12345678901234567890ABCD_2"
        );
        assert_eq!(two.invented_id(&call_id_stem("a.b:c/d")), "call_abcd_2");
        let taken = calls(&[("call_m_2", None), ("call_m_2_1", None)]);
        assert_eq!(taken.invented_id(&call_id_stem("m")), "call_m_2_2");
    }

    /// A call with an item key is found by it, by its decoder: its id is not indexed, so an
    /// OpenAI-style entry with that id does not continue it.
    #[test]
    fn a_call_with_an_item_key_is_not_found_by_its_id() {
        let mut calls = ToolCalls::default();
        calls.push(ToolCall { id: "call_1".into(), ..ToolCall::default() }, Some(0), true);
        assert_eq!(resolve(&calls, None, Some("call_1"), None), None);
        assert_eq!(calls.find(0), Some(0));
    }
}

//! The tool-call tracker shared by every format: calls keyed by id, then by index.

use crate::model::ToolCall;

/// One tool call being assembled.
#[derive(Debug, Clone)]
pub(crate) struct ToolCallState {
    pub call: ToolCall,
    /// The provider's own index, when it sends one (OpenAI Chat `index`, Anthropic block index,
    /// Responses `output_index`).
    pub provider_index: Option<u64>,
    /// The provider's item key, when it has one (Responses `item_id`).
    pub key: Option<String>,
    pub ended: bool,
}

/// Which existing call an OpenAI-style tool-call delta continues, or `None` for a new call.
///
/// A non-empty id names its call: a known id continues it, a new id is a new call even at an
/// index already used (servers that send `index: 0` for every parallel call). Without an id
/// (`id: ""` on continuations, or no id at all) the delta continues the latest call at its
/// index, or, when the server omits `index` too, the latest call.
pub(crate) fn resolve(calls: &[ToolCallState], index: Option<u64>, id: Option<&str>) -> Option<usize> {
    match id.filter(|id| !id.is_empty()) {
        Some(id) => calls.iter().rposition(|c| c.call.id == id),
        None => match index {
            Some(index) => calls.iter().rposition(|c| c.provider_index == Some(index)),
            None => calls.len().checked_sub(1),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str, index: Option<u64>) -> ToolCallState {
        ToolCallState {
            call: ToolCall { id: id.into(), name: String::new(), arguments: String::new() },
            provider_index: index,
            key: None,
            ended: false,
        }
    }

    #[test]
    fn a_known_id_continues_its_call() {
        let calls = [call("a", Some(0)), call("b", Some(1))];
        assert_eq!(resolve(&calls, Some(1), Some("a")), Some(0));
    }

    #[test]
    fn a_new_id_at_a_used_index_is_a_new_call() {
        let calls = [call("a", Some(0))];
        assert_eq!(resolve(&calls, Some(0), Some("b")), None);
    }

    #[test]
    fn an_empty_id_continues_the_latest_call_at_its_index() {
        let calls = [call("a", Some(0)), call("b", Some(0)), call("c", Some(1))];
        assert_eq!(resolve(&calls, Some(0), Some("")), Some(1));
    }

    #[test]
    fn no_id_and_no_index_continues_the_latest_call() {
        let calls = [call("a", None), call("b", None)];
        assert_eq!(resolve(&calls, None, None), Some(1));
        assert_eq!(resolve(&[], None, None), None);
    }

    #[test]
    fn an_unknown_index_without_id_is_a_new_call() {
        let calls = [call("a", Some(0))];
        assert_eq!(resolve(&calls, Some(1), None), None);
    }
}

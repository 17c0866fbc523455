//! Bedrock Converse `stopReason` → the unified [`FinishReason`].

use crate::model::FinishReason;

pub(crate) fn map_stop_reason(raw: &str) -> FinishReason {
    match raw {
        "end_turn" | "stop_sequence" => FinishReason::Stop,
        "max_tokens" | "model_context_window_exceeded" => FinishReason::Length,
        "tool_use" => FinishReason::ToolCalls,
        "guardrail_intervened" | "content_filtered" => FinishReason::ContentFilter,
        // `malformed_model_output`, `malformed_tool_use` and reasons added after this was written.
        _ => FinishReason::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_documented_stop_reason_maps_to_its_unified_reason() {
        let cases = [
            ("end_turn", FinishReason::Stop),
            ("stop_sequence", FinishReason::Stop),
            ("max_tokens", FinishReason::Length),
            ("model_context_window_exceeded", FinishReason::Length),
            ("tool_use", FinishReason::ToolCalls),
            ("guardrail_intervened", FinishReason::ContentFilter),
            ("content_filtered", FinishReason::ContentFilter),
            ("malformed_model_output", FinishReason::Other),
            ("malformed_tool_use", FinishReason::Other),
            ("something_new", FinishReason::Other),
        ];
        for (raw, reason) in cases {
            assert_eq!(map_stop_reason(raw), reason, "{raw}");
        }
    }
}

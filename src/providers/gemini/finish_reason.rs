//! Gemini `finishReason` → the unified [`FinishReason`].

use crate::model::FinishReason;

/// `called_tools`: the candidate made function calls, which Gemini finishes with `STOP` too.
pub(crate) fn map_finish_reason(raw: &str, called_tools: bool) -> FinishReason {
    match raw {
        "STOP" if called_tools => FinishReason::ToolCalls,
        "STOP" => FinishReason::Stop,
        "MAX_TOKENS" => FinishReason::Length,
        "SAFETY"
        | "RECITATION"
        | "LANGUAGE"
        | "BLOCKLIST"
        | "PROHIBITED_CONTENT"
        | "SPII"
        | "IMAGE_SAFETY"
        | "IMAGE_PROHIBITED_CONTENT"
        | "IMAGE_RECITATION"
        | "MODEL_ARMOR"
        | "JAILBREAK" => FinishReason::ContentFilter,
        // The model's own output could not be used as a call or an answer.
        "MALFORMED_FUNCTION_CALL"
        | "UNEXPECTED_TOOL_CALL"
        | "TOO_MANY_TOOL_CALLS"
        | "MISSING_THOUGHT_SIGNATURE"
        | "MALFORMED_RESPONSE" => FinishReason::Error,
        _ => FinishReason::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finish_reasons_map_to_the_unified_set() {
        let cases = [
            ("STOP", false, FinishReason::Stop),
            ("STOP", true, FinishReason::ToolCalls),
            ("MAX_TOKENS", true, FinishReason::Length),
            ("SAFETY", false, FinishReason::ContentFilter),
            ("RECITATION", false, FinishReason::ContentFilter),
            ("MODEL_ARMOR", false, FinishReason::ContentFilter),
            ("MALFORMED_FUNCTION_CALL", false, FinishReason::Error),
            ("OTHER", false, FinishReason::Other),
            ("FINISH_REASON_UNSPECIFIED", false, FinishReason::Other),
            ("stop", false, FinishReason::Other),
        ];
        for (raw, called, want) in cases {
            assert_eq!(map_finish_reason(raw, called), want, "{raw} {called}");
        }
    }
}

//! Gemini `usageMetadata` → [`Usage`], counted as every format counts (docs/design.md,
//! "Streaming"): the input is the prompt and the tool-use prompt, the output the candidates and
//! the thoughts.

use crate::json::{read_document, read_object, JsonResult, Reader};
use crate::model::{RawJson, Usage};
use crate::providers::read_count;

/// The counts of a `usageMetadata` object, as read.
#[derive(Default)]
pub(crate) struct Counts {
    prompt: Option<u64>,
    tool_use_prompt: Option<u64>,
    candidates: Option<u64>,
    thoughts: Option<u64>,
    cached: Option<u64>,
    total: Option<u64>,
}

/// The usage of a `usageMetadata` object's JSON text; `None` when it is not an object or has
/// no count at all (Vertex sends `{trafficType}` alone on chunks before the last).
///
/// `promptTokenCount` already includes cached content, so `cacheReadTokens` is a part of
/// `inputTokens`; `totalTokens` is input plus output, which is `totalTokenCount` in every
/// recorded response.
pub(crate) fn convert_usage(raw: &str) -> Option<Usage> {
    read_document(raw.as_bytes(), read_counts).ok()??.usage(raw)
}

/// The counts of the `usageMetadata` value `r` is at; `None` (the value skipped) when it is not
/// an object. It validates the value at least as strictly as skipping it does.
#[cfg_attr(llw_speed, optimize(speed))]
pub(crate) fn read_counts(r: &mut Reader<'_>) -> JsonResult<Option<Counts>> {
    read_object(r, |counts: &mut Counts, r, key| {
        let slot = match key {
            b"promptTokenCount" => &mut counts.prompt,
            b"toolUsePromptTokenCount" => &mut counts.tool_use_prompt,
            b"candidatesTokenCount" => &mut counts.candidates,
            b"thoughtsTokenCount" => &mut counts.thoughts,
            b"cachedContentTokenCount" => &mut counts.cached,
            b"totalTokenCount" => &mut counts.total,
            _ => return Ok(()),
        };
        *slot = read_count(r)?;
        Ok(())
    })
}

impl Counts {
    /// True when there is a count at all, so that [`Counts::usage`] makes a usage.
    pub(crate) fn any(&self) -> bool {
        let Counts { prompt, tool_use_prompt, candidates, thoughts, cached, total } = self;
        [prompt, tool_use_prompt, candidates, thoughts, cached, total].iter().any(|count| count.is_some())
    }

    /// The usage these counts, read from `raw`, make (see [`convert_usage`]).
    pub(crate) fn usage(self, raw: &str) -> Option<Usage> {
        if !self.any() {
            return None;
        }
        let Counts { prompt, tool_use_prompt, candidates, thoughts, cached, .. } = self;
        let input = prompt.unwrap_or(0).saturating_add(tool_use_prompt.unwrap_or(0));
        let output = candidates.unwrap_or(0).saturating_add(thoughts.unwrap_or(0));
        Some(Usage {
            input_tokens: input,
            output_tokens: output,
            total_tokens: input.saturating_add(output),
            reasoning_tokens: thoughts,
            cache_read_tokens: cached,
            cache_write_tokens: None,
            raw: RawJson::from_valid(raw),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::convert_usage;

    #[test]
    fn usage_counts_tool_prompts_as_input_and_thoughts_as_output() {
        let raw = r#"{"candidatesTokenCount": 170, "promptTokenCount": 257, "thoughtsTokenCount": 773,
            "toolUsePromptTokenCount": 1732, "cachedContentTokenCount": 200, "totalTokenCount": 2932}"#;
        let usage = convert_usage(raw).unwrap();
        assert_eq!((usage.input_tokens, usage.output_tokens, usage.total_tokens), (1989, 943, 2932));
        assert_eq!((usage.reasoning_tokens, usage.cache_read_tokens), (Some(773), Some(200)));
        assert_eq!(usage.raw.get(), raw);
    }

    #[test]
    fn usage_without_any_count_is_no_usage() {
        for raw in [r#"{"trafficType": "ON_DEMAND"}"#, "{}", "[1]", "null"] {
            assert_eq!(convert_usage(raw), None, "{raw}");
        }
        let only_total = convert_usage(r#"{"totalTokenCount": 15}"#).unwrap();
        assert_eq!((only_total.input_tokens, only_total.output_tokens, only_total.total_tokens), (0, 0, 0));
    }
}

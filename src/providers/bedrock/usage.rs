//! Bedrock usage (`{inputTokens, outputTokens, totalTokens, cacheReadInputTokens,
//! cacheWriteInputTokens}`) → [`Usage`], by the rule every format follows: `inputTokens`
//! counts every input token, so the cache reads and writes Bedrock reports apart from its own
//! `inputTokens` are added to it, and `totalTokens` is input plus output (Bedrock's own total
//! already includes the cached tokens, so the two agree).

use crate::json::{read_document, read_object};
use crate::model::{RawJson, Usage};
use crate::providers::read_count;

#[derive(Default)]
struct Counts {
    input: Option<u64>,
    output: Option<u64>,
    cache_read: Option<u64>,
    cache_write: Option<u64>,
    /// The same counts under the older `…InputTokenCount` names, read when the others are absent.
    cache_read_count: Option<u64>,
    cache_write_count: Option<u64>,
}

/// The usage of a `usage` object's JSON text; `None` when it is not an object. Each count is
/// read by [`read_count`]; the cache counts are absent when Bedrock does not report them.
pub(crate) fn convert_usage(raw: &str) -> Option<Usage> {
    let counts = read_document(raw.as_bytes(), |r| {
        read_object(r, |c: &mut Counts, r, key| {
            let slot = match key {
                b"inputTokens" => &mut c.input,
                b"outputTokens" => &mut c.output,
                b"cacheReadInputTokens" => &mut c.cache_read,
                b"cacheWriteInputTokens" => &mut c.cache_write,
                b"cacheReadInputTokenCount" => &mut c.cache_read_count,
                b"cacheWriteInputTokenCount" => &mut c.cache_write_count,
                _ => return Ok(()),
            };
            *slot = read_count(r)?;
            Ok(())
        })
    })
    .ok()??;
    let cache_read = counts.cache_read.or(counts.cache_read_count);
    let cache_write = counts.cache_write.or(counts.cache_write_count);
    let input = [counts.input, cache_read, cache_write].iter().flatten().fold(0u64, |sum, n| sum.saturating_add(*n));
    let output = counts.output.unwrap_or(0);
    Some(Usage {
        input_tokens: input,
        output_tokens: output,
        total_tokens: input.saturating_add(output),
        reasoning_tokens: None,
        cache_read_tokens: cache_read,
        cache_write_tokens: cache_write,
        raw: RawJson::from_valid(raw),
    })
}

#[cfg(test)]
mod tests {
    use super::convert_usage;

    #[test]
    fn cache_reads_and_writes_count_as_input_and_the_total_is_input_plus_output() {
        // (usage, input, output, total, cache read, cache write)
        let cases = [
            (r#"{"inputTokens":13,"outputTokens":5,"totalTokens":18}"#, 13, 5, 18, None, None),
            (
                r#"{"cacheReadInputTokens":0,"cacheWriteInputTokens":1322,"inputTokens":2,"outputTokens":5,"totalTokens":1329}"#,
                1324,
                5,
                1329,
                Some(0),
                Some(1322),
            ),
            (r#"{"cacheReadInputTokenCount":7,"inputTokens":1,"outputTokens":1}"#, 8, 1, 9, Some(7), None),
            (r#"{"cacheReadInputTokens":3,"cacheReadInputTokenCount":7,"inputTokens":1}"#, 4, 0, 4, Some(3), None),
            (r#"{"inputTokens":"12","outputTokens":2.0,"cacheWriteInputTokens":null}"#, 12, 2, 14, None, None),
            (r#"{}"#, 0, 0, 0, None, None),
        ];
        for (raw, input, output, total, read, write) in cases {
            let usage = convert_usage(raw).unwrap();
            assert_eq!((usage.input_tokens, usage.output_tokens, usage.total_tokens), (input, output, total), "{raw}");
            assert_eq!((usage.cache_read_tokens, usage.cache_write_tokens), (read, write), "{raw}");
            assert_eq!(usage.raw.get(), raw);
        }
        assert!(convert_usage("[1]").is_none());
    }
}

//! The rules for numbers that do not fit, each on recorded bodies (`tests/fixtures`) with one
//! number of them changed:
//!
//! - a usage count that is not a finite non-negative number is absent, alone;
//! - an embedding value that is not a finite number is an error at its item;
//! - tool arguments and structured output read numbers as `JSON.parse` does (`1e400` is
//!   infinity).

use llm_wire::model::Model;
use llm_wire::{to_message, Agent, Usage};

fn agent(provider: &str, api_type: &str) -> Agent {
    Agent {
        model: Model { id: "m".into(), provider: provider.into(), api_type: api_type.into(), ..Model::default() },
        ..Agent::default()
    }
}

fn fixture(path: &str) -> String {
    let path = format!("{}/tests/fixtures/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `body` with the number after the first `"key": ` replaced by the text `value`, verbatim
/// (serde_json cannot hold `1e400`, so the bodies are edited as text).
fn with_number(body: &str, key: &str, value: &str) -> String {
    let member = format!("\"{key}\": ");
    let start = body.find(&member).unwrap_or_else(|| panic!("no {member} in the body")) + member.len();
    let len = body[start..].find(|c: char| !matches!(c, '0'..='9' | '-' | '+' | '.' | 'e' | 'E')).unwrap();
    assert!(len > 0, "{member} is not followed by a number");
    format!("{}{value}{}", &body[..start], &body[start + len..])
}

fn usage_of(body: &str, agent: &Agent) -> Usage {
    to_message(body, Some(agent)).unwrap().usage.expect("the body has a usage")
}

#[test]
fn a_usage_count_that_is_not_a_finite_non_negative_number_is_absent_and_the_others_stay() {
    let chat = fixture("openai-chat/vercel-openai-text.json");
    let responses = fixture("openai-responses/pyd-reasoning-summary.json");
    let anthropic = fixture("anthropic/vercel-text.json");
    let (openai, responses_agent, claude) =
        (agent("openai", "chat"), agent("openai", "responses"), agent("anthropic", ""));
    // (body, agent, key, value, input, output, total, cache read, reasoning)
    let cases = [
        (&chat, &openai, "completion_tokens", "1e400", 16, 0, 379, Some(0), Some(0)),
        (&chat, &openai, "completion_tokens", "-1e400", 16, 0, 379, Some(0), Some(0)),
        (&chat, &openai, "completion_tokens", "-3", 16, 0, 379, Some(0), Some(0)),
        (&chat, &openai, "prompt_tokens", "1e400", 0, 363, 379, Some(0), Some(0)),
        // Without a total, the total is the sum of what is left.
        (&chat, &openai, "total_tokens", "1e400", 16, 363, 379, Some(0), Some(0)),
        (&chat, &openai, "cached_tokens", "1e400", 16, 363, 379, None, Some(0)),
        (&chat, &openai, "reasoning_tokens", "1e999", 16, 363, 379, Some(0), None),
        (&responses, &responses_agent, "input_tokens", "1e400", 0, 226, 260, Some(0), Some(59)),
        (&responses, &responses_agent, "reasoning_tokens", "-1e400", 34, 226, 260, Some(0), None),
        (&responses, &responses_agent, "output_tokens", "2.5", 34, 2, 260, Some(0), Some(59)),
        (&anthropic, &claude, "output_tokens", "1e400", 12, 0, 12, Some(0), None),
        (&anthropic, &claude, "cache_read_input_tokens", "1e400", 12, 29, 41, None, None),
    ];
    for (body, agent, key, value, input, output, total, cache_read, reasoning) in cases {
        let body = with_number(body, key, value);
        let usage = usage_of(&body, agent);
        let counts = (usage.input_tokens, usage.output_tokens, usage.total_tokens);
        assert_eq!(counts, (input, output, total), "{key}: {value}");
        assert_eq!((usage.cache_read_tokens, usage.reasoning_tokens), (cache_read, reasoning), "{key}: {value}");
        // `raw` is the provider's object as it came, the odd number included.
        assert!(usage.raw.get().contains(&format!("\"{key}\": {value}")), "{key}: {value}: {}", usage.raw.get());
    }
}

#[test]
fn a_total_beyond_u64_is_the_largest_count_not_a_wrapped_small_one() {
    let body = fixture("openai-chat/vercel-openai-text.json");
    let body = with_number(&with_number(&body, "prompt_tokens", "18446744073709551615"), "total_tokens", "null");
    let usage = usage_of(&body, &agent("openai", "chat"));
    assert_eq!((usage.input_tokens, usage.output_tokens, usage.total_tokens), (u64::MAX, 363, u64::MAX));
}

#[test]
fn the_process_span_keeps_the_usage_counts_that_fit() {
    let body = with_number(&fixture("openai-embeddings/vercel-batch-float.json"), "prompt_tokens", "1e400");
    let mut spans = Vec::new();
    let mut on_span = |span| spans.push(span);
    let options = llm_wire::ProcessOptions { on_span: Some(&mut on_span) };
    llm_wire::process_with(&agent("openai", "embedding"), body.as_str(), options).unwrap();
    let attributes = &spans[0].attributes;
    assert_eq!(attributes.get("gen_ai.usage.input_tokens"), None);
    assert_eq!(attributes["gen_ai.response.model"], "text-embedding-3-small");
}

#[test]
fn a_streamed_usage_count_beyond_the_double_range_is_absent_too() {
    let stream = fixture("openai-chat/vercel-openai-text.sse")
        .replace("\"completion_tokens\":300", "\"completion_tokens\":1e400");
    let mut acc = llm_wire::Accumulator::new(llm_wire::AccumulatorOptions::default());
    acc.push(stream.as_bytes()).unwrap();
    let usage = acc.finish().usage.expect("the stream has a usage");
    assert_eq!((usage.input_tokens, usage.output_tokens, usage.total_tokens), (16, 0, 316));
    assert!(usage.raw.get().contains("\"completion_tokens\":1e400"));
}

//! Usage counted one way whatever the provider (docs/design.md, "Streaming"): `inputTokens`
//! counts every input token, cached ones included, `outputTokens` includes reasoning,
//! `totalTokens` is their sum, and `raw` is the provider's object untouched.
//!
//! Checked on every recorded body and stream against the rule written out from the provider's
//! own usage object, and on constructed usage for each provider's way of counting.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use llm_wire::{to_message, Accumulator, AccumulatorOptions, Agent, Format, StreamEvent, Usage};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

fn agent(provider: &str, api_type: &str) -> Agent {
    Agent::from_json(&json!({"model": {"id": "m", "provider": provider, "apiType": api_type}}).into()).unwrap()
}

fn agent_of(format: &str) -> Agent {
    match format {
        "anthropic" => agent("anthropic", "chat"),
        "openai-responses" => agent("openai", "responses"),
        "gemini" => agent("google", "chat"),
        "bedrock" => agent("bedrock", "chat"),
        _ => agent("openai", "chat"),
    }
}

fn stream_format(format: &str) -> Format {
    match format {
        "anthropic" => Format::Anthropic,
        "openai-responses" => Format::OpenAiResponses,
        "gemini" => Format::Gemini,
        "bedrock" => Format::Bedrock,
        _ => Format::OpenAiChat,
    }
}

/// A count as the rule reads it: a non-negative whole number (the recordings hold no odd ones).
fn count(usage: &Map<String, Value>, key: &str) -> Option<u64> {
    usage.get(key).and_then(Value::as_u64)
}

fn detail(usage: &Map<String, Value>, details: &str, key: &str) -> Option<u64> {
    usage.get(details).and_then(|d| d.get(key)).and_then(Value::as_u64)
}

/// What the rule makes of a provider's usage counts: `(input, output, total, cache read,
/// cache write, reasoning)`. For Anthropic, `usage` is the counts of `message_start` with those
/// `message_delta` restates laid over them.
fn by_the_rule(format: &str, usage: &Map<String, Value>) -> (u64, u64, u64, Option<u64>, Option<u64>, Option<u64>) {
    let (input, output, cache_read, cache_write, reasoning) = match format {
        "anthropic" => {
            let (read, write) = (count(usage, "cache_read_input_tokens"), count(usage, "cache_creation_input_tokens"));
            let input = count(usage, "input_tokens").unwrap_or(0) + read.unwrap_or(0) + write.unwrap_or(0);
            let thinking = detail(usage, "output_tokens_details", "thinking_tokens");
            (input, count(usage, "output_tokens").unwrap_or(0), read, write, thinking)
        }
        "bedrock" => {
            // Bedrock's older names stand in for the newer ones.
            let read = count(usage, "cacheReadInputTokens").or(count(usage, "cacheReadInputTokenCount"));
            let write = count(usage, "cacheWriteInputTokens").or(count(usage, "cacheWriteInputTokenCount"));
            let input = count(usage, "inputTokens").unwrap_or(0) + read.unwrap_or(0) + write.unwrap_or(0);
            (input, count(usage, "outputTokens").unwrap_or(0), read, write, None)
        }
        "gemini" => {
            let thoughts = count(usage, "thoughtsTokenCount");
            (
                count(usage, "promptTokenCount").unwrap_or(0) + count(usage, "toolUsePromptTokenCount").unwrap_or(0),
                count(usage, "candidatesTokenCount").unwrap_or(0) + thoughts.unwrap_or(0),
                count(usage, "cachedContentTokenCount"),
                None,
                thoughts,
            )
        }
        "openai-responses" => (
            count(usage, "input_tokens").unwrap_or(0),
            count(usage, "output_tokens").unwrap_or(0),
            detail(usage, "input_tokens_details", "cached_tokens"),
            None,
            detail(usage, "output_tokens_details", "reasoning_tokens"),
        ),
        _ => {
            let input = count(usage, "prompt_tokens").unwrap_or(0);
            let mut output = count(usage, "completion_tokens").unwrap_or(0);
            let reasoning = detail(usage, "completion_tokens_details", "reasoning_tokens");
            // A total that counts reasoning beside the output: the output left it out.
            if let (Some(r @ 1..), Some(total)) = (reasoning, count(usage, "total_tokens")) {
                if total == input + output + r {
                    output += r;
                }
            }
            let cache_read =
                detail(usage, "prompt_tokens_details", "cached_tokens").or(count(usage, "prompt_cache_hit_tokens"));
            (input, output, cache_read, detail(usage, "prompt_tokens_details", "cache_write_tokens"), reasoning)
        }
    };
    (input, output, input + output, cache_read, cache_write, reasoning)
}

fn counts(usage: &Usage) -> (u64, u64, u64, Option<u64>, Option<u64>, Option<u64>) {
    (
        usage.input_tokens,
        usage.output_tokens,
        usage.total_tokens,
        usage.cache_read_tokens,
        usage.cache_write_tokens,
        usage.reasoning_tokens,
    )
}

fn object(value: &Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

/// Whether a Gemini usage has a count: Vertex sends `{trafficType}` alone, which is no usage.
fn has_a_count(usage: &Value) -> bool {
    usage.as_object().is_some_and(|u| u.keys().any(|k| k.ends_with("Count")))
}

/// The provider usage a recorded stream ends with, as the rule reads it: the latest usage
/// object (Chat, Groq's `x_groq.usage`, Responses, Gemini), or Anthropic's counts merged.
fn streamed_usage(format: &str, body: &str) -> Option<Map<String, Value>> {
    let mut usage: Option<Map<String, Value>> = None;
    for line in body.lines() {
        let Some(data) = line.strip_prefix("data:") else { continue };
        let Ok(event) = serde_json::from_str::<Value>(data.trim()) else { continue };
        let found = match format {
            "anthropic" => match event["type"].as_str() {
                Some("message_start") => event["message"].get("usage"),
                Some("message_delta") => event.get("usage"),
                _ => None,
            },
            "openai-responses" => event.get("response").and_then(|r| r.get("usage")),
            // Vertex sends a usage with no count (`{trafficType}`) on chunks before the last.
            "gemini" => event
                .get("usageMetadata")
                .filter(|u| u.as_object().is_some_and(|u| u.keys().any(|k| k.ends_with("Count")))),
            _ => event.get("usage").or_else(|| event.get("x_groq").and_then(|x| x.get("usage"))),
        };
        let Some(found) = found.filter(|u| u.is_object()) else { continue };
        if format == "anthropic" {
            usage.get_or_insert_with(Map::new).extend(object(found));
        } else {
            usage = Some(object(found));
        }
    }
    usage
}

/// The last `usage` object of a ConverseStream recording (its `metadata` event), found in the
/// JSON payloads of its AWS event-stream messages.
fn bedrock_streamed_usage(bytes: &[u8]) -> Option<Map<String, Value>> {
    let key = br#""usage":"#;
    let at = bytes.windows(key.len()).rposition(|w| w == key)? + key.len();
    let mut values = serde_json::Deserializer::from_slice(&bytes[at..]).into_iter::<Value>();
    values.next()?.ok().as_ref().and_then(Value::as_object).cloned()
}

/// The formats the recordings cover: OpenAI Chat, Anthropic, Responses, Gemini, Bedrock.
const FORMATS: usize = 5;

#[test]
fn every_recorded_body_counts_its_usage_by_the_rule_with_raw_untouched() {
    let mut checked = BTreeMap::new();
    for &(dir, format) in common::STREAM_DIRS {
        let root = format!("{}/tests/fixtures/{dir}", env!("CARGO_MANIFEST_DIR"));
        for entry in std::fs::read_dir(&root).unwrap().flatten() {
            let path = entry.path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if !name.ends_with(".json") || name.ends_with(".expect.json") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let body: Value = serde_json::from_str(&text).unwrap();
            let key = if format == "gemini" { "usageMetadata" } else { "usage" };
            let Some(raw) = body.get(key).filter(|u| u.is_object()) else { continue };
            if format == "gemini" && !has_a_count(raw) {
                assert_eq!(to_message(text.as_str(), Some(&agent_of(format))).ok().and_then(|m| m.usage), None);
                continue;
            }
            let Ok(message) = to_message(text.as_str(), Some(&agent_of(format))) else { continue };
            let usage = message.usage.unwrap_or_else(|| panic!("{dir}/{name}: no usage"));
            assert_eq!(counts(&usage), by_the_rule(format, &object(raw)), "{dir}/{name}");
            assert_eq!(&serde_json::from_str::<Value>(usage.raw.get()).unwrap(), raw, "{dir}/{name}: raw");
            *checked.entry(format).or_insert(0) += 1;
        }
    }
    assert_eq!(checked.len(), FORMATS, "a format without a recorded body with usage: {checked:?}");
}

/// Every recorded stream: its fixture folder, format, file name and bytes.
fn recorded_streams() -> Vec<(&'static str, &'static str, String, Vec<u8>)> {
    let mut out = Vec::new();
    for &(dir, format) in common::STREAM_DIRS {
        let root = format!("{}/tests/fixtures/{dir}", env!("CARGO_MANIFEST_DIR"));
        for entry in std::fs::read_dir(&root).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if common::STREAM_EXTENSIONS.iter().any(|ext| name.ends_with(&format!(".{ext}"))) {
                out.push((dir, format, name, std::fs::read(entry.path()).unwrap()));
            }
        }
    }
    out
}

#[test]
fn every_recorded_stream_counts_its_usage_by_the_rule() {
    let mut checked = BTreeMap::new();
    for (dir, format, name, bytes) in recorded_streams() {
        let provider = if format == "bedrock" {
            bedrock_streamed_usage(&bytes)
        } else {
            streamed_usage(format, std::str::from_utf8(&bytes).unwrap())
        };
        let Some(provider) = provider else { continue };
        let mut acc = Accumulator::new(AccumulatorOptions { format: stream_format(format), ..Default::default() });
        acc.push(&bytes).unwrap();
        let usage = acc.finish().usage.unwrap_or_else(|| panic!("{dir}/{name}: no usage"));
        assert_eq!(counts(&usage), by_the_rule(format, &provider), "{dir}/{name}");
        *checked.entry(format).or_insert(0) += 1;
    }
    assert_eq!(checked.len(), FORMATS, "a format without a recorded stream with usage: {checked:?}");
}

/// The usage event waits for the end of the turn (a finish, or the end of the input): every
/// recorded stream, cut at random, gives no usage event before its first `finish` outside the
/// flush, at most one per call, and its last one is the message's usage.
#[test]
fn every_recorded_stream_gives_its_usage_event_when_the_turn_ends() {
    let mut checked = 0;
    for (dir, format, name, bytes) in recorded_streams() {
        for seed in 0..4 {
            let cuts = common::random_cuts(bytes.len(), seed);
            let mut acc = Accumulator::new(AccumulatorOptions { format: stream_format(format), ..Default::default() });
            let (mut finished, mut last) = (false, None);
            let mut calls: Vec<Vec<StreamEvent>> =
                common::pieces(&bytes, &cuts).iter().map(|piece| acc.push(piece).unwrap().to_vec()).collect();
            calls.push(acc.flush().to_vec());
            for (i, events) in calls.iter().enumerate() {
                let usages = events.iter().filter(|e| matches!(e, StreamEvent::Usage { .. })).count();
                assert!(usages <= 1, "{dir}/{name} seed {seed}: {usages} usage events in call {i}");
                // The flush, the last call, ends the input and so the turn.
                finished |= i == calls.len() - 1;
                for event in events {
                    match event {
                        StreamEvent::Finish { .. } => finished = true,
                        StreamEvent::Usage { usage } => {
                            assert!(finished, "{dir}/{name} seed {seed}: usage before the turn ended");
                            last = Some(usage.clone());
                        }
                        _ => {}
                    }
                }
            }
            assert_eq!(last, acc.finish().usage, "{dir}/{name} seed {seed}: the last usage event");
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked} streams");
}

/// `(what, provider, apiType, usage, (input, output, total, cache read, cache write, reasoning))`
type Case = (&'static str, &'static str, &'static str, Value, (u64, u64, u64, Option<u64>, Option<u64>, Option<u64>));

fn body_of(provider: &str, api_type: &str, usage: &Value) -> Value {
    match (provider, api_type) {
        ("anthropic", _) => json!({"type": "message", "role": "assistant", "content": [{"type": "text", "text": "hi"}],
                                   "stop_reason": "end_turn", "usage": usage}),
        ("google", _) => json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "hi"}]},
                                "finishReason": "STOP", "index": 0}], "usageMetadata": usage}),
        ("bedrock", _) => json!({"output": {"message": {"role": "assistant", "content": [{"text": "hi"}]}},
                                 "stopReason": "end_turn", "usage": usage}),
        (_, "responses") => json!({"object": "response", "status": "completed", "usage": usage, "output": [
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "hi"}]}]}),
        _ => json!({"choices": [{"index": 0, "message": {"content": "hi"}, "finish_reason": "stop"}], "usage": usage}),
    }
}

#[test]
fn each_providers_way_of_counting_comes_out_counted_one_way() {
    let cases: Vec<Case> = vec![
        // Anthropic's input excludes its cache reads and writes: they are added.
        (
            "anthropic, a cache read",
            "anthropic",
            "chat",
            json!({"input_tokens": 1, "cache_read_input_tokens": 3, "output_tokens": 2}),
            (4, 2, 6, Some(3), None, None),
        ),
        (
            "anthropic, both",
            "anthropic",
            "chat",
            json!({"input_tokens": 1, "cache_read_input_tokens": 3, "cache_creation_input_tokens": 5, "output_tokens": 2}),
            (9, 2, 11, Some(3), Some(5), None),
        ),
        (
            "anthropic, no cache",
            "anthropic",
            "chat",
            json!({"input_tokens": 10, "output_tokens": 2}),
            (10, 2, 12, None, None, None),
        ),
        (
            "anthropic, only cache",
            "anthropic",
            "chat",
            json!({"cache_read_input_tokens": 7, "output_tokens": 2}),
            (7, 2, 9, Some(7), None, None),
        ),
        // Anthropic's output includes its thinking, which the output details give apart.
        (
            "anthropic, thinking",
            "anthropic",
            "chat",
            json!({"input_tokens": 10, "output_tokens": 50, "output_tokens_details": {"thinking_tokens": 40}}),
            (10, 50, 60, None, None, Some(40)),
        ),
        // OpenAI already counts this way.
        (
            "openai chat",
            "openai",
            "chat",
            json!({"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15,
            "prompt_tokens_details": {"cached_tokens": 4}, "completion_tokens_details": {"reasoning_tokens": 2}}),
            (10, 5, 15, Some(4), None, Some(2)),
        ),
        (
            "openai responses",
            "openai",
            "responses",
            json!({"input_tokens": 30, "output_tokens": 9, "total_tokens": 39,
            "input_tokens_details": {"cached_tokens": 20}, "output_tokens_details": {"reasoning_tokens": 8}}),
            (30, 9, 39, Some(20), None, Some(8)),
        ),
        // DeepSeek: cache hits under its own name, part of `prompt_tokens`.
        (
            "deepseek",
            "deepseek",
            "chat",
            json!({"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15,
            "prompt_cache_hit_tokens": 8, "prompt_cache_miss_tokens": 4}),
            (12, 3, 15, Some(8), None, None),
        ),
        // OpenRouter: cache writes inside the prompt details.
        (
            "openrouter",
            "openrouter",
            "chat",
            json!({"prompt_tokens": 2317, "completion_tokens": 53, "total_tokens": 2370,
            "prompt_tokens_details": {"cached_tokens": 1024, "cache_write_tokens": 1200}}),
            (2317, 53, 2370, Some(1024), Some(1200), None),
        ),
        // xAI counts reasoning beside the output, and says so in its total.
        (
            "xai",
            "xai",
            "chat",
            json!({"prompt_tokens": 32, "completion_tokens": 9, "total_tokens": 135,
            "completion_tokens_details": {"reasoning_tokens": 94}}),
            (32, 103, 135, None, None, Some(94)),
        ),
        // A total that fits neither way is not the server's way of counting: the counts stand.
        (
            "odd total",
            "xai",
            "chat",
            json!({"prompt_tokens": 32, "completion_tokens": 9, "total_tokens": 100,
            "completion_tokens_details": {"reasoning_tokens": 94}}),
            (32, 9, 41, None, None, Some(94)),
        ),
        // Gemini's prompt count already includes the cached content; tool-use prompts and
        // thoughts are counted apart and added.
        (
            "gemini, cached and thoughts",
            "google",
            "chat",
            json!({"promptTokenCount": 17713, "cachedContentTokenCount": 17379, "candidatesTokenCount": 68,
            "thoughtsTokenCount": 821, "totalTokenCount": 18602}),
            (17713, 889, 18602, Some(17379), None, Some(821)),
        ),
        (
            "gemini, tool-use prompt",
            "google",
            "chat",
            json!({"promptTokenCount": 257, "toolUsePromptTokenCount": 1732, "candidatesTokenCount": 170,
            "totalTokenCount": 2159}),
            (1989, 170, 2159, None, None, None),
        ),
        // Bedrock reports cache reads and writes apart from its inputTokens, as Anthropic does.
        (
            "bedrock, cache write",
            "bedrock",
            "chat",
            json!({"inputTokens": 2, "cacheReadInputTokens": 0, "cacheWriteInputTokens": 1322, "outputTokens": 5,
            "totalTokens": 1329}),
            (1324, 5, 1329, Some(0), Some(1322), None),
        ),
        (
            "bedrock, cache read",
            "bedrock",
            "chat",
            json!({"inputTokens": 4, "cacheReadInputTokens": 96, "outputTokens": 10, "totalTokens": 110}),
            (100, 10, 110, Some(96), None, None),
        ),
        (
            "no total",
            "openai",
            "chat",
            json!({"prompt_tokens": 32, "completion_tokens": 9}),
            (32, 9, 41, None, None, None),
        ),
    ];
    for (what, provider, api_type, usage, want) in cases {
        let body = body_of(provider, api_type, &usage);
        let message = to_message(body.to_string().as_str(), Some(&agent(provider, api_type))).unwrap();
        let got = message.usage.unwrap_or_else(|| panic!("{what}: no usage"));
        assert_eq!(counts(&got), want, "{what}");
        assert_eq!(serde_json::from_str::<Value>(got.raw.get()).unwrap(), usage, "{what}: raw");
    }
}

fn sse(events: &[(&str, Value)]) -> String {
    events.iter().map(|(name, data)| format!("event: {name}\ndata: {data}\n\n")).collect()
}

#[test]
fn a_streamed_anthropic_answer_counts_its_cache_as_its_body_does() {
    let start =
        json!({"input_tokens": 1, "cache_read_input_tokens": 3, "cache_creation_input_tokens": 0, "output_tokens": 1});
    let stream = sse(&[
        (
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
            "model": "claude", "content": [], "usage": start}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "hi"}}),
        ),
        ("content_block_stop", json!({"type": "content_block_stop", "index": 0})),
        // The last delta restates some counts: the output, and a cache write the start had as 0.
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 2, "cache_creation_input_tokens": 5,
                "output_tokens_details": {"thinking_tokens": 1}}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ]);
    let mut acc = Accumulator::new(AccumulatorOptions::default());
    acc.push(stream.as_bytes()).unwrap();
    let streamed = acc.finish().usage.unwrap();
    assert_eq!(counts(&streamed), (9, 2, 11, Some(3), Some(5), Some(1)));
    let body = body_of(
        "anthropic",
        "",
        &json!({"input_tokens": 1, "cache_read_input_tokens": 3, "cache_creation_input_tokens": 5, "output_tokens": 2,
            "output_tokens_details": {"thinking_tokens": 1}}),
    );
    let whole = to_message(body.to_string().as_str(), None).unwrap().usage.unwrap();
    assert_eq!(counts(&whole), counts(&streamed));
}

#[test]
fn groq_usage_inside_x_groq_is_counted_by_the_same_rule() {
    let chunk = json!({"id": "c", "model": "m", "choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": "stop"}],
        "x_groq": {"id": "r", "usage": {"prompt_tokens": 30, "completion_tokens": 4, "total_tokens": 34,
            "prompt_tokens_details": {"cached_tokens": 16}}}});
    let mut acc = Accumulator::new(AccumulatorOptions::default());
    acc.push(format!("data: {chunk}\n\ndata: [DONE]\n\n").as_bytes()).unwrap();
    let usage = acc.finish().usage.unwrap();
    assert_eq!(counts(&usage), (30, 4, 34, Some(16), None, None));
}

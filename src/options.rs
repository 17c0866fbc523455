//! ModelOptions → provider request parameters (§7.1.5, §7.6).
//!
//! Each API has a table from option to parameter name; an option the API does not support is
//! silently left out (§7.6). `additionalProperties` passes through as top-level keys, but never
//! replaces a key the table (or the request builder) already set.

use serde_json::{Map, Value};

use crate::model::ModelOptions;

/// The default `max_tokens` of Anthropic requests, which the API requires (§7.5).
pub const ANTHROPIC_DEFAULT_MAX_TOKENS: u64 = 4096;

/// The options an API understands, each under its wire name (`None`: not supported).
struct Names {
    temperature: Option<&'static str>,
    max_output_tokens: Option<&'static str>,
    top_p: Option<&'static str>,
    top_k: Option<&'static str>,
    frequency_penalty: Option<&'static str>,
    presence_penalty: Option<&'static str>,
    stop_sequences: Option<&'static str>,
    seed: Option<&'static str>,
}

/// §7.1.5 / §7.6, OpenAI Chat column (images use it too, §7.3).
const OPENAI_CHAT: Names = Names {
    temperature: Some("temperature"),
    max_output_tokens: Some("max_completion_tokens"),
    top_p: Some("top_p"),
    top_k: None,
    frequency_penalty: Some("frequency_penalty"),
    presence_penalty: Some("presence_penalty"),
    stop_sequences: Some("stop"),
    seed: Some("seed"),
};

/// The Responses API (DESIGN.md §3): it rejects the penalties, `stop` and `seed` it does not have.
const OPENAI_RESPONSES: Names = Names {
    temperature: Some("temperature"),
    max_output_tokens: Some("max_output_tokens"),
    top_p: Some("top_p"),
    top_k: None,
    frequency_penalty: None,
    presence_penalty: None,
    stop_sequences: None,
    seed: None,
};

/// §7.6, Anthropic Messages column.
const ANTHROPIC: Names = Names {
    temperature: Some("temperature"),
    max_output_tokens: Some("max_tokens"),
    top_p: Some("top_p"),
    top_k: Some("top_k"),
    frequency_penalty: None,
    presence_penalty: None,
    stop_sequences: Some("stop_sequences"),
    seed: None,
};

fn map_options(options: &ModelOptions, names: &Names) -> Map<String, Value> {
    let stop = options.stop_sequences.as_ref().map(|s| Value::Array(s.iter().cloned().map(Value::String).collect()));
    let pairs = [
        (names.temperature, options.temperature.clone()),
        (names.max_output_tokens, options.max_output_tokens.clone()),
        (names.top_p, options.top_p.clone()),
        (names.top_k, options.top_k.clone()),
        (names.frequency_penalty, options.frequency_penalty.clone()),
        (names.presence_penalty, options.presence_penalty.clone()),
        (names.stop_sequences, stop),
        (names.seed, options.seed.clone()),
    ];
    let mut out = Map::new();
    for (name, value) in pairs {
        if let (Some(name), Some(value)) = (name, value) {
            out.insert(name.to_owned(), value);
        }
    }
    merge_absent(&mut out, &options.additional_properties);
    out
}

/// Inserts every key of `extra` that `target` does not have yet.
pub fn merge_absent(target: &mut Map<String, Value>, extra: &Map<String, Value>) {
    for (key, value) in extra {
        if !target.contains_key(key) {
            target.insert(key.clone(), value.clone());
        }
    }
}

/// §7.1.5 `build_options` for OpenAI Chat (and images, §7.3).
pub fn openai_chat(options: &ModelOptions) -> Map<String, Value> {
    map_options(options, &OPENAI_CHAT)
}

/// The Responses API's options: `maxOutputTokens` → `max_output_tokens`.
pub fn openai_responses(options: &ModelOptions) -> Map<String, Value> {
    map_options(options, &OPENAI_RESPONSES)
}

/// §7.5/§7.6 for Anthropic, `max_tokens` always present (4096 when not set).
pub fn anthropic(options: &ModelOptions) -> Map<String, Value> {
    let mut out = map_options(options, &ANTHROPIC);
    if !out.contains_key("max_tokens") {
        out.insert("max_tokens".into(), Value::from(ANTHROPIC_DEFAULT_MAX_TOKENS));
    }
    out
}

//! ModelOptions → provider request parameters (§7.1.5, §7.6).
//!
//! Each API has a table from option to parameter name; an option the API does not support is
//! silently left out (§7.6). `additionalProperties` passes through as top-level keys, but never
//! replaces a key the table (or the request builder) already set.

use crate::json::{Map, Value};
use crate::model::ModelOptions;
use crate::request::wire::{self, Fields};

/// The default `max_tokens` of Anthropic requests, which the API requires (§7.5).
pub const ANTHROPIC_DEFAULT_MAX_TOKENS: u64 = 4096;

/// The wire names of the options an API understands (`None`: not supported).
struct WireNames {
    temperature: Option<&'static str>,
    max_output_tokens: Option<&'static str>,
    top_p: Option<&'static str>,
    top_k: Option<&'static str>,
    frequency_penalty: Option<&'static str>,
    presence_penalty: Option<&'static str>,
    seed: Option<&'static str>,
    stop_sequences: Option<&'static str>,
}

/// §7.1.5 / §7.6, OpenAI Chat column (images use it too, §7.3).
const OPENAI_CHAT: WireNames = WireNames {
    temperature: Some("temperature"),
    max_output_tokens: Some("max_completion_tokens"),
    top_p: Some("top_p"),
    top_k: None,
    frequency_penalty: Some("frequency_penalty"),
    presence_penalty: Some("presence_penalty"),
    seed: Some("seed"),
    stop_sequences: Some("stop"),
};

/// Chat-compatible servers whose APIs document `max_tokens` and not OpenAI's newer
/// `max_completion_tokens` (DeepSeek, Ollama): sent the newer name, they ignore the cap.
const CHAT_MAX_TOKENS: WireNames = WireNames { max_output_tokens: Some("max_tokens"), ..OPENAI_CHAT };

/// Mistral's chat API: `max_tokens`, and the seed as `random_seed`; it refuses a field it does
/// not have (`extra_forbidden`).
const MISTRAL_CHAT: WireNames =
    WireNames { max_output_tokens: Some("max_tokens"), seed: Some("random_seed"), ..OPENAI_CHAT };

/// The Responses API (docs/design.md, "Dispatch"): it rejects the penalties, `stop` and `seed`
/// it does not have.
const OPENAI_RESPONSES: WireNames = WireNames {
    temperature: Some("temperature"),
    max_output_tokens: Some("max_output_tokens"),
    top_p: Some("top_p"),
    top_k: None,
    frequency_penalty: None,
    presence_penalty: None,
    seed: None,
    stop_sequences: None,
};

/// §7.6, Anthropic Messages column.
const ANTHROPIC: WireNames = WireNames {
    temperature: Some("temperature"),
    max_output_tokens: Some("max_tokens"),
    top_p: Some("top_p"),
    top_k: Some("top_k"),
    frequency_penalty: None,
    presence_penalty: None,
    seed: None,
    stop_sequences: Some("stop_sequences"),
};

/// Inserts every key of `extra` that `target` does not have yet.
pub fn merge_absent(target: &mut Map, extra: &Map) {
    for (key, value) in extra {
        if !target.contains_key(key) {
            target.insert(key.clone(), value.clone());
        }
    }
}

/// §7.1.5 `build_options` for OpenAI Chat (and images, §7.3).
pub fn openai_chat(options: &ModelOptions) -> Map {
    as_map(options, write_openai_chat)
}

/// The Responses API's options: `maxOutputTokens` → `max_output_tokens`.
pub fn openai_responses(options: &ModelOptions) -> Map {
    as_map(options, write_openai_responses)
}

/// §7.5/§7.6 for Anthropic, `max_tokens` always present (4096, plus any thinking budget, when
/// not set).
pub fn anthropic(options: &ModelOptions) -> Map {
    as_map(options, write_anthropic)
}

/// The options one of the writers below sets on an empty body, as a map.
fn as_map(options: &ModelOptions, write: fn(&ModelOptions, &mut Fields)) -> Map {
    let mut fields = Fields::new();
    write(options, &mut fields);
    match wire::to_value(&fields.finish()) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

/// The options `names` maps, then every additional property, set where `body` has no such key
/// yet (§7.6: an option the API does not support is left out).
fn write_options(options: &ModelOptions, names: &WireNames, body: &mut Fields) {
    let numbers = [
        (names.temperature, &options.temperature),
        (names.max_output_tokens, &options.max_output_tokens),
        (names.top_p, &options.top_p),
        (names.top_k, &options.top_k),
        (names.frequency_penalty, &options.frequency_penalty),
        (names.presence_penalty, &options.presence_penalty),
        (names.seed, &options.seed),
    ];
    for (name, value) in numbers {
        if let (Some(name), Some(value)) = (name, value) {
            body.set_absent(name, wire::json(value));
        }
    }
    if let (Some(name), Some(stop)) = (names.stop_sequences, &options.stop_sequences) {
        let mut written = wire::Array::new();
        for s in stop {
            written.str(s);
        }
        body.set_absent(name, written.finish());
    }
    write_absent(body, &options.additional_properties);
}

/// [`merge_absent`] for a body being written.
pub(crate) fn write_absent(body: &mut Fields, extra: &Map) {
    for (key, value) in extra {
        body.set_absent(key, wire::json(value));
    }
}

/// [`write_openai_chat`] under the names of `provider`'s Chat-compatible API, where they differ
/// from OpenAI's (docs/design.md, "Options").
pub(crate) fn write_chat_compatible(options: &ModelOptions, provider: &str, body: &mut Fields) {
    let names = match provider {
        "mistral" => &MISTRAL_CHAT,
        "deepseek" | "ollama" => &CHAT_MAX_TOKENS,
        _ => &OPENAI_CHAT,
    };
    write_options(options, names, body);
}

/// [`openai_chat`], merged into a body.
pub(crate) fn write_openai_chat(options: &ModelOptions, body: &mut Fields) {
    write_options(options, &OPENAI_CHAT, body);
}

/// [`openai_responses`], merged into a body.
pub(crate) fn write_openai_responses(options: &ModelOptions, body: &mut Fields) {
    write_options(options, &OPENAI_RESPONSES, body);
}

/// [`anthropic`], merged into a body (no body key is ever `max_tokens`, so the
/// default goes in exactly when neither the options nor `additionalProperties` set it).
pub(crate) fn write_anthropic(options: &ModelOptions, body: &mut Fields) {
    write_options(options, &ANTHROPIC, body);
    body.set_absent("max_tokens", anthropic_default_max_tokens(&options.additional_properties).to_string());
}

/// The `max_tokens` sent when none is given: 4096, plus the thinking budget
/// (`thinking.budget_tokens` in `additionalProperties`) when there is one, as the API wants
/// `max_tokens` above the budget (docs/design.md, "Options").
fn anthropic_default_max_tokens(extra: &Map) -> u64 {
    let budget = extra.get("thinking").and_then(|thinking| thinking.get("budget_tokens")).and_then(Value::as_u64);
    ANTHROPIC_DEFAULT_MAX_TOKENS.saturating_add(budget.unwrap_or(0))
}

//! Shared by the native and the wasm fixture suites: the `.expect.json` checker, the seeded
//! splitter, and the format of each fixture directory. Everything works on the final message
//! as JSON, so the same checks apply to what Rust returns and to what JS receives.
#![allow(dead_code)]

pub mod mutate;

use llm_wire::model::{Model, Property};
use llm_wire::Agent;
use serde_json::Value;

/// A file under `tests/fixtures/`, as text.
pub fn read_fixture(path: &str) -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// An agent of `provider` and `api_type`, with one object output property when `outputs`.
pub fn agent_of(provider: &str, api_type: &str, outputs: bool) -> Agent {
    let outputs = if outputs {
        vec![Property { name: "x".into(), kind: "object".into(), ..Property::default() }]
    } else {
        vec![]
    };
    Agent {
        model: Model { provider: provider.into(), api_type: api_type.into(), ..Model::default() },
        outputs,
        ..Agent::default()
    }
}

/// Fixture directories and the stream format their streams (`.sse`, or `.eventstream` for
/// Bedrock's binary AWS event streams) are in.
pub const STREAM_DIRS: &[(&str, &str)] = &[
    ("openai-chat", "openai-chat"),
    ("azure-openai", "openai-chat"),
    ("deepseek", "openai-chat"),
    ("groq", "openai-chat"),
    ("mistral", "openai-chat"),
    ("minimax", "openai-chat"),
    ("ollama", "openai-chat"),
    ("openrouter", "openai-chat"),
    ("anthropic", "anthropic"),
    ("openai-responses", "openai-responses"),
    ("bedrock", "bedrock"),
    ("gemini", "gemini"),
    ("vertex", "gemini"),
];

/// The file extensions of recorded streams: SSE text, and AWS event-stream bytes.
pub const STREAM_EXTENSIONS: [&str; 2] = ["sse", "eventstream"];

/// The format of a fixture, from its directory.
pub fn format_of(dir: &str) -> Option<&'static str> {
    STREAM_DIRS.iter().find(|(d, _)| *d == dir).map(|(_, f)| *f)
}

/// A small deterministic generator (xorshift64*), so a failing split can be replayed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
}

/// Cut points of split number `seed` of a body of `len` bytes: between 1 and 64 pieces.
pub fn random_cuts(len: usize, seed: u64) -> Vec<usize> {
    let mut rng = Rng::new(seed);
    let pieces = 1 + rng.below(64) as usize;
    let mut cuts: Vec<usize> = (0..pieces - 1).map(|_| rng.below(len as u64 + 1) as usize).collect();
    cuts.sort_unstable();
    cuts
}

/// `body` cut at `cuts` (sorted).
pub fn pieces<'a>(body: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut out = Vec::with_capacity(cuts.len() + 1);
    let mut start = 0;
    for &cut in cuts {
        out.push(&body[start..cut]);
        start = cut;
    }
    out.push(&body[start..]);
    out
}

/// What the events of a whole stream say, concatenated per kind: text, reasoning, and each tool
/// call's argument deltas; the last usage (a push reports one, so how many depends on the
/// split); every other event in order. Coalescing may differ between splits; these may not.
#[derive(Debug, Default, PartialEq)]
pub struct EventDigest {
    pub text: String,
    pub reasoning: String,
    pub arguments: Vec<String>,
    pub usage: Option<String>,
    pub others: Vec<String>,
}

impl EventDigest {
    pub fn add(&mut self, event: &Value) {
        let s = |k: &str| event.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
        let choice = event.get("choice").and_then(Value::as_u64).unwrap_or(0);
        match event["type"].as_str().unwrap_or_default() {
            "text" if choice == 0 => self.text.push_str(&s("text")),
            "reasoning" if choice == 0 => self.reasoning.push_str(&s("text")),
            "tool_call_delta" => {
                let index = event["index"].as_u64().unwrap_or(0) as usize + 1000 * choice as usize;
                if self.arguments.len() <= index {
                    self.arguments.resize(index + 1, String::new());
                }
                self.arguments[index].push_str(&s("argumentsDelta"));
            }
            "usage" => self.usage = Some(event.to_string()),
            _ => self.others.push(event.to_string()),
        }
    }
}

/// Standard base64 → bytes (the tests' own decoder, independent of the library's).
pub fn decode_base64(text: &str) -> Vec<u8> {
    const ALPHABET: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let sextets: Vec<u32> = text.trim_end_matches('=').chars().map(|c| ALPHABET.find(c).unwrap() as u32).collect();
    let mut out = Vec::new();
    for group in sextets.chunks(4) {
        let n = group.iter().enumerate().fold(0, |n, (i, s)| n | s << (18 - 6 * i));
        out.extend(&n.to_be_bytes()[1..group.len()]);
    }
    out
}

/// The `.expect.json` of a fixture of `format` as a final message has it: Bedrock's
/// `redactedReasoning` is the wire value (tests/fixtures/README.md), base64 of the bytes, which
/// the message keeps as their text (docs/design.md, "Reasoning that goes back").
pub fn expect_of(format: &str, mut expect: Value) -> Value {
    if let (true, Some(Value::Array(values))) = (format == "bedrock", expect.get_mut("redactedReasoning")) {
        for value in values {
            let bytes = decode_base64(value.as_str().unwrap_or_default());
            *value = Value::from(String::from_utf8(bytes).expect("Claude's redacted bytes are text"));
        }
    }
    expect
}

/// Checks a final message (as JSON) against a partial `.expect.json`; the error names the key.
pub fn check_expect(message: &Value, expect: &Value) -> Result<(), String> {
    let obj = expect.as_object().ok_or("expect is not an object")?;
    let text = message["text"].as_str().unwrap_or_default();
    let reasoning = message["reasoning"].as_str().unwrap_or_default();
    for (key, want) in obj {
        match key.as_str() {
            // `_source`, `_note`: what the expectation rests on, for the reader.
            key if key.starts_with('_') => {}
            "text" | "reasoning" | "rawFinishReason" => {
                if &message[key.as_str()] != want {
                    return Err(format!("{key}: got {}, want {}", message[key.as_str()], want));
                }
            }
            "toolCalls" => {
                let got = message["toolCalls"].as_array().ok_or("no toolCalls")?;
                let want = want.as_array().ok_or("toolCalls is not a list")?;
                if got.len() != want.len() {
                    return Err(format!("toolCalls: got {} calls, want {}: {got:?}", got.len(), want.len()));
                }
                for (i, (g, w)) in got.iter().zip(want).enumerate() {
                    for field in ["id", "name"] {
                        // An id is checked where the source asserted one (Gemini invents most).
                        if field == "id" && w.get("id").is_none() {
                            continue;
                        }
                        if g[field] != w[field] {
                            return Err(format!("toolCalls[{i}].{field}: got {}, want {}", g[field], w[field]));
                        }
                    }
                    let parse = |v: &Value| serde_json::from_str::<Value>(v.as_str().unwrap_or("")).ok();
                    if parse(&g["arguments"]) != parse(&w["arguments"]) || parse(&w["arguments"]).is_none() {
                        return Err(format!(
                            "toolCalls[{i}].arguments: got {}, want {}",
                            g["arguments"], w["arguments"]
                        ));
                    }
                }
            }
            "usage" => {
                for (field, value) in want.as_object().ok_or("usage is not an object")? {
                    if &message["usage"][field.as_str()] != value {
                        return Err(format!("usage.{field}: got {}, want {value}", message["usage"][field.as_str()]));
                    }
                }
            }
            "error" => {
                let got = &message["error"];
                if got["message"] != want["message"] {
                    return Err(format!("error.message: got {}, want {}", got["message"], want["message"]));
                }
                if let Some(code) = want.get("code") {
                    let as_text = |v: &Value| match v {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    if as_text(&got["code"]) != as_text(code) {
                        return Err(format!("error.code: got {}, want {code}", got["code"]));
                    }
                }
            }
            "reasoningSignatures" | "redactedReasoning" => {
                let field = if key == "reasoningSignatures" { "signature" } else { "redacted" };
                let got: Vec<&Value> = message["content"]
                    .as_array()
                    .ok_or("no content")?
                    .iter()
                    .filter(|b| b["type"] == "reasoning" && b.get(field).is_some_and(|v| !v.is_null()))
                    .map(|b| &b[field])
                    .collect();
                let want: Vec<&Value> = want.as_array().ok_or("not a list")?.iter().collect();
                if got != want {
                    return Err(format!("{key}: got {got:?}, want {want:?}"));
                }
            }
            "thoughtSignatures" => {
                // Gemini's signatures in wire order, on whichever blocks carry them.
                let got: Vec<&Value> = message["content"]
                    .as_array()
                    .ok_or("no content")?
                    .iter()
                    .filter_map(|b| b.get("signature").filter(|v| !v.is_null()))
                    .collect();
                let want: Vec<&Value> = want.as_array().ok_or("not a list")?.iter().collect();
                if got != want {
                    return Err(format!("{key}: got {got:?}, want {want:?}"));
                }
            }
            "textContains" | "textNotContains" | "reasoningContains" => {
                let hay = if key == "reasoningContains" { reasoning } else { text };
                for needle in want.as_array().ok_or("not a list")? {
                    let needle = needle.as_str().unwrap_or_default();
                    if hay.contains(needle) == (key == "textNotContains") {
                        return Err(format!("{key}: {needle:?} in {hay:?}"));
                    }
                }
            }
            "reasoningNonEmpty" => {
                if reasoning.is_empty() == want.as_bool().unwrap_or(true) {
                    return Err(format!("reasoningNonEmpty: reasoning is {reasoning:?}"));
                }
            }
            other => return Err(format!("the checker does not know the expect key {other:?}")),
        }
    }
    Ok(())
}

//! Generated agents and messages: the body `build_request` writes as text is the `Value` body of
//! `build_chat_args_json` serialised, byte for byte, and both fail with the same error.

use serde_json::{json, Value};

use super::text_body;
use llm_wire::build_chat_args_json;

/// xorshift64*, so a failing case can be replayed from its seed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }

    fn pick(&mut self, pool: &[Value]) -> Value {
        pool[self.below(pool.len())].clone()
    }

    /// Some of `pool`, in random order, possibly none.
    fn some(&mut self, pool: &[Value]) -> Vec<Value> {
        (0..self.below(4)).map(|_| self.pick(pool)).collect()
    }
}

fn numbers() -> Vec<Value> {
    ["0", "1", "0.1", "0.7", "1e-7", "0.000001", "1.5e300", "-2", "4096", "123456789012345678", "1e21", "2.5"]
        .iter()
        .map(|n| serde_json::from_str(n).unwrap())
        .collect()
}

fn model(rng: &mut Rng) -> Value {
    let numbers = numbers();
    let mut options = serde_json::Map::new();
    for key in ["temperature", "maxOutputTokens", "topP", "topK", "frequencyPenalty", "presencePenalty", "seed"] {
        if rng.below(3) == 0 {
            options.insert(key.into(), rng.pick(&numbers));
        }
    }
    if rng.below(3) == 0 {
        options.insert("stopSequences".into(), json!(["\n", "END", "é\"q"]));
    }
    if rng.below(3) == 0 {
        options.insert("allowMultipleToolCalls".into(), json!(rng.below(2) == 0));
    }
    if rng.below(2) == 0 {
        let extras = [
            json!({"n": 2}),
            json!({"max_tokens": 10, "temperature": 2}),
            json!({"stream_options": {"x": 1}, "user": "u", "z\u{1}": [1.25, null, true]}),
            json!({"model": "other", "messages": [], "dimensions": 256}),
            json!({"metadata": {"b": 1, "a": {"d": 0.5, "c": "x"}}}),
        ];
        options.insert("additionalProperties".into(), rng.pick(&extras));
    }
    let provider = ["openai", "anthropic", "groq", "azure"][rng.below(4)];
    let api_type = ["chat", "responses", "embedding", "image"][rng.below(4)];
    json!({"id": "m-1", "provider": provider, "apiType": api_type, "options": options})
}

fn tools(rng: &mut Rng) -> Vec<Value> {
    let params = json!([
        {"name": "city", "kind": "string", "required": true, "description": "where"},
        {"name": "unit", "kind": "string", "enumValues": ["c", "f"]},
        {"name": "n", "kind": "integer"},
        {"name": "tags", "kind": "array", "items": {"kind": "object", "properties": [{"name": "k", "kind": "float"}]}},
        {"name": "opts", "kind": "object"},
    ]);
    let pool = [
        json!({"kind": "function", "name": "weather", "description": "d", "parameters": params}),
        json!({"kind": "function", "name": "strict_one", "strict": true, "parameters": params,
               "bindings": {"city": {"input": "c"}}}),
        json!({"kind": "function", "name": "bound", "parameters": params, "bindings": [{"name": "city", "input": "c"}]}),
        json!({"kind": "prompty", "name": "child", "child": {"description": "cd", "inputs": params}}),
        json!({"kind": "mcp", "name": "srv", "allowedTools": ["a"], "tools": [
            {"name": "a", "description": "A", "inputSchema": {"type": "object", "properties": {"x": {"type": "number"}}}},
            {"name": "b"}]}),
        json!({"kind": "mcp", "name": "srv2", "strict": true, "tools": {"tools": [
            {"name": "c", "inputSchema": {"type": "object", "properties": {"y": {"type": "string"}}, "required": ["y"]}}]}}),
        json!({"kind": "openapi", "name": "api", "specification": {"paths": {"/users/{id}": {"get": {
            "parameters": [{"name": "id", "in": "path", "schema": {"type": "string"}}], "summary": "get"}}}}}),
        json!({"kind": "custom_kind", "name": "c1", "parametersSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}),
        json!({"kind": "mcp", "name": "srv3", "strict": true, "bindings": {"a": {"input": "i"}}, "tools": [{"name": "s",
            "inputSchema": {"type": "object", "required": ["b", "zz", "b"], "properties": {
                "a": {"type": "string", "enum": ["x"]}, "b": {"type": ["number"]}, "c": {"anyOf": [{"type": "string"}]},
                "d": {"type": "object", "properties": {"e": {"type": "integer", "enum": [1, null]}}},
                "f": {"items": {"type": "object"}}, "g": {"enum": [null, 1]}, "h": {"type": 5},
                "i": {"type": ["string", "null"]}, "j": {"type": "null"}},
            "$defs": {"X": {"properties": {}}}, "definitions": {"Y": {"type": "object", "properties": 5}},
            "allOf": [{"type": "object"}], "oneOf": [{"properties": {"k": {}}}]}}]}),
        json!({"kind": "custom_kind", "name": "c2", "strict": true, "bindings": {"q": {"input": "x"}},
            "parametersSchema": {"type": "object", "properties": {"q": {"type": "string"}, "r": {"type": "string"}}, "required": ["q"]}}),
        json!({"kind": "custom_kind", "name": "c3", "bindings": {"q": {"input": "x"}},
            "parametersSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}}),
        json!({"kind": "mcp", "name": "srv4", "bindings": {"x": {}}, "tools": [{"name": "t",
            "inputSchema": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}}]}),
        json!({"kind": "openapi", "name": "api2", "strict": true, "bindings": {"id": {"input": "i"}}, "specification": {
            "components": {"schemas": {"User": {"type": "object", "properties": {"name": {"type": "string"},
                "friend": {"$ref": "#/components/schemas/User"}}, "required": ["name"]}}},
            "paths": {"/users/{id}": {"parameters": [{"name": "id", "in": "path"}], "post": {"operationId": "make",
                "parameters": [{"name": "q", "in": "query", "required": true, "description": "the q",
                    "schema": {"type": "integer"}}, {"name": "c", "in": "cookie"}],
                "requestBody": {"required": true, "content": {"application/json": {"schema": {
                    "$ref": "#/components/schemas/User", "description": "a user"}}}}},
                "put": {"requestBody": {"required": true, "content": {"text/json": {"schema": {"type": "array",
                    "items": {"$ref": "#/components/schemas/User"}}}}}}}}}}),
    ];
    rng.some(&pool)
}

fn messages(rng: &mut Rng) -> Vec<Value> {
    let pool = [
        json!({"role": "system", "content": "be brief"}),
        json!({"role": "developer", "content": [{"kind": "text", "value": "dev"}]}),
        json!({"role": "user", "content": "hi \"there\"\n\u{7f}é"}),
        json!({"role": "user", "content": [{"kind": "text", "value": ""}, {"kind": "text", "value": "look"},
            {"kind": "image", "value": "https://x/y.png", "detail": "high"}]}),
        json!({"role": "user", "content": [{"kind": "image", "value": "data:image/png;base64,iVBORw0KGgo"},
            {"kind": "file", "value": "data:application/pdf;base64,JVBERi0"}, {"kind": "file", "value": "https://f"}]}),
        json!({"role": "user", "content": [{"kind": "audio", "value": "data:audio/wav;base64,AAA"}]}),
        json!({"role": "user", "content": [{"kind": "image", "value": "R0lGODlh"}], "metadata": {"name": "u", "x": 1.5}}),
        json!({"role": "assistant", "content": "", "metadata": {"tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"P\"}"}}]}}),
        json!({"role": "assistant", "content": "calling", "metadata": {"tool_calls": [
            {"id": "c2", "name": "weather", "arguments": {"b": 2, "a": 1}}],
            "anthropic_thinking": [{"type": "thinking", "thinking": "t", "signature": "s"}]}}),
        json!({"role": "assistant", "content": "", "metadata": {"tool_calls": []}}),
        json!({"role": "tool", "content": "sunny", "metadata": {"tool_call_id": "c1"}}),
        json!({"role": "tool", "content": [{"kind": "text", "value": "see"}, {"kind": "image", "value": "https://i"}],
            "metadata": {"tool_call_id": "c2"}}),
        json!({"role": "tool", "content": "out", "metadata": {"tool_call_id": "c3", "responses_function_call":
            {"type": "function_call", "call_id": "c3", "name": "f", "arguments": "{}"}}}),
        json!({"role": "tool", "content": "no id"}),
        json!({"role": "assistant", "content": "x", "metadata": {"tool_calls": [{"id": "c4", "name": "f", "arguments": "[1]"}]}}),
        json!({"role": "user", "content": [{"kind": "audio", "value": "AAA"}]}),
    ];
    (0..rng.below(6)).map(|_| rng.pick(&pool)).collect()
}

#[test]
fn generated_inputs_build_the_same_body_as_text_and_as_value() {
    let (mut built, mut failed) = (0, 0);
    // FNV-1a over every outcome: the bodies and errors of the `Value` builders these replaced.
    let mut digest = 0xcbf2_9ce4_8422_2325u64;
    let mut add = |text: &str| {
        for b in text.bytes().chain([0]) {
            digest = (digest ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    for seed in 1..=3000u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let mut agent = json!({"model": model(&mut rng), "tools": tools(&mut rng)});
        if rng.below(3) == 0 {
            agent["outputs"] =
                json!([{"name": "answer", "kind": "string"}, {"name": "score", "kind": "float", "required": true}]);
        }
        let messages = Value::Array(messages(&mut rng));
        let Some(text) = text_body(&agent, &messages) else { continue };
        match (build_chat_args_json(&agent.clone().into(), &messages.into()), text) {
            (Ok(value), Ok(text)) => {
                assert_eq!(text, value.to_string(), "seed {seed}");
                add(&text);
                built += 1;
            }
            (Err(value_error), Err(text_error)) => {
                assert_eq!(text_error, value_error, "seed {seed}");
                add(&format!("{text_error:?}"));
                failed += 1;
            }
            (value, text) => panic!("seed {seed}: {value:?} but {text:?}"),
        }
    }
    assert!(built > 1000 && failed > 100, "{built} built, {failed} failed");
    // Changes only when a body or an error changes: then check the change and update it.
    assert_eq!(digest, 0xd883_0cb5_1938_9c8d, "{built} built, {failed} failed");
}

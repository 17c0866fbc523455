//! Differential check for size work on the request side (run by hand, ignored otherwise):
//! `DIFF_OUT=/tmp/a.txt cargo test --release --test size_req_diff -- --ignored` writes one hash
//! line per input: rich agents, message lists, request options and tool registrations, plus
//! every conformance `toRequest` input, each with every JSON node replaced by other values or
//! deleted, through Agent/Message parsing, build_request, build_chat_args_json,
//! gen_ai_attributes, RequestOptions::from_json and register_tool. Run on a copy of the tree
//! before a change and after, and `cmp` the two files.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::io::Write as _;

use llm_wire::request::RequestOptions;
use llm_wire::{build_chat_args_json, build_request, gen_ai_attributes, register_tool, Agent, Message};
use serde_json::{json, Value};

mod common;
use common::mutate::{delete, node, paths};

fn replacements() -> Vec<Value> {
    vec![
        json!(null),
        json!(true),
        json!(0),
        json!(-1.5),
        json!(18446744073709551615u64),
        json!("x"),
        json!(""),
        json!("chat"),
        json!("responses"),
        json!("anthropic"),
        json!("string"),
        json!("object"),
        json!("array"),
        json!("image"),
        json!("tool"),
        json!("assistant"),
        json!([]),
        json!({}),
        json!([null]),
        json!([{}]),
        json!(["a", 1]),
        json!({"kind": "text", "value": "t"}),
        json!({"name": "p", "kind": "array", "items": {"kind": "string"}}),
        json!({"type": "object", "properties": {"a": {"type": "string"}}}),
        json!({"$ref": "#/components/schemas/Pet"}),
    ]
}

/// The value and its mutations: every node replaced by each replacement, and deleted.
fn mutations(base: &Value) -> Vec<Value> {
    let mut out = vec![base.clone()];
    let ps = paths(base);
    for p in &ps {
        for r in replacements() {
            let mut v = base.clone();
            *node(&mut v, p) = r;
            out.push(v);
        }
        let mut v = base.clone();
        delete(&mut v, p);
        out.push(v);
    }
    out
}

fn messages() -> Vec<Value> {
    let call = json!({"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\"a\": [1, 2.50]}"}});
    let call2 = json!({"id": "c2", "type": "function", "function": {"name": "g", "arguments": ""}});
    let bad = json!({"id": "c3", "type": "function", "function": {"name": "g", "arguments": "[1]"}});
    vec![
        json!([{"role": "user", "content": "Hi \"there\"\n"}]),
        json!([{"role": "system", "content": "S1"}, {"role": "developer", "content": [{"kind": "text", "value": "D"}]}, {"role": "system", "content": ""}, {"role": "user", "content": "u"}]),
        json!([{"role": "user", "content": [{"kind": "text", "value": "a"}, {"kind": "image", "value": "https://x/y.png", "detail": "high"}, {"kind": "image", "value": "data:image/png;base64,iVBORw0KGgo"}, {"kind": "file", "value": "data:application/pdf;base64,JVBERi0"}, {"kind": "file", "value": "https://x/f.pdf"}, {"kind": "text", "value": ""}]}]),
        json!([{"role": "user", "content": [{"kind": "image", "value": "iVBORw0KGgoAAA"}, {"kind": "image", "value": "/9j/AAA", "mediaType": "image/jpeg"}, {"kind": "image", "value": "AAAA"}]}]),
        json!([{"role": "user", "content": [{"kind": "audio", "value": "data:audio/wav;base64,AAA"}, {"kind": "audio", "value": "AAA", "mediaType": "audio/mpeg"}, {"kind": "audio", "value": "AAA"}]}]),
        json!([{"role": "user", "content": "q"}, {"role": "assistant", "content": "", "metadata": {"tool_calls": [call, call2]}}, {"role": "tool", "content": "r1", "metadata": {"tool_call_id": "c1"}}, {"role": "tool", "content": [{"kind": "text", "value": "r2"}, {"kind": "image", "value": "https://i"}], "metadata": {"tool_call_id": "c2"}}, {"role": "user", "content": "next"}]),
        json!([{"role": "assistant", "content": "x", "metadata": {"tool_calls": [call, bad], "anthropic_thinking": [{"type": "thinking", "thinking": "t", "signature": "s"}], "extra": {"z": 1, "a": [true, null]}, "role": "no"}}]),
        json!([{"role": "tool", "content": "r"}, {"role": "tool", "content": "r", "metadata": {"responses_function_call": {"type": "function_call", "call_id": "c9", "name": "f", "arguments": "{}"}}}, {"role": "tool", "content": "r2", "metadata": {"tool_call_id": "c8", "responses_function_call": {"type": "function_call", "call_id": "c9", "name": "f", "arguments": "{}"}}}, {"role": "tool", "content": "r3", "metadata": {"responses_function_call": {"type": "function_call"}}}]),
        json!([{"role": "assistant", "content": [{"kind": "text", "value": "o"}, {"kind": "text", "value": "p"}]}, {"role": "user", "content": [{"kind": "text", "value": "i"}, {"kind": "file", "value": "file-123"}]}]),
        json!([]),
    ]
}

fn tools() -> Vec<Value> {
    let spec = json!({"openapi": "3.0.0", "paths": {"/pets/{petId}": {"parameters": [{"name": "petId", "in": "path", "schema": {"type": "integer"}}],
        "get": {"operationId": "getPet", "summary": "Get", "parameters": [{"name": "v", "in": "query", "required": true, "schema": {"type": "boolean"}}, {"$ref": "#/components/parameters/L"}]},
        "put": {"description": "Put it", "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}}}}}},
        "components": {"parameters": {"L": {"name": "limit", "in": "query", "schema": {"type": "integer"}}},
            "schemas": {"Pet": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}, "self": {"$ref": "#/components/schemas/Pet"}, "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}}}}}});
    let props = json!([{"name": "city", "kind": "string", "required": true, "description": "d"}, {"name": "n", "kind": "integer", "enumValues": [1, 2], "default": 1},
        {"name": "o", "kind": "object", "properties": [{"name": "x", "kind": "float", "required": true}]}, {"name": "arr", "kind": "array", "items": {"kind": "object"}}, {"name": "b", "kind": "boolean"}, {"name": "e", "kind": "object"}]);
    vec![
        json!([{"kind": "function", "name": "f", "description": "D", "parameters": props}]),
        json!([{"kind": "function", "name": "f", "strict": true, "parameters": props, "bindings": {"city": {"input": "c"}}}]),
        json!([{"kind": "mcp", "name": "m", "tools": [{"name": "a", "description": "A", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}, "r": {"anyOf": [{"type": "string"}]}}, "required": ["q"]}}, {"name": "b"}], "allowedTools": ["a", "b"], "strict": true},
               {"kind": "mcp", "name": "m2", "tools": {"tools": [{"name": "c", "inputSchema": {"type": "object", "properties": {"q": {"type": ["string", "null"], "enum": ["x"]}, "p": {"$defs": {"D": {"type": "object"}}}}}}]}, "bindings": [{"name": "q", "input": 1}]}]),
        json!([{"kind": "openapi", "name": "api", "specification": spec, "strict": true}, {"kind": "openapi", "name": "api2", "specification": spec.to_string()}]),
        json!([{"kind": "weather", "name": "w", "parametersSchema": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}, "strict": true}, {"kind": "reg", "name": "r"}, {"kind": "reg2", "name": "r2", "description": "own"}]),
        json!([{"kind": "prompty", "name": "p", "path": "x.prompty", "child": {"description": "C", "inputs": {"properties": [{"name": "q", "kind": "string"}]}}}, {"kind": "nothing", "name": "n"}]),
    ]
}

fn options() -> Vec<Value> {
    vec![
        json!({"temperature": 0.5, "maxOutputTokens": 100, "topP": 1, "topK": 3, "frequencyPenalty": -1.5e-3, "presencePenalty": 0, "seed": 7, "stopSequences": ["a", "\n"], "allowMultipleToolCalls": false, "additionalProperties": {"max_tokens": 5, "zz": {"b": 1, "a": 2}, "model": "no"}}),
        json!({"allowMultipleToolCalls": true}),
    ]
}

struct Out {
    lines: Vec<u64>,
    show: Option<usize>,
}

impl Out {
    fn push(&mut self, input: &str, output: String) {
        let mut h = DefaultHasher::new();
        input.hash(&mut h);
        output.hash(&mut h);
        if self.show == Some(self.lines.len()) {
            eprintln!("INPUT {input}\nOUTPUT {output}");
        }
        self.lines.push(h.finish());
    }
}

fn err(e: &llm_wire::Error) -> String {
    format!("ERR {:?} {:?} {} {:?}", e.code, e.path, e.message, e)
}

fn run(out: &mut Out, agent: &Value, msgs: &Value, ropts: &Value) {
    let input = format!("{agent} {msgs} {ropts}");
    let a: llm_wire::Value = agent.clone().into();
    let m: llm_wire::Value = msgs.clone().into();
    let mut res = String::new();
    match build_chat_args_json(&a, &m) {
        Ok(v) => res.push_str(&v.to_string()),
        Err(e) => res.push_str(&err(&e)),
    }
    res.push('|');
    let parsed = Agent::from_json(&a);
    let pm = Message::list_from_json(&m);
    let po = RequestOptions::from_json(&ropts.clone().into());
    match (&parsed, &pm, &po) {
        (Ok(agent), Ok(msgs), Ok(o)) => {
            res.push_str(&format!("{agent:?}|{o:?}|"));
            match build_request(agent, msgs, o) {
                Ok(r) => {
                    res.push_str(&format!("{} {} {:?} {}", r.url, r.method, r.headers, r.body));
                    let req: llm_wire::Value = serde_json::from_str::<Value>(&r.body).unwrap().into();
                    let resp: llm_wire::Value = json!({"choices": [{"finish_reason": "stop"}], "usage": {"prompt_tokens": 3, "completion_tokens": 4}, "id": "i", "model": "mm"}).into();
                    res.push_str(&gen_ai_attributes(agent, &req, Some(&resp)).to_string());
                    let wrapped: llm_wire::Value = json!({"url": r.url, "body": r.body}).into();
                    res.push_str(&gen_ai_attributes(agent, &wrapped, None).to_string());
                }
                Err(e) => res.push_str(&err(&e)),
            }
        }
        _ => {
            res.push_str(&format!(
                "{:?} {:?} {:?}",
                parsed.as_ref().err().map(err),
                pm.as_ref().err().map(err),
                po.as_ref().err().map(err)
            ));
        }
    }
    out.push(&input, res);
}

#[test]
#[ignore]
fn dump() {
    register_tool(
        "reg",
        &json!({"description": "R", "parameters": {"type": "object", "properties": {"z": {"type": "number"}}}}).into(),
    )
    .unwrap();
    register_tool("reg2", &json!({"parameters": [{"name": "q", "kind": "string", "required": true}]}).into()).unwrap();
    let show = std::env::var("DIFF_SHOW").ok().map(|s| s.parse().unwrap());
    let mut out = Out { lines: Vec::new(), show };
    let ropts =
        json!({"apiKey": "k", "baseUrl": "https://b/", "stream": true, "headers": {"X-A": "1", "authorization": "z"}});
    let outs = json!([{"name": "x", "kind": "object", "properties": [{"name": "y", "kind": "string", "enumValues": ["a"]}]}, {"name": "z", "kind": "array", "items": {"kind": "integer"}}]);
    let targets = [
        ("openai", "chat"),
        ("openai", "responses"),
        ("openai", "embedding"),
        ("openai", "image"),
        ("anthropic", "chat"),
        ("groq", "chat"),
        ("azure", "responses"),
        ("", ""),
    ];
    // Full cross product, unmutated.
    for (provider, api) in targets {
        for o in options() {
            for t in tools() {
                for m in messages() {
                    for outputs in [json!([]), outs.clone()] {
                        let agent = json!({"name": "n", "model": {"id": "m", "provider": provider, "apiType": api, "options": o}, "tools": t, "outputs": outputs, "instructions": "Be"});
                        run(&mut out, &agent, &m, &json!({"apiKey": "k"}));
                    }
                }
            }
        }
    }
    // Mutated agents (one tool set each) against a rich message list.
    let rich = messages()[5].clone();
    for (provider, api) in [
        ("openai", "chat"),
        ("openai", "responses"),
        ("anthropic", "chat"),
        ("openai", "embedding"),
        ("openai", "image"),
    ] {
        for t in tools() {
            let agent = json!({"model": {"id": "m", "provider": provider, "apiType": api, "options": options()[0]}, "tools": t, "outputs": outs});
            for a in mutations(&agent) {
                run(&mut out, &a, &rich, &ropts);
            }
        }
        // Mutated messages.
        let agent = json!({"model": {"id": "m", "provider": provider, "apiType": api}, "tools": tools()[0]});
        for m in messages() {
            for mm in mutations(&m) {
                run(&mut out, &agent, &mm, &json!(null));
            }
        }
        for ro in mutations(&ropts) {
            run(&mut out, &json!({"model": {"id": "m", "provider": provider, "apiType": api}}), &messages()[0], &ro);
        }
    }
    // Conformance vectors, mutated.
    let all: Value = serde_json::from_str(include_str!("conformance/prompty-vectors.json")).unwrap();
    for entry in all["vectors"].as_array().unwrap() {
        if entry["operation"] != "toRequest" {
            continue;
        }
        let input = &entry["vector"]["input"];
        let agent = json!({"model": {"id": input["model_id"], "provider": input["provider"], "apiType": input["apiType"], "options": input["options"]}, "tools": input["tools"], "outputs": input["outputs"]});
        for a in mutations(&agent) {
            run(&mut out, &a, &input["messages"], &json!({}));
        }
        for m in mutations(&input["messages"]) {
            run(&mut out, &agent, &m, &json!({}));
        }
    }
    // register_tool on mutated definitions.
    let defs = [
        json!({"description": "R", "parameters": {"type": "object"}}),
        json!({"parameters": [{"name": "q", "kind": "string", "required": true}, {"name": "o", "kind": "object", "properties": [{"name": "i", "kind": "integer"}]}]}),
    ];
    for d in &defs {
        for dm in mutations(d) {
            let r = register_tool("tmp", &dm.clone().into());
            let agent: llm_wire::Value = json!({"model": "m", "tools": [{"kind": "tmp", "name": "t"}]}).into();
            let body = build_chat_args_json(&agent, &json!([]).into());
            out.push(
                &dm.to_string(),
                format!("{:?} {:?}", r.as_ref().err().map(err), body.map(|b| b.to_string()).map_err(|e| err(&e))),
            );
        }
        let r = register_tool("", &d.clone().into());
        out.push("empty", format!("{:?}", r.err().map(|e| err(&e))));
    }
    eprintln!("inputs: {}", out.lines.len());
    let text: String = out.lines.iter().map(|h| format!("{h:016x}\n")).collect();
    std::fs::File::create(std::env::var("DIFF_OUT").unwrap()).unwrap().write_all(text.as_bytes()).unwrap();
}

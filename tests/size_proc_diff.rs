//! Differential check for size work on the response side (run by hand, ignored otherwise):
//! `DIFF_OUT=/tmp/a.txt cargo test --release --test size_proc_diff -- --ignored` writes one hash
//! line per input: every fixture and conformance body, their truncations, every JSON node
//! replaced by other values, deleted or doubled (and with `DIFF_BYTES=1` random byte edits),
//! each through `process` with ten agents (span included), `to_message` (with its span,
//! continuity message, tool arguments and structured output), plus structured-output texts.
//! Run it on a copy of the tree before a change (`git archive REV | tar -x -C DIR`, this file
//! copied in) and after, and `cmp` the two files; `DIFF_SHOW=N` prints input N and its outputs.

use std::collections::hash_map::DefaultHasher;
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use std::io::Write as _;

use llm_wire::model::Property;
use llm_wire::{
    parse_structured_output, parse_tool_arguments, process_with, to_message, Agent, ProcessOptions, StructuredOptions,
};
use serde_json::{json, Value};

mod common;
use common::mutate::{delete, node, paths};

fn agent(provider: &str, api: &str, outputs: bool) -> Agent {
    let mut a = Agent::default();
    a.model.id = "m".into();
    a.model.provider = provider.into();
    a.model.api_type = api.into();
    if outputs {
        a.outputs = Property::list_from_json(&json!([{"name": "x", "kind": "object"}]).into(), "outputs").unwrap();
    }
    a
}

/// Every kind, required, enums, nested objects and arrays, an odd key and a custom kind.
fn schema() -> Vec<Property> {
    let schema = json!([
        {"name": "city", "kind": "string", "required": true},
        {"name": "temperature", "kind": "float"},
        {"name": "count", "kind": "integer"},
        {"name": "unit", "kind": "string", "enumValues": ["c", "f", 1]},
        {"name": "items", "kind": "array", "items": {"name": "", "kind": "object", "properties": [
            {"name": "name", "kind": "string", "required": true}, {"name": "qty", "kind": "integer"}]}},
        {"name": "meta", "kind": "object"},
        {"name": "ok", "kind": "boolean"},
        {"name": "odd key", "kind": "float"},
        {"name": "ints", "kind": "array", "items": {"name": "", "kind": "integer"}},
        {"name": "any", "kind": "object"},
    ]);
    let mut properties = Property::list_from_json(&schema.clone().into(), "outputs").unwrap();
    // Kinds only the Rust API can give: `number` (a float) and one the parser does not know.
    properties[7].kind = "number".into();
    properties[9].kind = "custom".into();
    properties
}

fn replacements() -> Vec<Value> {
    vec![
        json!(null),
        json!(true),
        json!(false),
        json!(0),
        json!(-1),
        json!(2.5),
        json!(12.0),
        json!(18446744073709551615u64),
        json!("x"),
        json!(""),
        json!("429"),
        json!([]),
        json!({}),
        json!([null]),
        json!([{}]),
        json!(["a", 1]),
        json!({"type": "text", "text": "t"}),
        json!({"type": "message", "content": [{"type": "output_text", "text": "q"}]}),
        json!({"message": "m", "type": "overloaded_error", "code": 500}),
        json!("{\"a\":1}"),
    ]
}

fn bodies() -> Vec<String> {
    let mut texts = Vec::new();
    let mut files = Vec::new();
    fn walk(dir: &std::path::Path, files: &mut Vec<std::path::PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, files);
            } else if p.extension().is_some_and(|e| e == "json") {
                files.push(p);
            }
        }
    }
    walk(std::path::Path::new("tests/fixtures"), &mut files);
    for f in files {
        texts.push(std::fs::read_to_string(f).unwrap());
    }
    let all: Value = serde_json::from_str(include_str!("conformance/prompty-vectors.json")).unwrap();
    for entry in all["vectors"].as_array().unwrap() {
        let input = &entry["vector"]["input"];
        if let Some(r) = input.get("response") {
            texts.push(match r {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            });
        }
    }
    for extra in [
        "[1] x", "1 2", "\"s\" x", "{} x", "{\"a\":1}}", "", " ", "null", "[", "{\"choices\": []} extra",
        "{\"type\":\"message\"} [", "[{\"type\":\"message\"}]", "{\"model\": 1e400, \"usage\": {\"input_tokens\": 3}}",
        "{\"data\": [{\"url\": \"u\", \"b64_json\": \"b\"}, {\"url\": \"\", \"b64_json\": \"b\"}, 3, {\"url\": 1}], \"model\": \"m\"}",
        "{\"data\": [{\"index\": 1e400, \"embedding\": [1]}], \"usage\": {\"prompt_tokens\": 1e400}}",
        "{\"data\": [{\"index\": 2, \"embedding\": \"AACAPw==\"}, {\"index\": 1, \"embedding\": [1, 2]}, {\"embedding\": \"!!\"}]}",
        "{\"output\": [\"x\", {\"type\": \"message\", \"content\": [1]}, {\"type\": \"reasoning\", \"summary\": 3}], \"status\": \"incomplete\", \"incomplete_details\": {\"reason\": \"max_output_tokens\"}}",
        "{\"type\": \"message\", \"content\": [1, {\"type\": \"text\", \"citations\": 1}, {\"type\": \"tool_use\", \"input\": {\"a\" : [1, 2]}}], \"stop_reason\": 5}",
    ] {
        texts.push(extra.to_owned());
    }
    texts
}

fn inputs() -> Vec<String> {
    let mut out = Vec::new();
    let reps = replacements();
    for text in bodies() {
        out.push(text.clone());
        // Truncations and byte damage of the raw text.
        let step = (text.len() / 23).max(1);
        let mut i = 0;
        while i < text.len() {
            if text.is_char_boundary(i) {
                out.push(text[..i].to_owned());
                let mut s = text.clone();
                s.insert(i, ',');
                out.push(s);
            }
            i += step;
        }
        // Seeded random byte edits (the same on every run).
        if std::env::var("DIFF_BYTES").is_ok() {
            let mut seed: u64 = text.len() as u64 ^ 0x9e37_79b9_7f4a_7c15;
            let mut next = move || {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (seed >> 33) as usize
            };
            let alphabet = b"\"{}[],:0a\\ -.e1tnu";
            for _ in 0..300 {
                let mut bytes = text.clone().into_bytes();
                for _ in 0..1 + next() % 3 {
                    if bytes.is_empty() {
                        break;
                    }
                    let at = next() % bytes.len();
                    match next() % 3 {
                        0 => {
                            bytes.remove(at);
                        }
                        1 => bytes.insert(at, alphabet[next() % alphabet.len()]),
                        _ => bytes[at] = alphabet[next() % alphabet.len()],
                    }
                }
                if let Ok(s) = String::from_utf8(bytes) {
                    out.push(s);
                }
            }
        }
        let Ok(value) = serde_json::from_str::<Value>(&text) else { continue };
        let all = paths(&value);
        for p in &all {
            for r in &reps {
                let mut v = value.clone();
                *node(&mut v, p) = r.clone();
                out.push(v.to_string());
            }
            if !p.is_empty() {
                let mut v = value.clone();
                delete(&mut v, p);
                out.push(v.to_string());
                // Duplicate an array element / wrap in array.
                let mut v = value.clone();
                let n = node(&mut v, p);
                let old = n.take();
                *n = Value::Array(vec![old.clone(), old]);
                out.push(v.to_string());
            }
        }
    }
    out
}

fn structured_inputs() -> Vec<String> {
    let base = json!({"city": "Paris", "temperature": 21.5, "count": 3, "unit": "c",
        "items": [{"name": "a", "qty": 1}, {"name": "b"}], "meta": {"z": 1}, "ok": true,
        "odd key": 1, "ints": [1, 2.0, 3], "any": [1]});
    let mut out = vec![base.to_string()];
    let all = paths(&base);
    let mut reps = replacements();
    reps.push(json!(1.5));
    reps.push(json!(1e300));
    reps.push(json!(9007199254740993u64));
    reps.push(json!(-9007199254740993i64));
    reps.push(json!("f"));
    reps.push(json!({"name": "n", "qty": 2}));
    for p in &all {
        for r in &reps {
            let mut v = base.clone();
            *node(&mut v, p) = r.clone();
            out.push(v.to_string());
        }
        let mut v = base.clone();
        delete(&mut v, p);
        out.push(v.to_string());
    }
    let damaged = [
        "```json\n{\"city\": \"x\",}\n```",
        "Here: {\"city\": \"x\", \"items\": [{\"name\": \"a\",},],} done",
        "{\"city\": \"x\"} {\"city\": \"y\"}",
        "no object",
        "```\n{\"city\": \"a\\\"}\"}\n```",
        "prose \"quote {\"city\": \"q\"}",
        "{\"city\": \"x\", \"extra\": 1}",
        "  {\"city\": \"x\"}  ",
        "[1]",
        "",
        "{",
        "{\"city\": \"x\", \"unit\": 1.0}",
        "{\"city\": \"x\", \"count\": 1e3}",
        "{\"city\": \"x\", \"count\": 3.5}",
        "{\"city\": null}",
        "{\"city\": \"x\", \"items\": [null]}",
        "{\"city\": \"x\", \"ünï\": 1}",
        "{\"city\": \"x\", \"a.b\": 1}",
        "{\"city\": \"x\", \"_$a1\": 1}",
        "{\"city\": \"x\", \"1a\": 1}",
        "{\"city\": \"x\", \"\": 1}",
    ];
    for d in damaged {
        out.push(d.to_owned());
    }
    out
}

fn err(e: &llm_wire::Error) -> String {
    format!("ERR {:?} {:?} {:?} {:?}", e.code, e.message, e.path, e.provider)
}

fn run_body(text: &str, out: &mut String) {
    let agents = [
        agent("openai", "chat", false),
        agent("openai", "", true),
        agent("", "", false),
        agent("anthropic", "", false),
        agent("anthropic", "responses", true),
        agent("openai", "responses", false),
        agent("azure", "responses", true),
        agent("openai", "embedding", false),
        agent("openai", "image", false),
        agent("openai", "bogus", false),
    ];
    for a in &agents {
        let mut span = None;
        let mut keep = |s| span = Some(s);
        let r = process_with(a, text, ProcessOptions { on_span: Some(&mut keep) });
        match &r {
            Ok(v) => {
                let _ = writeln!(out, "P {v:?} {}", serde_json::to_string(v).unwrap());
            }
            Err(e) => {
                let _ = writeln!(out, "P {}", err(e));
            }
        }
        let _ = writeln!(out, "S {span:?}");
        if let Ok(v) = serde_json::to_string(&span) {
            let _ = writeln!(out, "SJ {v}");
        }
    }
    for a in [None, Some(&agents[0]), Some(&agents[3]), Some(&agents[5]), Some(&agents[7])] {
        match to_message(text, a) {
            Ok(m) => {
                let _ = writeln!(out, "M {m:?}");
                let _ = writeln!(out, "MJ {}", serde_json::to_string(&m).unwrap());
                let _ = writeln!(out, "MS {:?}", llm_wire::process::message_span(a, &m));
                let _ = writeln!(out, "MC {:?}", m.to_message());
                match parse_tool_arguments(&m.tool_calls) {
                    Ok(actions) => {
                        let _ = writeln!(out, "A {actions:?} {}", serde_json::to_string(&actions).unwrap());
                    }
                    Err(e) => {
                        let _ = writeln!(out, "A {}", err(&e));
                    }
                }
                for lenient in [false, true] {
                    let r = parse_structured_output(&m.text, &schema(), StructuredOptions { lenient });
                    let _ = writeln!(out, "O {:?}", r.map_err(|e| err(&e)));
                }
            }
            Err(e) => {
                let _ = writeln!(out, "M {}", err(&e));
            }
        }
    }
}

fn run_structured(text: &str, out: &mut String) {
    for lenient in [false, true] {
        let r = parse_structured_output(text, &schema(), StructuredOptions { lenient });
        let _ = writeln!(out, "O {:?}", r.map_err(|e| err(&e)));
        let r = parse_structured_output(text, &[], StructuredOptions { lenient });
        let _ = writeln!(out, "O0 {:?}", r.map_err(|e| err(&e)));
    }
    let calls = [llm_wire::ToolCall { id: "c\"1".into(), name: "f".into(), arguments: text.into() }];
    let r = parse_tool_arguments(&calls);
    let _ = writeln!(out, "A {:?}", r.map_err(|e| err(&e)));
}

#[test]
#[ignore]
fn differential() {
    let show: Option<usize> = std::env::var("DIFF_SHOW").ok().and_then(|s| s.parse().ok());
    let path = std::env::var("DIFF_OUT").unwrap_or_else(|_| "/tmp/size_proc_diff.txt".into());
    let mut file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut n = 0usize;
    let mut out = String::new();
    let mut emit = |input: &str, out: &mut String, file: &mut std::io::BufWriter<std::fs::File>| {
        let mut h = DefaultHasher::new();
        out.hash(&mut h);
        if show == Some(n) {
            println!("INPUT {input}\n{out}");
        }
        writeln!(file, "{n} {:016x}", h.finish()).unwrap();
        n += 1;
        out.clear();
    };
    for text in inputs() {
        run_body(&text, &mut out);
        // The parsed-value entry too, for valid JSON.
        if let Ok(v) = serde_json::from_str::<Value>(&text).map(llm_wire::Value::from) {
            for a in [agent("openai", "chat", true), agent("anthropic", "", false), agent("", "responses", false)] {
                let _ = writeln!(out, "PV {:?}", llm_wire::process(&a, &v).map_err(|e| err(&e)));
            }
            let _ = writeln!(out, "MV {:?}", to_message(&v, None).map_err(|e| err(&e)));
        }
        emit(&text, &mut out, &mut file);
    }
    for text in structured_inputs() {
        run_structured(&text, &mut out);
        emit(&text, &mut out, &mut file);
    }
    println!("{n} inputs");
}

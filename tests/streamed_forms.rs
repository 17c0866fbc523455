//! Anthropic and Responses bodies against their streamed form: every non-streamed fixture body
//! of those APIs is rebuilt as the event stream that carries the same answer, and `to_message`
//! of the body must equal `Accumulator::finish` of the stream (all but `usage.raw`, whose
//! object a stream splits across events).

use std::path::Path;

use llm_wire::model::Model;
use llm_wire::{to_message, Accumulator, AccumulatorOptions, Agent};
use serde_json::{json, Value};

fn bodies(dir: &str) -> Vec<(String, Value)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(dir);
    let mut out: Vec<(String, Value)> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json") && !p.to_string_lossy().ends_with(".expect.json"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap(),
            )
        })
        .filter(|(_, body): &(String, Value)| body.get("error").map_or(true, Value::is_null))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(!out.is_empty());
    out
}

fn pieces(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    chars.chunks(6).map(|c| c.iter().collect()).collect()
}

fn event(out: &mut String, name: &str, data: Value) {
    out.push_str(&format!("event: {name}\ndata: {data}\n\n"));
}

fn anthropic_stream(body: &Value) -> String {
    let mut s = String::new();
    let mut start = body.clone();
    start["content"] = json!([]);
    start["stop_reason"] = Value::Null;
    event(&mut s, "message_start", json!({"type": "message_start", "message": start}));
    for (index, block) in body["content"].as_array().unwrap().iter().enumerate() {
        let delta = |s: &mut String, d: Value| {
            event(s, "content_block_delta", json!({"type": "content_block_delta", "index": index, "delta": d}))
        };
        let open = |s: &mut String, b: Value| {
            event(s, "content_block_start", json!({"type": "content_block_start", "index": index, "content_block": b}))
        };
        match block["type"].as_str().unwrap() {
            "text" => {
                open(&mut s, json!({"type": "text", "text": ""}));
                for p in pieces(block["text"].as_str().unwrap()) {
                    delta(&mut s, json!({"type": "text_delta", "text": p}));
                }
                for c in block["citations"].as_array().into_iter().flatten() {
                    delta(&mut s, json!({"type": "citations_delta", "citation": c}));
                }
            }
            "thinking" => {
                open(&mut s, json!({"type": "thinking", "thinking": "", "signature": ""}));
                for p in pieces(block["thinking"].as_str().unwrap()) {
                    delta(&mut s, json!({"type": "thinking_delta", "thinking": p}));
                }
                delta(&mut s, json!({"type": "signature_delta", "signature": block["signature"]}));
            }
            "tool_use" => {
                open(&mut s, json!({"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}));
                for p in pieces(&block["input"].to_string()) {
                    delta(&mut s, json!({"type": "input_json_delta", "partial_json": p}));
                }
            }
            _ => open(&mut s, block.clone()),
        }
        event(&mut s, "content_block_stop", json!({"type": "content_block_stop", "index": index}));
    }
    let stop = json!({"stop_reason": body["stop_reason"], "stop_sequence": null});
    event(&mut s, "message_delta", json!({"type": "message_delta", "delta": stop, "usage": body["usage"]}));
    event(&mut s, "message_stop", json!({"type": "message_stop"}));
    s
}

fn responses_stream(body: &Value) -> String {
    let mut s = String::new();
    let mut created = body.clone();
    created["output"] = json!([]);
    created["status"] = json!("in_progress");
    event(&mut s, "response.created", json!({"type": "response.created", "response": created}));
    for (i, item) in body["output"].as_array().unwrap().iter().enumerate() {
        let id = &item["id"];
        let mut added = item.clone();
        match item["type"].as_str().unwrap() {
            "reasoning" => {
                added["summary"] = json!([]);
                event(
                    &mut s,
                    "response.output_item.added",
                    json!({"type": "response.output_item.added", "output_index": i, "item": added}),
                );
                for (j, part) in item["summary"].as_array().unwrap().iter().enumerate() {
                    for p in pieces(part["text"].as_str().unwrap()) {
                        event(
                            &mut s,
                            "response.reasoning_summary_text.delta",
                            json!({"type": "response.reasoning_summary_text.delta", "item_id": id, "output_index": i, "summary_index": j, "delta": p}),
                        );
                    }
                }
            }
            "message" => {
                added["content"] = json!([]);
                event(
                    &mut s,
                    "response.output_item.added",
                    json!({"type": "response.output_item.added", "output_index": i, "item": added}),
                );
                for (k, part) in item["content"].as_array().unwrap().iter().enumerate() {
                    let at = json!({"item_id": id, "output_index": i, "content_index": k});
                    let with = |mut v: Value| {
                        for (key, value) in at.as_object().unwrap() {
                            v[key] = value.clone();
                        }
                        v
                    };
                    event(
                        &mut s,
                        "response.content_part.added",
                        with(
                            json!({"type": "response.content_part.added", "part": {"type": "output_text", "text": "", "annotations": []}}),
                        ),
                    );
                    for p in pieces(part["text"].as_str().unwrap_or_default()) {
                        event(
                            &mut s,
                            "response.output_text.delta",
                            with(json!({"type": "response.output_text.delta", "delta": p})),
                        );
                    }
                    for (n, a) in part["annotations"].as_array().into_iter().flatten().enumerate() {
                        event(
                            &mut s,
                            "response.output_text.annotation.added",
                            with(
                                json!({"type": "response.output_text.annotation.added", "annotation_index": n, "annotation": a}),
                            ),
                        );
                    }
                    event(
                        &mut s,
                        "response.content_part.done",
                        with(json!({"type": "response.content_part.done", "part": part})),
                    );
                }
            }
            "function_call" => {
                added["arguments"] = json!("");
                event(
                    &mut s,
                    "response.output_item.added",
                    json!({"type": "response.output_item.added", "output_index": i, "item": added}),
                );
                for p in pieces(item["arguments"].as_str().unwrap()) {
                    event(
                        &mut s,
                        "response.function_call_arguments.delta",
                        json!({"type": "response.function_call_arguments.delta", "item_id": id, "output_index": i, "delta": p}),
                    );
                }
            }
            _ => event(
                &mut s,
                "response.output_item.added",
                json!({"type": "response.output_item.added", "output_index": i, "item": added}),
            ),
        }
        event(
            &mut s,
            "response.output_item.done",
            json!({"type": "response.output_item.done", "output_index": i, "item": item}),
        );
    }
    event(&mut s, "response.completed", json!({"type": "response.completed", "response": body}));
    s
}

fn without_raw_usage(message: &impl serde::Serialize) -> Value {
    let mut v = serde_json::to_value(message).unwrap();
    if let Some(usage) = v.get_mut("usage").and_then(Value::as_object_mut) {
        usage.remove("raw");
    }
    v
}

fn check(dir: &str, provider: &str, api_type: &str, stream_of: fn(&Value) -> String) {
    let agent = Agent {
        model: Model { provider: provider.into(), api_type: api_type.into(), ..Model::default() },
        ..Agent::default()
    };
    for (name, body) in bodies(dir) {
        let from_body = to_message(body.to_string().as_str(), Some(&agent)).unwrap();
        let stream = stream_of(&body);
        for size in [1, 13, stream.len()] {
            let mut acc =
                Accumulator::new(AccumulatorOptions { provider: Some(provider.into()), ..Default::default() });
            for piece in stream.as_bytes().chunks(size) {
                acc.push(piece).unwrap();
            }
            assert_eq!(
                without_raw_usage(&acc.finish()),
                without_raw_usage(&from_body),
                "{dir}/{name} in pieces of {size} bytes"
            );
        }
    }
}

#[test]
fn every_anthropic_body_equals_its_streamed_form() {
    check("anthropic", "anthropic", "chat", anthropic_stream);
}

#[test]
fn every_responses_body_equals_its_streamed_form() {
    check("openai-responses", "openai", "responses", responses_stream);
}

//! Tool calls a server sends without ids (some Ollama, vLLM and llama.cpp builds): each gets an
//! invented id (docs/design.md, "Streaming", tool calls), the same in the events and the
//! message at every split, and the finished turn goes back with its tool results in every
//! format.
#![cfg(not(target_arch = "wasm32"))]

use llm_wire::{
    build_chat_args_json, to_message, Accumulator, AccumulatorOptions, FinalMessage, Format, Message, StreamEvent,
};
use serde_json::{json, Value};

/// The message id every body and chunk below carries.
const MESSAGE_ID: &str = "chatcmpl-9x2Lq";

/// A Chat body whose two calls have no id and no index.
fn body_without_ids() -> String {
    let call = |name: &str, args: &str| json!({"type": "function", "function": {"name": name, "arguments": args}});
    json!({"id": MESSAGE_ID, "object": "chat.completion", "model": "qwen3", "choices": [{"index": 0,
        "finish_reason": "tool_calls", "message": {"role": "assistant", "content": null,
        "tool_calls": [call("weather", "{\"city\":\"Oslo\"}"), call("time", "{\"zone\":\"CET\"}")]}}]})
    .to_string()
}

/// SSE `data:` events; strings are sent as they are.
fn sse(events: &[Value]) -> Vec<u8> {
    let data = |e: &Value| match e {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    };
    events.iter().map(|e| format!("data: {}\n\n", data(e))).collect::<String>().into_bytes()
}

fn chunk(id: Option<&str>, tool_calls: Value) -> Value {
    let mut chunk = json!({"object": "chat.completion.chunk", "model": "qwen3",
        "choices": [{"index": 0, "delta": {"tool_calls": tool_calls}, "finish_reason": null}]});
    if let Some(id) = id {
        chunk["id"] = json!(id);
    }
    chunk
}

/// The two calls of [`body_without_ids`] streamed by index, without ids: each starts with its
/// name, and its arguments go on in chunks with no id or `id: ""`.
fn stream_without_ids() -> Vec<u8> {
    let id = Some(MESSAGE_ID);
    sse(&[
        json!({"id": MESSAGE_ID, "choices": [{"index": 0, "delta": {"role": "assistant"}, "finish_reason": null}]}),
        chunk(id, json!([{"index": 0, "type": "function", "function": {"name": "weather", "arguments": ""}}])),
        chunk(id, json!([{"index": 0, "function": {"arguments": "{\"city\":"}}])),
        chunk(id, json!([{"index": 0, "id": "", "function": {"arguments": "\"Oslo\"}"}}])),
        chunk(
            id,
            json!([{"index": 1, "id": "", "type": "function", "function": {"name": "time", "arguments": "{\"zone\""}}]),
        ),
        chunk(id, json!([{"index": 1, "function": {"arguments": ":\"CET\"}"}}])),
        json!({"id": MESSAGE_ID, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
        json!("[DONE]"),
    ])
}

fn run_with(pieces: &[&[u8]]) -> (FinalMessage, Vec<StreamEvent>) {
    let mut acc = Accumulator::new(AccumulatorOptions { format: Format::OpenAiChat, ..Default::default() });
    let mut events = Vec::new();
    for piece in pieces {
        events.extend_from_slice(acc.push(piece).unwrap());
    }
    events.extend_from_slice(acc.flush());
    (acc.finish(), events)
}

/// The tool-call start and end events: (which, index, id).
fn call_events(events: &[StreamEvent]) -> Vec<(&'static str, u32, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolCallStart { index, id, .. } => Some(("start", *index, id.clone())),
            StreamEvent::ToolCallEnd { index, id, .. } => Some(("end", *index, id.clone())),
            _ => None,
        })
        .collect()
}

/// The stream's message, after checking that it and the call events are the same at every cut
/// and byte by byte, and that the events carry the message's ids.
fn run(body: &[u8]) -> FinalMessage {
    let (message, events) = run_with(&[body]);
    let ids = call_events(&events);
    let mut splits: Vec<Vec<&[u8]>> = (0..=body.len()).map(|cut| vec![&body[..cut], &body[cut..]]).collect();
    splits.push(body.chunks(1).collect());
    for pieces in splits {
        let (other, other_events) = run_with(&pieces);
        assert_eq!(other, message, "{} pieces, first {} bytes", pieces.len(), pieces[0].len());
        assert_eq!(call_events(&other_events), ids, "{} pieces, first {} bytes", pieces.len(), pieces[0].len());
    }
    for (k, call) in message.tool_calls.iter().enumerate() {
        let k = k as u32;
        let expected = [("start", k, call.id.clone()), ("end", k, call.id.clone())];
        assert_eq!(ids.iter().filter(|(_, i, _)| *i == k).cloned().collect::<Vec<_>>(), expected);
    }
    message
}

fn calls(m: &FinalMessage) -> Vec<(&str, &str, &str)> {
    m.tool_calls.iter().map(|c| (c.id.as_str(), c.name.as_str(), c.arguments.as_str())).collect()
}

/// Every object of a JSON value, depth first.
fn objects<'v>(value: &'v Value, found: &mut Vec<&'v serde_json::Map<String, Value>>) {
    match value {
        Value::Object(map) => {
            found.push(map);
            map.values().for_each(|v| objects(v, found));
        }
        Value::Array(list) => list.iter().for_each(|v| objects(v, found)),
        _ => {}
    }
}

/// The ids of the calls and of the results in a request body of `api`, in order.
fn ids_sent(api: &str, body: &Value) -> (Vec<String>, Vec<String>) {
    let mut all = Vec::new();
    objects(body, &mut all);
    let typed = |o: &serde_json::Map<String, Value>, t: &str| o.get("type").and_then(Value::as_str) == Some(t);
    let string = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
    let (mut sent, mut answered) = (Vec::new(), Vec::new());
    for o in all {
        let (call, result) = match api {
            "chat" => (
                string(o.get("id")).filter(|_| typed(o, "function")),
                string(o.get("tool_call_id")).filter(|_| o.get("role") == Some(&json!("tool"))),
            ),
            "responses" => (
                string(o.get("call_id")).filter(|_| typed(o, "function_call")),
                string(o.get("call_id")).filter(|_| typed(o, "function_call_output")),
            ),
            "anthropic" => (
                string(o.get("id")).filter(|_| typed(o, "tool_use")),
                string(o.get("tool_use_id")).filter(|_| typed(o, "tool_result")),
            ),
            "bedrock" => (string(o.get("toolUse").and_then(|u| u.get("toolUseId"))), {
                string(o.get("toolResult").and_then(|r| r.get("toolUseId")))
            }),
            "gemini" => (
                string(o.get("functionCall").and_then(|c| c.get("id"))),
                string(o.get("functionResponse").and_then(|r| r.get("id"))),
            ),
            other => panic!("no api {other}"),
        };
        sent.extend(call);
        answered.extend(result);
    }
    (sent, answered)
}

/// The documented loop: the finished turn pushed back as it came, each call answered by its
/// id; every format's request carries the calls and their results under the message's ids.
fn send_back(turn: &FinalMessage) {
    let turn_json = serde_json::to_value(turn).unwrap();
    Message::from_final_json(&turn_json.clone().into(), "final").expect("asMessage takes the library's own turn");
    let ids: Vec<String> = turn.tool_calls.iter().map(|c| c.id.clone()).collect();
    assert!(ids.iter().all(|id| !id.is_empty()), "{ids:?}");
    assert!(ids.iter().enumerate().all(|(k, id)| !ids[..k].contains(id)), "ids unique: {ids:?}");
    let mut messages = vec![json!({"role": "user", "content": "Weather and time in Oslo?"}), turn_json];
    for (k, call) in turn.tool_calls.iter().enumerate() {
        messages.push(json!({"role": "tool", "content": format!("result {k}"), "metadata": {"tool_call_id": call.id}}));
    }
    let apis = [
        ("openai", "chat", "chat"),
        ("vllm", "chat", "chat"),
        ("openai", "responses", "responses"),
        ("anthropic", "chat", "anthropic"),
        ("bedrock", "chat", "bedrock"),
        ("google", "chat", "gemini"),
    ];
    for (provider, api_type, api) in apis {
        let agent = json!({"model": {"id": "m", "provider": provider, "apiType": api_type}, "tools": [
            {"kind": "function", "name": "weather", "parameters": [{"name": "city", "kind": "string"}]},
            {"kind": "function", "name": "time", "parameters": [{"name": "zone", "kind": "string"}]},
        ]});
        let body: Value = build_chat_args_json(&agent.into(), &Value::from(messages.clone()).into())
            .unwrap_or_else(|e| panic!("{provider} {api_type}: {e}"))
            .into();
        assert_eq!(ids_sent(api, &body), (ids.clone(), ids.clone()), "{provider} {api_type}: {body}");
    }
}

#[test]
fn a_body_without_call_ids_gets_invented_ids_and_goes_back_with_its_results() {
    let message = to_message(&body_without_ids(), None).unwrap();
    let first = format!("call_{MESSAGE_ID}_0");
    let second = format!("call_{MESSAGE_ID}_1");
    let expected =
        [(first.as_str(), "weather", "{\"city\":\"Oslo\"}"), (second.as_str(), "time", "{\"zone\":\"CET\"}")];
    assert_eq!(calls(&message), expected);
    assert_eq!(to_message(&body_without_ids(), None).unwrap(), message, "the same bytes give the same ids");
    send_back(&message);
}

#[test]
fn a_stream_without_call_ids_gets_the_same_ids_at_every_split_and_goes_back() {
    let message = run(&stream_without_ids());
    let body = to_message(&body_without_ids(), None).unwrap();
    assert_eq!(calls(&message), calls(&body), "the stream and the body of the same answer");
    send_back(&message);
}

/// An invented id does not change the keying: a continuation with `id: ""` or none still finds
/// its call by index, and a real id that comes later at that index is a new call.
#[test]
fn an_invented_id_keeps_the_keying_rules() {
    let id = None;
    let message = run(&sse(&[
        chunk(id, json!([{"index": 0, "function": {"name": "weather", "arguments": "{\"city\":"}}])),
        chunk(id, json!([{"index": 0, "id": "", "function": {"arguments": "\"Oslo\"}"}}])),
        chunk(id, json!([{"index": 0, "id": "call_real", "function": {"name": "time", "arguments": "{"}}])),
        chunk(id, json!([{"index": 0, "id": "", "function": {"arguments": "}"}}])),
        chunk(id, json!([{"function": {"name": "weather", "arguments": "{}"}}])),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
    ]));
    let expected =
        [("call_0", "weather", "{\"city\":\"Oslo\"}"), ("call_real", "time", "{}"), ("call_2", "weather", "{}")];
    assert_eq!(calls(&message), expected);
    send_back(&message);
}

/// One rule in every format: an Anthropic `tool_use`, or a Responses `function_call` with
/// neither `call_id` nor an item id, gets the same kind of id.
#[test]
fn every_format_invents_ids_by_the_same_rule() {
    let anthropic = json!({"id": "msg_01", "type": "message", "role": "assistant", "model": "claude",
        "content": [{"type": "tool_use", "name": "weather", "input": {"city": "Oslo"}}],
        "stop_reason": "tool_use", "usage": {"input_tokens": 1, "output_tokens": 1}});
    let responses = json!({"id": "resp_01", "object": "response", "status": "completed", "model": "gpt",
        "output": [{"type": "function_call", "name": "weather", "arguments": "{\"city\":\"Oslo\"}"}]});
    for (body, id) in [(anthropic, "call_msg_01_0"), (responses, "call_resp_01_0")] {
        let message = to_message(&body.to_string(), None).unwrap();
        assert_eq!(calls(&message), [(id, "weather", "{\"city\":\"Oslo\"}")], "{body}");
        send_back(&message);
    }
}

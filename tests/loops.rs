//! Whole agent loops (docs/design.md, "Reasoning that goes back"): request, stream, run the
//! tools, send the finished turn and the results back, ask again; two tool rounds and an answer
//! in each format, checking every request body, and a conversation moved between providers.

use llm_wire::{build_chat_args_json, Accumulator, AccumulatorOptions, FinalMessage, ToolCall};
use serde_json::{json, Value};

fn fixture(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// SSE `data:` events.
fn sse(events: &[Value]) -> String {
    events.iter().map(|e| format!("data: {e}\n\n")).collect()
}

/// Anthropic SSE: each event named by its type.
fn anthropic_sse(events: &[Value]) -> String {
    events.iter().map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap())).collect()
}

fn agent(provider: &str, api_type: &str) -> Value {
    json!({
        "model": {"id": "m", "provider": provider, "apiType": api_type},
        "tools": [{"kind": "function", "name": "calculator", "parameters": [
            {"name": "a", "kind": "float", "required": true},
            {"name": "b", "kind": "float", "required": true},
            {"name": "op", "kind": "string", "required": true, "enumValues": ["add", "multiply"]},
        ]}],
    })
}

/// The calculator the model calls, run for real on its arguments.
fn calculate(call: &ToolCall) -> String {
    let args: Value = serde_json::from_str(&call.arguments).unwrap();
    let (a, b) = (args["a"].as_f64().unwrap(), args["b"].as_f64().unwrap());
    let result = match args["op"].as_str().unwrap() {
        "add" => a + b,
        "multiply" => a * b,
        op => panic!("unknown op {op}"),
    };
    result.to_string()
}

/// A conversation being run: its messages as a caller keeps them, and every request body sent.
struct Conversation {
    messages: Vec<Value>,
    bodies: Vec<Value>,
    run: fn(&ToolCall) -> String,
}

impl Conversation {
    fn new(question: &str) -> Conversation {
        Conversation::with_tools(question, calculate)
    }

    fn with_tools(question: &str, run: fn(&ToolCall) -> String) -> Conversation {
        Conversation { messages: vec![json!({"role": "user", "content": question})], bodies: Vec::new(), run }
    }

    /// One turn: the request for `agent`, the model's `stream` read to its end, the finished
    /// turn appended as it came (a `FinalMessage`, not rebuilt by hand) and each tool call
    /// answered by running the tool.
    fn turn(&mut self, agent: &Value, stream: &str) -> FinalMessage {
        let body = build_chat_args_json(&agent.clone().into(), &Value::from(self.messages.clone()).into())
            .unwrap_or_else(|e| panic!("turn {}: {e}", self.bodies.len() + 1));
        self.bodies.push(body.into());
        let mut acc = Accumulator::new(AccumulatorOptions::default());
        acc.push(stream.as_bytes()).unwrap();
        let turn = acc.finish();
        assert!(turn.complete && turn.error.is_none(), "turn {}: {turn:?}", self.bodies.len());
        self.messages.push(serde_json::to_value(&turn).unwrap());
        for call in &turn.tool_calls {
            let result = (self.run)(call);
            self.messages.push(json!({"role": "tool", "content": result, "metadata": {"tool_call_id": call.id}}));
        }
        turn
    }
}

/// What a Responses stream's output items become as input items: each item as the API takes
/// it back, read from `response.output_item.done` events.
fn responses_items_back(stream: &str) -> Vec<Value> {
    let events =
        stream.lines().filter_map(|l| l.strip_prefix("data:")).map(|d| serde_json::from_str::<Value>(d.trim()));
    let items =
        events.filter_map(Result::ok).filter(|e| e["type"] == "response.output_item.done").map(|e| e["item"].clone());
    items
        .map(|item| match item["type"].as_str().unwrap() {
            "reasoning" => {
                let mut back = json!({"type": "reasoning", "id": item["id"], "summary": item["summary"]});
                if item["encrypted_content"].is_string() {
                    back["encrypted_content"] = item["encrypted_content"].clone();
                }
                back
            }
            "function_call" => json!({"type": "function_call", "call_id": item["call_id"], "name": item["name"],
                "arguments": item["arguments"]}),
            "message" => {
                let text: String =
                    item["content"].as_array().unwrap().iter().filter_map(|p| p["text"].as_str()).collect();
                json!({"role": "assistant", "content": text})
            }
            other => panic!("unexpected item {other}"),
        })
        .collect()
}

#[test]
fn a_responses_loop_sends_back_each_turns_reasoning_items_with_encrypted_content_and_calls() {
    let streams: Vec<String> = (1..=4)
        .map(|i| fixture(&format!("openai-responses/vercel-reasoning-summary-tool-calls.part{i}.sse")))
        .collect();
    let agent = agent("openai", "responses");
    let mut conversation = Conversation::new("What is (12 + 7) * 3 * 10?");
    let turns: Vec<FinalMessage> = streams.iter().map(|s| conversation.turn(&agent, s)).collect();
    assert_eq!(turns[3].text, "The final result is **570**.");
    assert_eq!(turns.iter().map(|t| t.tool_calls.len()).collect::<Vec<_>>(), [1, 1, 1, 0]);

    let mut expected = vec![json!({"role": "user", "content": "What is (12 + 7) * 3 * 10?"})];
    for (k, body) in conversation.bodies.iter().enumerate() {
        assert_eq!(body["input"], Value::from(expected.clone()), "request {}", k + 1);
        expected.extend(responses_items_back(&streams[k]));
        for call in &turns[k].tool_calls {
            expected.push(json!({"type": "function_call_output", "call_id": call.id, "output": calculate(call)}));
        }
    }
    let second = conversation.bodies[1]["input"].as_array().unwrap();
    let reasoning: Vec<&Value> = second.iter().filter(|i| i["type"] == "reasoning").collect();
    assert!(!reasoning.is_empty() && reasoning.iter().all(|r| r["encrypted_content"].is_string()), "{reasoning:?}");
    let outputs: Vec<&str> =
        conversation.bodies[3]["input"].as_array().unwrap().iter().filter_map(|i| i["output"].as_str()).collect();
    assert_eq!(outputs, ["19", "57", "570"]);
}

/// An Anthropic turn: optional thinking (`Ok((text, signature))`) or redacted thinking
/// (`Err(data)`), text, and a tool call with its input streamed in two pieces.
fn anthropic_turn(id: &str, thinking: Result<(&str, &str), &str>, text: &str, call: Option<(&str, Value)>) -> String {
    let mut events = vec![
        json!({"type": "message_start", "message": {"id": id, "type": "message", "role": "assistant",
        "model": "claude-sonnet-4-5", "content": [], "stop_reason": null, "usage": {"input_tokens": 50, "output_tokens": 1}}}),
    ];
    let mut index = 0;
    let mut block = |start: Value, deltas: Vec<Value>, events: &mut Vec<Value>| {
        events.push(json!({"type": "content_block_start", "index": index, "content_block": start}));
        events.extend(deltas.into_iter().map(|d| json!({"type": "content_block_delta", "index": index, "delta": d})));
        events.push(json!({"type": "content_block_stop", "index": index}));
        index += 1;
    };
    match thinking {
        Ok((thought, signature)) => block(
            json!({"type": "thinking", "thinking": "", "signature": ""}),
            vec![
                json!({"type": "thinking_delta", "thinking": thought}),
                json!({"type": "signature_delta", "signature": signature}),
            ],
            &mut events,
        ),
        Err(data) => block(json!({"type": "redacted_thinking", "data": data}), vec![], &mut events),
    }
    if !text.is_empty() {
        block(json!({"type": "text", "text": ""}), vec![json!({"type": "text_delta", "text": text})], &mut events);
    }
    let stop = match &call {
        Some((call_id, input)) => {
            let input = input.to_string();
            let (first, rest) = input.split_at(input.len() / 2);
            block(
                json!({"type": "tool_use", "id": call_id, "name": "calculator", "input": {}}),
                vec![
                    json!({"type": "input_json_delta", "partial_json": first}),
                    json!({"type": "input_json_delta", "partial_json": rest}),
                ],
                &mut events,
            );
            "tool_use"
        }
        None => "end_turn",
    };
    events.push(json!({"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 30}}));
    events.push(json!({"type": "message_stop"}));
    anthropic_sse(&events)
}

#[test]
fn an_anthropic_loop_sends_back_signed_and_redacted_thinking_before_each_turns_tool_use() {
    let agent = agent("anthropic", "chat");
    let mut conversation = Conversation::new("What is (12 + 7) * 3?");
    let add = json!({"a": 12, "b": 7, "op": "add"});
    let multiply = json!({"a": 19, "b": 3, "op": "multiply"});
    conversation
        .turn(&agent, &anthropic_turn("msg_1", Ok(("Add first.", "sig-1")), "Adding.", Some(("toolu_1", add.clone()))));
    conversation.turn(&agent, &anthropic_turn("msg_2", Err("UkVEQUNURUQ="), "", Some(("toolu_2", multiply.clone()))));
    let last = conversation.turn(&agent, &anthropic_turn("msg_3", Ok(("Done.", "sig-3")), "It is 57.", None));
    assert_eq!(last.text, "It is 57.");

    let first_turn = json!({"role": "assistant", "content": [
        {"type": "thinking", "thinking": "Add first.", "signature": "sig-1"},
        {"type": "text", "text": "Adding."},
        {"type": "tool_use", "id": "toolu_1", "name": "calculator", "input": add},
    ]});
    let second_turn = json!({"role": "assistant", "content": [
        {"type": "redacted_thinking", "data": "UkVEQUNURUQ="},
        {"type": "tool_use", "id": "toolu_2", "name": "calculator", "input": multiply},
    ]});
    let result = |id: &str, content: &str| json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": content}]});
    let question = json!({"role": "user", "content": [{"type": "text", "text": "What is (12 + 7) * 3?"}]});
    assert_eq!(conversation.bodies[0]["messages"], json!([question]));
    assert_eq!(conversation.bodies[1]["messages"], json!([question, first_turn, result("toolu_1", "19")]));
    assert_eq!(
        conversation.bodies[2]["messages"],
        json!([question, first_turn, result("toolu_1", "19"), second_turn, result("toolu_2", "57")])
    );
}

/// An OpenRouter chunk of a Claude turn.
fn openrouter_chunk(delta: Value, finish: Option<&str>) -> Value {
    json!({"id": "gen-1", "provider": "Anthropic", "model": "anthropic/claude-sonnet-4.5", "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
}

/// An OpenRouter turn of Claude: `details` as streamed in `delta.reasoning_details`, then a
/// tool call (arguments in two pieces) or an answer.
fn openrouter_turn(details: &[Value], call: Option<(&str, Value)>, text: &str) -> String {
    let mut chunks: Vec<Value> = details
        .iter()
        .map(|d| openrouter_chunk(json!({"role": "assistant", "content": "", "reasoning_details": [d]}), None))
        .collect();
    if !text.is_empty() {
        chunks.push(openrouter_chunk(json!({"content": text}), None));
    }
    let finish = match call {
        Some((id, args)) => {
            let args = args.to_string();
            let (first, rest) = args.split_at(args.len() / 2);
            chunks.push(openrouter_chunk(
                json!({"tool_calls": [{"index": 0, "id": id, "type": "function",
                "function": {"name": "calculator", "arguments": first}}]}),
                None,
            ));
            chunks.push(openrouter_chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": rest}}]}), None));
            "tool_calls"
        }
        None => "stop",
    };
    chunks.push(openrouter_chunk(json!({"content": ""}), Some(finish)));
    sse(&chunks) + "data: [DONE]\n\n"
}

#[test]
fn an_openrouter_loop_sends_back_reasoning_details_with_their_signatures_and_data() {
    let agent = agent("openrouter", "chat");
    let claude = "anthropic-claude-v1";
    let text = |t: &str| json!({"type": "reasoning.text", "text": t, "format": claude, "index": 0});
    let signature = json!({"type": "reasoning.text", "signature": "or-sig-1", "format": claude, "index": 0});
    let encrypted = json!({"type": "reasoning.encrypted", "data": "or-redacted", "format": claude, "index": 0});
    let add = json!({"a": 12, "b": 7, "op": "add"});
    let multiply = json!({"a": 19, "b": 3, "op": "multiply"});
    let mut conversation = Conversation::new("What is (12 + 7) * 3?");
    conversation
        .turn(&agent, &openrouter_turn(&[text("Add "), text("first."), signature], Some(("call_1", add.clone())), ""));
    conversation.turn(&agent, &openrouter_turn(&[encrypted], Some(("call_2", multiply.clone())), ""));
    let last = conversation.turn(&agent, &openrouter_turn(&[text("Done.")], None, "It is 57."));
    assert_eq!(last.text, "It is 57.");

    let call = |id: &str, args: &Value| json!({"id": id, "type": "function", "function": {"name": "calculator", "arguments": args.to_string()}});
    let first_turn = json!({"role": "assistant", "content": null, "tool_calls": [call("call_1", &add)],
        "reasoning_details": [{"type": "reasoning.text", "text": "Add first.", "signature": "or-sig-1", "format": claude, "index": 0}]});
    let second_turn = json!({"role": "assistant", "content": null, "tool_calls": [call("call_2", &multiply)],
        "reasoning_details": [{"type": "reasoning.encrypted", "data": "or-redacted", "format": claude, "index": 0}]});
    let result = |id: &str, content: &str| json!({"role": "tool", "content": content, "tool_call_id": id});
    let question = json!({"role": "user", "content": "What is (12 + 7) * 3?"});
    assert_eq!(conversation.bodies[1]["messages"], json!([question, first_turn, result("call_1", "19")]));
    assert_eq!(
        conversation.bodies[2]["messages"],
        json!([question, first_turn, result("call_1", "19"), second_turn, result("call_2", "57")])
    );
}

#[test]
fn an_openai_chat_loop_on_recorded_streams_carries_every_call_id_and_argument() {
    let agent = agent("openai", "chat");
    let mut conversation = Conversation::with_tools("Go", |call| format!("{} done", call.name));
    let streams = [
        fixture("openai-chat/pyd-parallel-tool-calls.sse"),
        fixture("openai-chat/pyd-single-tool-call-split-args.sse"),
        fixture("openai-chat/pyd-text-stream-usage.sse"),
    ];
    let turns: Vec<FinalMessage> = streams.iter().map(|s| conversation.turn(&agent, s)).collect();
    assert_eq!(turns.iter().map(|t| t.tool_calls.len()).collect::<Vec<_>>(), [2, 1, 0]);
    let sent = conversation.bodies[2]["messages"].as_array().unwrap();
    let assistants: Vec<&Value> = sent.iter().filter(|m| m["role"] == "assistant").collect();
    for (turn, sent) in turns.iter().zip(&assistants) {
        let calls: Vec<Value> = turn
            .tool_calls
            .iter()
            .map(|c| json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}))
            .collect();
        assert_eq!(sent["tool_calls"], Value::from(calls));
        assert!(sent.get("reasoning_details").is_none() && sent.get("blocks").is_none(), "{sent}");
    }
    let answered: Vec<&str> = sent.iter().filter_map(|m| m["tool_call_id"].as_str()).collect();
    let made: Vec<&str> = turns.iter().flat_map(|t| &t.tool_calls).map(|c| c.id.as_str()).collect();
    assert_eq!(answered, made);
}

/// A Gemini chunk with `parts` that end the candidate.
fn gemini_turn(parts: Value) -> String {
    sse(&[json!({"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 40, "candidatesTokenCount": 10, "totalTokenCount": 50},
        "modelVersion": "gemini-3-pro-preview", "responseId": "r1"})])
}

#[test]
fn a_gemini_loop_sends_back_each_calls_thought_signature() {
    let agent = agent("google", "chat");
    let add = json!({"a": 12, "b": 7, "op": "add"});
    let multiply = json!({"a": 19, "b": 3, "op": "multiply"});
    let mut conversation = Conversation::new("What is (12 + 7) * 3?");
    let call = |id: &str, args: &Value, sig: &str| json!({"functionCall": {"id": id, "name": "calculator", "args": args}, "thoughtSignature": sig});
    conversation.turn(&agent, &gemini_turn(json!([call("g1", &add, "gsig-1")])));
    conversation.turn(&agent, &gemini_turn(json!([{"text": "Now multiply."}, call("g2", &multiply, "gsig-2")])));
    let last = conversation
        .turn(&agent, &gemini_turn(json!([{"text": "It is 57."}, {"text": "", "thoughtSignature": "gsig-3"}])));
    assert_eq!(last.text, "It is 57.");

    let response = |id: &str, output: &str| {
        json!({"role": "user", "parts": [{"functionResponse": {"id": id, "name": "calculator",
            "response": {"output": serde_json::from_str::<Value>(output).unwrap()}}}]})
    };
    assert_eq!(
        conversation.bodies[2]["contents"],
        json!([
            {"role": "user", "parts": [{"text": "What is (12 + 7) * 3?"}]},
            {"role": "model", "parts": [call("g1", &add, "gsig-1")]},
            response("g1", "19"),
            {"role": "model", "parts": [{"text": "Now multiply."}, call("g2", &multiply, "gsig-2")]},
            response("g2", "57"),
        ])
    );
}

/// Every string in `body`, at any depth.
fn strings(body: &Value, found: &mut Vec<String>) {
    match body {
        Value::String(s) => found.push(s.clone()),
        Value::Number(n) => found.push(n.to_string()),
        Value::Array(items) => items.iter().for_each(|v| strings(v, found)),
        Value::Object(map) => map.iter().for_each(|(k, v)| {
            found.push(k.clone());
            strings(v, found)
        }),
        _ => {}
    }
}

#[test]
fn a_conversation_moves_between_providers_with_its_text_and_calls_and_no_foreign_reasoning() {
    let add = json!({"a": 12, "b": 7, "op": "add"});
    let multiply = json!({"a": 19, "b": 3, "op": "multiply"});
    let responses_part1 = fixture("openai-responses/vercel-reasoning-summary-tool-calls.part1.sse");
    let anthropic = agent("anthropic", "chat");
    let chat = agent("openai", "chat");
    let responses = agent("openai", "responses");
    let mut conversation = Conversation::new("What is (12 + 7) * 3 * 10?");
    // Anthropic (signed thinking) → OpenRouter (reasoning_details) → Responses (encrypted
    // reasoning items) → back to Anthropic, then on to OpenAI chat, OpenRouter, Responses,
    // Gemini and Bedrock.
    conversation.turn(
        &anthropic,
        &anthropic_turn("msg_1", Ok(("Add first.", "anthropic-sig")), "Adding.", Some(("toolu_1", add))),
    );
    let details = [
        json!({"type": "reasoning.encrypted", "data": "openrouter-data", "format": "anthropic-claude-v1", "index": 0}),
    ];
    conversation.turn(&agent("openrouter", "chat"), &openrouter_turn(&details, Some(("call_2", multiply)), ""));
    let responses_turn = conversation.turn(&responses, &responses_part1);
    let openrouter = agent("openrouter", "chat");
    for agent in [&anthropic, &chat, &openrouter, &responses, &agent("google", "chat"), &agent("bedrock", "chat")] {
        conversation.turn(agent, &anthropic_turn("msg_x", Ok(("x", "x-sig")), "ok", None));
        conversation.messages.pop();
    }

    let encrypted: Vec<String> = responses_items_back(&responses_part1)
        .iter()
        .filter_map(|i| i["encrypted_content"].as_str().map(str::to_owned))
        .collect();
    assert!(!encrypted.is_empty());
    // (the request, the reasoning state it may carry, the state it must not)
    let cases = [
        (4, vec!["anthropic-sig"], vec!["openrouter-data", &encrypted[0]]),
        (5, vec![], vec!["anthropic-sig", "openrouter-data", &encrypted[0]]),
        (6, vec!["openrouter-data"], vec!["anthropic-sig", &encrypted[0]]),
        (7, vec![&encrypted[0]], vec!["anthropic-sig", "openrouter-data"]),
        (8, vec![], vec!["anthropic-sig", "openrouter-data", &encrypted[0]]),
        (9, vec!["anthropic-sig"], vec!["openrouter-data", &encrypted[0]]),
    ];
    for (request, carried, dropped) in cases {
        let body = &conversation.bodies[request - 1];
        let mut found = Vec::new();
        strings(body, &mut found);
        for state in carried {
            assert!(found.iter().any(|s| s == state), "request {request} lost {state}: {body}");
        }
        for state in dropped {
            assert!(!found.iter().any(|s| s == state), "request {request} carries {state}: {body}");
        }
        for id in ["toolu_1", "call_2", responses_turn.tool_calls[0].id.as_str()] {
            let calls = found.iter().filter(|s| *s == id).count();
            assert!(calls >= 2, "request {request}: the call {id} and its result: {body}");
        }
        for text in ["Adding.", "19", "57"] {
            assert!(found.iter().any(|s| s.contains(text)), "request {request} lost {text}: {body}");
        }
    }
}

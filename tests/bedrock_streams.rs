//! Bedrock responses: every recorded Converse body through `process` and `to_message`, each
//! body against its streamed form, and the streams no recording shows, written frame by frame
//! with the test encoder: exceptions, damaged frames, a frame cut at every byte, a stream cut
//! before its `metadata`, Nova's server tool blocks and InvokeModelWithResponseStream chunks of
//! Anthropic events.

#[path = "framing/encoder.rs"]
#[allow(dead_code)] // the encoder covers every header type; these tests use a few
mod encoder;

use std::path::Path;

use llm_wire::model::{Block, StreamEvent};
use llm_wire::{process, to_message, Accumulator, AccumulatorOptions, Agent, ErrorCode, FinalMessage, Format};
use serde_json::{json, Value};

fn read(name: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bedrock").join(name)).unwrap()
}

fn bedrock() -> Agent {
    let mut agent = Agent::new("m");
    agent.model.provider = "bedrock".into();
    agent
}

/// A Converse event as Bedrock frames it, with its `p` padding.
fn frame(event_type: &str, mut payload: Value) -> Vec<u8> {
    payload["p"] = json!("abcdefghij");
    encoder::event(event_type, payload.to_string().as_bytes())
}

/// The stream that carries the same answer as a Converse body: text and reasoning in small
/// deltas, tool input as one fragment, then `messageStop` and `metadata`.
fn streamed_form(body: &Value) -> Vec<u8> {
    let mut out = frame("messageStart", json!({"role": "assistant"}));
    let pieces = |s: &str| -> Vec<String> {
        let chars: Vec<char> = s.chars().collect();
        chars.chunks(7).map(|c| c.iter().collect()).collect()
    };
    for (index, block) in body["output"]["message"]["content"].as_array().unwrap().iter().enumerate() {
        let delta = |delta: Value| frame("contentBlockDelta", json!({"contentBlockIndex": index, "delta": delta}));
        if let Some(text) = block["text"].as_str() {
            pieces(text).iter().for_each(|p| out.extend(delta(json!({"text": p}))));
        } else if let Some(reasoning) = block.get("reasoningContent") {
            let text = reasoning["reasoningText"]["text"].as_str().unwrap();
            pieces(text).iter().for_each(|p| out.extend(delta(json!({"reasoningContent": {"text": p}}))));
            let signature = &reasoning["reasoningText"]["signature"];
            out.extend(delta(json!({"reasoningContent": {"signature": signature}})));
        } else if let Some(call) = block.get("toolUse") {
            let start = json!({"toolUse": {"toolUseId": call["toolUseId"], "name": call["name"]}});
            out.extend(frame("contentBlockStart", json!({"contentBlockIndex": index, "start": start})));
            out.extend(delta(json!({"toolUse": {"input": call["input"].to_string()}})));
        }
        out.extend(frame("contentBlockStop", json!({"contentBlockIndex": index})));
    }
    out.extend(frame("messageStop", json!({"stopReason": body["stopReason"]})));
    out.extend(frame("metadata", json!({"usage": body["usage"], "metrics": {"latencyMs": 1}})));
    out
}

/// The message of `body` fed in pieces of `size` bytes.
fn stream(body: &[u8], size: usize) -> FinalMessage {
    let mut acc = Accumulator::new(AccumulatorOptions::default());
    for piece in body.chunks(size.max(1)) {
        acc.push(piece).unwrap();
    }
    assert_eq!(acc.format(), Format::Bedrock);
    acc.finish()
}

/// The message and every event of `body` fed whole.
fn stream_events(body: &[u8]) -> (FinalMessage, Vec<StreamEvent>) {
    let mut acc = Accumulator::new(AccumulatorOptions::default());
    let mut events = acc.push(body).unwrap().to_vec();
    events.extend(acc.flush().iter().cloned());
    (acc.finish(), events)
}

const BODIES: [&str; 4] = [
    "pyd-cache-write.json",
    "pyd-claude-reasoning-text-tool-use.json",
    "pyd-max-tokens.json",
    "pyd-nova-tool-use.json",
];

#[test]
fn every_recorded_body_is_tested_here() {
    let files = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bedrock")).unwrap();
    let mut bodies: Vec<String> = files
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".json") && !n.ends_with(".expect.json") && !n.ends_with(".request.json"))
        .collect();
    bodies.sort();
    let mut listed: Vec<String> = BODIES.iter().map(|s| s.to_string()).collect();
    listed.push("pyd-error-400-stream-endpoint.json".into());
    listed.sort();
    assert_eq!(bodies, listed);
}

/// Each body's blocks, text, reasoning, calls, finish and usage, read from the body itself.
#[test]
fn every_converse_body_gives_its_content_usage_and_stop_reason() {
    for name in BODIES {
        let text = read(name);
        let body: Value = serde_json::from_str(&text).unwrap();
        let content = body["output"]["message"]["content"].as_array().unwrap();
        let message = to_message(text.as_str(), Some(&bedrock())).unwrap();
        let detected = to_message(text.as_str(), None).unwrap();
        assert_eq!(message.provider.as_deref(), Some("bedrock"), "{name}: the agent's provider");
        assert_eq!(
            FinalMessage { provider: Some("bedrock".into()), ..detected },
            message,
            "{name}: detected without an agent"
        );
        let joined = |f: &dyn Fn(&Value) -> Option<&str>| content.iter().filter_map(f).collect::<String>();
        assert_eq!(message.text, joined(&|b| b["text"].as_str()), "{name}");
        assert_eq!(message.reasoning, joined(&|b| b["reasoningContent"]["reasoningText"]["text"].as_str()), "{name}");
        let signatures: Vec<&str> = message
            .content
            .iter()
            .filter_map(|b| if let Block::Reasoning { signature, .. } = b { signature.as_deref() } else { None })
            .collect();
        let want: Vec<&str> =
            content.iter().filter_map(|b| b["reasoningContent"]["reasoningText"]["signature"].as_str()).collect();
        assert_eq!(signatures, want, "{name}");
        let calls: Vec<Value> = content
            .iter()
            .filter_map(|b| b.get("toolUse"))
            .map(|c| json!({"id": c["toolUseId"], "name": c["name"], "arguments": c["input"]}))
            .collect();
        let got: Vec<Value> = message
            .tool_calls
            .iter()
            .map(|c| json!({"id": c.id, "name": c.name, "arguments": serde_json::from_str::<Value>(&c.arguments).unwrap()}))
            .collect();
        assert_eq!(got, calls, "{name}");
        assert_eq!(message.content.len(), content.len(), "{name}: one block per content block");
        assert_eq!(message.raw_finish_reason.as_deref(), body["stopReason"].as_str(), "{name}");
        assert!(message.complete && message.error.is_none(), "{name}");
        let usage = message.usage.as_ref().unwrap();
        let wire = &body["usage"];
        let count = |k: &str| wire[k].as_u64().unwrap_or(0);
        let input = count("inputTokens") + count("cacheReadInputTokens") + count("cacheWriteInputTokens");
        assert_eq!(
            (usage.input_tokens, usage.output_tokens, usage.total_tokens),
            (input, count("outputTokens"), count("totalTokens")),
            "{name}: cache reads and writes count as input; the total is Bedrock's"
        );
        assert_eq!(usage.cache_write_tokens, wire["cacheWriteInputTokens"].as_u64(), "{name}");
        assert_eq!(usage.raw.get(), wire.to_string(), "{name}");
        // `process`: the calls when there are any, else the text.
        let result = serde_json::to_value(process(&bedrock(), text.as_str()).unwrap()).unwrap();
        let want =
            if calls.is_empty() { json!(message.text) } else { serde_json::to_value(&message.tool_calls).unwrap() };
        assert_eq!(result, want, "{name}");
    }
}

#[test]
fn every_converse_body_equals_its_streamed_form_at_several_splits() {
    for name in BODIES {
        let body: Value = serde_json::from_str(&read(name)).unwrap();
        let mut from_body = to_message(body.to_string().as_str(), Some(&bedrock())).unwrap();
        from_body.provider = None;
        let bytes = streamed_form(&body);
        for size in [1, 5, 64, bytes.len()] {
            // The stream's `usage.raw` is its `metadata` event's object: the body's, here.
            assert_eq!(stream(&bytes, size), from_body, "{name}: pieces of {size}");
        }
    }
}

#[test]
fn an_aws_error_body_is_a_provider_error_with_its_message() {
    let text = read("pyd-error-400-stream-endpoint.json");
    for err in [process(&bedrock(), text.as_str()).unwrap_err(), to_message(text.as_str(), None).unwrap_err()] {
        assert_eq!(err.code, ErrorCode::ProviderError);
        assert_eq!(err.message, "The provided model identifier is invalid.");
        assert!(!err.provider.as_ref().unwrap().retryable);
    }
    let typed = r#"{"__type":"com.amazonaws.bedrock#ThrottlingException","message":"Too many requests"}"#;
    let err = process(&bedrock(), typed).unwrap_err();
    let detail = err.provider.as_ref().unwrap();
    assert_eq!((detail.kind.as_deref(), detail.retryable), (Some("ThrottlingException"), true));
}

#[test]
fn structured_output_is_read_back_from_the_text() {
    let mut agent = bedrock();
    agent.outputs = vec![llm_wire::Property { name: "city".into(), kind: "string".into(), ..Default::default() }];
    let body = json!({"output": {"message": {"role": "assistant", "content": [{"text": "{\"city\":\"Oslo\"}"}]}},
                      "stopReason": "end_turn", "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2}});
    let result = process(&agent, body.to_string().as_str()).unwrap();
    assert_eq!(serde_json::to_value(result).unwrap(), json!({"city": "Oslo"}));
}

#[test]
fn a_body_s_other_blocks_are_kept_whole_and_citations_attach_to_their_text() {
    let body = json!({"output": {"message": {"role": "assistant", "content": [
        {"toolUse": {"toolUseId": "s1", "name": "nova_code_interpreter", "type": "server_tool_use", "input": {"snippet": "1+1"}}},
        {"toolResult": {"toolUseId": "s1", "content": [{"json": {"stdOut": "2"}}], "status": "success"}},
        {"citationsContent": {"content": [{"text": "Paris"}], "citations": [{"title": "Atlas"}]}},
    ]}}, "stopReason": "end_turn"});
    let message = to_message(body.to_string().as_str(), Some(&bedrock())).unwrap();
    let blocks = serde_json::to_value(&message.content).unwrap();
    assert_eq!(
        blocks,
        json!([
            {"type": "other", "providerType": "toolUse", "data": body["output"]["message"]["content"][0]["toolUse"]},
            {"type": "other", "providerType": "toolResult", "data": body["output"]["message"]["content"][1]["toolResult"]},
            {"type": "text", "text": "Paris", "citations": [{"title": "Atlas"}]},
        ])
    );
    assert!(message.tool_calls.is_empty(), "a server tool is not the client's to call");
}

/// The Converse events of a short answer: text, then a stop and the usage.
fn answer() -> Vec<u8> {
    let mut body = frame("messageStart", json!({"role": "assistant"}));
    body.extend(frame("contentBlockDelta", json!({"contentBlockIndex": 0, "delta": {"text": "Hel"}})));
    body.extend(frame("contentBlockDelta", json!({"contentBlockIndex": 0, "delta": {"text": "lo"}})));
    body.extend(frame("contentBlockStop", json!({"contentBlockIndex": 0})));
    body.extend(frame("messageStop", json!({"stopReason": "end_turn"})));
    body.extend(frame("metadata", json!({"usage": {"inputTokens": 3, "outputTokens": 2, "totalTokens": 5}})));
    body
}

#[test]
fn the_message_is_complete_only_once_the_usage_after_the_stop_has_arrived() {
    let whole = answer();
    let metadata_at = whole.len()
        - frame("metadata", json!({"usage": {"inputTokens": 3, "outputTokens": 2, "totalTokens": 5}})).len();
    let (complete, _) = stream_events(&whole);
    assert!(complete.complete && complete.usage.is_some());
    let (cut, _) = stream_events(&whole[..metadata_at]);
    assert_eq!((cut.text.as_str(), cut.raw_finish_reason.as_deref()), ("Hello", Some("end_turn")));
    assert!(!cut.complete && cut.usage.is_none(), "a stream cut before its metadata lost the usage");
}

/// A stream cut at every byte keeps the text of the whole messages before the cut, reports the
/// cut frame, and never panics; only the whole stream is complete.
#[test]
fn a_stream_cut_at_every_byte_keeps_what_came_before() {
    let whole = answer();
    let (full, _) = stream_events(&whole);
    let mut ends = vec![0];
    let mut at = 0;
    while at < whole.len() {
        at += u32::from_be_bytes(whole[at..at + 4].try_into().unwrap()) as usize;
        ends.push(at);
    }
    for cut in 0..whole.len() {
        let whole_frames = ends.iter().filter(|&&e| e <= cut).count() - 1;
        let (message, events) = stream_events(&whole[..cut]);
        assert!(!message.complete, "cut at {cut}");
        let texts = whole_frames.saturating_sub(1).min(2);
        assert_eq!(message.text, ["", "Hel", "Hello"][texts], "cut at {cut}");
        let inside_a_frame = !ends.contains(&cut);
        let reported =
            events.iter().any(|e| matches!(e, StreamEvent::Error { error } if error.message.contains("ended")));
        assert_eq!(reported, inside_a_frame && cut > 0, "cut at {cut}: {events:?}");
    }
    assert_eq!(full.text, "Hello");
}

#[test]
fn a_damaged_frame_is_an_error_that_keeps_the_text_before_it_at_every_split() {
    let mut body = answer();
    let first_two = {
        let a = u32::from_be_bytes(body[0..4].try_into().unwrap()) as usize;
        a + u32::from_be_bytes(body[a..a + 4].try_into().unwrap()) as usize
    };
    body[first_two + 20] ^= 0x01; // inside the third frame: its message CRC no longer matches
    for size in [1, 3, 17, body.len()] {
        let mut acc = Accumulator::new(AccumulatorOptions::default());
        let mut outcome = Ok(());
        for piece in body.chunks(size) {
            if let Err(err) = acc.push(piece) {
                outcome = Err(err);
                break;
            }
        }
        let message = acc.finish();
        assert_eq!(message.text, "Hel", "pieces of {size}");
        assert!(!message.complete);
        let error = message.error.expect("the damage is the stream's error");
        assert_eq!(error.code.as_deref(), Some("invalid_json"), "pieces of {size}");
        assert!(error.message.contains("CRC"), "{}", error.message);
        if let Err(err) = outcome {
            assert_eq!(err.code, ErrorCode::InvalidJson);
        }
    }
}

/// The exceptions ConverseStream and InvokeModelWithResponseStream document: the text before is
/// kept, the exception is the error, retryable where AWS says so.
#[test]
fn each_documented_exception_is_the_stream_s_error_retryable_where_aws_says() {
    // (exception type, retryable)
    let cases = [
        ("throttlingException", true),
        ("serviceUnavailableException", true),
        ("internalServerException", true),
        ("modelStreamErrorException", true),
        ("modelTimeoutException", true),
        ("validationException", false),
    ];
    for (exception, retryable) in cases {
        let mut body = frame("messageStart", json!({"role": "assistant"}));
        body.extend(frame("contentBlockDelta", json!({"contentBlockIndex": 0, "delta": {"text": "partial"}})));
        let payload = json!({"message": format!("{exception} happened"), "originalStatusCode": 500});
        body.extend(encoder::exception(exception, payload.to_string().as_bytes()));
        for size in [1, 9, body.len()] {
            let message = stream(&body, size);
            assert_eq!(message.text, "partial", "{exception}");
            assert!(!message.complete);
            let error = message.error.expect("an error");
            assert_eq!(error.code.as_deref(), Some(exception));
            assert_eq!(error.message, format!("{exception} happened"));
            assert_eq!(error.retryable, Some(retryable), "{exception}");
            assert_eq!(error.outcome, llm_wire::Outcome::Determinate);
        }
    }
    // A stream that fails at once is still a Bedrock stream.
    let acc = {
        let mut acc = Accumulator::new(AccumulatorOptions::default());
        acc.push(&encoder::exception("throttlingException", br#"{"message":"slow down"}"#)).unwrap();
        acc
    };
    assert_eq!(acc.format(), Format::Bedrock);
    assert!(acc.is_binary());
}

#[test]
fn reasoning_signatures_and_redacted_reasoning_are_blocks_of_their_own() {
    let delta =
        |index: u64, delta: Value| frame("contentBlockDelta", json!({"contentBlockIndex": index, "delta": delta}));
    let mut body = frame("messageStart", json!({"role": "assistant"}));
    body.extend(delta(0, json!({"reasoningContent": {"text": "one"}})));
    body.extend(delta(0, json!({"reasoningContent": {"text": ""}})));
    body.extend(delta(0, json!({"reasoningContent": {"signature": "sig-1"}})));
    body.extend(frame("contentBlockStop", json!({"contentBlockIndex": 0})));
    body.extend(delta(1, json!({"reasoningContent": {"redactedContent": "UkVE"}})));
    body.extend(delta(2, json!({"reasoningContent": {"text": "two"}})));
    body.extend(delta(3, json!({"text": "answer"})));
    let (message, events) = stream_events(&body);
    assert_eq!(
        serde_json::to_value(&message.content).unwrap(),
        json!([
            {"type": "reasoning", "text": "one", "signature": "sig-1"},
            {"type": "reasoning", "text": "", "redacted": "RED"},
            {"type": "reasoning", "text": "two"},
            {"type": "text", "text": "answer"},
        ])
    );
    let signatures: Vec<&str> = events
        .iter()
        .filter_map(|e| {
            if let StreamEvent::ReasoningSignature { signature, .. } = e {
                Some(signature.as_str())
            } else {
                None
            }
        })
        .collect();
    assert_eq!(signatures, ["sig-1", "RED"]);
}

/// vercel's reference stream, recorded as the SDK decodes it, framed as Bedrock sends it.
#[test]
fn the_sdk_decoded_reference_stream_reads_once_framed() {
    let mut body = Vec::new();
    for line in read("vercel-reasoning-signature.NOT-WIRE.jsonl").lines() {
        let event: serde_json::Map<String, Value> = serde_json::from_str(line).unwrap();
        let (name, payload) = event.into_iter().next().unwrap();
        body.extend(frame(&name, payload));
    }
    let message = stream(&body, 13);
    assert_eq!(message.reasoning, "Let me count the r's in \"strawberry\":\n\ns-t-r-a-w-b-e-r-r-y\n\nr appears at positions 3, 8, and 9.\n\nSo there are 3 r's.");
    assert!(message.text.starts_with("There are **3** r's"));
    assert!(
        matches!(&message.content[0], Block::Reasoning { signature: Some(s), .. } if s.starts_with("Ep0CCkgICxAB"))
    );
    assert_eq!(message.raw_finish_reason.as_deref(), Some("end_turn"));
    assert_eq!(message.usage.as_ref().map(|u| (u.input_tokens, u.output_tokens)), Some((51, 94)));
    assert!(message.complete);
}

#[test]
fn nova_server_tool_blocks_are_kept_whole_with_what_they_streamed() {
    let body = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/bedrock/pyd-nova-code-interpreter-stream.eventstream"),
    )
    .unwrap();
    let message = stream(&body, 7);
    let blocks = serde_json::to_value(&message.content).unwrap();
    assert_eq!(blocks[0]["providerType"], "toolUse");
    assert_eq!(blocks[0]["data"]["input"], json!({"snippet": "1234 * 5678"}));
    assert_eq!(blocks[0]["data"]["type"], "server_tool_use");
    assert_eq!(blocks[1]["providerType"], "toolResult");
    assert_eq!(
        blocks[1]["data"]["content"],
        json!([{"json": {"stdOut": "7006652", "stdErr": "", "exitCode": 0, "isError": false}}])
    );
    assert_eq!(blocks[2]["type"], "tool_call");
    assert_eq!(message.tool_calls.len(), 1);
}

/// An image the model made is kept as a body keeps it, an `other` block `image` whose data is
/// the start's `format` with the deltas' `source`; one whose start was not seen too.
#[test]
fn a_streamed_image_is_the_other_block_its_body_has() {
    let image = json!({"format": "png", "source": {"bytes": "iVBORw0KGgo="}});
    let body = json!({"output": {"message": {"role": "assistant", "content": [{"text": "Here:"}, {"image": image}]}},
                      "stopReason": "end_turn", "usage": {"inputTokens": 1, "outputTokens": 2, "totalTokens": 3}});
    let from_body = to_message(body.to_string().as_str(), None).unwrap();
    assert_eq!(
        serde_json::to_value(&from_body.content).unwrap()[1],
        json!({"type": "other", "providerType": "image", "data": image})
    );
    let delta = |delta: Value| frame("contentBlockDelta", json!({"contentBlockIndex": 1, "delta": delta}));
    let start = frame("contentBlockStart", json!({"contentBlockIndex": 1, "start": {"image": {"format": "png"}}}));
    // The image's eight bytes in two deltas, each its own base64 (the first padded).
    let halves = ["iVBORw0=", "ChoK"];
    for (with_start, in_halves) in [(true, false), (false, false), (true, true)] {
        let mut streamed = frame("messageStart", json!({"role": "assistant"}));
        streamed.extend(frame("contentBlockDelta", json!({"contentBlockIndex": 0, "delta": {"text": "Here:"}})));
        streamed.extend(frame("contentBlockStop", json!({"contentBlockIndex": 0})));
        if in_halves {
            streamed.extend(start.clone());
            for half in halves {
                streamed.extend(delta(json!({"image": {"source": {"bytes": half}}})));
            }
        } else if with_start {
            streamed.extend(start.clone());
            streamed.extend(delta(json!({"image": {"source": image["source"]}})));
        } else {
            streamed.extend(delta(json!({"image": image})));
        }
        streamed.extend(frame("contentBlockStop", json!({"contentBlockIndex": 1})));
        streamed.extend(frame("messageStop", json!({"stopReason": "end_turn"})));
        streamed.extend(frame("metadata", json!({"usage": body["usage"]})));
        for size in [1, 7, streamed.len()] {
            assert_eq!(stream(&streamed, size), from_body, "start {with_start}, halves {in_halves}, pieces of {size}");
        }
    }
}

/// An InvokeModelWithResponseStream `chunk` of one event of the model's own stream.
fn chunk(event: Value) -> Vec<u8> {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let bytes = event.to_string().into_bytes();
    let mut b64 = String::new();
    for group in bytes.chunks(3) {
        let n = group.iter().enumerate().fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            b64.push(if i <= group.len() { ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char } else { '=' });
        }
    }
    encoder::event("chunk", json!({"bytes": b64, "p": "abc"}).to_string().as_bytes())
}

#[test]
fn invoke_model_chunks_carry_anthropic_events_read_at_every_split() {
    let events = [
        json!({"type": "message_start", "message": {"id": "msg_1", "model": "claude-3-haiku", "role": "assistant", "content": [], "usage": {"input_tokens": 10, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Bon"}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "jour é"}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 4}}),
        json!({"type": "message_stop", "amazon-bedrock-invocationMetrics": {"inputTokenCount": 10, "outputTokenCount": 4, "invocationLatency": 300, "firstByteLatency": 100}}),
    ];
    let body: Vec<u8> = events.iter().cloned().flat_map(chunk).collect();
    let whole = stream(&body, body.len());
    assert_eq!((whole.text.as_str(), whole.id.as_deref()), ("Bonjour é", Some("msg_1")));
    assert_eq!(whole.raw_finish_reason.as_deref(), Some("end_turn"));
    assert_eq!(whole.usage.as_ref().map(|u| (u.input_tokens, u.output_tokens)), Some((10, 4)));
    assert!(whole.complete);
    for cut in 0..=body.len() {
        let mut acc = Accumulator::new(AccumulatorOptions { format: Format::Bedrock, ..Default::default() });
        acc.push(&body[..cut]).unwrap();
        acc.push(&body[cut..]).unwrap();
        assert_eq!(acc.finish(), whole, "cut at {cut}");
    }
    // A chunk whose bytes are not base64 is an error event; the stream goes on.
    let mut bad = chunk(events[0].clone());
    bad.extend(encoder::event("chunk", br#"{"bytes":"not base64!"}"#));
    bad.extend(chunk(events[2].clone()));
    let (message, _) = stream_events(&bad);
    assert_eq!(message.text, "Bon");
    assert_eq!(message.error.as_ref().and_then(|e| e.code.as_deref()), Some("invalid_json"));
}

/// Nova on InvokeModelWithResponseStream: each chunk's bytes are a ConverseStream event in the
/// AWS SDKs' shape, the last with Bedrock's invocation metrics beside it.
#[test]
fn invoke_model_chunks_of_converse_events_are_read_as_converse_at_every_split() {
    let events = [
        json!({"messageStart": {"role": "assistant"}}),
        json!({"contentBlockDelta": {"delta": {"text": "Nova "}, "contentBlockIndex": 0}}),
        json!({"contentBlockDelta": {"delta": {"text": "hi"}, "contentBlockIndex": 0}}),
        json!({"contentBlockStop": {"contentBlockIndex": 0}}),
        json!({"messageStop": {"stopReason": "end_turn"}}),
        json!({"metadata": {"usage": {"inputTokens": 3, "outputTokens": 2}, "metrics": {}},
               "amazon-bedrock-invocationMetrics": {"inputTokenCount": 3, "outputTokenCount": 2}}),
    ];
    let body: Vec<u8> = events.iter().cloned().flat_map(chunk).collect();
    let whole = stream(&body, body.len());
    assert_eq!(whole.text, "Nova hi", "{whole:?}");
    assert_eq!(whole.raw_finish_reason.as_deref(), Some("end_turn"));
    assert_eq!(whole.usage.as_ref().map(|u| (u.input_tokens, u.output_tokens)), Some((3, 2)));
    assert!(whole.complete && whole.error.is_none());
    for cut in 0..=body.len() {
        let mut acc = Accumulator::new(AccumulatorOptions::default());
        acc.push(&body[..cut]).unwrap();
        acc.push(&body[cut..]).unwrap();
        assert_eq!(acc.finish(), whole, "cut at {cut}");
    }
    // The same events pushed as objects give the same message.
    let mut acc = Accumulator::new(AccumulatorOptions::default());
    for event in &events {
        acc.push_json(&event.to_string()).unwrap();
    }
    assert_eq!(acc.finish().text, "Nova hi");
}

#[test]
fn a_payload_that_is_not_json_costs_that_event_only() {
    let mut body = frame("messageStart", json!({"role": "assistant"}));
    body.extend(encoder::event("contentBlockDelta", b"{\"contentBlockIndex\":0,\"delta\":{\"text\":"));
    body.extend(frame("contentBlockDelta", json!({"contentBlockIndex": 0, "delta": {"text": "kept"}})));
    let (message, _) = stream_events(&body);
    assert_eq!(message.text, "kept");
    assert_eq!(message.error.and_then(|e| e.code), Some("invalid_json".to_owned()));
}

#[test]
fn a_tool_call_streams_its_input_and_ends_at_its_block_stop() {
    let start = json!({"contentBlockIndex": 1, "start": {"toolUse": {"toolUseId": "t1", "name": "lookup"}}});
    let mut body = frame("messageStart", json!({"role": "assistant"}));
    body.extend(frame("contentBlockDelta", json!({"contentBlockIndex": 0, "delta": {"text": "Looking."}})));
    body.extend(frame("contentBlockStart", start));
    body.extend(frame(
        "contentBlockDelta",
        json!({"contentBlockIndex": 1, "delta": {"toolUse": {"input": "{\"q\":"}}}),
    ));
    body.extend(frame("contentBlockDelta", json!({"contentBlockIndex": 1, "delta": {"toolUse": {"input": "\"x\"}"}}})));
    body.extend(frame("contentBlockStop", json!({"contentBlockIndex": 1})));
    body.extend(frame(
        "contentBlockStart",
        json!({"contentBlockIndex": 2, "start": {"toolUse": {"toolUseId": "t2", "name": "ping"}}}),
    ));
    body.extend(frame("contentBlockStop", json!({"contentBlockIndex": 2})));
    body.extend(frame("messageStop", json!({"stopReason": "tool_use"})));
    let (message, events) = stream_events(&body);
    let calls: Vec<(&str, &str)> = message.tool_calls.iter().map(|c| (c.id.as_str(), c.arguments.as_str())).collect();
    assert_eq!(calls, [("t1", "{\"q\":\"x\"}"), ("t2", "{}")]);
    assert_eq!(message.finish_reason, llm_wire::FinishReason::ToolCalls);
    let ends: Vec<usize> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, StreamEvent::ToolCallEnd { .. }))
        .map(|(i, _)| i)
        .collect();
    let stop_at = events.iter().position(|e| matches!(e, StreamEvent::Finish { .. })).unwrap();
    assert!(ends.len() == 2 && ends.iter().all(|&i| i < stop_at), "each call ends at its block stop");
}

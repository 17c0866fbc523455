//! Gemini and Vertex AI streams through the `Accumulator`: both framings of
//! `streamGenerateContent`, where signatures land, Vertex's streamed call arguments, several
//! candidates, blocked prompts, errors and limits. The recorded streams themselves are checked
//! against their expectations at every split by `tests/fixtures.rs`.

mod common;

use std::path::{Path, PathBuf};

use common::{check_expect, pieces, random_cuts};
use llm_wire::{
    build_chat_args, Accumulator, AccumulatorOptions, Agent, Block, FinalMessage, FinishReason, Format, Limits,
    Message, Outcome, StreamEvent,
};
use serde_json::{json, Value};

fn fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut all: Vec<PathBuf> = ["gemini", "vertex"]
        .iter()
        .flat_map(|dir| std::fs::read_dir(root.join(dir)).unwrap())
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "sse"))
        .collect();
    all.sort();
    all
}

/// The `data:` of each event of a recorded `.sse` file.
fn chunks_of(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    text.split("\r\n\r\n")
        .filter_map(|event| event.strip_prefix("data: "))
        .map(|data| serde_json::from_str(data).unwrap())
        .collect()
}

/// `chunks` as `alt=sse` sends them.
fn sse(chunks: &[Value]) -> Vec<u8> {
    chunks.iter().map(|c| format!("data: {c}\r\n\r\n")).collect::<String>().into_bytes()
}

/// The events and the message of `body` fed in `pieces`.
fn read(pieces: &[&[u8]], options: AccumulatorOptions) -> (Vec<StreamEvent>, FinalMessage) {
    let mut acc = Accumulator::new(options);
    let mut events = Vec::new();
    for piece in pieces {
        events.extend(acc.push(piece).unwrap().iter().cloned());
    }
    events.extend(acc.flush().iter().cloned());
    (events, acc.finish())
}

fn message_of(body: &[u8]) -> FinalMessage {
    read(&[body], AccumulatorOptions::default()).1
}

fn events_of(body: &[u8]) -> Vec<StreamEvent> {
    read(&[body], AccumulatorOptions::default()).0
}

/// Without `alt=sse` the same chunks come as one JSON array, pretty-printed as Google sends it.
/// Each recording is rebuilt in both framings from the same chunk text (so `usage.raw` is the
/// same text): the array gives the SSE form's message whole, one byte at a time and at random
/// splits, detected by `"auto"` and named `"gemini"`, and it meets the recording's expectations.
#[test]
fn every_recording_as_a_json_array_reads_as_its_sse_form_at_every_split() {
    for path in fixtures() {
        let name = path.display().to_string();
        let texts: Vec<String> = chunks_of(&path).iter().map(|c| serde_json::to_string_pretty(c).unwrap()).collect();
        let sse_form: String = texts
            .iter()
            .map(|text| text.lines().map(|line| format!("data: {line}\n")).collect::<String>() + "\n")
            .collect();
        let array = format!("[{}]\n", texts.join("\n,\r\n"));
        let expected = message_of(sse_form.as_bytes());
        for format in [Format::Auto, Format::Gemini] {
            let options = || AccumulatorOptions { format, ..AccumulatorOptions::default() };
            let body = array.as_bytes();
            assert_eq!(read(&[body], options()).1, expected, "{name}: whole");
            let bytewise: Vec<&[u8]> = body.chunks(1).collect();
            assert_eq!(read(&bytewise, options()).1, expected, "{name}: one byte at a time");
            for seed in 0..20 {
                let cuts = random_cuts(body.len(), seed);
                assert_eq!(read(&pieces(body, &cuts), options()).1, expected, "{name}: cut at {cuts:?}");
            }
        }
        let mut acc = Accumulator::new(AccumulatorOptions::default());
        acc.push(array.as_bytes()).unwrap();
        assert_eq!(acc.format(), Format::Gemini, "{name}");
        if let Ok(expect) = std::fs::read_to_string(path.with_extension("expect.json")) {
            let message = serde_json::to_value(&expected).unwrap();
            check_expect(&message, &serde_json::from_str(&expect).unwrap()).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

fn signature_of(block: &Block) -> Option<&str> {
    match block {
        Block::Text { signature, .. } | Block::ToolCall { signature, .. } | Block::Reasoning { signature, .. } => {
            signature.as_deref()
        }
        Block::Other { .. } => None,
    }
}

#[test]
fn the_no_argument_call_keeps_the_only_signature_beside_streamed_calls() {
    let path = fixture("vertex/vercel-no-args-then-streamed-args.sse");
    let message = message_of(&std::fs::read(&path).unwrap());
    let calls: Vec<&Block> = message.content.iter().filter(|b| matches!(b, Block::ToolCall { .. })).collect();
    assert_eq!(calls.len(), 4);
    let signed: Vec<Option<&str>> = calls.iter().map(|b| signature_of(b)).collect();
    assert!(signed[0].is_some_and(|s| s.len() > 100), "read_theme keeps its signature");
    assert!(signed[1..].iter().all(Option::is_none));
    // Vertex sent no ids: each is made from the response id and the call's place.
    let ids: Vec<&str> = message.tool_calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "call__vr4aYiWEJnYodAPkujX0QM_0",
            "call__vr4aYiWEJnYodAPkujX0QM_1",
            "call__vr4aYiWEJnYodAPkujX0QM_2",
            "call__vr4aYiWEJnYodAPkujX0QM_3"
        ]
    );
    assert!(message.reasoning.starts_with("**Processing User Requests**"));
    assert_eq!((message.finish_reason, message.raw_finish_reason.as_deref()), (FinishReason::ToolCalls, Some("STOP")));
}

#[test]
fn a_streamed_call_opens_then_gets_its_whole_arguments_when_it_closes() {
    let events = events_of(&std::fs::read(fixture("vertex/vercel-streamed-function-call-args.sse")).unwrap());
    let calls: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolCallStart { index, name, .. } => Some(format!("start {index} {name}")),
            StreamEvent::ToolCallDelta { index, arguments_delta, .. } => {
                Some(format!("delta {index} {arguments_delta}"))
            }
            StreamEvent::ToolCallEnd { index, arguments, .. } => Some(format!("end {index} {arguments}")),
            _ => None,
        })
        .collect();
    assert_eq!(
        calls,
        [
            "start 0 getWeather",
            r#"delta 0 {"location":"Boston"}"#,
            r#"end 0 {"location":"Boston"}"#,
            "start 1 getWeather",
            r#"delta 1 {"location":"San Francisco"}"#,
            r#"end 1 {"location":"San Francisco"}"#,
        ]
    );
}

#[test]
fn thoughts_are_reasoning_and_the_signature_stays_on_the_first_answer_part() {
    let path = fixture("gemini/pyd-thinking-stream.sse");
    let signed = chunks_of(&path)
        .iter()
        .flat_map(|c| c["candidates"][0]["content"]["parts"].as_array().unwrap().clone())
        .find(|p| p.get("thoughtSignature").is_some())
        .unwrap();
    let message = message_of(&std::fs::read(&path).unwrap());
    let [Block::Reasoning { signature: None, .. }, Block::Text { text, signature: Some(signature), .. }] =
        message.content.as_slice()
    else {
        panic!("reasoning, then one signed text block: {:?}", message.content);
    };
    assert!(text.starts_with(signed["text"].as_str().unwrap()));
    assert_eq!(signature, signed["thoughtSignature"].as_str().unwrap());
}

#[test]
fn a_signature_on_a_trailing_empty_part_goes_on_the_text_it_follows() {
    let message = message_of(&std::fs::read(fixture("gemini/vercel-text-signature-on-empty-part.sse")).unwrap());
    assert_eq!(message.content.len(), 1);
    assert!(signature_of(&message.content[0]).is_some());
}

fn chunk(parts: Value) -> Value {
    json!({"candidates": [{"content": {"parts": parts, "role": "model"}, "index": 0}], "responseId": "r"})
}

fn last(parts: Value, finish: &str) -> Value {
    let mut c = chunk(parts);
    c["candidates"][0]["finishReason"] = json!(finish);
    c
}

/// `(text, signature)` of each block, `?` for a block that is not text.
fn texts(message: &FinalMessage) -> Vec<(String, Option<String>)> {
    message
        .content
        .iter()
        .map(|b| match b {
            Block::Text { text, signature, .. } => (text.clone(), signature.clone()),
            _ => ("?".into(), signature_of(b).map(str::to_owned)),
        })
        .collect()
}

#[test]
fn signed_parts_are_never_joined_to_one_another_or_to_text_before_them() {
    let t = |text: &str, sig: Option<&str>| (text.to_owned(), sig.map(str::to_owned));
    let cases = [
        (json!([{"text": "a"}, {"text": "b", "thoughtSignature": "s"}]), vec![t("a", None), t("b", Some("s"))]),
        (json!([{"text": "a", "thoughtSignature": "s"}, {"text": "b"}]), vec![t("ab", Some("s"))]),
        (
            json!([{"text": "a", "thoughtSignature": "s"}, {"text": "", "thoughtSignature": "u"}]),
            vec![t("a", Some("s")), t("", Some("u"))],
        ),
        (json!([{"text": "a"}, {"text": "", "thoughtSignature": "u"}]), vec![t("a", Some("u"))]),
        (
            json!([{"functionCall": {"name": "f"}}, {"text": "", "thoughtSignature": "u"}]),
            vec![t("?", None), t("", Some("u"))],
        ),
        (json!([{"thoughtSignature": "u"}]), vec![t("", Some("u"))]),
        (
            json!([{"text": "x", "thought": true}, {"text": "", "thoughtSignature": "u"}]),
            vec![t("?", None), t("", Some("u"))],
        ),
    ];
    for (parts, want) in cases {
        // One chunk per part, as a stream sends them, and all parts in one chunk, as a body has them.
        let split: Vec<Value> = parts.as_array().unwrap().iter().map(|p| chunk(json!([p]))).collect();
        assert_eq!(texts(&message_of(&sse(&split))), want, "{parts}");
        assert_eq!(texts(&message_of(&sse(&[chunk(parts.clone())]))), want, "{parts} in one chunk");
    }
}

/// Candidate `index` with one text part and, if given, its finish reason.
fn candidate(index: u32, text: &str, finish: Option<&str>) -> Value {
    let mut c = json!({"content": {"parts": [{"text": text}], "role": "model"}, "index": index});
    if let Some(finish) = finish {
        c["finishReason"] = json!(finish);
    }
    c
}

#[test]
fn several_candidates_are_choices_and_the_stream_ends_when_all_have_finished() {
    let first = json!({"candidates": [candidate(0, "a", None), candidate(1, "b", None)], "responseId": "r"});
    let second = json!({"candidates": [candidate(1, "c", Some("STOP"))], "responseId": "r"});
    let third = json!({"candidates": [candidate(0, "d", Some("MAX_TOKENS"))], "responseId": "r"});
    let (_, cut) = read(&[&sse(&[first.clone(), second.clone()])], AccumulatorOptions::default());
    assert!(!cut.complete, "candidate 0 has not finished");
    let message = message_of(&sse(&[first, second, third]));
    assert!(message.complete);
    let choices = message.choices.as_ref().unwrap();
    assert_eq!((choices[0].text.as_str(), choices[1].text.as_str()), ("ad", "bc"));
    assert_eq!((choices[0].finish_reason, choices[1].finish_reason), (FinishReason::Length, FinishReason::Stop));
}

#[test]
fn a_prompt_blocked_before_any_candidate_is_a_determinate_error() {
    let body = std::fs::read_to_string(fixture("vertex/pyd-model-armor-prompt-blocked.json")).unwrap();
    let chunk: Value = serde_json::from_str(&body).unwrap();
    let message = message_of(&sse(&[chunk]));
    let error = message.error.expect("the prompt was blocked");
    assert_eq!(error.code.as_deref(), Some("MODEL_ARMOR"));
    assert_eq!(
        error.message,
        "the prompt was blocked (MODEL_ARMOR): The prompt violated Prompt Injection and Jailbreak filters."
    );
    assert_eq!((error.outcome, error.retryable), (Outcome::Determinate, Some(false)));
    assert!(!message.complete);
    assert_eq!(message.finish_reason, FinishReason::Error);
}

/// An HTTP error of `streamGenerateContent` without `alt=sse` is an array holding the error.
#[test]
fn an_error_in_the_stream_is_a_provider_error_retryable_by_its_code() {
    let cases = [(503, "UNAVAILABLE", true), (429, "RESOURCE_EXHAUSTED", true), (400, "INVALID_ARGUMENT", false)];
    for (code, status, retryable) in cases {
        let body = format!(r#"[{{"error": {{"code": {code}, "message": "m", "status": "{status}"}}}}]"#);
        let (events, message) = read(&[body.as_bytes()], AccumulatorOptions::default());
        let error = message.error.unwrap();
        assert_eq!((error.message.as_str(), error.code.as_deref()), ("m", Some(code.to_string().as_str())));
        assert_eq!((error.outcome, error.retryable), (Outcome::Determinate, Some(retryable)), "{status}");
        assert_eq!(events.iter().filter(|e| matches!(e, StreamEvent::Error { .. })).count(), 1);
    }
}

fn streamed_call(name: &str) -> Value {
    chunk(json!([{"functionCall": {"name": name, "willContinue": true}}]))
}

fn partial(path: &str, value: Value, will_continue: bool) -> Value {
    let mut arg = json!({"jsonPath": path, "willContinue": will_continue});
    arg.as_object_mut().unwrap().extend(value.as_object().unwrap().clone());
    chunk(json!([{"functionCall": {"partialArgs": [arg], "willContinue": true}}]))
}

#[test]
fn a_streamed_call_cut_short_keeps_the_arguments_that_arrived() {
    let body = sse(&[streamed_call("f"), partial("$.city", json!({"stringValue": "Bos"}), true)]);
    let (events, message) = read(&[&body], AccumulatorOptions::default());
    assert_eq!(message.tool_calls[0].arguments, r#"{"city":"Bos"}"#);
    assert!(matches!(events.last(), Some(StreamEvent::ToolCallEnd { .. })));
    assert!(!message.complete);
}

#[test]
fn partial_arguments_of_every_kind_assemble_and_a_bad_path_costs_only_its_value() {
    let body = sse(&[
        streamed_call("f"),
        partial("$.a[0].b", json!({"numberValue": 1.5}), false),
        partial("$.a[0].c", json!({"boolValue": true}), false),
        partial("$['d e']", json!({"nullValue": "NULL_VALUE"}), false),
        partial("$.a[", json!({"stringValue": "x"}), false),
        partial("$.s", json!({"stringValue": "x\"y"}), false),
        last(json!([{"functionCall": {}}]), "STOP"),
    ]);
    let (events, message) = read(&[&body], AccumulatorOptions::default());
    assert_eq!(message.tool_calls[0].arguments, r#"{"a":[{"b":1.5,"c":true}],"d e":null,"s":"x\"y"}"#);
    let errors: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Error { error } => Some(error),
            _ => None,
        })
        .collect();
    assert_eq!(errors.len(), 1);
    assert_eq!((errors[0].code.as_deref(), errors[0].outcome), (Some("invalid_json"), Outcome::Indeterminate));
}

#[test]
fn streamed_arguments_past_the_limit_are_a_limit_error() {
    let limits = Limits { max_tool_argument_bytes: 64, ..Limits::default() };
    let body = sse(&[streamed_call("f"), partial("$.a", json!({"stringValue": "x".repeat(100)}), true)]);
    let mut acc = Accumulator::new(AccumulatorOptions { limits, ..AccumulatorOptions::default() });
    let events = acc.push(&body).unwrap().to_vec();
    let Some(StreamEvent::Error { error }) = events.last() else { panic!("a limit error: {events:?}") };
    assert_eq!(error.code.as_deref(), Some("limit_exceeded"));
    assert!(acc.push(b"data: {}\r\n\r\n").is_err());
}

#[test]
fn many_streamed_keys_all_arrive_in_order() {
    let keys = 20_000;
    let mut chunks = vec![streamed_call("f")];
    chunks.extend((0..keys).map(|i| partial(&format!("$.k{i}"), json!({"numberValue": i}), false)));
    chunks.push(last(json!([{"functionCall": {}}]), "STOP"));
    let message = message_of(&sse(&chunks));
    let args: serde_json::Map<String, Value> = serde_json::from_str(&message.tool_calls[0].arguments).unwrap();
    assert_eq!(args.len(), keys);
    assert!(message.tool_calls[0].arguments.starts_with(r#"{"k0":0,"k1":1,"k2":2"#));
}

#[test]
fn code_execution_parts_and_the_last_grounding_are_kept_whole() {
    let code = json!({"executableCode": {"code": "print(1)", "language": "PYTHON"}, "thoughtSignature": "s"});
    let result = json!({"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1\n"}});
    let mut first = chunk(json!([code.clone(), result.clone()]));
    first["candidates"][0]["groundingMetadata"] = json!({"webSearchQueries": ["a"]});
    let mut second = last(json!([{"text": "one"}]), "STOP");
    second["candidates"][0]["groundingMetadata"] = json!({"webSearchQueries": ["a", "b"]});
    let message = message_of(&sse(&[first, second]));
    let others: Vec<(String, Value)> = message
        .content
        .iter()
        .filter_map(|b| match b {
            Block::Other { provider_type, data } => {
                Some((provider_type.clone(), serde_json::from_str(data.get()).unwrap()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        others,
        [
            ("executableCode".to_owned(), code),
            ("codeExecutionResult".to_owned(), result),
            ("groundingMetadata".to_owned(), json!({"webSearchQueries": ["a", "b"]})),
        ]
    );
    assert_eq!(message.text, "one");
}

#[test]
fn finish_reasons_keep_the_raw_value() {
    let cases = [
        ("MALFORMED_FUNCTION_CALL", FinishReason::Error),
        ("SAFETY", FinishReason::ContentFilter),
        ("RECITATION", FinishReason::ContentFilter),
        ("MAX_TOKENS", FinishReason::Length),
        ("OTHER", FinishReason::Other),
    ];
    for (raw, reason) in cases {
        let message = message_of(&sse(&[last(json!([]), raw)]));
        assert_eq!((message.finish_reason, message.raw_finish_reason.as_deref()), (reason, Some(raw)));
        assert!(message.complete && message.error.is_none());
    }
}

#[test]
fn usage_is_the_last_snapshot_and_counts_nothing_from_chunks_without_counts() {
    let with_usage = |usage: Value| {
        let mut c = chunk(json!([{"text": "a"}]));
        c["usageMetadata"] = usage;
        c
    };
    let chunks: Vec<Vec<u8>> = [
        json!({"trafficType": "ON_DEMAND"}),
        json!({"promptTokenCount": 55, "candidatesTokenCount": 4, "totalTokenCount": 59}),
        json!({"promptTokenCount": 55, "candidatesTokenCount": 4, "totalTokenCount": 59}),
        json!({"promptTokenCount": 13, "candidatesTokenCount": 8, "thoughtsTokenCount": 2}),
    ]
    .into_iter()
    .map(|usage| sse(&[with_usage(usage)]))
    .collect();
    let usages_of = |events: &[StreamEvent]| -> Vec<(u64, u64)> {
        events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::Usage { usage } => Some((usage.input_tokens, usage.output_tokens)),
                _ => None,
            })
            .collect()
    };
    // One chunk per push: the snapshots are provisional while the candidate goes on, so no
    // push gives a usage event; the end of the input gives one, the last snapshot.
    let pieces: Vec<&[u8]> = chunks.iter().map(Vec::as_slice).collect();
    let mut acc = Accumulator::new(AccumulatorOptions::default());
    for piece in &pieces {
        assert_eq!(usages_of(acc.push(piece).unwrap()), [], "a push while the candidate goes on");
    }
    assert_eq!(usages_of(acc.flush()), [(13, 10)]);
    let message = acc.finish();
    let usage = message.usage.unwrap();
    assert_eq!((usage.total_tokens, usage.reasoning_tokens), (23, Some(2)));
    // All in one push: the same, after the push's text joined into one delta.
    let (events, whole) = read(&[&chunks.concat()], AccumulatorOptions::default());
    assert_eq!(usages_of(&events), [(13, 10)]);
    assert!(matches!(&events[1], StreamEvent::Text { text, .. } if text == "aaaa"), "{events:?}");
    assert!(matches!(events.last(), Some(StreamEvent::Usage { .. })), "{events:?}");
    assert_eq!(whole.usage, Some(usage));
}

/// The message of `body` read whole, cut in two at every byte, and one byte at a time: all the
/// same.
fn at_every_split(body: &[u8]) -> FinalMessage {
    let whole = message_of(body);
    for cut in 1..body.len() {
        assert_eq!(read(&[&body[..cut], &body[cut..]], AccumulatorOptions::default()).1, whole, "cut at {cut}");
    }
    let bytewise: Vec<&[u8]> = body.chunks(1).collect();
    assert_eq!(read(&bytewise, AccumulatorOptions::default()).1, whole, "one byte at a time");
    whole
}

/// A signature on a `thought: true` part is Gemini's: the thought is reasoning like any other,
/// with no (Claude) signature, and the part is kept whole as an `other` block `thought`, which
/// goes back to Gemini as it came and to no other API.
#[test]
fn a_signed_thought_is_kept_whole_for_gemini_and_never_signs_reasoning() {
    let thought = json!({"text": "pondering", "thought": true, "thoughtSignature": "R0VN"});
    let bare = json!({"thought": true, "thoughtSignature": "QkFSRQ"});
    let cases = [
        vec![
            chunk(json!([{"text": "pon", "thought": true}])),
            chunk(json!([thought])),
            last(json!([{"text": "Answer"}]), "STOP"),
        ],
        vec![last(json!([thought, {"text": "Answer"}]), "STOP")],
        vec![chunk(json!([{"text": "pondering", "thought": true}, bare])), last(json!([{"text": "Answer"}]), "STOP")],
    ];
    for chunks in cases {
        let message = at_every_split(&sse(&chunks));
        let signed = if chunks.len() == 2 { &bare } else { &thought };
        let content: Vec<Value> = serde_json::to_value(&message.content).unwrap().as_array().unwrap().clone();
        assert!(content.iter().all(|b| b["type"] != "reasoning" || b.get("signature").is_none()), "{content:?}");
        let others: Vec<&Value> = content.iter().filter(|b| b["type"] == "other").collect();
        assert_eq!(others, [&json!({"type": "other", "providerType": "thought", "data": signed})]);
        assert!(message.reasoning.ends_with("pondering") && message.text == "Answer", "{message:?}");

        let user = |text: &str| Message::list_from_json(&json!([{"role": "user", "content": text}]).into()).unwrap();
        let messages = [user("q"), vec![message.to_message()], user("more")].concat();
        let body = |provider: &str| -> Value {
            let agent = json!({"model": {"provider": provider, "id": "m"}});
            build_chat_args(&Agent::from_json(&agent.into()).unwrap(), &messages).unwrap().into()
        };
        let parts = &body("google")["contents"][1]["parts"];
        assert_eq!(parts, &json!([signed, {"text": "Answer"}]), "back to Gemini on the part that carried it");
        for provider in ["anthropic", "bedrock", "openrouter"] {
            let sent = body(provider).to_string();
            assert!(!sent.contains("R0VN") && !sent.contains("QkFSRQ"), "{provider}: {sent}");
        }
    }
}

/// Whatever order the candidates first appear in, the stream is complete only when every one
/// seen has finished: one that first appears after the others finished is waited for.
#[test]
fn a_candidate_first_seen_after_the_others_finished_is_waited_for() {
    let candidate = |index, text, finish| json!({"candidates": [candidate(index, text, finish)], "responseId": "r"});
    let (zero_done, one) = (candidate(0, "a", Some("STOP")), candidate(1, "b", None));
    let one_done = candidate(1, "c", Some("MAX_TOKENS"));
    let cut = at_every_split(&sse(&[zero_done.clone(), one.clone()]));
    assert!(!cut.complete, "candidate 1 has not finished");
    assert_eq!(cut.choices.as_ref().unwrap()[1].raw_finish_reason, None);
    let (zero, zero_done_late) = (candidate(0, "a", None), candidate(0, "d", Some("STOP")));
    for chunks in [vec![zero_done, one, one_done.clone()], vec![zero, one_done, zero_done_late]] {
        let message = at_every_split(&sse(&chunks));
        assert!(message.complete, "{chunks:?}");
        let choices = message.choices.unwrap();
        assert!(choices.iter().all(|c| c.raw_finish_reason.is_some()), "{choices:?}");
    }
}

/// `finishMessage` (with `MALFORMED_FUNCTION_CALL`, the only copy of the broken call) is kept
/// as an `other` block when the candidate ends, body and stream alike, and is not sent back.
#[test]
fn the_finish_message_is_kept_when_the_candidate_ends() {
    let broken = "Malformed function call: print(default_api.f(x=\"\u{e9}";
    let mut end = last(json!([]), "MALFORMED_FUNCTION_CALL");
    end["candidates"][0]["finishMessage"] = json!(broken);
    let chunks = [chunk(json!([{"text": "Let me call f."}])), end];
    let message = at_every_split(&sse(&chunks));
    let body = Value::Array(chunks.to_vec()).to_string();
    assert_eq!(llm_wire::to_message(body.as_str(), None).unwrap(), message);
    assert_eq!(llm_wire::to_message(chunks[1].to_string().as_str(), None).unwrap().content, message.content[1..]);
    let [Block::Text { .. }, Block::Other { provider_type, data }] = message.content.as_slice() else {
        panic!("the text, then the finish message: {:?}", message.content);
    };
    assert_eq!(
        (provider_type.as_str(), serde_json::from_str::<Value>(data.get()).unwrap()),
        ("finishMessage", json!(broken))
    );
    assert_eq!(
        (message.finish_reason, message.raw_finish_reason.as_deref()),
        (FinishReason::Error, Some("MALFORMED_FUNCTION_CALL"))
    );
    let agent = Agent::from_json(&json!({"model": {"provider": "google", "id": "m"}}).into()).unwrap();
    let sent: Value = build_chat_args(&agent, &[message.to_message()]).unwrap().into();
    assert_eq!(sent["contents"], json!([{"role": "model", "parts": [{"text": "Let me call f."}]}]));
}

//! A provider's error gives a caller what it needs to retry, whichever way it arrives: the
//! `provider_error` that `result()` throws for a stream carries the same type, code and
//! retryability as the one `process` throws for the error body of the same failure, in every
//! format (docs/design.md, "Errors and limits").

#[path = "framing/encoder.rs"]
#[allow(dead_code)] // the encoder covers every message type; these tests use two
mod encoder;

use llm_wire::{
    process, Accumulator, AccumulatorOptions, Agent, Error, ErrorCode, Format, ProviderDetail, StreamEvent,
};
use serde_json::json;

fn agent(provider: &str, api_type: &str) -> Agent {
    let mut agent = Agent::new("m");
    agent.model.provider = provider.into();
    agent.model.api_type = api_type.into();
    agent
}

/// What `result()` throws for `bytes` streamed in pieces of `size`.
fn stream_error(bytes: &[u8], size: usize) -> Error {
    let mut acc = Accumulator::new(AccumulatorOptions::default());
    for piece in bytes.chunks(size) {
        acc.push(piece).unwrap();
    }
    acc.finish().result(false).unwrap_err()
}

fn sse(events: &[(&str, serde_json::Value)]) -> Vec<u8> {
    let mut out = String::new();
    for (name, data) in events {
        if !name.is_empty() {
            out += &format!("event: {name}\n");
        }
        out += &format!("data: {data}\n\n");
    }
    out.into_bytes()
}

/// One failure per format: the agent, its error body, the same error streamed, and the detail
/// both must carry.
fn cases() -> Vec<(&'static str, Agent, String, Vec<u8>, ProviderDetail)> {
    let detail = |kind: Option<&str>, code: Option<&str>, retryable| ProviderDetail {
        kind: kind.map(str::to_owned),
        code: code.map(str::to_owned),
        retryable,
    };
    let chat_error = json!({"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"});
    let mistral_error = json!({"object": "error", "message": "Service tier capacity exceeded",
                               "type": "service_tier_capacity_exceeded", "param": null, "code": "3505"});
    let vllm_error = json!({"object": "error", "message": "overloaded", "type": "ServiceUnavailableError",
                            "param": null, "code": 503});
    let anthropic_error = json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}});
    let failed = json!({"object": "response", "status": "failed", "output": [],
                        "error": {"code": "server_error", "message": "The server had an error"}});
    let google_error = json!({"error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED"}});
    let blocked = json!({"promptFeedback": {"blockReason": "SAFETY", "blockReasonMessage": "unsafe"}});
    let mut bedrock_stream = encoder::event("messageStart", br#"{"role":"assistant"}"#);
    bedrock_stream.extend(encoder::exception("throttlingException", br#"{"message":"Too many requests"}"#));
    vec![
        (
            "chat",
            agent("openai", "chat"),
            json!({"error": chat_error}).to_string(),
            sse(&[
                ("", json!({"id": "c", "choices": [{"index": 0, "delta": {"content": "Hi"}}]})),
                ("", json!({"error": chat_error})),
            ]),
            detail(Some("requests"), Some("rate_limit_exceeded"), true),
        ),
        (
            // Mistral and older vLLM: the body (and the stream's chunk) is the error itself.
            "chat error object (mistral)",
            agent("mistral", "chat"),
            mistral_error.to_string(),
            sse(&[
                ("", json!({"id": "c", "choices": [{"index": 0, "delta": {"content": "Hi"}}]})),
                ("", mistral_error.clone()),
            ]),
            detail(Some("service_tier_capacity_exceeded"), Some("3505"), true),
        ),
        (
            "chat error object (vllm)",
            agent("vllm", "chat"),
            vllm_error.to_string(),
            sse(&[("", vllm_error.clone())]),
            detail(Some("ServiceUnavailableError"), Some("503"), true),
        ),
        (
            "anthropic",
            agent("anthropic", ""),
            anthropic_error.to_string(),
            sse(&[
                (
                    "message_start",
                    json!({"type": "message_start", "message": {"id": "msg", "model": "m", "content": []}}),
                ),
                ("error", anthropic_error),
            ]),
            detail(Some("overloaded_error"), None, true),
        ),
        (
            "responses",
            agent("openai", "responses"),
            failed.to_string(),
            sse(&[("response.failed", json!({"type": "response.failed", "sequence_number": 1, "response": failed}))]),
            detail(None, Some("server_error"), true),
        ),
        (
            "gemini",
            agent("google", ""),
            google_error.to_string(),
            // `streamGenerateContent` without `alt=sse`: a JSON array of chunks.
            format!("[{google_error}]").into_bytes(),
            detail(Some("RESOURCE_EXHAUSTED"), Some("429"), true),
        ),
        (
            "gemini blocked prompt",
            agent("google", ""),
            blocked.to_string(),
            sse(&[("", blocked.clone())]),
            detail(None, Some("SAFETY"), false),
        ),
        (
            "bedrock",
            agent("bedrock", ""),
            json!({"message": "Too many requests", "__type": "ThrottlingException"}).to_string(),
            bedrock_stream,
            detail(Some("ThrottlingException"), None, true),
        ),
    ]
}

#[test]
fn a_streamed_provider_error_throws_the_detail_process_gives_for_its_body() {
    for (name, agent, body, stream, detail) in cases() {
        let from_body = process(&agent, body.as_str()).unwrap_err();
        assert_eq!(from_body.code, ErrorCode::ProviderError, "{name}");
        assert_eq!(from_body.provider.as_deref(), Some(&detail), "{name}: the body");
        for size in [1, 7, stream.len()] {
            let from_stream = stream_error(&stream, size);
            assert_eq!(from_stream, from_body, "{name}: the stream in pieces of {size}");
        }
    }
}

#[test]
fn the_message_error_and_its_event_carry_the_provider_s_type_and_code() {
    let google_error = json!({"error": {"code": 503, "message": "busy", "status": "UNAVAILABLE"}});
    let mut acc = Accumulator::new(AccumulatorOptions { format: Format::Gemini, ..Default::default() });
    let events = serde_json::to_value(acc.push(format!("data: {google_error}\n\n").as_bytes()).unwrap()).unwrap();
    let expected = json!({"message": "busy", "code": "503", "outcome": "determinate", "retryable": true,
                          "providerType": "UNAVAILABLE", "providerCode": "503"});
    let mut event = expected.clone();
    event["type"] = json!("error");
    assert_eq!(events, json!([event]));
    let message = serde_json::to_value(acc.finish()).unwrap();
    assert_eq!(message["error"], expected);
}

#[test]
fn replayed_events_keep_the_provider_s_type_and_code() {
    let (_, _, _, stream, detail) = cases().into_iter().find(|c| c.0 == "bedrock").unwrap();
    let mut first = Accumulator::new(AccumulatorOptions::default());
    let mut events = first.push(&stream).unwrap().to_vec();
    events.extend(first.flush().iter().cloned());
    let mut replay = Accumulator::new(AccumulatorOptions::default());
    let json: Vec<_> = events
        .iter()
        .map(|e| StreamEvent::from_json(&serde_json::to_value(e).unwrap().into(), "event"))
        .collect::<Result<_, _>>()
        .unwrap();
    replay.apply(&json).unwrap();
    let err = replay.finish().result(false).unwrap_err();
    assert_eq!(err.provider.as_deref(), Some(&detail));
}

/// Google's status names alone, without the HTTP code: the transient ones are retryable.
#[test]
fn a_google_status_without_its_code_is_retryable_when_transient() {
    let cases = [
        ("UNAVAILABLE", true),
        ("RESOURCE_EXHAUSTED", true),
        ("INTERNAL", true),
        ("DEADLINE_EXCEEDED", true),
        ("INVALID_ARGUMENT", false),
        ("PERMISSION_DENIED", false),
        ("NOT_FOUND", false),
    ];
    for (status, retryable) in cases {
        let body = json!({"error": {"message": "m", "status": status}});
        let err = process(&agent("google", ""), body.to_string().as_str()).unwrap_err();
        let detail = err.provider.as_deref().unwrap();
        assert_eq!((detail.kind.as_deref(), detail.code.as_deref()), (Some(status), None));
        assert_eq!(detail.retryable, retryable, "{status}: the body");
        let streamed = stream_error(format!("data: {body}\n\n").as_bytes(), 5);
        assert_eq!(streamed, err, "{status}: the stream");
    }
}

/// Without an agent, AWS's error bodies (a `message` or `Message` string, with at most `__type`
/// and `code` beside) are Bedrock's provider errors; a body with anything else keeps its format.
#[test]
fn an_aws_error_body_without_an_agent_is_a_bedrock_provider_error() {
    // (body, message, type, code, retryable)
    let cases = [
        (
            json!({"message": "Too many requests", "__type": "ThrottlingException"}),
            "Too many requests",
            Some("ThrottlingException"),
            None,
            true,
        ),
        (
            json!({"__type": "com.amazonaws.bedrock#ValidationException", "message": "bad"}),
            "bad",
            Some("ValidationException"),
            None,
            false,
        ),
        (json!({"Message": "User is not authorized"}), "User is not authorized", None, None, false),
        (json!({"message": "slow down", "code": 429}), "slow down", None, Some("429"), true),
    ];
    for (body, message, kind, code, retryable) in cases {
        let err = llm_wire::to_message(body.to_string().as_str(), None).unwrap_err();
        assert_eq!((err.code, err.message.as_str()), (ErrorCode::ProviderError, message), "{body}");
        let detail = err.provider.as_deref().unwrap();
        assert_eq!(
            (detail.kind.as_deref(), detail.code.as_deref(), detail.retryable),
            (kind, code, retryable),
            "{body}"
        );
        // The same body with its agent gives the same error.
        assert_eq!(process(&agent("bedrock", ""), body.to_string().as_str()).unwrap_err(), err, "{body}");
    }
    // Anything else beside the message, or a message that is not a string, is not AWS's shape.
    for body in [
        json!({"message": "m", "__type": "ThrottlingException", "choices": []}),
        json!({"message": {"role": "assistant", "content": "hi"}}),
        json!({"__type": "ThrottlingException"}),
        json!({"message": "m", "code": {"n": 1}}),
    ] {
        let err = llm_wire::to_message(body.to_string().as_str(), None).unwrap_err();
        assert_eq!(err.code, ErrorCode::EmptyResponse, "{body}: read as Chat");
    }
}

/// A Chat-compatible body that is the error itself is a `provider_error`, with or without an
/// agent: `{object: "error", message, type, code}` (a message that is not a string kept as its
/// JSON text, as Mistral's validation errors have it) and FastAPI's `{"detail": ...}`.
#[test]
fn a_chat_body_that_is_an_error_object_is_a_provider_error() {
    // (body, message, type, code)
    let cases = [
        (
            json!({"object": "error", "message": "Invalid model: x", "type": "invalid_model", "param": null,
                   "code": "1500"}),
            "Invalid model: x".to_owned(),
            Some("invalid_model"),
            Some("1500"),
        ),
        (
            json!({"object": "error", "message": {"detail": [{"type": "extra_forbidden", "msg": "Extra inputs"}]},
                   "type": "invalid_request_error", "param": null, "code": null}),
            json!({"detail": [{"type": "extra_forbidden", "msg": "Extra inputs"}]}).to_string(),
            Some("invalid_request_error"),
            None,
        ),
        (json!({"detail": "Not Found"}), "Not Found".to_owned(), None, None),
        (
            json!({"detail": [{"loc": ["body"], "msg": "field required"}]}),
            r#"[{"loc":["body"],"msg":"field required"}]"#.to_owned(),
            None,
            None,
        ),
    ];
    for (body, message, kind, code) in cases {
        let text = body.to_string();
        let err = process(&agent("vllm", "chat"), text.as_str()).unwrap_err();
        assert_eq!((err.code, err.message.as_str()), (ErrorCode::ProviderError, message.as_str()), "{body}");
        let detail = err.provider.as_deref().unwrap();
        assert_eq!((detail.kind.as_deref(), detail.code.as_deref()), (kind, code), "{body}");
        // Mistral's own codes (`1500`) are no HTTP status: nothing here says to retry.
        assert!(!detail.retryable, "{body}");
        assert_eq!(llm_wire::to_message(text.as_str(), None).unwrap_err(), err, "{body}: without an agent");
    }
}

/// Only those shapes are errors: an ordinary body or chunk with a `message`, `type`, `code` or
/// `detail` member beside its choices, or an `object` other than `error`, is read as it is.
#[test]
fn an_ordinary_chat_body_is_never_read_as_an_error_object() {
    let choices = json!([{"index": 0, "message": {"role": "assistant", "content": "Hi"}, "finish_reason": "stop"}]);
    for body in [
        json!({"object": "chat.completion", "message": "m", "type": "t", "code": 1, "choices": choices}),
        json!({"detail": "d", "choices": choices}),
        json!({"object": "error2", "message": "m", "choices": choices}),
    ] {
        let message = llm_wire::to_message(body.to_string().as_str(), Some(&agent("vllm", "chat"))).unwrap();
        assert_eq!((message.text.as_str(), message.error.is_none()), ("Hi", true), "{body}");
    }
    // Without choices and not an error, it is still a body without choices.
    let err = process(&agent("vllm", "chat"), r#"{"object":"chat.completion","message":"m"}"#).unwrap_err();
    assert_eq!(err.code, ErrorCode::EmptyResponse);
}

/// A stream whose bytes stop before its end, with no error, is not an answer: `result()` throws
/// `transport_error` in every format, while the final message keeps what came.
#[test]
fn a_stream_cut_before_its_end_throws_transport_error_from_result() {
    let cut: [(Format, &str); 4] = [
        (Format::OpenAiChat, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"{\\\"city\\\": \\\"Os\"}}]}\n\n"),
        (Format::Anthropic, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"content\":[]}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Os\"}}\n\n"),
        (Format::OpenAiResponses, "data: {\"type\":\"response.output_text.delta\",\"item_id\":\"i\",\"output_index\":0,\"content_index\":0,\"delta\":\"Os\"}\n\n"),
        (Format::Gemini, "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Os\"}],\"role\":\"model\"},\"index\":0}]}\n\n"),
    ];
    for (format, body) in cut {
        let options = AccumulatorOptions { format, ..AccumulatorOptions::default() };
        let mut acc = Accumulator::new(options);
        acc.push(body.as_bytes()).unwrap();
        let message = acc.finish();
        assert!(!message.complete && message.error.is_none(), "{format:?}");
        assert!(message.text.ends_with("Os"), "{format:?}: the text is kept");
        assert_eq!(message.result(false).unwrap_err().code, ErrorCode::TransportError, "{format:?}");
    }
    // The same stream with its end is an answer.
    let mut whole = Accumulator::new(AccumulatorOptions::default());
    whole
        .push(b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Oslo\"},\"finish_reason\":\"stop\"}]}\n\n")
        .unwrap();
    assert!(whole.finish().result(false).is_ok());
}

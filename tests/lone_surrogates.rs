//! A lone UTF-16 surrogate escape (`\ud83d` without its pair: a JS server that cut text by code
//! units) reads as U+FFFD in a body as in a stream event (docs/design.md, "Streaming"): a body of
//! every format gives the message of the same body with `\ufffd` in its place, and a stream the
//! same text.
#![cfg(not(target_arch = "wasm32"))]

use llm_wire::{process, to_message, Accumulator, AccumulatorOptions, Agent, ProcessResult};

/// A body of each format with `TEXT` where its answer's text goes.
const BODIES: [&str; 5] = [
    r#"{"choices":[{"index":0,"message":{"role":"assistant","content":"TEXT"},"finish_reason":"stop"}]}"#,
    r#"{"type":"message","id":"msg_1","role":"assistant","model":"m","content":[{"type":"text","text":"TEXT"}],"stop_reason":"end_turn"}"#,
    r#"{"object":"response","status":"completed","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"TEXT"}]}]}"#,
    r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"TEXT"}]},"finishReason":"STOP"}]}"#,
    r#"{"output":{"message":{"role":"assistant","content":[{"text":"TEXT"}]}},"stopReason":"end_turn"}"#,
];

#[test]
fn a_lone_surrogate_in_a_body_reads_as_in_its_stream() {
    for body in BODIES {
        for (lone, fixed) in
            [(r"a\ud83db", r"a\ufffdb"), (r"a\ude0a", r"a\ufffd"), (r"\ud83d\ud83d\ude0a", r"\ufffd\ud83d\ude0a")]
        {
            let with_lone = body.replace("TEXT", lone);
            let message = to_message(with_lone.as_str(), None).unwrap_or_else(|e| panic!("{with_lone}: {e:?}"));
            assert_eq!(message, to_message(body.replace("TEXT", fixed).as_str(), None).unwrap(), "{with_lone}");
            assert!(message.text.contains('\u{fffd}'), "{with_lone}: {:?}", message.text);
        }
    }
    let chat = BODIES[0].replace("TEXT", r"a\ud83db");
    assert_eq!(process(&Agent::default(), chat.as_str()).unwrap(), ProcessResult::Text("a\u{fffd}b".into()));
    // The same answer streamed: the same text.
    let stream =
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\\ud83db\"},\"finish_reason\":\"stop\"}]}\n\n";
    let mut acc = Accumulator::new(AccumulatorOptions::default());
    acc.push(stream.as_bytes()).unwrap();
    assert_eq!(acc.finish().text, "a\u{fffd}b");
}

/// Text that is not JSON for another reason is still refused, whole.
#[test]
fn a_body_broken_otherwise_is_still_invalid_json() {
    let broken = BODIES[0].replace("TEXT", r"a\ud83db\x");
    let err = to_message(broken.as_str(), None).unwrap_err();
    assert_eq!(err.code.as_str(), "invalid_json", "{err:?}");
}

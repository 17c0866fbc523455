//! The Accumulator in every format on arbitrary bytes at arbitrary split points, with the
//! default limits or small ones the input chooses: never a panic, the same `FinalMessage` as
//! pushing everything at once, the text events adding up to the final text, the final message
//! within the limits, and after a limit every later push refused with the same error.
#![no_main]

use std::collections::BTreeMap;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use llm_wire::{Accumulator, AccumulatorOptions, Agent, ErrorCode, FinalMessage, Format, Limits, Property, StreamEvent};
use llm_wire_fuzz::StreamInput;

struct Run {
    message: FinalMessage,
    /// A `limit_exceeded` was reported (as an error event or a refused push).
    limit: bool,
}

/// The configuration byte: the format in its low three bits, live partial JSON in bit 3, and the
/// agent's `outputs` (read live as the structured answer) in bit 4.
fn options(config: u8, limits: Limits) -> AccumulatorOptions {
    let format = match config & 7 {
        1 => Format::OpenAiChat,
        2 => Format::Anthropic,
        3 => Format::OpenAiResponses,
        4 => Format::Bedrock,
        5 | 7 => Format::Gemini,
        _ => Format::Auto,
    };
    let outputs = if config & 0x10 != 0 { outputs().to_vec() } else { Vec::new() };
    AccumulatorOptions { format, limits, provider: None, partial_json: config & 0x08 != 0, outputs }
}

/// A structured answer with a string, a number, an enum and an array of objects.
fn outputs() -> &'static [Property] {
    static OUTPUTS: OnceLock<Vec<Property>> = OnceLock::new();
    OUTPUTS.get_or_init(|| {
        let agent = serde_json::json!({
            "model": {"id": "m"},
            "outputs": [
                {"name": "city", "kind": "string", "required": true},
                {"name": "temp", "kind": "float"},
                {"name": "unit", "kind": "string", "enumValues": ["c", "f"]},
                {"name": "items", "kind": "array", "items": {"kind": "object", "properties": [{"name": "name", "kind": "string"}]}}
            ]
        });
        Agent::from_json(&agent.into()).expect("a fixed agent reads").outputs
    })
}

fn run(options: &AccumulatorOptions, chunks: &[&[u8]]) -> Run {
    let mut acc = Accumulator::new(options.clone());
    let mut events: Vec<StreamEvent> = Vec::new();
    let mut failed: Option<llm_wire::Error> = None;
    for chunk in chunks {
        match acc.push(chunk) {
            Ok(batch) => {
                assert!(failed.is_none(), "a push accepted after a refused one");
                events.extend_from_slice(batch);
            }
            Err(e) => {
                match &failed {
                    None => assert!(
                        events.iter().any(|ev| matches!(ev, StreamEvent::Error { error } if error.code.as_deref() == Some(e.code.as_str()))),
                        "a push refused ({e:?}) without an error event first"
                    ),
                    Some(first) => assert_eq!((e.code, &e.message), (first.code, &first.message), "later pushes are refused with the same error"),
                }
                failed = Some(e);
            }
        }
    }
    events.extend_from_slice(acc.flush());
    assert!(acc.flush().is_empty(), "a second flush gives nothing");
    let refused = acc.push(b"data: {}\n\n").expect_err("push after flush is refused");
    match &failed {
        // Finished, or the error that stopped the stream (an exceeded limit, a broken Bedrock
        // frame), reported by an event.
        None => assert!(
            refused.code == ErrorCode::Finished
                || events.iter().any(|ev| matches!(ev, StreamEvent::Error { error } if error.code.as_deref() == Some(refused.code.as_str()))),
            "{refused:?}"
        ),
        Some(first) => assert_eq!(refused.code, first.code),
    }
    let message = acc.finish();

    let limit = events
        .iter()
        .any(|e| matches!(e, StreamEvent::Error { error } if error.code.as_deref() == Some("limit_exceeded")));
    check_text(&events, &message);
    check_limits(&options.limits, &message);
    Run { message, limit }
}

/// What the limits promise of the final message: no tool call's arguments longer than
/// `max_tool_argument_bytes`, and the text and reasoning of all choices together within
/// `max_message_bytes`.
fn check_limits(limits: &Limits, message: &FinalMessage) {
    let choices = message.choices.as_deref().unwrap_or(std::slice::from_ref(message));
    let kept: usize = choices.iter().map(|c| c.text.len() + c.reasoning.len()).sum();
    assert!(kept <= limits.max_message_bytes, "{kept} bytes of text and reasoning kept, above maxMessageBytes");
    for call in choices.iter().flat_map(|c| &c.tool_calls) {
        assert!(
            call.arguments.len() <= limits.max_tool_argument_bytes,
            "tool call arguments of {} bytes kept, above maxToolArgumentBytes",
            call.arguments.len()
        );
    }
}

/// The text events of each choice, concatenated, are that choice's final text.
fn check_text(events: &[StreamEvent], message: &FinalMessage) {
    let mut texts: BTreeMap<u32, String> = BTreeMap::new();
    for event in events {
        if let StreamEvent::Text { text, choice } = event {
            texts.entry(*choice).or_default().push_str(text);
        }
    }
    match &message.choices {
        None => {
            let all: String = texts.values().map(String::as_str).collect();
            assert_eq!(all, message.text, "the text events do not add up to the final text");
        }
        Some(choices) => {
            let from_events: Vec<&str> = texts.values().map(String::as_str).filter(|t| !t.is_empty()).collect();
            let finals: Vec<&str> = choices.iter().map(|c| c.text.as_str()).filter(|t| !t.is_empty()).collect();
            assert_eq!(from_events, finals, "the text events do not add up to the final texts of the choices");
        }
    }
}

fuzz_target!(|input: &[u8]| {
    let Some(input) = StreamInput::parse(input) else { return };
    let options = options(input.config, input.limits());
    let whole = run(&options, &[input.data]);
    let split = run(&options, &input.chunks());
    if whole.limit || split.limit {
        // A partial line can trip a limit before its complete form would: only require that
        // both runs hit it.
        assert!(whole.limit && split.limit, "a limit reached in one run only (split at {:?})", input.cuts);
    } else {
        assert_eq!(whole.message, split.message, "split variance at {:?}", input.cuts);
    }
    if input.data.len() <= 128 {
        let bytes: Vec<&[u8]> = input.data.chunks(1).collect();
        let one_by_one = run(&options, &bytes);
        if !(whole.limit || one_by_one.limit) {
            assert_eq!(whole.message, one_by_one.message, "byte-by-byte variance");
        }
    }
});

//! `format: "auto"`: the stream's format from its first event, by its `event:` name when it has
//! one (an AWS event-stream message's `:event-type`) and by the shape of its data otherwise.

use super::Format;
use crate::json::{read_document, Kind};
use crate::sse::SseEvent;

/// What detection looks at in a first event's data, read with [`crate::json`]: its `type`
/// string, and which of the other members are present and not null.
///
/// Lenient where the serde derive this replaced refused the whole event (so detected Chat): a
/// `type` with escapes is read unescaped, and a repeated key is read again (the last one wins).
/// A `type` that is not a string reads as absent, which detects Chat as before. Data that is
/// not an object detects Chat (serde read an array as the fields in order; nobody sends that).
#[derive(Default)]
struct Shape<'a> {
    kind: Option<std::borrow::Cow<'a, str>>,
    /// Whether each of these members is present and not null.
    choices: bool,
    error: bool,
    message: bool,
    sequence_number: bool,
    /// A member only a Gemini chunk has: `candidates`, `promptFeedback` or `usageMetadata`.
    gemini: bool,
    /// An `error` object with a `status` string: Google's error shape.
    google_error: bool,
}

impl<'a> Shape<'a> {
    /// The shape of `data`, or `None` when it is not one JSON object.
    fn read(data: &'a [u8]) -> Option<Shape<'a>> {
        let mut shape = Shape::default();
        let is_object = read_document(data, |r| {
            r.object(|r, key| {
                let present = match key {
                    b"type" => return r.string().map(|kind| shape.kind = kind),
                    b"choices" => &mut shape.choices,
                    b"candidates" | b"promptFeedback" | b"usageMetadata" => &mut shape.gemini,
                    b"error" if r.peek()? == Kind::Object => {
                        shape.error = true;
                        return r
                            .object(|r, key| {
                                if key == b"status" && r.peek()? == Kind::String {
                                    shape.google_error = true;
                                }
                                Ok(())
                            })
                            .map(|_| ());
                    }
                    b"error" => &mut shape.error,
                    b"message" => &mut shape.message,
                    b"sequence_number" => &mut shape.sequence_number,
                    _ => return Ok(()),
                };
                *present = r.peek()? != Kind::Null;
                Ok(())
            })
        });
        is_object.ok()?.then_some(shape)
    }
}

fn by_type(kind: &str) -> Option<Format> {
    match kind {
        "message_start"
        | "message_delta"
        | "message_stop"
        | "content_block_start"
        | "content_block_delta"
        | "content_block_stop"
        | "ping" => Some(Format::Anthropic),
        _ if kind.starts_with("response.") => Some(Format::OpenAiResponses),
        _ => None,
    }
}

/// The event types of Bedrock's streams: ConverseStream's, and InvokeModelWithResponseStream's
/// `chunk`. They arrive as AWS event-stream messages, whose `:event-type` names them.
fn is_bedrock_event(name: &str) -> bool {
    matches!(
        name,
        "messageStart"
            | "contentBlockStart"
            | "contentBlockDelta"
            | "contentBlockStop"
            | "messageStop"
            | "metadata"
            | "chunk"
    )
}

/// The format of the stream whose first event is `event`. OpenAI Chat when nothing says
/// otherwise: it is the format of every OpenAI-compatible server.
pub(crate) fn detect(event: &SseEvent<'_>) -> Format {
    if let Some(format) = by_type(event.event) {
        return format;
    }
    if is_bedrock_event(event.event) {
        return Format::Bedrock;
    }
    let Some(shape) = Shape::read(event.data) else {
        return Format::OpenAiChat; // `[DONE]`, or a malformed first chunk
    };
    let Shape { kind, choices, error, message, sequence_number, gemini, google_error } = shape;
    if choices {
        return Format::OpenAiChat;
    }
    if gemini || (google_error && kind.is_none()) {
        return Format::Gemini;
    }
    match kind.as_deref() {
        Some(kind) => match by_type(kind) {
            Some(format) => format,
            // Responses events are numbered; Anthropic nests its error object with no number.
            None if kind == "error" && sequence_number => Format::OpenAiResponses,
            None if kind == "error" && error => Format::Anthropic,
            None if kind == "error" && message => Format::OpenAiResponses,
            None => Format::OpenAiChat,
        },
        None => Format::OpenAiChat,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(event: &str, data: &str) -> Format {
        detect(&SseEvent { event, data: data.as_bytes(), id: b"" })
    }

    #[test]
    fn an_error_first_event_is_told_apart_by_its_shape() {
        assert_eq!(
            of("message", r#"{"type":"error","error":{"type":"overloaded_error","message":"x"}}"#),
            Format::Anthropic
        );
        assert_eq!(
            of("message", r#"{"type":"error","sequence_number":1,"error":{"code":"c","message":"x"}}"#),
            Format::OpenAiResponses
        );
        assert_eq!(of("message", r#"{"type":"error","code":"c","message":"x"}"#), Format::OpenAiResponses);
        assert_eq!(of("error", r#"{"error":{"message":"x"}}"#), Format::OpenAiChat);
    }

    #[test]
    fn a_null_member_is_absent() {
        assert_eq!(
            of("message", r#"{"type":"error","sequence_number":null,"error":{"message":"x"}}"#),
            Format::Anthropic
        );
        assert_eq!(of("message", r#"{"choices":null,"type":"message_start"}"#), Format::Anthropic);
        assert_eq!(of("message", r#"{"type":"error","error":null,"message":"x"}"#), Format::OpenAiResponses);
    }

    #[test]
    fn a_bedrock_event_type_names_the_bedrock_format_whatever_its_data() {
        for name in ["messageStart", "contentBlockDelta", "contentBlockStart", "metadata", "chunk"] {
            assert_eq!(of(name, r#"{"choices":[]}"#), Format::Bedrock, "{name}");
        }
        assert_eq!(of("MessageStart", "{}"), Format::OpenAiChat, "event types are case-sensitive");
    }

    #[test]
    fn the_event_name_wins_over_the_data() {
        assert_eq!(of("message_start", "{}"), Format::Anthropic);
        assert_eq!(of("response.created", "not json"), Format::OpenAiResponses);
    }

    #[test]
    fn chat_is_the_fallback_for_done_and_malformed_data() {
        assert_eq!(of("message", "[DONE]"), Format::OpenAiChat);
        assert_eq!(of("message", "{oops"), Format::OpenAiChat);
        assert_eq!(of("message", r#"{"object":"chat.completion.chunk","choices":[]}"#), Format::OpenAiChat);
    }

    #[test]
    fn a_gemini_chunk_or_a_google_error_is_gemini() {
        assert_eq!(of("message", r#"{"candidates":[{"content":{"parts":[{"text":"a"}]}}]}"#), Format::Gemini);
        assert_eq!(of("message", r#"{"promptFeedback":{"blockReason":"SAFETY"}}"#), Format::Gemini);
        assert_eq!(of("message", r#"{"usageMetadata":{"trafficType":"ON_DEMAND"}}"#), Format::Gemini);
        assert_eq!(
            of("message", r#"{"error":{"code":429,"message":"x","status":"RESOURCE_EXHAUSTED"}}"#),
            Format::Gemini
        );
        assert_eq!(of("message", r#"{"error":{"code":429,"message":"x","status":429}}"#), Format::OpenAiChat);
        assert_eq!(of("message", r#"{"candidates":null,"choices":[]}"#), Format::OpenAiChat);
    }
}

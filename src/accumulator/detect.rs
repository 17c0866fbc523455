//! `format: "auto"`: the stream's format from its first event, by its `event:` name when it has
//! one and by the shape of its data otherwise.

use serde::Deserialize;

use super::Format;
use crate::sse::SseEvent;

#[derive(Deserialize)]
struct Shape<'a> {
    #[serde(default, borrow, rename = "type")]
    kind: Option<&'a str>,
    #[serde(default)]
    choices: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    error: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    message: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    sequence_number: Option<serde::de::IgnoredAny>,
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

/// The format of the stream whose first event is `event`. OpenAI Chat when nothing says
/// otherwise: it is the format of every OpenAI-compatible server.
pub(crate) fn detect(event: &SseEvent<'_>) -> Format {
    if let Some(format) = by_type(event.event) {
        return format;
    }
    let Ok(shape) = serde_json::from_slice::<Shape<'_>>(event.data) else {
        return Format::OpenAiChat; // `[DONE]`, or a malformed first chunk
    };
    if shape.choices.is_some() {
        return Format::OpenAiChat;
    }
    match shape.kind {
        Some(kind) => match by_type(kind) {
            Some(format) => format,
            // Responses events are numbered; Anthropic nests its error object with no number.
            None if kind == "error" && shape.sequence_number.is_some() => Format::OpenAiResponses,
            None if kind == "error" && shape.error.is_some() => Format::Anthropic,
            None if kind == "error" && shape.message.is_some() => Format::OpenAiResponses,
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
}

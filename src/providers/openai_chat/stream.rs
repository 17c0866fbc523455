//! OpenAI Chat Completions chunks (`chat.completion.chunk`) → builder calls.
//!
//! Chunks are read into typed structs that borrow from the event's bytes and skip every field
//! they do not name; text fields are read leniently so one odd field never costs a chunk.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::{convert_usage, map_finish_reason};
use crate::accumulator::MessageBuilder;
use crate::error::Result;
use crate::model::{ErrorInfo, Outcome};
use crate::providers::{ErrorBody, Handled, Scalar};
use crate::sse::SseEvent;

#[derive(Deserialize)]
struct Chunk<'a> {
    #[serde(default, borrow)]
    id: Scalar<'a>,
    #[serde(default, borrow)]
    model: Scalar<'a>,
    #[serde(default, borrow)]
    object: Scalar<'a>,
    /// OpenRouter names the upstream provider.
    #[serde(default, borrow)]
    provider: Scalar<'a>,
    #[serde(default, borrow)]
    choices: Option<Vec<Choice<'a>>>,
    #[serde(default, borrow)]
    usage: Option<&'a RawValue>,
    #[serde(default, borrow)]
    x_groq: Option<XGroq<'a>>,
    #[serde(default, borrow)]
    error: Option<ErrorBody<'a>>,
}

#[derive(Deserialize)]
pub(crate) struct XGroq<'a> {
    #[serde(default, borrow)]
    pub(crate) usage: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Choice<'a> {
    #[serde(default)]
    index: Option<u32>,
    #[serde(default, borrow)]
    delta: Option<Delta<'a>>,
    #[serde(default, borrow)]
    finish_reason: Scalar<'a>,
}

#[derive(Deserialize)]
pub(crate) struct Delta<'a> {
    #[serde(default, borrow)]
    content: Content<'a>,
    #[serde(default, borrow)]
    reasoning_content: Scalar<'a>,
    #[serde(default, borrow)]
    reasoning: Scalar<'a>,
    #[serde(default, borrow)]
    pub(crate) refusal: Scalar<'a>,
    #[serde(default, borrow)]
    tool_calls: Option<Vec<ToolCallDelta<'a>>>,
}

#[derive(Deserialize)]
struct ToolCallDelta<'a> {
    #[serde(default)]
    index: Option<u64>,
    #[serde(default, borrow)]
    id: Scalar<'a>,
    #[serde(default, borrow)]
    function: Option<FunctionDelta<'a>>,
}

#[derive(Deserialize)]
struct FunctionDelta<'a> {
    #[serde(default, borrow)]
    name: Scalar<'a>,
    #[serde(default, borrow)]
    arguments: Scalar<'a>,
}

/// `delta.content`: a string, or (Mistral's Magistral) an array of `text` and `thinking` parts.
#[derive(Default)]
enum Content<'a> {
    #[default]
    None,
    Text(Cow<'a, str>),
    Parts(Vec<(bool, Cow<'a, str>)>),
}

/// One part of array content: `{type:"text", text}` or `{type:"thinking", thinking}` where
/// `thinking` is a string or an array of `{type:"text", text}`.
#[derive(Deserialize)]
struct ContentPart<'a> {
    #[serde(default, borrow, rename = "type")]
    kind: Scalar<'a>,
    #[serde(default, borrow)]
    text: Scalar<'a>,
    #[serde(default, borrow)]
    thinking: Thinking<'a>,
}

#[derive(Default)]
struct Thinking<'a>(Vec<Cow<'a, str>>);

#[derive(Deserialize)]
struct TextPart<'a> {
    #[serde(default, borrow)]
    text: Scalar<'a>,
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Content<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("content")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> std::result::Result<Self::Value, E> {
                Ok(Content::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> std::result::Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(v)))
            }
            fn visit_unit<E: de::Error>(self) -> std::result::Result<Self::Value, E> {
                Ok(Content::None)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Self::Value, A::Error> {
                let mut parts = Vec::new();
                while let Some(part) = seq.next_element::<ContentPart<'de>>()? {
                    match part.kind.as_deref() {
                        Some("thinking") => parts.extend(part.thinking.0.into_iter().map(|t| (true, t))),
                        _ => parts.extend(part.text.0.map(|t| (false, t))),
                    }
                }
                Ok(Content::Parts(parts))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Content::None)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> std::result::Result<Self::Value, E> {
                Ok(Content::None)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> std::result::Result<Self::Value, E> {
                Ok(Content::None)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> std::result::Result<Self::Value, E> {
                Ok(Content::None)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> std::result::Result<Self::Value, E> {
                Ok(Content::None)
            }
        }
        deserializer.deserialize_any(V)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Thinking<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Thinking<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("thinking")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> std::result::Result<Self::Value, E> {
                Ok(Thinking(vec![Cow::Borrowed(v)]))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Self::Value, E> {
                Ok(Thinking(vec![Cow::Owned(v.to_owned())]))
            }
            fn visit_string<E: de::Error>(self, v: String) -> std::result::Result<Self::Value, E> {
                Ok(Thinking(vec![Cow::Owned(v)]))
            }
            fn visit_unit<E: de::Error>(self) -> std::result::Result<Self::Value, E> {
                Ok(Thinking::default())
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Self::Value, A::Error> {
                let mut texts = Vec::new();
                while let Some(part) = seq.next_element::<TextPart<'de>>()? {
                    texts.extend(part.text.0);
                }
                Ok(Thinking(texts))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Thinking::default())
            }
        }
        deserializer.deserialize_any(V)
    }
}

/// The state of one OpenAI Chat stream beyond what the builder keeps: nothing yet, the format
/// is stateless per chunk.
#[derive(Debug, Default)]
pub(crate) struct ChatStream;

impl ChatStream {
    pub(crate) fn event(&mut self, event: &SseEvent<'_>, b: &mut MessageBuilder) -> Result<Handled> {
        let data = event.data;
        if data.trim_ascii() == b"[DONE]" {
            b.end_all_choices()?;
            b.done();
            return Ok(Handled::Done);
        }
        if event.event == "error" {
            self.error_event(data, b);
            return Ok(Handled::Done);
        }
        let chunk: Chunk<'_> = match serde_json::from_slice(data) {
            Ok(chunk) => chunk,
            Err(err) => return Ok(Handled::NotJson(err.to_string())),
        };
        b.start(chunk.id.as_deref(), chunk.model.as_deref(), chunk.provider.as_deref());
        for choice in chunk.choices.into_iter().flatten() {
            let index = choice.index.unwrap_or(0);
            if let Some(delta) = choice.delta {
                apply_delta(b, index, delta)?;
            }
            if let Some(raw) = choice.finish_reason.as_deref() {
                b.finish_reason(index, map_finish_reason(raw), raw)?;
                if b.all_choices_finished() {
                    b.done();
                }
            }
        }
        if let Some(usage) = chunk.usage.or(chunk.x_groq.and_then(|x| x.usage)).and_then(convert_usage) {
            b.set_usage(usage);
        }
        if let Some(error) = chunk.error {
            b.error(error.info());
        }
        if chunk.object.as_deref() == Some("chat.completion.done") {
            b.done();
        }
        Ok(Handled::Done)
    }

    /// `event: error` (Groq): `{"error": {...}}`, or the error object itself.
    fn error_event(&mut self, data: &[u8], b: &mut MessageBuilder) {
        #[derive(Deserialize)]
        struct Wrapped<'a> {
            #[serde(default, borrow)]
            error: Option<ErrorBody<'a>>,
        }
        match serde_json::from_slice::<Wrapped<'_>>(data) {
            Ok(Wrapped { error: Some(error) }) => b.error(error.info()),
            _ => match serde_json::from_slice::<ErrorBody<'_>>(data) {
                Ok(error) => b.error(error.info()),
                Err(_) => b.error(ErrorInfo {
                    message: String::from_utf8_lossy(data).into_owned(),
                    code: None,
                    outcome: Outcome::Determinate,
                    retryable: None,
                }),
            },
        }
    }
}

pub(crate) fn apply_delta(b: &mut MessageBuilder, index: u32, delta: Delta<'_>) -> Result<()> {
    if let Some(reasoning) = delta.reasoning_content.as_deref().or(delta.reasoning.as_deref()) {
        b.reasoning(index, reasoning)?;
    }
    match delta.content {
        Content::Text(text) => b.tagged_content(index, &text)?,
        Content::Parts(parts) => {
            for (thinking, text) in parts {
                if thinking {
                    b.reasoning(index, &text)?;
                } else {
                    b.tagged_content(index, &text)?;
                }
            }
        }
        Content::None => {}
    }
    for call in delta.tool_calls.into_iter().flatten() {
        let (name, arguments) = match &call.function {
            Some(f) => (f.name.as_deref(), f.arguments.as_deref()),
            None => (None, None),
        };
        b.chat_tool_call(index, call.index, call.id.as_deref(), name, arguments)?;
    }
    if let Some(refusal) = delta.refusal.as_deref() {
        b.refusal(index, refusal);
    }
    Ok(())
}

//! The closed set of normalised stream events every format is reduced to.

use serde::Serialize;

use super::{is_zero, Usage};
use crate::json::write::{Object, WriteJson};
use crate::partial_json::{write_changes, Change};

/// Why generation stopped, unified across providers; the provider's own value travels beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    Stop,
    Length,
    ToolCalls,
    ContentFilter,
    Refusal,
    Error,
    Other,
}

/// Whether the provider's side of a failure is known (`determinate`: it told us it failed or
/// refused) or not (`indeterminate`: the bytes stopped or could not be read, so the request may
/// still have completed upstream and needs reconciling).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Determinate,
    Indeterminate,
}

/// An error reported inside a stream, and kept on the final message. A provider's error also
/// carries the provider's own type and code, as the `provider_error` thrown for it does.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ErrorInfo {
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    pub outcome: Outcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retryable: Option<bool>,
    /// The provider's error type (`rate_limit_error`, `RESOURCE_EXHAUSTED`, `ThrottlingException`).
    #[serde(rename = "providerType", skip_serializing_if = "Option::is_none")]
    pub provider_type: Option<String>,
    /// The provider's error code (`rate_limit_exceeded`, `429`), numbers as text.
    #[serde(rename = "providerCode", skip_serializing_if = "Option::is_none")]
    pub provider_code: Option<String>,
}

/// One normalised stream event (docs/design.md, "Streaming"). `choice` is omitted for the
/// first choice.
/// `index` on tool-call events is the call's position in the message's `toolCalls`, not the
/// provider's own index (which some providers omit or reuse).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamEvent {
    Start {
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        model: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        provider: Option<String>,
    },
    Text {
        text: String,
        #[serde(skip_serializing_if = "is_zero")]
        choice: u32,
    },
    Reasoning {
        text: String,
        #[serde(skip_serializing_if = "is_zero")]
        choice: u32,
    },
    ReasoningSignature {
        signature: String,
        #[serde(skip_serializing_if = "is_zero")]
        choice: u32,
    },
    ToolCallStart {
        index: u32,
        id: String,
        name: String,
        #[serde(skip_serializing_if = "is_zero")]
        choice: u32,
    },
    #[serde(rename_all = "camelCase")]
    ToolCallDelta {
        index: u32,
        arguments_delta: String,
        #[serde(skip_serializing_if = "is_zero")]
        choice: u32,
    },
    ToolCallEnd {
        index: u32,
        id: String,
        name: String,
        arguments: String,
        #[serde(skip_serializing_if = "is_zero")]
        choice: u32,
    },
    /// The text block that the `text` events before it filled has ended (a block stop, an item
    /// done, another block starting, the choice finishing); once per block.
    TextEnd {
        #[serde(skip_serializing_if = "is_zero")]
        choice: u32,
    },
    /// The reasoning block that the `reasoning` events before it filled has ended.
    ReasoningEnd {
        #[serde(skip_serializing_if = "is_zero")]
        choice: u32,
    },
    /// With `partial_json`: what the last arguments of call `index` changed in its value, as a
    /// list of [`Change`]s (apply them to a [`crate::partial_json::PartialTree`] per call). JSON
    /// writes them in the flat form of [`write_changes`]; the npm package's events carry the
    /// value instead.
    ToolCallPartial {
        index: u32,
        #[serde(serialize_with = "serialize_changes")]
        changes: Vec<Change>,
        #[serde(skip_serializing_if = "is_zero")]
        choice: u32,
    },
    /// With `partial_json` and the agent's `outputs`: what the last text changed in the value of
    /// the structured answer, as for [`StreamEvent::ToolCallPartial`].
    OutputPartial {
        #[serde(serialize_with = "serialize_changes")]
        changes: Vec<Change>,
        #[serde(skip_serializing_if = "is_zero")]
        choice: u32,
    },
    Usage {
        usage: Usage,
    },
    #[serde(rename_all = "camelCase")]
    Finish {
        reason: FinishReason,
        raw_reason: Option<String>,
        #[serde(skip_serializing_if = "is_zero")]
        choice: u32,
    },
    Error {
        #[serde(flatten)]
        error: ErrorInfo,
    },
}

/// Changes as [`write_changes`] writes them: one flat array of strings, codes and values.
fn serialize_changes<S: serde::Serializer>(changes: &[Change], serializer: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = serializer.serialize_seq(None)?;
    for change in changes {
        match change {
            Change::Append(text) => seq.serialize_element(text)?,
            Change::Close => seq.serialize_element(&0u8)?,
            Change::Add { key, value, open } => {
                seq.serialize_element(&(u8::from(key.is_some()) * 2 + u8::from(*open) + 1))?;
                if let Some(key) = key {
                    seq.serialize_element(key)?;
                }
                seq.serialize_element(value)?;
            }
        }
    }
    seq.end()
}

impl StreamEvent {
    /// An event as JSON data gives it (the JS shape: `{type: "text", text, choice?}`, ...), for
    /// `Accumulator::apply`; a field missing or of the wrong kind is `invalid_input` at `path`.
    /// A partial event's value is not read: the accumulator makes its own.
    pub fn from_json(value: &crate::json::Value, path: &str) -> crate::Result<StreamEvent> {
        use crate::error::Error;
        let at = |field: &str| [path, ".", field].concat();
        let map = value.as_object().ok_or_else(|| Error::invalid_input(path, "an event must be an object"))?;
        let text = |field: &str| -> crate::Result<String> {
            map.get(field)
                .and_then(|v| v.as_str())
                .map(str::to_owned)
                .ok_or_else(|| Error::invalid_input(at(field), "expected a string"))
        };
        let opt_text = |field: &str| -> crate::Result<Option<String>> {
            match map.get(field) {
                None | Some(crate::json::Value::Null) => Ok(None),
                Some(_) => text(field).map(Some),
            }
        };
        let number = |field: &str| -> crate::Result<Option<u64>> {
            match map.get(field) {
                None | Some(crate::json::Value::Null) => Ok(None),
                Some(v) => {
                    v.as_u64().map(Some).ok_or_else(|| Error::invalid_input(at(field), "expected a whole number"))
                }
            }
        };
        let small = |field: &str| -> crate::Result<Option<u32>> {
            number(field)?
                .map(|n| u32::try_from(n).map_err(|_| Error::invalid_input(at(field), "too large")))
                .transpose()
        };
        let index = || small("index")?.ok_or_else(|| Error::invalid_input(at("index"), "expected a whole number"));
        let choice = small("choice")?.unwrap_or(0);
        let kind = text("type")?;
        Ok(match kind.as_str() {
            "start" => {
                StreamEvent::Start { id: opt_text("id")?, model: opt_text("model")?, provider: opt_text("provider")? }
            }
            "text" => StreamEvent::Text { text: text("text")?, choice },
            "reasoning" => StreamEvent::Reasoning { text: text("text")?, choice },
            "reasoning_signature" => StreamEvent::ReasoningSignature { signature: text("signature")?, choice },
            "text_end" => StreamEvent::TextEnd { choice },
            "reasoning_end" => StreamEvent::ReasoningEnd { choice },
            "tool_call_start" => {
                StreamEvent::ToolCallStart { index: index()?, id: text("id")?, name: text("name")?, choice }
            }
            "tool_call_delta" => {
                StreamEvent::ToolCallDelta { index: index()?, arguments_delta: text("argumentsDelta")?, choice }
            }
            "tool_call_end" => StreamEvent::ToolCallEnd {
                index: index()?,
                id: text("id")?,
                name: text("name")?,
                arguments: text("arguments")?,
                choice,
            },
            "tool_call_partial" => StreamEvent::ToolCallPartial { index: index()?, changes: Vec::new(), choice },
            "output_partial" => StreamEvent::OutputPartial { changes: Vec::new(), choice },
            "usage" => {
                let usage = map.get("usage").filter(|u| u.is_object());
                let usage = usage.ok_or_else(|| Error::invalid_input(at("usage"), "expected an object"))?;
                let inner = [path, ".usage"].concat();
                let count = |field: &str| -> crate::Result<Option<u64>> {
                    match usage.get(field) {
                        None | Some(crate::json::Value::Null) => Ok(None),
                        Some(v) => v.as_u64().map(Some).ok_or_else(|| {
                            Error::invalid_input([inner.as_str(), ".", field].concat(), "expected a whole number")
                        }),
                    }
                };
                let (input, output) = (count("inputTokens")?.unwrap_or(0), count("outputTokens")?.unwrap_or(0));
                let raw = usage.get("raw").map_or_else(|| "{}".to_owned(), |raw| raw.to_json_text());
                StreamEvent::Usage {
                    usage: Usage {
                        input_tokens: input,
                        output_tokens: output,
                        total_tokens: count("totalTokens")?.unwrap_or(input.saturating_add(output)),
                        reasoning_tokens: count("reasoningTokens")?,
                        cache_read_tokens: count("cacheReadTokens")?,
                        cache_write_tokens: count("cacheWriteTokens")?,
                        raw: super::RawJson::from_valid(&raw),
                    },
                }
            }
            "finish" => {
                let reason = text("reason")?;
                let reason = FinishReason::from_name(&reason).ok_or_else(|| {
                    Error::invalid_input(
                        at("reason"),
                        "expected stop, length, tool_calls, content_filter, refusal, error or other",
                    )
                })?;
                StreamEvent::Finish { reason, raw_reason: opt_text("rawReason")?, choice }
            }
            "error" => {
                let outcome = match opt_text("outcome")?.as_deref() {
                    None | Some("determinate") => Outcome::Determinate,
                    Some("indeterminate") => Outcome::Indeterminate,
                    Some(_) => {
                        return Err(Error::invalid_input(at("outcome"), "expected determinate or indeterminate"))
                    }
                };
                let retryable = match map.get("retryable") {
                    None | Some(crate::json::Value::Null) => None,
                    Some(v) => {
                        Some(v.as_bool().ok_or_else(|| Error::invalid_input(at("retryable"), "expected a boolean"))?)
                    }
                };
                StreamEvent::Error {
                    error: ErrorInfo {
                        message: text("message")?,
                        code: opt_text("code")?,
                        outcome,
                        retryable,
                        provider_type: opt_text("providerType")?,
                        provider_code: opt_text("providerCode")?,
                    },
                }
            }
            _ => {
                return Err(Error::invalid_input(
                    at("type"),
                    ["unknown event type ", &crate::json::write::quoted(&kind)].concat(),
                ))
            }
        })
    }
}

impl FinishReason {
    /// The reason named as in JSON; `None` for another name.
    pub fn from_name(name: &str) -> Option<FinishReason> {
        Some(match name {
            "stop" => FinishReason::Stop,
            "length" => FinishReason::Length,
            "tool_calls" => FinishReason::ToolCalls,
            "content_filter" => FinishReason::ContentFilter,
            "refusal" => FinishReason::Refusal,
            "error" => FinishReason::Error,
            "other" => FinishReason::Other,
            _ => return None,
        })
    }

    /// The reason as it appears in JSON (`tool_calls`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            FinishReason::Stop => "stop",
            FinishReason::Length => "length",
            FinishReason::ToolCalls => "tool_calls",
            FinishReason::ContentFilter => "content_filter",
            FinishReason::Refusal => "refusal",
            FinishReason::Error => "error",
            FinishReason::Other => "other",
        }
    }
}

impl Outcome {
    /// The outcome as it appears in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Determinate => "determinate",
            Outcome::Indeterminate => "indeterminate",
        }
    }
}

/// `events` as a JSON array appended to `out`: the same text `serde_json::to_string` gives,
/// written without serde (this runs on every push).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) fn write_events(out: &mut String, events: &[StreamEvent]) {
    out.push('[');
    for (i, event) in events.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        event.write_json(out);
    }
    out.push(']');
}

impl WriteJson for StreamEvent {
    #[cfg_attr(llw_speed, optimize(speed))]
    fn write_json(&self, out: &mut String) {
        let mut o = Object::new(out);
        match self {
            StreamEvent::Start { id, model, provider } => {
                o.str("type", "start");
                o.opt_str("id", id.as_deref());
                o.opt_str("model", model.as_deref());
                o.opt_str("provider", provider.as_deref());
            }
            StreamEvent::Text { text, choice } => {
                o.str("type", "text");
                o.str("text", text);
                o.choice(*choice);
            }
            StreamEvent::Reasoning { text, choice } => {
                o.str("type", "reasoning");
                o.str("text", text);
                o.choice(*choice);
            }
            StreamEvent::ReasoningSignature { signature, choice } => {
                o.str("type", "reasoning_signature");
                o.str("signature", signature);
                o.choice(*choice);
            }
            StreamEvent::ToolCallStart { index, id, name, choice } => {
                o.str("type", "tool_call_start");
                o.uint("index", (*index).into());
                o.str("id", id);
                o.str("name", name);
                o.choice(*choice);
            }
            StreamEvent::ToolCallDelta { index, arguments_delta, choice } => {
                o.str("type", "tool_call_delta");
                o.uint("index", (*index).into());
                o.str("argumentsDelta", arguments_delta);
                o.choice(*choice);
            }
            StreamEvent::ToolCallEnd { index, id, name, arguments, choice } => {
                o.str("type", "tool_call_end");
                o.uint("index", (*index).into());
                o.str("id", id);
                o.str("name", name);
                o.str("arguments", arguments);
                o.choice(*choice);
            }
            StreamEvent::TextEnd { choice } => {
                o.str("type", "text_end");
                o.choice(*choice);
            }
            StreamEvent::ReasoningEnd { choice } => {
                o.str("type", "reasoning_end");
                o.choice(*choice);
            }
            StreamEvent::ToolCallPartial { index, changes, choice } => {
                o.str("type", "tool_call_partial");
                o.uint("index", (*index).into());
                write_changes(changes, o.key("changes"));
                o.choice(*choice);
            }
            StreamEvent::OutputPartial { changes, choice } => {
                o.str("type", "output_partial");
                write_changes(changes, o.key("changes"));
                o.choice(*choice);
            }
            StreamEvent::Usage { usage } => {
                o.str("type", "usage");
                usage.write_json(o.key("usage"));
            }
            StreamEvent::Finish { reason, raw_reason, choice } => {
                o.str("type", "finish");
                o.str("reason", reason.as_str());
                match raw_reason {
                    Some(raw) => o.str("rawReason", raw),
                    None => o.key("rawReason").push_str("null"),
                }
                o.choice(*choice);
            }
            StreamEvent::Error { error } => {
                o.str("type", "error");
                error.write_fields(&mut o);
            }
        }
        o.end();
    }
}

impl ErrorInfo {
    fn write_fields(&self, o: &mut Object<'_>) {
        o.str("message", &self.message);
        o.opt_str("code", self.code.as_deref());
        o.str("outcome", self.outcome.as_str());
        if let Some(retryable) = self.retryable {
            o.bool("retryable", retryable);
        }
        o.opt_str("providerType", self.provider_type.as_deref());
        o.opt_str("providerCode", self.provider_code.as_deref());
    }
}

impl WriteJson for ErrorInfo {
    fn write_json(&self, out: &mut String) {
        let mut o = Object::new(out);
        self.write_fields(&mut o);
        o.end();
    }
}

impl WriteJson for Usage {
    #[cfg_attr(llw_speed, optimize(speed))]
    fn write_json(&self, out: &mut String) {
        let mut o = Object::new(out);
        o.uint("inputTokens", self.input_tokens);
        o.uint("outputTokens", self.output_tokens);
        o.uint("totalTokens", self.total_tokens);
        for (key, value) in [
            ("reasoningTokens", self.reasoning_tokens),
            ("cacheReadTokens", self.cache_read_tokens),
            ("cacheWriteTokens", self.cache_write_tokens),
        ] {
            if let Some(value) = value {
                o.uint(key, value);
            }
        }
        self.raw.write_json(o.key("raw"));
        o.end();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Accumulator, AccumulatorOptions};

    fn same_as_serde(events: &[StreamEvent]) {
        let mut ours = String::new();
        write_events(&mut ours, events);
        assert_eq!(ours, serde_json::to_string(events).unwrap());
    }

    #[test]
    fn events_of_every_recorded_stream_are_written_as_serde_writes_them() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let mut streams = 0;
        for dir in std::fs::read_dir(root).unwrap().flatten().filter(|d| d.path().is_dir()) {
            for file in std::fs::read_dir(dir.path()).unwrap().flatten() {
                let path = file.path();
                if path.extension().and_then(|e| e.to_str()) != Some("sse") {
                    continue;
                }
                let body = std::fs::read(&path).unwrap();
                let mut acc = Accumulator::new(AccumulatorOptions::default());
                let mut events = acc.push(&body).unwrap().to_vec();
                events.extend_from_slice(acc.flush());
                same_as_serde(&events);
                streams += 1;
            }
        }
        assert!(streams >= 30, "found {streams} recorded streams");
    }

    #[test]
    fn every_kind_of_event_and_every_escape_is_written_as_serde_writes_it() {
        let nasty =
            "quote \" backslash \\ slash / nl \n cr \r tab \t bs \u{8} ff \u{c} nul \u{0} us \u{1f} del \u{7f} é 🎉";
        let usage = Usage {
            input_tokens: 1,
            output_tokens: u64::MAX,
            total_tokens: 0,
            reasoning_tokens: Some(7),
            cache_read_tokens: None,
            cache_write_tokens: Some(3),
            raw: crate::model::RawJson::parse("{\"a\": [1, 2.5]}").unwrap(),
        };
        same_as_serde(&[
            StreamEvent::Start { id: Some(nasty.into()), model: None, provider: Some("p".into()) },
            StreamEvent::Start { id: None, model: None, provider: None },
            StreamEvent::Text { text: nasty.into(), choice: 0 },
            StreamEvent::Text { text: String::new(), choice: 3 },
            StreamEvent::Reasoning { text: nasty.into(), choice: 1 },
            StreamEvent::ReasoningSignature { signature: "sig".into(), choice: 0 },
            StreamEvent::ToolCallStart { index: 2, id: "i".into(), name: nasty.into(), choice: 0 },
            StreamEvent::ToolCallDelta { index: 0, arguments_delta: nasty.into(), choice: 9 },
            StreamEvent::ToolCallEnd { index: 1, id: "".into(), name: "n".into(), arguments: "{}".into(), choice: 0 },
            StreamEvent::Usage { usage },
            StreamEvent::Finish { reason: FinishReason::ToolCalls, raw_reason: None, choice: 0 },
            StreamEvent::Finish { reason: FinishReason::ContentFilter, raw_reason: Some("x".into()), choice: 2 },
            StreamEvent::Error {
                error: ErrorInfo {
                    message: nasty.into(),
                    code: None,
                    outcome: Outcome::Indeterminate,
                    retryable: None,
                    provider_type: None,
                    provider_code: None,
                },
            },
            StreamEvent::Error {
                error: ErrorInfo {
                    message: "m".into(),
                    code: Some("c".into()),
                    outcome: Outcome::Determinate,
                    retryable: Some(false),
                    provider_type: Some(nasty.into()),
                    provider_code: Some("503".into()),
                },
            },
        ]);
        for reason in
            [FinishReason::Stop, FinishReason::Length, FinishReason::Refusal, FinishReason::Error, FinishReason::Other]
        {
            same_as_serde(&[StreamEvent::Finish { reason, raw_reason: None, choice: 0 }]);
        }
    }
}

//! A non-streamed Responses API body (§8.4) → the normalised message.
//!
//! Output items are replayed in order: reasoning summaries (and `reasoning_text` content) as
//! reasoning blocks, message `output_text` parts as text with their annotations as citations,
//! `refusal` parts as a refusal, `function_call` items as tool calls keyed by `call_id`, and every
//! other item (web search, code interpreter, image generation, ...) kept whole.

use serde::Deserialize;
use serde_json::value::RawValue;

use super::{convert_usage, map_status};
use crate::accumulator::MessageBuilder;
use crate::error::Result;
use crate::model::RawJson;
use crate::process::errors::ErrorField;
use crate::providers::Scalar;

#[derive(Deserialize)]
pub(crate) struct ResponseBody<'a> {
    #[serde(default, borrow)]
    id: Scalar<'a>,
    #[serde(default, borrow)]
    model: Scalar<'a>,
    #[serde(default, borrow)]
    status: Scalar<'a>,
    #[serde(default, borrow)]
    incomplete_details: Option<Incomplete<'a>>,
    #[serde(default, borrow)]
    output: Option<Vec<&'a RawValue>>,
    /// The SDKs' convenience accessor; present in some recorded bodies, absent on the wire.
    #[serde(default, borrow)]
    pub(crate) output_text: Scalar<'a>,
    #[serde(default, borrow)]
    usage: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub(crate) error: ErrorField<'a>,
}

#[derive(Deserialize)]
pub(crate) struct Incomplete<'a> {
    #[serde(default, borrow)]
    pub(crate) reason: Scalar<'a>,
}

#[derive(Deserialize)]
pub(crate) struct Item<'a> {
    #[serde(default, borrow, rename = "type")]
    pub(crate) kind: Scalar<'a>,
    #[serde(default, borrow)]
    pub(crate) id: Scalar<'a>,
    #[serde(default, borrow)]
    pub(crate) call_id: Scalar<'a>,
    #[serde(default, borrow)]
    pub(crate) name: Scalar<'a>,
    #[serde(default, borrow)]
    pub(crate) arguments: Scalar<'a>,
    #[serde(default, borrow)]
    pub(crate) summary: Option<Vec<Part<'a>>>,
    #[serde(default, borrow)]
    pub(crate) content: Option<Vec<Part<'a>>>,
}

#[derive(Deserialize)]
pub(crate) struct Part<'a> {
    #[serde(default, borrow, rename = "type")]
    pub(crate) kind: Scalar<'a>,
    #[serde(default, borrow)]
    pub(crate) text: Scalar<'a>,
    #[serde(default, borrow)]
    pub(crate) refusal: Scalar<'a>,
    #[serde(default, borrow)]
    pub(crate) annotations: Option<Vec<&'a RawValue>>,
}

impl ResponseBody<'_> {
    /// Feeds the whole body to `b` as if it were the stream up to `response.completed`; returns
    /// the text of any refusal parts (`process` returns it, the message reports it as an error).
    pub(crate) fn feed(self, b: &mut MessageBuilder) -> Result<Option<String>> {
        self.error.check()?;
        b.start(self.id.as_deref(), self.model.as_deref(), None);
        let mut calls = 0;
        let mut refusal: Option<String> = None;
        for (index, raw) in self.output.into_iter().flatten().enumerate() {
            let Ok(item) = serde_json::from_str::<Item<'_>>(raw.get()) else {
                b.other_block(0, "unknown", RawJson::from_raw(raw));
                continue;
            };
            match item.kind.as_deref().unwrap_or("") {
                "reasoning" => {
                    for part in item.summary.iter().flatten().chain(item.content.iter().flatten()) {
                        b.break_block(0);
                        b.reasoning(0, part.text.as_deref().unwrap_or(""))?;
                    }
                }
                "message" => {
                    for part in item.content.into_iter().flatten() {
                        match part.kind.as_deref() {
                            Some("refusal") => {
                                let text = part.refusal.as_deref().unwrap_or("");
                                refusal.get_or_insert_with(String::new).push_str(text);
                                b.refusal(0, text);
                            }
                            _ => {
                                b.break_block(0);
                                b.text(0, part.text.as_deref().unwrap_or(""))?;
                                for annotation in part.annotations.into_iter().flatten() {
                                    b.citation(0, RawJson::from_raw(annotation));
                                }
                            }
                        }
                    }
                }
                "function_call" => {
                    calls += 1;
                    let id = item.call_id.as_deref().or(item.id.as_deref()).unwrap_or("");
                    let at = b.begin_tool_call(
                        0,
                        id,
                        item.name.as_deref().unwrap_or(""),
                        Some(index as u64),
                        item.id.as_deref(),
                    );
                    b.tool_arguments(0, at, item.arguments.as_deref().unwrap_or(""))?;
                    b.end_tool_call(0, at);
                }
                other => b.other_block(0, other, RawJson::from_raw(raw)),
            }
        }
        let incomplete = self.incomplete_details.and_then(|d| d.reason.0);
        if let Some(status) = self.status.as_deref() {
            let raw = incomplete.as_deref().unwrap_or(status);
            b.finish_reason(0, map_status(status, incomplete.as_deref(), calls > 0), raw)?;
        }
        if let Some(usage) = self.usage.and_then(convert_usage) {
            b.set_usage(usage);
        }
        b.end_all_choices()?;
        b.done();
        Ok(refusal)
    }
}

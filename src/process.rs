//! process and toMessage (§8): a non-streamed response body → the §8 result, or the normalised
//! message, dispatched by provider and apiType (`docs/design.md`, "Dispatch").
//!
//! Chat, Anthropic, Responses and Bedrock bodies are replayed into the same `MessageBuilder` the stream
//! accumulator uses, so `to_message` of a body equals `Accumulator::finish` of its streamed form,
//! and `process` is read off that message. Embeddings and images have no message form.

pub(crate) mod errors;
mod span;

pub use span::{message_span, Span};

use std::borrow::Cow;

use crate::accumulator::MessageBuilder;
use crate::error::{Error, ErrorCode, Result};
use crate::json::write::{quoted, WriteJson};
use crate::json::Value;
use crate::json::{read_document, JsonError, JsonResult, Reader};
use crate::model::{Agent, Block, FinalMessage, ProcessResult};
use crate::providers::gemini::{self, Service};
use crate::providers::{
    anthropic, bedrock, openai_chat, openai_embeddings, openai_images, openai_responses, repair_lone_surrogates, Scalar,
};
use crate::Limits;

/// A response body: the raw text (parsed here, the faster path) or an already parsed value.
#[derive(Debug, Clone, Copy)]
pub enum ResponseBody<'a> {
    Text(&'a str),
    Json(&'a Value),
}

impl<'a> From<&'a str> for ResponseBody<'a> {
    fn from(text: &'a str) -> Self {
        ResponseBody::Text(text)
    }
}

impl<'a> From<&'a String> for ResponseBody<'a> {
    fn from(text: &'a String) -> Self {
        ResponseBody::Text(text)
    }
}

impl<'a> From<&'a Value> for ResponseBody<'a> {
    fn from(value: &'a Value) -> Self {
        ResponseBody::Json(value)
    }
}

impl ResponseBody<'_> {
    /// The body as JSON text. A parsed value is serialised once, so both forms take one path.
    fn text(&self) -> Cow<'_, str> {
        match self {
            // A string value is the body text, as a JS string is.
            ResponseBody::Text(text) => Cow::Borrowed(text),
            ResponseBody::Json(Value::String(text)) => Cow::Borrowed(text.as_str()),
            ResponseBody::Json(value) => Cow::Owned(value.to_json_text()),
        }
    }
}

/// The wire API of a body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Api {
    Chat,
    Anthropic,
    Responses,
    Embedding,
    Image,
    Bedrock,
    Gemini,
    GeminiEmbedding,
}

impl Api {
    /// Provider `anthropic` is Anthropic Messages, whatever the apiType; every other provider
    /// is OpenAI-compatible and dispatched by apiType (default `chat`): `docs/design.md`,
    /// "Dispatch".
    pub(crate) fn of(agent: &Agent) -> Result<Api> {
        if agent.model.provider == "anthropic" {
            return Ok(Api::Anthropic);
        }
        if agent.model.provider == "bedrock" {
            return Ok(Api::Bedrock);
        }
        if Service::of(&agent.model.provider).is_some() {
            return match agent.model.api_type.as_str() {
                "" | "chat" => Ok(Api::Gemini),
                "embedding" => Ok(Api::GeminiEmbedding),
                other => Err(gemini::request::unsupported_api_type(other)),
            };
        }
        match agent.model.api_type.as_str() {
            "" | "chat" => Ok(Api::Chat),
            "responses" => Ok(Api::Responses),
            "embedding" => Ok(Api::Embedding),
            "image" => Ok(Api::Image),
            other => Err(Error::invalid_input(
                "agent.model.apiType",
                format!("unknown apiType {}: expected chat, responses, embedding or image", quoted(other)),
            )),
        }
    }

    /// Without an agent: the API a body's shape names (`type: "message"`, `object: "response"`
    /// or an `output` list; Bedrock's `output` object or `stopReason`, or AWS's error body: a
    /// `message` (or `Message`) string with at most `__type` and `code` beside; Gemini's members
    /// or error shape, or an array of its chunks; else chat).
    fn detect(text: &str) -> Result<Api> {
        let (mut kind, mut object, mut has_output) = (Scalar::default(), Scalar::default(), false);
        use crate::json::Kind;
        // AWS's error body: how many members fit it, and whether one is its message.
        let (mut bedrock, mut aws_message, mut aws_members, mut members) = (false, false, 0, 0);
        let mut is_gemini = false;
        // What follows a value that is not an object is checked first: `[1] x` is not JSON.
        let is_object = read_document(text.as_bytes(), |r| {
            r.object(|r, key| {
                members += 1;
                match key {
                    b"type" => kind = Scalar::read(r)?,
                    b"object" => object = Scalar::read(r)?,
                    b"output" => match r.peek()? {
                        crate::json::Kind::Object => bedrock = true,
                        _ => has_output = r.raw_non_null()?.is_some(),
                    },
                    b"stopReason" => bedrock = true,
                    b"message" | b"Message" if r.peek()? == Kind::String => {
                        aws_message = true;
                        aws_members += 1;
                    }
                    b"__type" if r.peek()? == Kind::String => aws_members += 1,
                    b"code" if matches!(r.peek()?, Kind::String | Kind::Number) => aws_members += 1,
                    b"candidates" | b"promptFeedback" | b"usageMetadata" => is_gemini = true,
                    b"error" => {
                        r.object(|r, key| {
                            is_gemini |= key == b"status" && r.peek()? == crate::json::Kind::String;
                            Ok(())
                        })?;
                    }
                    _ => {}
                }
                Ok(())
            })
        })
        .map_err(invalid_body)?;
        if !is_object {
            // `streamGenerateContent` read whole is an array of chunks.
            if text.trim_start().starts_with('[') {
                return Ok(Api::Gemini);
            }
            return Err(invalid_body(JsonError::not_an_object()));
        }
        Ok(match (kind.as_deref(), object.as_deref()) {
            _ if is_gemini => Api::Gemini,
            _ if bedrock || (aws_message && aws_members == members) => Api::Bedrock,
            (Some("message" | "error"), _) => Api::Anthropic,
            (_, Some("response")) => Api::Responses,
            _ if has_output => Api::Responses,
            _ => Api::Chat,
        })
    }
}

/// A document that must be one JSON object, its members handed to `field`: "expected an
/// object" when it is not one, checked before what follows it.
pub(crate) fn read_body<'a>(
    text: &'a str,
    field: &mut dyn FnMut(&mut Reader<'a>, &[u8]) -> JsonResult<()>,
) -> JsonResult<()> {
    read_document(text.as_bytes(), |r| match r.object(|r, key| field(r, key))? {
        true => Ok(()),
        false => Err(JsonError::not_an_object()),
    })
}

/// A body that is not JSON, or not an object.
pub(crate) fn invalid_body(e: JsonError) -> Error {
    let message = if e.what == JsonError::not_an_object().what {
        "the response body is not a JSON object".to_owned()
    } else {
        format!("the response body is not a valid response object: {e}")
    };
    Error::new(ErrorCode::InvalidJson, message).with_path("response")
}

/// Options of [`process_with`].
#[derive(Default)]
pub struct ProcessOptions<'f> {
    /// Receives the `process` trace span (§8) once the result is known.
    pub on_span: Option<&'f mut dyn FnMut(Span)>,
}

/// §8: the result of a non-streamed response body.
///
/// Tool calls win over content; with `agent.outputs` the text is JSON-parsed (the raw string
/// when it does not parse); a chat refusal returns its text; one embedding or image gives one
/// value, several a list. A provider error body is `Err(provider_error)`; an embedding or image
/// body with no data is `Err(empty_response)`.
///
/// ```
/// use llm_wire::{process, Agent, ProcessResult};
///
/// let body = r#"{"choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}]}"#;
/// assert_eq!(process(&Agent::default(), body).unwrap(), ProcessResult::Text("Hi".into()));
/// ```
pub fn process<'a>(agent: &Agent, response: impl Into<ResponseBody<'a>>) -> Result<ProcessResult> {
    process_with(agent, response, ProcessOptions::default())
}

/// [`process`] with options (the trace span callback).
pub fn process_with<'a>(
    agent: &Agent,
    response: impl Into<ResponseBody<'a>>,
    options: ProcessOptions<'_>,
) -> Result<ProcessResult> {
    let response = response.into();
    let text = response.text();
    let mut message = None;
    let outcome = (|| match Api::of(agent)? {
        Api::Embedding => openai_embeddings::response::EmbeddingBody::read(&text).map_err(invalid_body)?.result(),
        Api::Image => openai_images::response::ImageBody::read(&text).map_err(invalid_body)?.result(),
        Api::GeminiEmbedding => gemini::embeddings::result(&text),
        api => {
            let (built, extra) = message_of(api, &text, provider_of(Some(agent)))?;
            result_of(agent, message.insert(built), extra)
        }
    })();
    if let Some(on_span) = options.on_span {
        // §8: every call emits its span; a failed one says why in `error.type` (OTel convention).
        let mut span = span::process_span(Some(agent), message.as_ref(), &text);
        if let Err(e) = &outcome {
            span.attributes.insert("error.type".into(), e.code.as_str().into());
        }
        on_span(span);
    }
    outcome
}

/// The normalised message of a non-streamed chat, Responses, Anthropic, Bedrock or Gemini body:
/// the same shape and values `Accumulator::finish` gives for its streamed form (`complete: true`,
/// but for a Gemini body whose candidates did not all finish or that carries an error).
///
/// With an agent the API comes from it (`docs/design.md`, "Dispatch"); without one, from the
/// body's shape. A provider error body is `Err(provider_error)`; embeddings and images have no
/// message form.
pub fn to_message<'a>(response: impl Into<ResponseBody<'a>>, agent: Option<&Agent>) -> Result<FinalMessage> {
    let response = response.into();
    let text = response.text();
    let api = match agent {
        Some(agent) => Api::of(agent)?,
        None => Api::detect(&text)?,
    };
    if matches!(api, Api::Embedding | Api::Image | Api::GeminiEmbedding) {
        return Err(Error::invalid_input(
            "agent.model.apiType",
            "embedding and image responses have no message form: use process",
        ));
    }
    Ok(message_of(api, &text, provider_of(agent))?.0)
}

/// The provider an agent names, as the stream reports it (`AccumulatorOptions.provider`).
fn provider_of(agent: Option<&Agent>) -> Option<String> {
    agent.map(|a| a.model.provider.as_str()).filter(|p| !p.is_empty()).map(str::to_owned)
}

/// What `process` needs beyond the message.
#[derive(Default)]
struct Extra {
    /// A refusal's text, which §8.1 returns where the stream reports an error.
    refusal: Option<String>,
    /// The Responses SDK accessor `output_text`, when a recorded body carries it (§8.4).
    output_text: Option<String>,
    /// Why there is no result although the body is no error body: a Gemini prompt refused
    /// before any candidate, a Responses status with no answer.
    failed: Option<Error>,
}

/// The message of a body, read as its stream would be: a lone UTF-16 surrogate escape (a JS
/// server that cut text by code units), which the JSON reader refuses, reads as U+FFFD, as it
/// does in a stream event (`docs/design.md`, "Streaming").
fn message_of(api: Api, text: &str, provider: Option<String>) -> Result<(FinalMessage, Extra)> {
    let read = read_message(api, text, provider.clone());
    // Where the reader met one, the body is not JSON, or an item of it that did not read was
    // kept whole (an `other` block); only then is the body scanned for one, a pass that would
    // cost every body about 6 %. The repair swaps escapes for escapes: the text stays UTF-8.
    let suspect = match &read {
        Err(err) => err.code == ErrorCode::InvalidJson,
        Ok((message, _)) => has_other_block(message),
    };
    match suspect.then(|| repair_lone_surrogates(text.as_bytes())).flatten() {
        Some(fixed) => read_message(api, &String::from_utf8_lossy(&fixed), provider),
        None => read,
    }
}

/// Whether the message, or one of its choices, has an `other` block.
fn has_other_block(message: &FinalMessage) -> bool {
    let other = |m: &FinalMessage| m.content.iter().any(|block| matches!(block, Block::Other { .. }));
    other(message) || message.choices.iter().flatten().any(other)
}

fn read_message(api: Api, text: &str, provider: Option<String>) -> Result<(FinalMessage, Extra)> {
    let mut b = MessageBuilder::new(Limits::default(), provider);
    let extra = match api {
        Api::Anthropic => {
            anthropic::response::MessageBody::read(text).map_err(invalid_body)?.feed(&mut b)?;
            Extra::default()
        }
        Api::Bedrock => {
            bedrock::response::ConverseBody::read(text).map_err(invalid_body)?.feed(&mut b)?;
            Extra::default()
        }
        Api::Responses => {
            let body = openai_responses::response::Response::read(text).map_err(invalid_body)?;
            let fed = body.feed(&mut b)?;
            let output_text = body.output_text.as_deref().map(str::to_owned);
            Extra { refusal: fed.refusal, output_text, failed: fed.failed.map(|info| info.to_error()) }
        }
        Api::Gemini => {
            let failed = gemini::response::feed(text, &mut b).map_err(invalid_body)??;
            Extra { failed, ..Extra::default() }
        }
        _ => {
            let fed = openai_chat::response::Completion::read(text).map_err(invalid_body)?.feed(&mut b)?;
            if !fed.has_choices {
                return Err(Error::new(ErrorCode::EmptyResponse, "the chat response has no choices"));
            }
            Extra { refusal: fed.refusal, output_text: None, failed: None }
        }
    };
    // Every body ends as its stream does; a Gemini stream is done when its candidates finish.
    b.end_all_choices()?;
    if api != Api::Gemini {
        b.done();
    }
    // The builder also produced stream events; a body has no use for them.
    b.events.clear();
    let message = b.build();
    let mut extra = extra;
    if let (Api::Gemini, None, Some(error)) = (api, &extra.failed, &message.error) {
        extra.failed = Some(error.to_error());
    }
    Ok((message, extra))
}

/// §8.1/§8.4/§8.5 read off the message: tool calls, else the text (JSON-parsed when the agent
/// has outputs, the raw string when it does not parse), else a refusal's text. The calls or the
/// text are moved out of the message, which is kept only for the span (that reads neither).
fn result_of(agent: &Agent, message: &mut FinalMessage, extra: Extra) -> Result<ProcessResult> {
    if let Some(failed) = extra.failed {
        return Err(failed);
    }
    if !message.tool_calls.is_empty() {
        return Ok(ProcessResult::ToolCalls(std::mem::take(&mut message.tool_calls)));
    }
    let text = extra.output_text.unwrap_or_else(|| std::mem::take(&mut message.text));
    Ok(match extra.refusal.filter(|r| !r.is_empty() && text.is_empty()) {
        Some(refusal) => ProcessResult::Text(refusal),
        None => ProcessResult::of_text(text, agent.has_outputs()),
    })
}

//! process and toMessage (§8): a non-streamed response body → the §8 result, or the normalised
//! message, dispatched by provider and apiType (DESIGN.md §3).
//!
//! Chat, Anthropic and Responses bodies are replayed into the same `MessageBuilder` the stream
//! accumulator uses, so `to_message` of a body equals `Accumulator::finish` of its streamed form,
//! and `process` is read off that message. Embeddings and images have no message form.

pub(crate) mod errors;
mod span;

pub use span::{message_span, Span};

use crate::accumulator::MessageBuilder;
use crate::error::{Error, ErrorCode, Result};
use crate::json::Value;
use crate::json::{key_index, read_document, read_list, JsonError, JsonResult, Reader};
use crate::model::{Agent, FinalMessage, ProcessResult};
use crate::providers::openai_responses::response::Incomplete;
use crate::providers::{
    anthropic, openai_chat, openai_embeddings, openai_images, openai_responses, start_body, ErrorBody, Scalar,
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
    fn text(&self) -> std::borrow::Cow<'_, str> {
        match self {
            // A string value is the body text, as a JS string is.
            ResponseBody::Text(text) => std::borrow::Cow::Borrowed(text),
            ResponseBody::Json(Value::String(text)) => std::borrow::Cow::Borrowed(text.as_str()),
            ResponseBody::Json(value) => std::borrow::Cow::Owned(crate::json::write::WriteJson::to_json_text(*value)),
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
}

impl Api {
    /// DESIGN.md §3: provider `anthropic` is Anthropic Messages, whatever the apiType; every
    /// other provider is OpenAI-compatible and dispatched by apiType (default `chat`).
    pub(crate) fn of(agent: &Agent) -> Result<Api> {
        if agent.model.provider == "anthropic" {
            return Ok(Api::Anthropic);
        }
        let api_type = agent.model.api_type.as_str();
        // The first key is the empty one.
        match key_index(api_type.as_bytes(), " chat responses embedding image") {
            0 | 1 => Ok(Api::Chat),
            2 => Ok(Api::Responses),
            3 => Ok(Api::Embedding),
            4 => Ok(Api::Image),
            _ => Err(Error::invalid_input(
                "agent.model.apiType",
                crate::text::concat(&[
                    "unknown apiType ",
                    &crate::json::write::quoted(api_type),
                    ": expected chat, responses, embedding or image",
                ]),
            )),
        }
    }

    /// Without an agent: the API a body's shape names (`type: "message"`, `object: "response"`
    /// or an `output` list, else chat).
    fn detect(text: &str) -> Result<Api> {
        // `type` and `object`.
        let (mut texts, mut has_output) = ([Scalar::default(), Scalar::default()], false);
        let is_object = read_document(text.as_bytes(), |r| {
            r.object(|r, key| {
                match key_index(key, "type object output") {
                    i @ 0..=1 => texts[i] = Scalar::read(r)?,
                    2 => has_output = r.raw_non_null()?.is_some(),
                    _ => {}
                }
                Ok(())
            })
        })
        .map_err(invalid_body)?;
        if !is_object {
            return Err(invalid_body(JsonError::not_an_object()));
        }
        Ok(match (texts[0].as_deref(), texts[1].as_deref()) {
            (Some("message") | Some("error"), _) => Api::Anthropic,
            (_, Some("response")) => Api::Responses,
            _ if has_output => Api::Responses,
            _ => Api::Chat,
        })
    }
}

/// A document that must be one JSON object, its members handed to `field` (as
/// [`crate::json::read_object_document`], without an instance of it per body type): "expected an
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

/// The top level of an Anthropic or Responses body: what both have, read by one reader (not
/// one per body type) with the provider's key names. A field of the wrong kind reads as absent
/// (a list that is not an array as empty, `incomplete_details` that is not an object as none);
/// a repeated key keeps its last value.
#[derive(Default)]
pub(crate) struct Body<'a> {
    /// `id`, `model`, then Anthropic `stop_reason` and `type`, Responses `status` and
    /// `output_text`.
    pub(crate) texts: [Scalar<'a>; 4],
    /// Each content block's (Anthropic) or output item's (Responses) JSON text.
    pub(crate) items: Vec<&'a str>,
    /// The usage object's JSON text.
    pub(crate) usage: Option<&'a str>,
    /// `{"error": {...}}`: an object, or a bare message string.
    pub(crate) error: Option<ErrorBody<'a>>,
    /// Responses only.
    pub(crate) incomplete_details: Option<Incomplete<'a>>,
}

impl<'a> Body<'a> {
    /// The body of `text`, which must be one JSON object ("expected an object" otherwise).
    /// `keys` names, in order: the four texts, the list, the usage, the error and (Responses)
    /// `incomplete_details`.
    pub(crate) fn read(text: &'a str, keys: &str) -> JsonResult<Self> {
        let mut body = Body::default();
        read_body(text, &mut |r, key| {
            // One read for every text field: the match only picks where it goes.
            let slot = match key_index(key, keys) {
                i @ 0..=3 => &mut body.texts[i],
                // Anything but an array is skipped: no items.
                4 => return read_list(r, Reader::raw).map(|items| body.items = items),
                5 => return r.raw_non_null().map(|usage| body.usage = usage),
                6 => return ErrorBody::read_field(r).map(|error| body.error = error),
                7 => return Incomplete::read(r).map(|details| body.incomplete_details = details),
                _ => return Ok(()),
            };
            *slot = Scalar::read(r)?;
            Ok(())
        })?;
        Ok(body)
    }
}

/// The provider's error of a body that is one, else the message started with the body's
/// `id`, `model` and `provider`: one out-of-line body for the three message readers.
#[inline(never)]
pub(crate) fn start(
    b: &mut MessageBuilder,
    error: Option<&ErrorBody<'_>>,
    id: &Scalar<'_>,
    model: &Scalar<'_>,
    provider: &Scalar<'_>,
) -> Result<()> {
    if let Some(error) = error {
        return Err(errors::provider_error(error));
    }
    start_body(b, id, model, provider)
}

/// A body that is not JSON, or not an object.
fn invalid_body(e: JsonError) -> Error {
    let message = if e.what == JsonError::not_an_object().what {
        "the response body is not a JSON object".to_owned()
    } else {
        crate::text::concat(&["the response body is not a valid response object: ", &e.message()])
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
        api => {
            let (built, extra) = message_of(api, &text, provider_of(Some(agent)))?;
            result_of(agent, message.insert(built), extra)
        }
    })();
    if let Some(on_span) = options.on_span {
        // §8: every call emits its span; a failed one says why in `error.type` (OTel convention).
        let mut span = span::process_span(Some(&agent.model), message.as_ref(), &text);
        if let Err(e) = &outcome {
            span.attributes.insert("error.type".into(), e.code.as_str().into());
        }
        on_span(span);
    }
    outcome
}

/// The normalised message of a non-streamed chat, Responses or Anthropic body: the same shape
/// and values `Accumulator::finish` gives for its streamed form, with `complete: true`.
///
/// With an agent the API comes from it (DESIGN.md §3); without one, from the body's shape.
/// A provider error body is `Err(provider_error)`; embeddings and images have no message form.
pub fn to_message<'a>(response: impl Into<ResponseBody<'a>>, agent: Option<&Agent>) -> Result<FinalMessage> {
    let response = response.into();
    let text = response.text();
    let api = match agent {
        Some(agent) => Api::of(agent)?,
        None => Api::detect(&text)?,
    };
    if matches!(api, Api::Embedding | Api::Image) {
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
}

fn message_of(api: Api, text: &str, provider: Option<String>) -> Result<(FinalMessage, Extra)> {
    let mut b = MessageBuilder::new(Limits::default(), provider);
    let (mut extra, mut has_choices) = (Extra::default(), true);
    // Each body is dropped before the `?` on what it fed: one drop, not one per exit.
    match api {
        Api::Anthropic | Api::Responses => {
            let anthropic = api == Api::Anthropic;
            let keys = if anthropic { anthropic::response::KEYS } else { openai_responses::response::KEYS };
            let body = Body::read(text, keys).map_err(invalid_body)?;
            // An Anthropic `type: "error"` without an error object: the provider's error with the
            // default message, no type or code.
            let bare = ErrorBody::default();
            let error =
                body.error.as_ref().or((anthropic && body.texts[3].as_deref() == Some("error")).then_some(&bare));
            let fed = start(&mut b, error, &body.texts[0], &body.texts[1], &Scalar::default()).and_then(|()| {
                if anthropic {
                    anthropic::response::feed(&body, &mut b).map(|()| None)
                } else {
                    extra.output_text = body.texts[3].as_deref().map(str::to_owned);
                    openai_responses::response::feed(&body, &mut b)
                }
            });
            drop(body);
            extra.refusal = fed?;
        }
        _ => {
            let body = openai_chat::response::Completion::read(text).map_err(invalid_body)?;
            let extras = body.feed(&mut b)?;
            has_choices = extras.has_choices;
            extra.refusal = extras.refusal;
        }
    }
    // Every body ends as its stream does.
    b.end_all_choices()?;
    b.done();
    if !has_choices {
        return Err(Error::new(ErrorCode::EmptyResponse, "the chat response has no choices"));
    }
    // The builder also produced stream events; a body has no use for them.
    b.events.clear();
    Ok((b.build(), extra))
}

/// §8.1/§8.4/§8.5 read off the message: tool calls, else the text (JSON-parsed when the agent
/// has outputs, the raw string when it does not parse), else a refusal's text. The calls or the
/// text are moved out of the message, which is kept only for the span (that reads neither).
fn result_of(agent: &Agent, message: &mut FinalMessage, extra: Extra) -> Result<ProcessResult> {
    if !message.tool_calls.is_empty() {
        return Ok(ProcessResult::ToolCalls(std::mem::take(&mut message.tool_calls)));
    }
    let text = extra.output_text.unwrap_or_else(|| std::mem::take(&mut message.text));
    Ok(match extra.refusal.filter(|r| !r.is_empty() && text.is_empty()) {
        Some(refusal) => ProcessResult::Text(refusal),
        None => ProcessResult::of_text(text, agent.has_outputs()),
    })
}

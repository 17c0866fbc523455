//! buildChatArgs, buildRequest and the gen_ai tracing attributes (§7): dispatch by provider and apiType.
//!
//! docs/design.md, "Dispatch": provider `anthropic` speaks Anthropic Messages, `bedrock` the
//! Bedrock Converse API, `google`, `gemini` and `vertex` Gemini; every other provider is
//! OpenAI-compatible and chooses the API by `apiType` (chat, responses, embedding, image).

mod gen_ai;
mod http;
pub(crate) mod wire;

pub use gen_ai::gen_ai_attributes;
pub(crate) use gen_ai::{operation_name, usage_attributes};
#[cfg_attr(not(all(target_arch = "wasm32", feature = "wasm-full")), allow(unused_imports))]
pub(crate) use gen_ai::{provider_name, write_gen_ai_attributes};
pub use http::{build_request, HttpRequest, RequestOptions};

use crate::error::{Error, Result};
use crate::json::Value;
use crate::model::{Agent, Message};
use crate::providers::gemini::{self, Service};
use crate::providers::{anthropic, bedrock, openai_chat, openai_embeddings, openai_images, openai_responses};

/// The wire API a request goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    OpenAiChat,
    OpenAiResponses,
    OpenAiEmbeddings,
    OpenAiImages,
    Anthropic,
    /// Amazon Bedrock Converse.
    Bedrock,
    /// Gemini's `generateContent`, on the Gemini API or Vertex AI.
    Gemini,
    /// Gemini's embedding methods.
    GeminiEmbeddings,
}

impl Api {
    /// The API of `agent` (docs/design.md, "Dispatch"); an unknown `apiType` is an error at
    /// `agent.model.apiType`.
    pub fn of(agent: &Agent) -> Result<Api> {
        if agent.model.provider() == "anthropic" {
            return Ok(Api::Anthropic);
        }
        if agent.model.provider() == "bedrock" {
            return Ok(Api::Bedrock);
        }
        if Service::of(agent.model.provider()).is_some() {
            return match agent.model.api_type() {
                "chat" => Ok(Api::Gemini),
                "embedding" => Ok(Api::GeminiEmbeddings),
                other => Err(gemini::request::unsupported_api_type(other)),
            };
        }
        match agent.model.api_type() {
            "chat" => Ok(Api::OpenAiChat),
            "responses" => Ok(Api::OpenAiResponses),
            "embedding" => Ok(Api::OpenAiEmbeddings),
            "image" => Ok(Api::OpenAiImages),
            other => Err(Error::invalid_input(
                "agent.model.apiType",
                format!("unknown apiType `{other}` (chat, responses, embedding, image)"),
            )),
        }
    }
}

/// The request body for `agent` and `messages`, ready for `JSON.stringify` (§7).
///
/// Inlining the `$ref`s of OpenAPI tools may copy at most [`crate::tools::REF_BUDGET_BYTES`] in
/// all (`limit_exceeded` at the tool's specification beyond).
///
/// ```
/// use llm_wire::{build_chat_args, Agent, Message};
///
/// let body = build_chat_args(&Agent::new("gpt-4o"), &[Message::new("user", "Hello")]).unwrap();
/// assert_eq!(body.to_string(), r#"{"messages":[{"content":"Hello","role":"user"}],"model":"gpt-4o"}"#);
/// ```
pub fn build_chat_args(agent: &Agent, messages: &[Message]) -> Result<Value> {
    wire::to_value(&write_chat_args(agent, messages)?.finish())
}

/// [`build_chat_args`] written straight to JSON text: the same body, keys sorted, built without
/// `Value` trees (what the wasm exports and [`build_request`] use).
pub(crate) fn write_chat_args(agent: &Agent, messages: &[Message]) -> Result<wire::Fields> {
    if agent.model.id.is_empty() {
        return Err(Error::invalid_input("agent.model.id", "the model id is required"));
    }
    let api = Api::of(agent)?;
    let mut body = wire::Fields::new();
    // Bedrock and Gemini name the model in the URL; their bodies have no `model` member.
    if !matches!(api, Api::Bedrock | Api::Gemini | Api::GeminiEmbeddings) {
        body.str("model", &agent.model.id);
    }
    match api {
        Api::OpenAiChat => openai_chat::request::build(agent, messages, &mut body),
        Api::OpenAiResponses => openai_responses::request::build(agent, messages, &mut body),
        Api::OpenAiEmbeddings => openai_embeddings::request::build(agent, messages, &mut body),
        Api::OpenAiImages => openai_images::request::build(agent, messages, &mut body),
        Api::Anthropic => anthropic::request::build(agent, messages, &mut body),
        Api::Bedrock => bedrock::request::build(agent, messages, &mut body),
        Api::Gemini => gemini::request::build(agent, messages, &mut body),
        Api::GeminiEmbeddings => {
            let service = Service::of(agent.model.provider()).unwrap_or(Service::Gemini);
            gemini::embeddings::build(agent, messages, service, &mut body)
        }
    }?;
    Ok(body)
}

/// [`build_chat_args`] from JSON inputs, read with exact error paths (`agent.…`, `messages[i].…`).
pub fn build_chat_args_json(agent: &Value, messages: &Value) -> Result<Value> {
    build_chat_args(&Agent::from_json(agent)?, &Message::list_from_json(messages)?)
}

/// A `data:` URL (RFC 2397), read: its media type (empty when it names none), its data, and
/// whether the data is base64 (`;base64`) rather than percent-encoded text.
pub(crate) struct DataUrl<'u> {
    pub(crate) media_type: &'u str,
    pub(crate) data: &'u str,
    pub(crate) base64: bool,
}

/// `data:<media type>[;params][;base64],<data>` read; `None` for anything else.
pub(crate) fn read_data_url(url: &str) -> Option<DataUrl<'_>> {
    let (header, data) = url.strip_prefix("data:")?.split_once(',')?;
    let mut params = header.split(';');
    let media_type = params.next().unwrap_or_default();
    let base64 = params.any(|param| param.eq_ignore_ascii_case("base64"));
    Some(DataUrl { media_type, data, base64 })
}

/// `data:<media type>[;params][;base64],<data>` → (media type, data); `None` for anything else.
pub(crate) fn split_data_url(url: &str) -> Option<(&str, &str)> {
    read_data_url(url).map(|url| (url.media_type, url.data))
}

/// The bytes of percent-encoded text (a `data:` URL's data that is not base64): each `%` and two
/// hex digits is a byte, any other byte stands for itself (a `%` without two hex digits too);
/// with whether every `%` began such an escape.
pub(crate) fn percent_decode(text: &str) -> (Vec<u8>, bool) {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut escapes = true;
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).filter(|hex| hex.iter().all(u8::is_ascii_hexdigit));
        match hex.and_then(|hex| u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()) {
            Some(byte) if bytes[i] == b'%' => {
                out.push(byte);
                i += 3;
            }
            _ => {
                escapes &= bytes[i] != b'%';
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    (out, escapes)
}

/// The text of system and developer messages, joined by blank lines: the top-level
/// `instructions` (Responses) or `system` (Anthropic). Several system messages are all kept
/// rather than the last one winning.
pub(crate) fn system_text(messages: &[Message]) -> Option<String> {
    let mut joined: Option<String> = None;
    for message in messages.iter().filter(|m| is_system(m)) {
        let text = message.content.text();
        if text.is_empty() {
            continue;
        }
        match &mut joined {
            Some(joined) => {
                joined.push_str("\n\n");
                joined.push_str(&text);
            }
            None => joined = Some(text),
        }
    }
    joined
}

/// A `tool` message without `metadata.tool_call_id`.
pub(crate) fn missing_call_id(path: &str) -> Error {
    Error::invalid_input(
        wire::field(path, "metadata.tool_call_id"),
        "a tool message needs the id of the call it answers",
    )
}

pub(crate) fn is_system(message: &Message) -> bool {
    message.role == "system" || message.role == "developer"
}

#[cfg(test)]
mod tests {
    use super::split_data_url;

    #[test]
    fn split_data_url_takes_the_media_type_before_parameters_and_the_data_after_the_comma() {
        let cases = [
            ("", None),
            ("data:", None),
            ("data:image/png", None),
            ("data:image/png;base64", None),
            ("DATA:a,b", None),
            ("xdata:a,b", None),
            ("data:,", Some(("", ""))),
            ("data:;,", Some(("", ""))),
            ("data:,x", Some(("", "x"))),
            ("data:,,", Some(("", ","))),
            ("data:;base64,x", Some(("", "x"))),
            ("data:;;,;", Some(("", ";"))),
            ("data:image/png;base64,AAAA", Some(("image/png", "AAAA"))),
            ("data:image/png,a,b", Some(("image/png", "a,b"))),
            ("data:a;b;c,d;e,f", Some(("a", "d;e,f"))),
            ("data:audio/wav;codecs=1,", Some(("audio/wav", ""))),
            ("data:é;ü,日本", Some(("é", "日本"))),
        ];
        for (url, split) in cases {
            assert_eq!(split_data_url(url), split, "{url:?}");
        }
    }
}

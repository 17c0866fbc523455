//! buildRequest: a request body plus the URL, method and headers that send it (§7.8).

use std::collections::HashSet;

use super::wire::{self, Fields};
use super::{write_chat_args, Api};
use crate::error::{Error, Result};
use crate::json::value;
use crate::json::{Map, Value};
use crate::model::{Agent, Message};
use crate::providers::gemini::{self, Service};

/// The `anthropic-version` header every Anthropic request carries.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// `User-Agent: llm-wire/<version>` (§7.8 asks implementations to name themselves).
pub const USER_AGENT: &str = concat!("llm-wire/", env!("CARGO_PKG_VERSION"));

/// How to send a request: where, with which key, streamed or not.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RequestOptions {
    /// The API root, e.g. `https://api.openai.com/v1`; known providers have a default.
    pub base_url: Option<String>,
    pub api_key: Option<String>,
    pub stream: bool,
    /// Extra headers, sent last; one with the name of a built header (any case) replaces it.
    /// In a browser calling Anthropic directly, `anthropic-dangerous-direct-browser-access`.
    pub headers: Vec<(String, String)>,
    /// The cloud region: Bedrock's runtime (`us-east-1`), Vertex AI's location (`us-central1`,
    /// `global` when not given).
    pub region: Option<String>,
    /// The cloud project: Vertex AI's project id.
    pub project: Option<String>,
}

impl RequestOptions {
    /// Reads `{baseUrl?, apiKey?, stream?, headers?, region?, project?}`; `null` or absent is all
    /// defaults. Errors name `options.…`.
    pub fn from_json(value: &Value) -> Result<RequestOptions> {
        let map = match value {
            Value::Null => return Ok(RequestOptions::default()),
            Value::Object(map) => map,
            _ => {
                return Err(Error::invalid_input(
                    "options",
                    "expected an object {baseUrl?, apiKey?, stream?, headers?, region?, project?}",
                ))
            }
        };
        let mut options = RequestOptions::default();
        match map.get("stream") {
            None | Some(Value::Null) => {}
            Some(Value::Bool(b)) => options.stream = *b,
            Some(_) => return Err(Error::invalid_input("options.stream", "expected a boolean")),
        }
        match map.get("headers") {
            None | Some(Value::Null) => {}
            Some(Value::Object(headers)) => {
                for (name, value) in headers {
                    let Value::String(value) = value else {
                        return Err(Error::invalid_input(wire::field("options.headers", name), "expected a string"));
                    };
                    options.headers.push((name.clone(), value.clone()));
                }
            }
            Some(_) => return Err(Error::invalid_input("options.headers", "expected an object of strings")),
        }
        let slots = [
            ("baseUrl", &mut options.base_url),
            ("apiKey", &mut options.api_key),
            ("region", &mut options.region),
            ("project", &mut options.project),
        ];
        for (key, slot) in slots {
            match map.get(key) {
                None | Some(Value::Null) => {}
                Some(Value::String(s)) => *slot = (!s.is_empty()).then(|| s.clone()),
                Some(_) => return Err(Error::invalid_input(wire::field("options", key), "expected a string")),
            }
        }
        Ok(options)
    }
}

/// A ready-to-send HTTP request. `body` is the JSON text, so in JS `fetch(r.url, r)` sends it.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpRequest {
    pub url: String,
    pub method: &'static str,
    /// Header names and values, in a stable order.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl HttpRequest {
    /// `{url, method, headers: {name: value}, body}` as plain JSON.
    pub fn to_json(&self) -> Value {
        let headers: Map =
            self.headers.iter().map(|(name, value)| (name.clone(), Value::String(value.clone()))).collect();
        value::object([
            ("url", value::string(&self.url)),
            ("method", value::string(self.method)),
            ("headers", Value::Object(headers)),
            ("body", value::string(&self.body)),
        ])
    }

    /// [`HttpRequest::to_json`] as JSON text.
    #[cfg_attr(not(all(target_arch = "wasm32", feature = "wasm-full")), allow(dead_code))]
    pub(crate) fn to_json_text(&self) -> String {
        let mut headers = Fields::new();
        for (name, value) in &self.headers {
            headers.str(name, value);
        }
        wire::Object::new()
            .str("body", &self.body)
            .json("headers", &headers.finish())
            .str("method", self.method)
            .str("url", &self.url)
            .finish()
    }
}

/// The API root of providers whose address is public and fixed.
fn default_base_url(provider: &str) -> Option<&'static str> {
    match provider {
        "openai" => Some("https://api.openai.com/v1"),
        "anthropic" => Some("https://api.anthropic.com/v1"),
        "groq" => Some("https://api.groq.com/openai/v1"),
        "deepseek" => Some("https://api.deepseek.com/v1"),
        "mistral" => Some("https://api.mistral.ai/v1"),
        "openrouter" => Some("https://openrouter.ai/api/v1"),
        "ollama" => Some("http://localhost:11434/v1"),
        _ => None,
    }
}

/// The `baseUrl` without its query and without a trailing `/`: the root the paths go after.
fn base_address(options: &RequestOptions) -> Option<&str> {
    let base = options.base_url.as_deref()?;
    Some(base.split_once('?').map_or(base, |(address, _)| address).trim_end_matches('/'))
}

/// `url` with the query of `baseUrl` (Azure's `api-version=...`) put back at its end: after a
/// `?`, or after a `&` when the URL has a query of its own (Gemini's `alt=sse`).
fn with_base_query(url: String, options: &RequestOptions) -> String {
    let query = options.base_url.as_deref().and_then(|base| base.split_once('?')).map(|(_, query)| query);
    match query.filter(|query| !query.is_empty()) {
        Some(query) if url.contains('?') => format!("{url}&{query}"),
        Some(query) => format!("{url}?{query}"),
        None => url,
    }
}

fn endpoint(api: Api) -> &'static str {
    match api {
        Api::OpenAiChat => "/chat/completions",
        Api::OpenAiResponses => "/responses",
        Api::OpenAiEmbeddings => "/embeddings",
        Api::OpenAiImages => "/images/generations",
        Api::Anthropic => "/messages",
        // Gemini's URL names the model and the method: `gemini_url`.
        Api::Gemini | Api::GeminiEmbeddings => "",
        Api::Bedrock => "/converse",
    }
}

/// Bedrock's URL: the runtime of `options.region` (or `baseUrl`), then
/// `/model/{modelId}/converse` or `/converse-stream`, the model id percent-encoded (inference
/// profile ids have `:`, ARNs `:` and `/`).
fn bedrock_url(agent: &Agent, options: &RequestOptions) -> Result<String> {
    let base = match (base_address(options), &options.region) {
        (Some(base), _) => base.to_owned(),
        (None, Some(region)) => {
            url_safe(region, "region", &[])?;
            format!("https://bedrock-runtime.{region}.amazonaws.com")
        }
        (None, None) => {
            return Err(Error::invalid_input(
                "options.region",
                "provider `bedrock` needs a region (us-east-1, ...) or a baseUrl",
            ))
        }
    };
    let action = if options.stream { "converse-stream" } else { "converse" };
    Ok(format!("{base}/model/{}/{action}", percent_encode(&agent.model.id)))
}

/// Every byte but the unreserved ones (`A-Z a-z 0-9 - . _ ~`) as `%XX`, as
/// `encodeURIComponent` writes a path segment.
fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The Gemini API's root.
const GEMINI_BASE_URL: &str = "https://generativelanguage.googleapis.com/v1beta";

/// A `region` or `project` that goes into a URL: letters, digits and `-` (a project may also
/// have `.` and `:`, as domain-scoped ones do).
fn url_safe(value: &str, key: &str, extra: &[char]) -> Result<()> {
    if value.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || extra.contains(&c)) {
        return Ok(());
    }
    Err(Error::invalid_input(
        wire::field("options", key),
        format!("{key} {} is not a name that goes in a URL", crate::json::write::quoted(value)),
    ))
}

/// The URL of a Gemini request: `{root}/{model}:{method}`. The root is the Gemini API's, or
/// for Vertex AI `https://{region}-aiplatform.googleapis.com/v1` (`global`:
/// `aiplatform.googleapis.com`; `us`, `eu`: `aiplatform.{region}.rep.googleapis.com`) followed by `projects/{project}/locations/{region}`; `baseUrl`
/// replaces the address, and on Vertex AI without a project names the whole root (as express
/// mode's `.../v1` does). The model is `publishers/google/models/{id}` on Vertex AI unless it
/// names a resource itself.
fn gemini_url(
    agent: &Agent,
    messages: &[Message],
    api: Api,
    service: Service,
    options: &RequestOptions,
) -> Result<String> {
    let method = match api {
        Api::GeminiEmbeddings => gemini::embeddings::method(service, messages),
        _ if options.stream => "streamGenerateContent?alt=sse",
        _ => "generateContent",
    };
    let id = &agent.model.id;
    let given = base_address(options);
    let resource = match service {
        Service::Gemini => format!("{}/{}", given.unwrap_or(GEMINI_BASE_URL), gemini::request::resource(id)),
        Service::Vertex => {
            let region = options.region.as_deref().unwrap_or("global");
            url_safe(region, "region", &[])?;
            let root = match given {
                Some(base) => base.to_owned(),
                None if region == "global" => "https://aiplatform.googleapis.com/v1".to_owned(),
                // Multi-regions have their own hosts, as Google's SDK has them.
                None if matches!(region, "us" | "eu") => format!("https://aiplatform.{region}.rep.googleapis.com/v1"),
                None => format!("https://{region}-aiplatform.googleapis.com/v1"),
            };
            let model = if id.contains('/') { id.clone() } else { format!("publishers/google/models/{id}") };
            match (options.project.as_deref(), given) {
                _ if id.starts_with("projects/") => format!("{root}/{id}"),
                (Some(project), _) => {
                    url_safe(project, "project", &['.', ':'])?;
                    format!("{root}/projects/{project}/locations/{region}/{model}")
                }
                (None, Some(_)) => format!("{root}/{model}"),
                (None, None) => {
                    return Err(Error::invalid_input(
                        "options.project",
                        "Vertex AI needs the project (and the region, `global` when not given), or a baseUrl",
                    ))
                }
            }
        }
    };
    Ok(format!("{resource}:{method}"))
}

/// Whether a Vertex AI request names a project: the `project` option, or a model id that is a
/// whole resource (`projects/...`).
fn vertex_project(agent: &Agent, options: &RequestOptions) -> bool {
    options.project.is_some() || agent.model.id.starts_with("projects/")
}

/// The body of [`build_chat_args`](crate::build_chat_args) with the URL, `POST` and headers:
/// Bearer auth (Azure's `api-key`; Anthropic's `x-api-key` and `anthropic-version`; the Gemini
/// API's and Vertex AI express mode's `x-goog-api-key`; a Bedrock API key as Bearer too, while
/// SigV4 signing is left to a signing library), `User-Agent`, and for streaming `stream: true`
/// (OpenAI Chat also asks for usage in the last chunk; Bedrock streams from its own endpoint
/// instead).
pub fn build_request(agent: &Agent, messages: &[Message], options: &RequestOptions) -> Result<HttpRequest> {
    let mut body = write_chat_args(agent, messages)?;
    let api = Api::of(agent)?;
    let provider = agent.model.provider();
    let gemini = Service::of(provider);
    let url = match gemini {
        Some(service) => gemini_url(agent, messages, api, service, options)?,
        None if api == Api::Bedrock => bedrock_url(agent, options)?,
        None => {
            let base = match base_address(options) {
                Some(base) => base,
                None => default_base_url(provider).ok_or_else(|| {
                    Error::invalid_input(
                        "options.baseUrl",
                        format!("provider `{provider}` has no default address: give a baseUrl"),
                    )
                })?,
            };
            format!("{base}{}", endpoint(api))
        }
    };
    let url = with_base_query(url, options);

    let mut headers: Vec<(String, String)> = Vec::new();
    let mut header = |name: &str, value: &str| headers.push((name.to_owned(), value.to_owned()));
    header("Content-Type", "application/json");
    if let Some(key) = &options.api_key {
        match (api, gemini) {
            (Api::Anthropic, _) => header("x-api-key", key),
            (_, Some(Service::Gemini)) => header("x-goog-api-key", key),
            // Vertex AI without a project is express mode, whose key is an API key; with one,
            // the key is an OAuth access token, sent as a bearer token.
            (_, Some(Service::Vertex)) if !vertex_project(agent, options) => header("x-goog-api-key", key),
            _ if provider == "azure" => header("api-key", key),
            _ => header("Authorization", &format!("Bearer {key}")),
        }
    }
    if api == Api::Anthropic {
        header("anthropic-version", ANTHROPIC_VERSION);
    }
    header("User-Agent", USER_AGENT);

    if options.stream {
        if matches!(api, Api::OpenAiEmbeddings | Api::GeminiEmbeddings) {
            return Err(Error::invalid_input("options.stream", "embedding requests cannot be streamed"));
        }
        if api == Api::Bedrock {
            // The stream is chosen by the endpoint, and comes as AWS event-stream messages.
            header("Accept", "application/vnd.amazon.eventstream");
        } else {
            header("Accept", "text/event-stream");
        }
        // Gemini streams by its URL (`streamGenerateContent`), Bedrock by its endpoint.
        if !matches!(api, Api::Gemini | Api::Bedrock) {
            body.bool("stream", true);
        }
        if api == Api::OpenAiChat {
            // Without it OpenAI Chat streams carry no usage at all. Only `additionalProperties`
            // can have set `stream_options`; a value that is not an object is left as it is.
            let given = agent.model.options.additional_properties.get("stream_options");
            if let None | Some(Value::Object(_)) = given {
                let mut stream_options = Fields::new();
                if let Some(Value::Object(given)) = given {
                    given.iter().for_each(|(key, value)| stream_options.value(key, value));
                }
                stream_options.bool("include_usage", true);
                body.set("stream_options", stream_options.finish());
            }
        }
    }
    // A given header replaces the built one and any given earlier of the same name, in any case;
    // read from the last, so each name is looked up once.
    let mut given_names = HashSet::new();
    let mut given = Vec::new();
    for (name, value) in options.headers.iter().rev() {
        if given_names.insert(name.to_ascii_lowercase()) {
            given.push((name.clone(), value.clone()));
        }
    }
    headers.retain(|(name, _)| !given_names.contains(&name.to_ascii_lowercase()));
    headers.extend(given.into_iter().rev());
    Ok(HttpRequest { url, method: "POST", headers, body: body.finish() })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The wasm export writes the request as text; it is `to_json` serialised.
    #[test]
    fn the_request_as_text_is_the_request_as_json() {
        let request = HttpRequest {
            url: "https://x/v1/chat/completions".into(),
            method: "POST",
            headers: vec![
                ("User-Agent".into(), "a".into()),
                ("authorization".into(), "Bearer \"k\"".into()),
                ("Accept".into(), "text/event-stream".into()),
                ("User-Agent".into(), "b".into()),
            ],
            body: r#"{"model":"m","x":[1.5]}"#.into(),
        };
        assert_eq!(request.to_json_text(), request.to_json().to_string());
    }
}

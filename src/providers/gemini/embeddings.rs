//! Gemini embeddings: on the Gemini API `embedContent` for one text and `batchEmbedContents`
//! for several; on Vertex AI `predict`, whose instances carry the texts. Their bodies give one
//! vector, or a list of vectors in input order.

use super::Service;
use crate::error::{Error, ErrorCode, Result};
use crate::json::{Map, Value};
use crate::model::{Agent, Message, MessageContent, ProcessResult};
use crate::process::errors::provider_error;
use crate::process::read_body;
use crate::providers::openai_embeddings::response::{read_vector, Vector};
use crate::request::wire::{self, text, Array, Fields, Object};

use super::stream::read_error;

/// The texts to embed: every text part of every message, in order (other parts are not
/// embedded, as in OpenAI's embedding requests).
fn texts(messages: &[Message]) -> Vec<&str> {
    let mut texts = Vec::new();
    for message in messages {
        match &message.content {
            MessageContent::Text(value) => texts.push(value.as_str()),
            MessageContent::Parts(parts) => {
                texts.extend(parts.iter().filter(|part| part.is_text()).map(|part| part.value.as_str()))
            }
        }
    }
    texts
}

/// The method a request for `messages` goes to.
pub(crate) fn method(service: Service, messages: &[Message]) -> &'static str {
    match service {
        Service::Vertex => "predict",
        Service::Gemini if texts(messages).len() == 1 => "embedContent",
        Service::Gemini => "batchEmbedContents",
    }
}

/// `{parts: [{text}]}`, the content of one text.
fn content(value: &str) -> String {
    let mut parts = Array::new();
    parts.push(Object::new().str("text", value).finish());
    Object::new().array("parts", &parts).finish()
}

/// The request body onto `body`. `additionalProperties` are the request's options
/// (`taskType`, `outputDimensionality`, `title`): on the Gemini API they go on every
/// `EmbedContentRequest`; on Vertex AI the task and title go on every instance and the
/// dimensionality and truncation into `parameters`, as `predict` has them.
pub(crate) fn build(agent: &Agent, messages: &[Message], service: Service, body: &mut Fields) -> Result<()> {
    let texts = texts(messages);
    if texts.is_empty() {
        return Err(Error::invalid_input(
            "messages",
            "an embedding request needs at least one text to embed (only text parts are embedded), and Google \
             refuses one without",
        ));
    }
    let extra = &agent.model.options.additional_properties;
    match service {
        Service::Vertex => build_predict(&texts, extra, body),
        Service::Gemini => {
            if let [one] = texts.as_slice() {
                body.set("content", content(one));
                crate::options::write_absent(body, extra);
                return Ok(());
            }
            let model = super::request::resource(&agent.model.id);
            let mut requests = Array::new();
            for one in &texts {
                let mut request = Fields::new();
                request.set("content", content(one));
                request.str("model", &model);
                crate::options::write_absent(&mut request, extra);
                requests.push(request.finish());
            }
            body.set("requests", requests.finish());
        }
    }
    Ok(())
}

fn build_predict(texts: &[&str], extra: &Map, body: &mut Fields) {
    let (mut per_instance, mut parameters) = (Vec::new(), Fields::new());
    for (key, value) in extra {
        match key.as_str() {
            "taskType" | "task_type" => per_instance.push(("task_type", value)),
            "title" => per_instance.push(("title", value)),
            "outputDimensionality" | "output_dimensionality" => parameters.value("outputDimensionality", value),
            "autoTruncate" | "auto_truncate" => parameters.value("autoTruncate", value),
            "parameters" => {
                if let Value::Object(given) = value {
                    crate::options::write_absent(&mut parameters, given);
                }
            }
            _ => body.set_absent(key, wire::json(value)),
        }
    }
    let mut instances = Array::new();
    for one in texts {
        let mut instance = Fields::new();
        instance.set("content", text(one));
        for (key, value) in &per_instance {
            instance.value(key, value);
        }
        instances.push(instance.finish());
    }
    body.set("instances", instances.finish());
    let parameters = parameters.finish();
    if parameters != "{}" {
        body.set("parameters", parameters);
    }
}

/// One embedding of a body, where it was, for the errors.
struct Embedding {
    path: String,
    vector: Option<Vector>,
}

/// `{values: [...]}`, an embedding; `None` when it has no `values`.
fn read_values(r: &mut crate::json::Reader<'_>) -> crate::json::JsonResult<Option<Vector>> {
    let mut vector = None;
    r.object(|r, key| {
        if key == b"values" {
            vector = read_vector(r)?;
        }
        Ok(())
    })?;
    Ok(vector)
}

/// The result of an embeddings body: `embedContent`'s `embedding`, `batchEmbedContents`'
/// `embeddings`, or `predict`'s `predictions[].embeddings`. One embedding gives its vector,
/// several the list; none is `empty_response`; an `error` is `provider_error`; a value that is
/// not a finite number is `invalid_json` at its place.
pub(crate) fn result(text: &str) -> Result<ProcessResult> {
    let (mut embeddings, mut error) = (Vec::new(), None);
    let read = read_body(text, &mut |r, key| {
        match key {
            b"embedding" => {
                let vector = read_values(r)?;
                embeddings = vec![Embedding { path: "embedding".into(), vector }];
            }
            b"embeddings" | b"predictions" => {
                let predictions = key == b"predictions";
                embeddings.clear();
                r.array(|r| {
                    let at = embeddings.len();
                    let (path, vector) = if predictions {
                        let mut vector = None;
                        r.object(|r, key| {
                            if key == b"embeddings" {
                                vector = read_values(r)?;
                            }
                            Ok(())
                        })?;
                        (format!("predictions[{at}].embeddings"), vector)
                    } else {
                        (format!("embeddings[{at}]"), read_values(r)?)
                    };
                    embeddings.push(Embedding { path, vector });
                    Ok(())
                })?;
            }
            b"error" => error = read_error(r)?.map(|e| provider_error(&e)),
            _ => {}
        }
        Ok(())
    });
    read.map_err(crate::process::invalid_body)?;
    if let Some(error) = error {
        return Err(error);
    }
    let mut vectors = Vec::with_capacity(embeddings.len());
    for Embedding { path, vector } in embeddings {
        match vector {
            Some(Ok(values)) => vectors.push(values),
            Some(Err(why)) => return Err(Error::new(ErrorCode::InvalidJson, format!("{path}: {why}")).with_path(path)),
            None => return Err(Error::new(ErrorCode::InvalidJson, format!("{path} has no `values`")).with_path(path)),
        }
    }
    match vectors.len() {
        0 => Err(Error::new(ErrorCode::EmptyResponse, "Empty embedding response: the body holds no embedding")),
        1 => Ok(ProcessResult::Vector(vectors.pop().unwrap_or_default())),
        _ => Ok(ProcessResult::Vectors(vectors)),
    }
}

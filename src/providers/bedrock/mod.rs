//! Amazon Bedrock: the Converse API (`/model/{modelId}/converse` and `/converse-stream`), and
//! the chunks of InvokeModelWithResponseStream, which carry a model's own stream events.

mod finish_reason;
mod invoke;
pub(crate) mod redacted;
pub(crate) mod request;
pub(crate) mod response;
mod stream;
mod usage;

pub(crate) use finish_reason::map_stop_reason;
pub(crate) use invoke::chunk_bytes;
pub(crate) use response::{error_type_name, is_retryable_exception};
pub(crate) use stream::ConverseStream;
pub(crate) use usage::convert_usage;

use crate::json::read_document;
use crate::providers::Scalar;

/// A `toolUse` block (`{toolUseId, name, type?, input?}`), read from its JSON text; every
/// member of an unexpected kind, or text that is not an object, reads as absent.
#[derive(Default)]
pub(crate) struct ToolUse<'a> {
    pub(crate) id: Scalar<'a>,
    pub(crate) name: Scalar<'a>,
    /// `server_tool_use` for a tool the server runs itself (Nova's code interpreter).
    pub(crate) kind: Scalar<'a>,
    /// The input object's JSON text.
    pub(crate) input: Option<&'a str>,
}

impl<'a> ToolUse<'a> {
    pub(crate) fn read(text: &'a str) -> ToolUse<'a> {
        let mut call = ToolUse::default();
        let read = read_document(text.as_bytes(), |r| {
            r.object(|r, key| {
                match key {
                    b"toolUseId" => call.id = Scalar::read(r)?,
                    b"name" => call.name = Scalar::read(r)?,
                    b"type" => call.kind = Scalar::read(r)?,
                    b"input" => call.input = r.raw_non_null()?,
                    _ => {}
                }
                Ok(())
            })
        });
        match read {
            Ok(true) => call,
            _ => ToolUse::default(),
        }
    }
}

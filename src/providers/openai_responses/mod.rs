//! OpenAI Responses API.

mod finish_reason;
pub(crate) mod request;
pub(crate) mod response;
mod stream;
#[cfg(test)]
mod stream_tests;
mod usage;

pub(crate) use finish_reason::{end_response, status_error};
pub(crate) use stream::ResponsesStream;
pub(crate) use usage::convert_usage;

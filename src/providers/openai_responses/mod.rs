//! OpenAI Responses API.

mod finish_reason;
pub(crate) mod request;
pub(crate) mod response;
mod stream;
mod usage;

pub(crate) use finish_reason::map_status;
pub(crate) use stream::ResponsesStream;
pub(crate) use usage::convert_usage;

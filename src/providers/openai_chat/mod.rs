//! OpenAI Chat Completions, the format of every OpenAI-compatible server.

mod finish_reason;
pub(crate) mod request;
pub(crate) mod response;
mod stream;
mod usage;

pub(crate) use finish_reason::map_finish_reason;
pub(crate) use stream::ChatStream;
pub(crate) use usage::{convert_usage, read_usage};

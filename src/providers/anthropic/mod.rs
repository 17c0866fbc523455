//! Anthropic Messages.

mod finish_reason;
pub(crate) mod request;
pub(crate) mod response;
mod stream;
mod usage;

pub(crate) use finish_reason::map_stop_reason;
pub(crate) use stream::AnthropicStream;
pub(crate) use usage::convert_usage;

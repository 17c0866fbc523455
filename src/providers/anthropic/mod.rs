//! Anthropic Messages.

mod finish_reason;
pub(crate) mod request;
pub(crate) mod response;
mod stream;
mod usage;

pub(crate) use stream::AnthropicStream;

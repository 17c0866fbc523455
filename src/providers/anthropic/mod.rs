//! Anthropic Messages.

mod stream;

pub(crate) use stream::AnthropicStream;

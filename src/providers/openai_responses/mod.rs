//! OpenAI Responses API.

mod stream;

pub(crate) use stream::ResponsesStream;

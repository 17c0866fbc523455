//! OpenAI images API (§7.2/§7.3 requests, §8.2/§8.3 responses).

pub(crate) mod request;
pub(crate) mod response;

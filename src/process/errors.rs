//! Provider error bodies, recognised in every response format: OpenAI-compatible
//! `{"error": {message, type, code}}`, Anthropic `{"type": "error", "error": {...}}`, a Responses
//! `error` object, and the bare `{"error": "text"}` some local servers send.

use crate::error::{Error, ProviderDetail};
use crate::providers::{is_retryable, ErrorBody};

/// The provider's error as a thrown `provider_error`: its message verbatim, type and code beside.
pub(crate) fn provider_error(body: &ErrorBody<'_>) -> Error {
    let kind = body.kind.as_deref().map(str::to_owned);
    let code = body.code.as_deref().map(str::to_owned);
    let retryable = is_retryable(kind.as_deref()) || is_retryable(code.as_deref());
    let message = body.message.as_deref().unwrap_or("the provider reported an error").to_owned();
    Error::provider(message, ProviderDetail { kind, code, retryable })
}

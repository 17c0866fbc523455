//! Provider error bodies, recognised in every response format: OpenAI-compatible
//! `{"error": {message, type, code}}`, Anthropic `{"type": "error", "error": {...}}`, a Responses
//! `error` object, and the bare `{"error": "text"}` some local servers send.

use crate::error::{Error, ProviderDetail};
use crate::providers::ErrorBody;

/// The provider's error as a thrown `provider_error`: its message verbatim, type and code beside
/// (message and retryability as the stream's error event has them).
pub(crate) fn provider_error(body: &ErrorBody<'_>) -> Error {
    let info = body.info();
    let kind = body.kind.as_deref().map(str::to_owned);
    let code = body.code.as_deref().map(str::to_owned);
    Error::provider(info.message, ProviderDetail { kind, code, retryable: info.retryable == Some(true) })
}

//! The one error type of the crate: a closed set of codes, a message, and a path for input errors.

use std::fmt;

/// What went wrong, as a stable machine-readable code (the `code` of the JS `Error`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// The caller's input (agent, messages, options) is malformed; `path` says where.
    InvalidInput,
    /// A JSON document (a stream event, tool arguments, a response body) does not parse.
    InvalidJson,
    /// A response that must carry data (embeddings, images) carries none.
    EmptyResponse,
    /// The model refused to answer.
    ModelRefused,
    /// The provider reported an error (an error body or an error event).
    ProviderError,
    /// A configured limit (see [`crate::Limits`]) was exceeded; the accumulator refuses more input.
    LimitExceeded,
    /// The transport failed mid-stream (reported by the caller through `abort`).
    TransportError,
    /// An object was used after it ended (`push` after `flush`).
    Finished,
    /// Structured output does not match its schema.
    ValidationFailed,
}

impl ErrorCode {
    /// The code as it appears in JS (`error.code`) and in stream `error` events.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidInput => "invalid_input",
            ErrorCode::InvalidJson => "invalid_json",
            ErrorCode::EmptyResponse => "empty_response",
            ErrorCode::ModelRefused => "model_refused",
            ErrorCode::ProviderError => "provider_error",
            ErrorCode::LimitExceeded => "limit_exceeded",
            ErrorCode::TransportError => "transport_error",
            ErrorCode::Finished => "finished",
            ErrorCode::ValidationFailed => "validation_failed",
        }
    }
}

/// An error: code, human-readable message, and for input errors the path of the bad value
/// (for example `agent.tools[1].parameters[0].kind`). Its fields ([`ErrorFields`]) are read and
/// written through the error itself (`error.code`, `error.path`); they live behind one box, so
/// a `Result` carrying an `Error` is one pointer wide on its error side.
#[derive(Clone, PartialEq, Eq)]
pub struct Error(Box<ErrorFields>);

/// Printed as the fields themselves, under the name `Error`.
impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("code", &self.code)
            .field("message", &self.message)
            .field("path", &self.path)
            .field("provider", &self.provider)
            .finish()
    }
}

/// What an [`Error`] holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorFields {
    pub code: ErrorCode,
    pub message: String,
    pub path: Option<String>,
    /// For `provider_error`: what the provider itself said, beside its message.
    pub provider: Option<Box<ProviderDetail>>,
}

impl std::ops::Deref for Error {
    type Target = ErrorFields;
    fn deref(&self) -> &ErrorFields {
        &self.0
    }
}

impl std::ops::DerefMut for Error {
    fn deref_mut(&mut self) -> &mut ErrorFields {
        &mut self.0
    }
}

impl From<ErrorFields> for Error {
    fn from(fields: ErrorFields) -> Self {
        Error(Box::new(fields))
    }
}

/// The provider's own classification of an error body (`{"error": {type, code, message}}`),
/// kept verbatim so callers can branch on it (`insufficient_quota`, `overloaded_error`, ...).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProviderDetail {
    /// The provider's error `type` (`invalid_request_error`, `overloaded_error`, ...).
    pub kind: Option<String>,
    /// The provider's error `code` (`unsupported_parameter`, `429`, ...), numbers as text.
    pub code: Option<String>,
    /// Whether the type or code names a transient condition worth retrying.
    pub retryable: bool,
}

impl Error {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error::of(code, message.into(), None)
    }

    /// What [`Error::new`] and [`Error::invalid_input`] build.
    fn of(code: ErrorCode, message: String, path: Option<String>) -> Self {
        ErrorFields { code, message, path, provider: None }.into()
    }

    /// A `provider_error`: the provider's message verbatim, its type and code beside it.
    pub fn provider(message: impl Into<String>, detail: ProviderDetail) -> Self {
        ErrorFields {
            code: ErrorCode::ProviderError,
            message: message.into(),
            path: None,
            provider: Some(Box::new(detail)),
        }
        .into()
    }

    /// An `invalid_input` error at `path`.
    pub fn invalid_input(path: impl Into<String>, message: impl Into<String>) -> Self {
        let message = message.into();
        Error::of(ErrorCode::InvalidInput, message, Some(path.into()))
    }

    pub fn with_path(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(path) => write!(f, "{} at {}: {}", self.code.as_str(), path, self.message),
            None => write!(f, "{}: {}", self.code.as_str(), self.message),
        }
    }
}

impl std::error::Error for Error {}

pub type Result<T, E = Error> = std::result::Result<T, E>;

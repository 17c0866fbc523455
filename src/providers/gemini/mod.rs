//! Google's Gemini models: the Gemini API (`generativelanguage.googleapis.com`, providers
//! `google` and `gemini`) and Vertex AI (`vertex`), which share one schema:
//! `generateContent`, `streamGenerateContent` and the embedding methods.

mod args;
mod data_url;
pub(crate) mod embeddings;
mod finish_reason;
pub(crate) mod request;
pub(crate) mod response;
mod schema;
mod stream;
mod template;
mod usage;

pub(crate) use finish_reason::map_finish_reason;
pub(crate) use stream::GeminiStream;
pub(crate) use usage::convert_usage;

/// Which service speaks to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Service {
    /// The Gemini API: providers `google` and `gemini`.
    Gemini,
    /// Vertex AI: provider `vertex`.
    Vertex,
}

impl Service {
    /// The service a provider name selects, or `None` for providers of other formats.
    pub(crate) fn of(provider: &str) -> Option<Service> {
        match provider {
            "google" | "gemini" => Some(Service::Gemini),
            "vertex" => Some(Service::Vertex),
            _ => None,
        }
    }
}

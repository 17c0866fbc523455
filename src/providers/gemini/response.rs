//! A non-streamed Gemini body → the normalised message: a `GenerateContentResponse` is read as
//! the one chunk of a stream, and a whole `streamGenerateContent` body (a JSON array of
//! chunks) as its chunks in order, so `toMessage` of a body equals `finish()` of its stream.

use super::stream::{Chunk, GeminiStream};
use crate::accumulator::MessageBuilder;
use crate::error::{Error, ErrorCode, Result};
use crate::json::{read_document, read_list, JsonError, JsonResult, Reader};
use crate::process::errors::provider_error;

/// The chunks of a body: one object, or an array of them.
fn chunks(text: &str) -> JsonResult<Vec<Chunk<'_>>> {
    let is_array = text.trim_start().starts_with('[');
    let texts = if is_array { read_document(text.as_bytes(), |r| read_list(r, Reader::raw))? } else { vec![text] };
    texts.into_iter().map(|text| Chunk::read(text.as_bytes())?.ok_or_else(JsonError::not_an_object)).collect()
}

/// Feeds the body in `text` to `b` as its stream would be fed (the caller then ends the
/// message). A body that is not an object, or an array of objects, is `Err` of the JSON error;
/// an error body (or an array that starts with one) is `Ok(Err(provider_error))`, and so is a
/// body with nothing to answer with (`empty_response`: no candidate, no blocked prompt). An
/// error after some chunks is on the message, as the stream has it, and also `Ok(Ok(Some))`:
/// the provider error `process` throws.
pub(crate) fn feed(text: &str, b: &mut MessageBuilder) -> JsonResult<Result<Option<Error>>> {
    let chunks = chunks(text)?;
    if let Some(error) = chunks.first().and_then(|chunk| chunk.error.as_ref()) {
        return Ok(Err(provider_error(error)));
    }
    if !chunks.iter().any(Chunk::answers) {
        return Ok(Err(Error::new(ErrorCode::EmptyResponse, "the Gemini response has no candidates")));
    }
    let failed = chunks.iter().find_map(|chunk| chunk.error.as_ref()).map(provider_error);
    let mut stream = GeminiStream::default();
    Ok((|| {
        for chunk in chunks {
            stream.chunk(chunk, b)?;
        }
        stream.flush(b)?;
        Ok(failed)
    })())
}

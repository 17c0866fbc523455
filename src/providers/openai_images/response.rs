//! An images body (§8.3) → one string, or a list: each item's `url`, else its `b64_json`.
//! `revised_prompt` is metadata and never the result (`docs/design.md`, "Dispatch").

use std::borrow::Cow;

use crate::error::{Error, ErrorCode, Result};
use crate::json::{JsonResult, Reader};
use crate::model::ProcessResult;
use crate::process::errors::provider_error;
use crate::process::read_body;
use crate::providers::{ErrorBody, Scalar};

/// An images body. A field of the wrong kind reads as absent rather than refusing the body
/// (`data` not a list: no image; an item not an object: skipped); a repeated key keeps its
/// last value.
#[derive(Default)]
pub(crate) struct ImageBody<'a> {
    /// Each item's image as §8.3 picks it, read straight from the item: items with none are
    /// left out.
    images: Vec<String>,
    pub(crate) error: Option<ErrorBody<'a>>,
}

impl<'a> ImageBody<'a> {
    /// Reads a body; an error when it is not JSON, or not an object.
    pub(crate) fn read(text: &'a str) -> JsonResult<Self> {
        let mut body = ImageBody::default();
        read_body(text, &mut |r, key| {
            match key {
                b"data" => {
                    // A repeated `data` replaces the images.
                    body.images.clear();
                    r.array(|r| {
                        if let Some(image) = image(r)? {
                            body.images.push(image);
                        }
                        Ok(())
                    })?;
                }
                b"error" => body.error = ErrorBody::read_field(r)?,
                _ => {}
            }
            Ok(())
        })?;
        Ok(body)
    }
}

/// §8.3: an item's `url`, else its `b64_json` (empty ones do not count); `None` for an item with
/// neither, or that is not an object.
fn image(r: &mut Reader<'_>) -> JsonResult<Option<String>> {
    let (mut url, mut b64_json) = (Scalar::default(), Scalar::default());
    r.object(|r, key| {
        match key {
            b"url" => url = Scalar::read(r)?,
            b"b64_json" => b64_json = Scalar::read(r)?,
            _ => {}
        }
        Ok(())
    })?;
    // Empty ones do not count.
    let present = |image: Scalar<'_>| image.0.filter(|image| !image.is_empty()).map(Cow::into_owned);
    Ok(present(url).or_else(|| present(b64_json)))
}

impl ImageBody<'_> {
    /// §8.3: one image is a string, several a list.
    pub(crate) fn result(self) -> Result<ProcessResult> {
        if let Some(error) = &self.error {
            return Err(provider_error(error));
        }
        let mut out = self.images;
        match out.len() {
            0 => {
                Err(Error::new(ErrorCode::EmptyResponse, "Empty image response: no item carries a `url` or `b64_json`"))
            }
            1 => Ok(ProcessResult::Text(out.pop().unwrap_or_default())),
            _ => Ok(ProcessResult::Strings(out)),
        }
    }
}

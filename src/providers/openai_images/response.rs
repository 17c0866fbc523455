//! An images body (§8.3) → one string, or a list: each item's `url`, else its `b64_json`.
//! `revised_prompt` is metadata and never the result (DESIGN.md §3).

use crate::error::{Error, ErrorCode, Result};
use crate::json::{read_object_document, JsonResult, Reader};
use crate::model::ProcessResult;
use crate::process::errors::provider_error;
use crate::providers::{ErrorBody, Scalar};

/// An images body, read by hand with the crate's JSON reader. Where the serde derive this
/// replaces refused the whole body, a field of the wrong kind now reads as absent (`data` not a
/// list: no image; an item not an object: skipped); a repeated key keeps its last value.
#[derive(Default)]
pub(crate) struct ImageBody<'a> {
    data: Vec<Item<'a>>,
    pub(crate) error: Option<ErrorBody<'a>>,
}

#[derive(Default)]
struct Item<'a> {
    url: Scalar<'a>,
    b64_json: Scalar<'a>,
}

impl<'a> ImageBody<'a> {
    /// Reads a body; an error when it is not JSON, or not an object.
    pub(crate) fn read(text: &'a str) -> JsonResult<Self> {
        read_object_document(text.as_bytes(), |body: &mut ImageBody<'a>, r, key| {
            match key {
                b"data" => {
                    // Items that are not objects are left out.
                    let mut data = Vec::new();
                    r.array(|r| {
                        if let Some(item) = Item::read(r)? {
                            data.push(item);
                        }
                        Ok(())
                    })?;
                    body.data = data;
                }
                b"error" => body.error = ErrorBody::read_field(r)?,
                _ => {}
            }
            Ok(())
        })
    }
}

impl<'a> Item<'a> {
    /// An item, or `None` when it is not an object.
    fn read(r: &mut Reader<'a>) -> JsonResult<Option<Item<'a>>> {
        let mut item = Item::default();
        let is_object = r.object(|r, key| {
            match key {
                b"url" => item.url = Scalar::read(r)?,
                b"b64_json" => item.b64_json = Scalar::read(r)?,
                _ => {}
            }
            Ok(())
        })?;
        Ok(is_object.then_some(item))
    }
}

impl ImageBody<'_> {
    /// §8.3: `url` wins over `b64_json`; an item with neither is skipped; one image is a string.
    pub(crate) fn result(self) -> Result<ProcessResult> {
        if let Some(error) = &self.error {
            return Err(provider_error(error));
        }
        let mut out = Vec::new();
        for item in &self.data {
            let url = item.url.as_deref().filter(|u| !u.is_empty());
            if let Some(image) = url.or(item.b64_json.as_deref().filter(|b| !b.is_empty())) {
                out.push(image.to_owned());
            }
        }
        match out.len() {
            0 => {
                Err(Error::new(ErrorCode::EmptyResponse, "Empty image response: no item carries a `url` or `b64_json`"))
            }
            1 => Ok(ProcessResult::Text(out.pop().unwrap_or_default())),
            _ => Ok(ProcessResult::Strings(out)),
        }
    }
}

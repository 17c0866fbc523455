//! An images body (§8.3) → one string, or a list: each item's `url`, else its `b64_json`.
//! `revised_prompt` is metadata and never the result (DESIGN.md §3).

use serde::Deserialize;

use crate::error::{Error, ErrorCode, Result};
use crate::model::ProcessResult;
use crate::process::errors::ErrorField;
use crate::providers::Scalar;

#[derive(Deserialize)]
pub(crate) struct ImageBody<'a> {
    #[serde(default, borrow)]
    data: Option<Vec<Item<'a>>>,
    #[serde(default, borrow)]
    pub(crate) error: ErrorField<'a>,
}

#[derive(Deserialize)]
struct Item<'a> {
    #[serde(default, borrow)]
    url: Scalar<'a>,
    #[serde(default, borrow)]
    b64_json: Scalar<'a>,
}

impl ImageBody<'_> {
    /// §8.3: `url` wins over `b64_json`; an item with neither is skipped; one image is a string.
    pub(crate) fn result(self) -> Result<ProcessResult> {
        self.error.check()?;
        let items = self.data.unwrap_or_default();
        let mut out: Vec<String> = items
            .into_iter()
            .filter_map(|item| {
                let url = item.url.0.filter(|u| !u.is_empty());
                url.or(item.b64_json.0.filter(|b| !b.is_empty())).map(|s| s.into_owned())
            })
            .collect();
        match out.len() {
            0 => {
                Err(Error::new(ErrorCode::EmptyResponse, "Empty image response: no item carries a `url` or `b64_json`"))
            }
            1 => Ok(ProcessResult::Text(out.remove(0))),
            _ => Ok(ProcessResult::Strings(out)),
        }
    }
}

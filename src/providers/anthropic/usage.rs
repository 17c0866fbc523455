//! Anthropic usage → [`Usage`]. `input_tokens` excludes cached tokens, which are counted apart
//! as reads (`cache_read_input_tokens`) and writes (`cache_creation_input_tokens`).

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::model::{RawJson, Usage};
use crate::providers::count;

/// The counts of one usage object; a stream restates some of them in `message_delta`.
#[derive(Deserialize, Default, Clone, Copy, Debug, PartialEq)]
pub(crate) struct Counts {
    #[serde(default, deserialize_with = "count")]
    input_tokens: Option<u64>,
    #[serde(default, deserialize_with = "count")]
    output_tokens: Option<u64>,
    #[serde(default, deserialize_with = "count")]
    cache_read_input_tokens: Option<u64>,
    #[serde(default, deserialize_with = "count")]
    cache_creation_input_tokens: Option<u64>,
}

impl Counts {
    pub(crate) fn read(raw: &RawValue) -> Option<Counts> {
        serde_json::from_str(raw.get()).ok()
    }

    /// `later` restated over `self`: every count it carries wins, the others are kept.
    pub(crate) fn updated(self, later: Counts) -> Counts {
        Counts {
            input_tokens: later.input_tokens.or(self.input_tokens),
            output_tokens: later.output_tokens.or(self.output_tokens),
            cache_read_input_tokens: later.cache_read_input_tokens.or(self.cache_read_input_tokens),
            cache_creation_input_tokens: later.cache_creation_input_tokens.or(self.cache_creation_input_tokens),
        }
    }

    pub(crate) fn usage(self, raw: &RawValue) -> Usage {
        let input = self.input_tokens.unwrap_or(0);
        let output = self.output_tokens.unwrap_or(0);
        Usage {
            input_tokens: input,
            output_tokens: output,
            total_tokens: input.saturating_add(output),
            reasoning_tokens: None,
            cache_read_tokens: self.cache_read_input_tokens,
            cache_write_tokens: self.cache_creation_input_tokens,
            raw: RawJson::from_raw(raw),
        }
    }
}

pub(crate) fn convert_usage(raw: &RawValue) -> Option<Usage> {
    Counts::read(raw).map(|counts| counts.usage(raw))
}

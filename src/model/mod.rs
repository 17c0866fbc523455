//! The public data shapes (docs/design.md, "Inputs" and "The public API"): what goes in (agent, messages) and what comes out
//! (stream events, the final message, usage, results).

pub mod agent;
pub(crate) mod agent_json;
mod event;
mod message;
mod result;
mod usage;

pub use agent::{Agent, ContentPart, Message, MessageContent, Model, ModelOptions, Property, Tool};
#[cfg(target_arch = "wasm32")]
pub(crate) use event::write_events;
pub use event::{ErrorInfo, FinishReason, Outcome, StreamEvent};
pub use message::{Block, FinalMessage, ToolCall};
pub use result::ProcessResult;
pub use usage::{RawJson, Usage};

/// serde helper: skip a `choice` field when it is the first (and usually only) choice.
pub(crate) fn is_zero(n: &u32) -> bool {
    *n == 0
}
pub mod continuity;

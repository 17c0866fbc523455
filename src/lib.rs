//! llm-wire: the major LLM wire formats in both directions, for Rust and (through wasm) for
//! browsers, edge runtimes and Node.
//!
//! - [`Accumulator`]: raw streamed bytes of any supported format (OpenAI Chat and every
//!   OpenAI-compatible server, Anthropic Messages, the OpenAI Responses API) in, normalised
//!   [`StreamEvent`]s and one [`FinalMessage`] out, identical for every split of the bytes.
//! - [`sse`]: the provider-blind `text/event-stream` decoder underneath.
//! - [`Value`]: the JSON data the agent, message and result types carry (with [`Map`] and
//!   [`Number`], the crate's own, not serde_json's: `From` converts both ways).
//!
//! The crate never panics on input: every entry point returns [`Result`] with an [`Error`]
//! whose [`ErrorCode`] is stable, and every buffer is bounded by [`Limits`].

// The npm package's module is built on nightly with `--cfg llw_speed` (the Makefile): the crate
// is size-optimised, and the functions on the stream path are marked to be optimised for speed
// (bench/FINDINGS.md, "Build settings"). Stable builds ignore the marks.
#![cfg_attr(llw_speed, feature(optimize_attribute))]

pub mod accumulator;
mod base64;
pub mod error;
pub mod framing;
pub mod json;
pub mod limits;
pub mod model;
pub mod options;
pub mod output;
pub mod partial_json;
pub mod process;
pub mod providers;
pub mod request;
pub mod schema;
pub mod sse;
pub mod tools;

#[cfg(target_arch = "wasm32")]
#[doc(hidden)]
pub mod wasm;

/// The wasm module's allocator: the standard library's (dlmalloc on `wasm32-unknown-unknown`),
/// named so the choice is visible, with wasm memory grown ahead by half its size
/// ([`wasm::alloc`]). It merges freed blocks, so the memory one large event or one
/// stream used serves the next allocation of any size. An allocator with one free list per
/// power-of-two size class keeps each class's blocks for that class: rounds of live strings at
/// a new length each ratchet wasm memory up, and it never shrinks (`bench/memory-peak.mjs`).
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: wasm::alloc::GrowAhead = wasm::alloc::GrowAhead;

pub use accumulator::{Accumulator, AccumulatorOptions, Format};
pub use error::ProviderDetail;
pub use error::{Error, ErrorCode, ErrorFields, Result};
pub use json::{Map, Number, Value};
pub use limits::Limits;
pub use model::agent::{Agent, ContentPart, Message, MessageContent, Model, ModelOptions, Property, Tool, ToolKind};
pub use model::{Block, ErrorInfo, FinalMessage, FinishReason, Outcome, ProcessResult, StreamEvent, ToolCall, Usage};
pub use output::{
    parse_response, parse_structured_output, parse_tool_arguments, Action, AgentOutput, StructuredOptions,
};
pub use process::{process, process_with, to_message, ProcessOptions, ResponseBody, Span};
pub use request::{
    build_chat_args, build_chat_args_json, build_request, gen_ai_attributes, HttpRequest, RequestOptions,
};
pub use tools::{register_tool, unregister_tool};

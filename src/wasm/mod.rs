//! The `#[wasm_bindgen]` surface: conversions only, every rule lives in the core.

mod accumulator;
mod convert;
mod process;
mod request;

//! The wasm Accumulator class.

//! wasm bindings

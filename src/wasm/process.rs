//! wasm exports of process, toMessage and the output parser.

// The types of the stream entry's web file (`llm-wire/stream/web`): the stream entry's, and
// wasm-bindgen's `init` (the default export) and `initSync` for its own module.
export * from "./index.js";
export { default, initSync } from "./llm_wire_stream.js";
export type { InitInput, InitOutput, SyncInitInput } from "./llm_wire_stream.js";

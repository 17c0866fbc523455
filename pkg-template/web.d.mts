// The types of the web entry (`llm-wire/web`, `web.mjs`): `llm-wire`'s, and wasm-bindgen's
// `init` (the default export) and `initSync`, which load the module in a plain page.
export * from "./index.js";
export { default, initSync } from "./llm_wire.js";
export type { InitInput, InitOutput, SyncInitInput } from "./llm_wire.js";

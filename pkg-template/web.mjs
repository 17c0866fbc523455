// A plain browser page (no bundler): `import init, { Accumulator } from ".../web.mjs"` and one
// `await init()` before the first call; the classes and helpers are ready at import.
export { default, initSync } from "./llm_wire.js";
export * from "./api.mjs";

// Bundlers (Vite, webpack, esbuild with the `browser` condition): instantiated once at import,
// with top-level await, from the .wasm the bundler copies beside the bundle.
import init, { Accumulator } from "./llm_wire.js";
import { makeHelpers } from "./helpers.mjs";

await init({ module_or_path: new URL("./llm_wire_bg.wasm", import.meta.url) });

export * from "./llm_wire.js";
export const { streamEvents, AccumulatorStream } = makeHelpers(Accumulator);

// Bundlers (Vite, webpack, esbuild with the `browser` condition): instantiated once at import,
// with top-level await, from the .wasm the bundler copies beside the bundle.
import init, { Accumulator as WasmAccumulator } from "./llm_wire.js";
import { makeHelpers } from "./helpers.mjs";

await init({ module_or_path: new URL("./llm_wire_bg.wasm", import.meta.url) });

export * from "./llm_wire.js";
// The package's Accumulator (coded errors after free(), string chunks split anywhere) in
// place of the glue's.
export const { Accumulator, streamEvents, AccumulatorStream } = makeHelpers(WasmAccumulator);

// Node (ESM): instantiates the module synchronously from the file beside it, so
// `import { Accumulator } from "llm-wire"` needs no `await init()`.
import { readFileSync } from "node:fs";
import { initSync, Accumulator as WasmAccumulator } from "./llm_wire.js";
import { makeHelpers } from "./helpers.mjs";

initSync({ module: readFileSync(new URL("./llm_wire_bg.wasm", import.meta.url)) });

export * from "./llm_wire.js";
// The package's Accumulator (coded errors after free(), string chunks split anywhere) in
// place of the glue's.
export const { Accumulator, streamEvents, AccumulatorStream } = makeHelpers(WasmAccumulator);

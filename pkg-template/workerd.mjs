// Cloudflare Workers (workerd): the runtime hands over the compiled module; no init needed.
import wasm from "./llm_wire_bg.wasm";
import { initSync, Accumulator as WasmAccumulator } from "./llm_wire.js";
import { makeHelpers } from "./helpers.mjs";

initSync({ module: wasm });

export * from "./llm_wire.js";
// The package's Accumulator (coded errors after free(), string chunks split anywhere) in
// place of the glue's.
export const { Accumulator, streamEvents, AccumulatorStream } = makeHelpers(WasmAccumulator);

// Deno: reads the module beside this file once, at import; no init needed.
import { initSync, Accumulator as WasmAccumulator } from "./llm_wire.js";
import { makeHelpers } from "./helpers.mjs";

initSync({ module: await Deno.readFile(new URL("./llm_wire_bg.wasm", import.meta.url)) });

export * from "./llm_wire.js";
// The package's Accumulator (coded errors after free(), string chunks split anywhere) in
// place of the glue's.
export const { Accumulator, streamEvents, AccumulatorStream } = makeHelpers(WasmAccumulator);

// Deno: reads the module beside this file once, at import; no init needed.
import { initSync, Accumulator } from "./llm_wire.js";
import { makeHelpers } from "./helpers.mjs";

initSync({ module: await Deno.readFile(new URL("./llm_wire_bg.wasm", import.meta.url)) });

export * from "./llm_wire.js";
export const { streamEvents, AccumulatorStream } = makeHelpers(Accumulator);

// Cloudflare Workers (workerd): the runtime hands over the compiled module; no init needed.
import wasm from "./llm_wire_bg.wasm";
import { initSync, Accumulator } from "./llm_wire.js";
import { makeHelpers } from "./helpers.mjs";

initSync({ module: wasm });

export * from "./llm_wire.js";
export const { streamEvents, AccumulatorStream } = makeHelpers(Accumulator);

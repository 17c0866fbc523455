// Cloudflare Workers (workerd): the runtime hands over the compiled module (Wrangler keeps the
// .wasm as a module of its own); no init needed.
import wasm from "./llm_wire_bg.wasm";
import { initSync } from "./llm_wire.js";

initSync({ module: wasm });

export * from "./api.mjs";

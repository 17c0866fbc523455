// Node (ESM): instantiates the module synchronously from the file beside it, so
// `import { Accumulator } from "llm-wire"` needs no `await init()`.
import { readFileSync } from "node:fs";
import { initSync } from "./llm_wire.js";

initSync({ module: readFileSync(new URL("./llm_wire_bg.wasm", import.meta.url)) });

export * from "./api.mjs";

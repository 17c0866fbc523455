// Deno: reads the module beside this file once, at import (so `--allow-read`); no init needed.
import { initSync } from "./llm_wire.js";

initSync({ module: await Deno.readFile(new URL("./llm_wire_bg.wasm", import.meta.url)) });

export * from "./api.mjs";

// Bundlers (Vite, webpack, Rollup, esbuild: the `browser` condition): instantiated once at
// import, with top-level await, from the .wasm the bundler emits for the `new URL(...)` below.
// package.json lists this file under `sideEffects`, so a bundler keeps this initialisation even
// when a page imports only functions that come straight from the glue.
import init from "./llm_wire.js";

const url = new URL("./llm_wire_bg.wasm", import.meta.url);
try {
  await init({ module_or_path: url });
} catch (err) {
  throw new Error(
    `llm-wire: cannot load its WebAssembly module from ${url} (${err && err.message}). ` +
      "The bundler must emit the .wasm file that `new URL(..., import.meta.url)` names: see the README, \"With a bundler\".",
    { cause: err },
  );
}

export * from "./api.mjs";

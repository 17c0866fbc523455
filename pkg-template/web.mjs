// A plain browser page (no bundler): `import init, { Accumulator } from ".../web.mjs"` and one
// `await init()` before first use; the helpers are ready at import.
import init, { Accumulator as WasmAccumulator } from "./llm_wire.js";
import { makeHelpers } from "./helpers.mjs";

export default init;
export * from "./llm_wire.js";
// The package's Accumulator (coded errors after free(), string chunks split anywhere) in
// place of the glue's.
export const { Accumulator, streamEvents, AccumulatorStream } = makeHelpers(WasmAccumulator);

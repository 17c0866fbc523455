// A plain browser page (no bundler): `import init, { Accumulator } from ".../web.mjs"` and one
// `await init()` before first use; the helpers are ready at import.
import init, { Accumulator } from "./llm_wire.js";
import { makeHelpers } from "./helpers.mjs";

export default init;
export * from "./llm_wire.js";
export const { streamEvents, AccumulatorStream } = makeHelpers(Accumulator);

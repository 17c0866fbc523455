// The public surface of `llm-wire/stream`: the Accumulator, its helpers and live partial JSON,
// over the module built without the request and response functions. It has no
// `processResponse`: a body that is not streamed needs `process`, which this module leaves out.
import { Accumulator as WasmAccumulator, PartialJsonCore, partialJsonChanges } from "./llm_wire_stream.js";
import { makeHelpers } from "../helpers.mjs";
import { makePartial } from "../partial.mjs";

export const { Accumulator, streamEvents, AccumulatorStream } = makeHelpers(WasmAccumulator);
export const { PartialJson, parsePartialJson } = makePartial(PartialJsonCore, partialJsonChanges);

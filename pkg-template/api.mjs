// The public surface of `llm-wire`, the same for every runtime: the entry files beside this one
// only initialise the module first. The raw partial-JSON reader stays inside (`PartialJson` and
// `parsePartialJson` wrap it), and so does the glue's `Accumulator` (wrapped by the package's).
import { Accumulator as WasmAccumulator, PartialJsonCore, partialJsonChanges, process } from "./llm_wire.js";
import { makeHelpers } from "./helpers.mjs";
import { makePartial, PartialState } from "./partial.mjs";

export {
  asMessage,
  buildChatArgs,
  buildRequest,
  genAiAttributes,
  parseResponse,
  parseStructuredOutput,
  parseToolArguments,
  process,
  registerTool,
  toMessage,
} from "./llm_wire.js";
export const { Accumulator, streamEvents, AccumulatorStream, processResponse } = makeHelpers(WasmAccumulator, process, PartialState);
export const { PartialJson, parsePartialJson } = makePartial(PartialJsonCore, partialJsonChanges);

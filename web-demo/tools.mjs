// The demo's tools, run in the page, and the messages that carry a finished turn and its tool
// results into the next request. The tools answer with made-up data: they are there to show
// the round trip, not to look anything up.

const OPS = { add: (a, b) => a + b, subtract: (a, b) => a - b, multiply: (a, b) => a * b, divide: (a, b) => a / b };

/** Each tool takes the call's parsed arguments and returns what is sent back to the model. */
export const TOOLS = {
  calculator({ a, b, op }) {
    if (typeof a !== "number" || typeof b !== "number" || !OPS[op]) throw new Error("expected {a: number, b: number, op: add|subtract|multiply|divide}");
    return OPS[op](a, b);
  },
  get_country: () => "Mexico",
  get_product_name: () => "Pydantic AI",
  get_weather: ({ city }) => (typeof city === "string" ? "sunny" : fail("expected {city: string}")),
  weather: ({ location }) => (typeof location === "string" ? { location, temperature: 18, unit: "celsius", conditions: "fog" } : fail("expected {location: string}")),
  get_something_by_name: ({ name }) => (typeof name === "string" ? { name, found: true } : fail("expected {name: string}")),
};

/** Tools whose arguments are the answer itself: calling one ends the conversation. */
export const ANSWER_TOOLS = new Set(["final_result"]);

function fail(message) {
  throw new Error(message);
}

/**
 * Runs one tool call: `{ok: true, value, output}` or `{ok: false, error, output}`, where
 * `output` is the text sent back as the tool message (a failure is reported to the model, as
 * agent loops do, rather than ending the conversation).
 */
export function runTool(call) {
  try {
    const tool = TOOLS[call.name];
    if (!tool) throw new Error(`no tool named ${call.name}`);
    const args = call.arguments.trim() ? JSON.parse(call.arguments) : {};
    if (args === null || typeof args !== "object" || Array.isArray(args)) throw new Error("the arguments are not a JSON object");
    const value = tool(args);
    return { ok: true, value, output: typeof value === "string" ? value : JSON.stringify(value) };
  } catch (err) {
    return { ok: false, error: err.message, output: `Error: ${err.message}` };
  }
}

/**
 * A finished turn as the assistant message of the next request, as Rust's
 * `FinalMessage::to_message` makes it (docs/design.md, "Inputs"): the text, the tool calls in
 * `metadata.tool_calls` (OpenAI shape), and signed or redacted Anthropic thinking in
 * `metadata.anthropic_thinking`. The package's `asMessage(final)` replaces this once it lands.
 */
export function asMessage(final) {
  const metadata = {};
  if (final.toolCalls.length) {
    metadata.tool_calls = final.toolCalls.map(({ id, name, arguments: args }) => ({ id, type: "function", function: { name, arguments: args } }));
  }
  const thinking = final.content.flatMap((block) => {
    if (block.type !== "reasoning") return [];
    if (block.redacted != null) return [{ type: "redacted_thinking", data: block.redacted }];
    return block.signature != null ? [{ type: "thinking", thinking: block.text, signature: block.signature }] : [];
  });
  if (thinking.length) metadata.anthropic_thinking = thinking;
  return { role: "assistant", content: final.text, metadata };
}

/** The tool message that answers `call` with `output`. */
export function toolMessage(call, output) {
  return { role: "tool", content: output, metadata: { tool_call_id: call.id } };
}

// The demo's tools, run in the page, and the tool messages that carry their results into the
// next request (the finished turn itself goes back as the package's `asMessage` makes it). The tools answer with made-up data: they are there to show
// the round trip, not to look anything up.

/** The made-up weather at a location (two recordings name this tool differently). */
const weatherAt = ({ location }) => (typeof location === "string" ? { location, temperature: 18, unit: "celsius", conditions: "fog" } : fail("expected {location: string}"));

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
  weather: weatherAt,
  getWeather: weatherAt,
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

/** The tool message that answers `call` with `output`. */
export function toolMessage(call, output) {
  return { role: "tool", content: output, metadata: { tool_call_id: call.id } };
}

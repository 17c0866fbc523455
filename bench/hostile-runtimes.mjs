// Hostile streams of 100,000 entries with minimal chunks (no id, model or other fields around the
// entry), read by the package in whatever runtime runs this: Node, Deno or Bun.
//
//   node bench/hostile-runtimes.mjs
//   deno run --allow-read bench/hostile-runtimes.mjs
//   bun bench/hostile-runtimes.mjs
//
// Each shape is read three times in one process, after a 100-entry warm-up, and the median time
// printed with the input's size; every run's message is checked (the number of choices, calls or
// characters it must have). `bench/hostile.mjs` (`make bench`) times heavier shapes, each run in a
// fresh Node process, at 10,000 and 100,000 entries.

const wire = await import(globalThis.Deno ? "../pkg/deno.mjs" : "../pkg/node.mjs");
const runtime = globalThis.Deno ? `Deno ${Deno.version.deno}` : globalThis.Bun ? `Bun ${Bun.version}` : `Node ${process.version}`;

const N = 100_000;
const CHUNK = 64 * 1024;
const sse = (events) => new TextEncoder().encode(events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(""));
const times = (n, make) => Array.from({ length: n }, (_, i) => make(i));

/** Pushes `bytes` in 64 KiB chunks; the final message. */
function accumulate(format, bytes) {
  const acc = new wire.Accumulator({ format });
  for (let at = 0; at < bytes.length; at += CHUNK) acc.push(bytes.subarray(at, at + CHUNK));
  const message = acc.finish();
  acc.free();
  return message;
}

const call = (i) => ({ type: "function_call", id: `fc_${i}`, call_id: `call_${i}`, name: "f" });
const SHAPES = {
  "chat: N choices": {
    input: (n) => sse(times(n, (i) => ({ choices: [{ index: i, delta: { content: "x" } }] }))),
    run: (bytes) => accumulate("openai-chat", bytes).choices.length,
  },
  "chat: N choices, descending": {
    input: (n) => sse(times(n, (i) => ({ choices: [{ index: n - 1 - i, delta: { content: "x" } }] }))),
    run: (bytes) => accumulate("openai-chat", bytes).choices.length,
  },
  "chat: N tool calls with new ids": {
    input: (n) => sse(times(n, (i) => ({ choices: [{ index: 0, delta: { tool_calls: [{ index: i, id: `call_${i}`, function: { name: "f", arguments: "{}" } }] } }] }))),
    run: (bytes) => accumulate("openai-chat", bytes).toolCalls.length,
  },
  "Responses: N function-call items": {
    input: (n) => sse(times(n, (i) => [
      { type: "response.output_item.added", output_index: i, item: { ...call(i), arguments: "" } },
      { type: "response.function_call_arguments.delta", item_id: `fc_${i}`, output_index: i, delta: "{}" },
      { type: "response.output_item.done", output_index: i, item: { ...call(i), arguments: "{}" } },
    ]).flat()),
    run: (bytes) => accumulate("openai-responses", bytes).toolCalls.length,
  },
  "Responses: N text deltas, each in a new item": {
    input: (n) => sse(times(n, (i) => ({ type: "response.output_text.delta", item_id: `msg_${i}`, output_index: i, content_index: 0, delta: "x" }))),
    run: (bytes) => accumulate("openai-responses", bytes).text.length,
  },
  "Anthropic: N blocks never stopped": {
    input: (n) => sse(times(n, (i) => [
      { type: "content_block_start", index: i, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: i, delta: { type: "text_delta", text: "x" } },
    ]).flat()),
    run: (bytes) => accumulate("anthropic", bytes).text.length,
  },
  "toMessage: a body of N choices, descending": {
    input: (n) => JSON.stringify({ choices: times(n, (i) => ({ index: n - 1 - i, message: { role: "assistant", content: "x" }, finish_reason: "stop" })) }),
    run: (body) => wire.toMessage(body).choices.length,
  },
  "process: a body of N choices, descending": {
    input: (n) => JSON.stringify({ choices: times(n, (i) => ({ index: n - 1 - i, message: { role: "assistant", content: `c${n - 1 - i}` }, finish_reason: "stop" })) }),
    run: (body) => (wire.process({ model: { id: "m" } }, body) === "c0" ? N : 0),
  },
};

console.log(`${runtime}: the median of 3 runs of each shape at ${N.toLocaleString("en")} entries`);
for (const [name, shape] of Object.entries(SHAPES)) {
  shape.run(shape.input(100));
  const input = shape.input(N);
  const ms = [];
  for (let round = 0; round < 3; round++) {
    const t0 = performance.now();
    const got = shape.run(input);
    ms.push(performance.now() - t0);
    if (got !== N) throw new Error(`${name}: gave ${got}, expected ${N}`);
  }
  const size = (typeof input === "string" ? new TextEncoder().encode(input).length : input.length) / 1e6;
  console.log(`${name.padEnd(44)} ${size.toFixed(1).padStart(5)} MB  ${ms.sort((a, b) => a - b)[1].toFixed(0).padStart(5)} ms`);
}

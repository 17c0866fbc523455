// Hostile input at scale: each shape built with 10,000 and with 100,000 items, timed three times
// per size, each time in a fresh process with a time limit, and the median kept. Work proportional to the input shows as a ratio near
// 10 between the two; a cost that grows faster shows as a larger ratio, or as "over N s" where the
// limit stopped it, instead of hanging the benchmark.
//
//   node bench/hostile.mjs [--quick] [--timeout SECONDS]    prints the table
//   bench/run.mjs (`make bench`) runs it and adds the table to RESULTS.md
//
// Each shape's result is checked (the number of choices, tool calls, characters or tools it must
// give) before its time counts: a shape that gives the wrong result, or an error, says so instead.
// Beside llm-wire, each stream and body is read by a minimal JS reader at 100,000 items (the speed
// benchmark's baseline: TextDecoder, eventsource-parser, JSON.parse, the entries gathered in a
// Map), checked the same way: the time the same bytes take in plain JS. And the output: what
// llm-wire returned (the events of every push and the message, or the result) made again by the
// engine's own JSON.parse from its JSON text, timed: what creating those JS objects costs the
// engine's parser (llm-wire makes the events of a push from a flat list, faster).

import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createParser } from "eventsource-parser";

const SIZES = [10_000, 100_000];
/** Runs per shape, size and reader, each in a process of its own: the table gives the median. */
const RUNS = 3;
const CHUNK = 64 * 1024;

// ---- the shapes: `input(n)` builds the input (not timed), `run(wire, input)` does the timed work
// and returns what `expect(n)` must equal (mostly a count) ----------------------------------------
const sse = (events) => new TextEncoder().encode(events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(""));
const chunk = (choices) => ({ id: "chatcmpl-h", object: "chat.completion.chunk", created: 1, model: "m", choices });

/** Pushes a stream in 64 KiB chunks and returns the final message. */
function accumulate(wire, format, bytes) {
  const acc = new wire.Accumulator({ format });
  for (let at = 0; at < bytes.length; at += CHUNK) acc.push(bytes.subarray(at, at + CHUNK));
  const message = acc.finish();
  acc.free();
  if (message.error) throw new Error(`${message.error.code}: ${message.error.message}`);
  return message;
}

/** A stream read by the minimal JS reader, in 64 KiB chunks: each event's JSON to `onJson`. */
function jsRead(bytes, onJson) {
  const parser = createParser({ onEvent: (event) => event.data !== "[DONE]" && onJson(JSON.parse(event.data)) });
  const decoder = new TextDecoder();
  for (let at = 0; at < bytes.length; at += CHUNK) parser.feed(decoder.decode(bytes.subarray(at, at + CHUNK), { stream: true }));
  parser.feed(decoder.decode());
}

/** `map`'s entry at `key`, made by `make` when there is none. */
const entry = (map, key, make) => map.get(key) ?? map.set(key, make()).get(key);

const chatChoices = (order) => ({
  input: (n) => {
    const events = [];
    for (let i = 0; i < n; i++) {
      const index = order === "ascending" ? i : n - 1 - i;
      events.push(chunk([{ index, delta: { role: "assistant", content: "x" }, finish_reason: "stop" }]));
    }
    return sse(events);
  },
  run: (wire, bytes) => accumulate(wire, "openai-chat", bytes).choices?.length ?? 1,
  baseline: (bytes) => {
    const choices = new Map();
    jsRead(bytes, (chunk) => {
      for (const c of chunk.choices) {
        const choice = entry(choices, c.index, () => ({ text: "", finish: null }));
        choice.text += c.delta?.content ?? "";
        choice.finish = c.finish_reason ?? choice.finish;
      }
    });
    return [...choices.keys()].sort((a, b) => a - b).length;
  },
  expect: (n) => n,
});

const choicesBody = (n) => JSON.stringify({
  id: "chatcmpl-h", object: "chat.completion", created: 1, model: "m",
  choices: Array.from({ length: n }, (_, i) => ({
    index: n - 1 - i, message: { role: "assistant", content: `choice ${n - 1 - i}` }, finish_reason: "stop",
  })),
});

const SHAPES = {
  "chat stream: N choice indices, ascending": chatChoices("ascending"),
  "chat stream: N choice indices, descending": chatChoices("descending"),
  "chat stream: N tool calls, each a new id": {
    input: (n) => sse(Array.from({ length: n }, (_, i) => chunk([{
      index: 0, delta: { tool_calls: [{ index: i, id: `call_${i}`, type: "function", function: { name: "f", arguments: "{}" } }] },
    }]))),
    run: (wire, bytes) => accumulate(wire, "openai-chat", bytes).toolCalls.length,
    baseline: (bytes) => {
      const calls = new Map();
      jsRead(bytes, (chunk) => {
        for (const t of chunk.choices[0].delta.tool_calls ?? []) {
          const call = entry(calls, t.index, () => ({ id: t.id, name: "", arguments: "" }));
          call.name += t.function?.name ?? "";
          call.arguments += t.function?.arguments ?? "";
        }
      });
      return calls.size;
    },
    expect: (n) => n,
  },
  "Responses stream: N function-call items": {
    input: (n) => {
      const events = [{ type: "response.created", response: { id: "resp_h", model: "m", status: "in_progress", output: [] } }];
      for (let i = 0; i < n; i++) {
        const item = { type: "function_call", id: `fc_${i}`, call_id: `call_${i}`, name: "f", arguments: "" };
        events.push({ type: "response.output_item.added", output_index: i, item: { ...item, status: "in_progress" } });
        events.push({ type: "response.function_call_arguments.delta", item_id: item.id, output_index: i, delta: "{}" });
        events.push({ type: "response.output_item.done", output_index: i, item: { ...item, arguments: "{}", status: "completed" } });
      }
      return sse(events);
    },
    run: (wire, bytes) => accumulate(wire, "openai-responses", bytes).toolCalls.length,
    baseline: (bytes) => {
      const items = new Map(), byId = new Map();
      jsRead(bytes, (event) => {
        if (event.type === "response.output_item.added") {
          const call = { id: event.item.call_id, name: event.item.name, arguments: "" };
          items.set(event.output_index, call);
          byId.set(event.item.id, call);
        } else if (event.type === "response.function_call_arguments.delta") {
          byId.get(event.item_id).arguments += event.delta;
        } else if (event.type === "response.output_item.done") {
          items.get(event.output_index).arguments = event.item.arguments;
        }
      });
      return items.size;
    },
    expect: (n) => n,
  },
  "Responses stream: N text deltas, each in a new item": {
    input: (n) => sse([
      { type: "response.created", response: { id: "resp_h", model: "m", status: "in_progress", output: [] } },
      ...Array.from({ length: n }, (_, i) => ({ type: "response.output_text.delta", item_id: `msg_${i}`, output_index: i, content_index: 0, delta: "x" })),
    ]),
    run: (wire, bytes) => accumulate(wire, "openai-responses", bytes).text.length,
    baseline: (bytes) => {
      const texts = new Map();
      jsRead(bytes, (event) => {
        if (event.type === "response.output_text.delta") texts.set(event.item_id, (texts.get(event.item_id) ?? "") + event.delta);
      });
      return [...texts.values()].join("").length;
    },
    expect: (n) => n,
  },
  "Anthropic stream: N blocks never stopped": {
    input: (n) => {
      const events = [{ type: "message_start", message: { id: "msg_h", type: "message", role: "assistant", model: "m", content: [], usage: { input_tokens: 1, output_tokens: 0 } } }];
      for (let i = 0; i < n; i++) {
        events.push({ type: "content_block_start", index: i, content_block: { type: "text", text: "" } });
        events.push({ type: "content_block_delta", index: i, delta: { type: "text_delta", text: "x" } });
      }
      return sse(events);
    },
    run: (wire, bytes) => accumulate(wire, "anthropic", bytes).text.length,
    baseline: (bytes) => {
      const blocks = new Map();
      jsRead(bytes, (event) => {
        if (event.type === "content_block_start") blocks.set(event.index, event.content_block.text ?? "");
        else if (event.type === "content_block_delta") blocks.set(event.index, blocks.get(event.index) + event.delta.text);
      });
      return [...blocks.values()].join("").length;
    },
    expect: (n) => n,
  },
  "toMessage: a body of N choices, descending": {
    input: choicesBody,
    run: (wire, body) => wire.toMessage(body).choices?.length ?? 1,
    baseline: (body) => JSON.parse(body).choices.sort((a, b) => a.index - b.index).length,
    expect: (n) => n,
  },
  "process: a body of N choices, descending": {
    input: choicesBody,
    run: (wire, body) => wire.process({ model: { id: "m" } }, body),
    baseline: (body) => JSON.parse(body).choices.find((c) => c.index === 0).message.content,
    expect: () => "choice 0",
  },
  "buildChatArgs: N function tools": {
    input: (n) => ({
      model: { id: "m" },
      tools: Array.from({ length: n }, (_, i) => ({
        kind: "function", name: `tool_${i}`, description: "d", parameters: [{ name: "q", kind: "string", required: true }],
      })),
    }),
    run: (wire, agent) => wire.buildChatArgs(agent, [{ role: "user", content: "hi" }]).tools.length,
    expect: (n) => n,
  },
  "buildChatArgs: an OpenAPI document of N operations": {
    input: (n) => {
      const paths = {};
      for (let i = 0; i < n; i++) {
        const parameters = [{ name: "q", in: "query", required: true, schema: { type: "string" } }];
        paths[`/items/${i}`] = { get: { operationId: `get_${i}`, summary: "s", parameters } };
      }
      const specification = { openapi: "3.0.0", info: { title: "h", version: "1" }, paths };
      return { model: { id: "m" }, tools: [{ kind: "openapi", name: "api", specification }] };
    },
    run: (wire, agent) => wire.buildChatArgs(agent, [{ role: "user", content: "hi" }]).tools.length,
    expect: (n) => n,
  },
};

/** The size of an input in bytes: a stream's bytes, a body's or an agent's JSON text. */
const inputBytes = (input) => input instanceof Uint8Array ? input.length
  : new TextEncoder().encode(typeof input === "string" ? input : JSON.stringify(input)).length;

// ---- one shape at one size, in this process (the child's side) ---------------------------------
/** Times shape `name` at `n` items, read by llm-wire or, with `reader` "js", by the JS reader. */
async function runOne(name, n, reader) {
  const wire = await import("../pkg/node.mjs");
  const shape = SHAPES[name];
  const run = reader === "js" ? shape.baseline : (input) => shape.run(wire, input);
  // A small run first, so the timed one does not pay for the first compilation.
  run(shape.input(100));
  const input = shape.input(n);
  const t0 = performance.now();
  let got;
  try {
    got = run(input);
  } catch (err) {
    return { failed: `${err.code ?? err.name}: ${err.message}`.slice(0, 120) };
  }
  const ms = performance.now() - t0;
  const want = shape.expect(n);
  const bytes = inputBytes(input);
  return got === want ? { ms, bytes } : { ms, bytes, wrong: `gave ${got}, expected ${want}` };
}

/** `wire` with every result it returns also kept, as JSON text, in `outputs`. */
function recording(wire, outputs) {
  const keep = (result) => (outputs.push(JSON.stringify(result)), result);
  class Accumulator extends wire.Accumulator {
    push(bytes) { return keep(super.push(bytes)); }
    finish() { return keep(super.finish()); }
  }
  const kept = (f) => (...args) => keep(f(...args));
  return { Accumulator, toMessage: kept(wire.toMessage), process: kept(wire.process), buildChatArgs: kept(wire.buildChatArgs) };
}

/** Shape `name` at `n` items read by llm-wire untimed, then the time the engine's `JSON.parse`
 *  takes to make the same events and message (or result) from their JSON text: what creating
 *  llm-wire's output costs in plain JS, whatever made it. */
async function outputOne(name, n) {
  const wire = await import("../pkg/node.mjs");
  const shape = SHAPES[name];
  const outputs = [];
  const input = shape.input(n);
  shape.run(recording(wire, outputs), input);
  for (const text of outputs.slice(0, 3)) JSON.parse(text);
  const t0 = performance.now();
  let parsed = 0;
  for (const text of outputs) parsed += JSON.parse(text) === null ? 0 : 1;
  const ms = performance.now() - t0;
  return parsed === outputs.length ? { ms, bytes: outputs.reduce((sum, t) => sum + t.length, 0) } : { failed: "an output did not parse" };
}

// ---- every shape at every size, each in its own processes (the parent's side) -------------------
/** One run of shape `name` at `n` items in a fresh process. */
function measureOnce(name, n, timeoutS, reader) {
  const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--one", name, String(n), reader], {
    encoding: "utf8", timeout: timeoutS * 1000, maxBuffer: 1 << 20,
  });
  if (child.error?.code === "ETIMEDOUT" || child.signal) return { over: timeoutS };
  if (child.status !== 0) return { failed: `exit status ${child.status}: ${child.stderr.trim().split("\n").pop()}`.slice(0, 120) };
  return JSON.parse(child.stdout);
}

/** The median of `RUNS` runs, each in a fresh process (a fresh process is what the first large
 *  stream of a page meets; one run alone is at the mercy of the shared machine); the first run
 *  that goes over the limit, fails or gives a wrong result is the answer instead. */
function measure(name, n, timeoutS, reader = "llm-wire") {
  const runs = [];
  for (let i = 0; i < RUNS; i++) {
    const r = measureOnce(name, n, timeoutS, reader);
    if (r.ms === undefined || r.wrong) return r;
    runs.push(r);
  }
  return runs.sort((a, b) => a.ms - b.ms)[runs.length >> 1];
}

const cell = (r) => r.over ? `over ${r.over} s` : r.failed ? `failed (${r.failed})` : `${r.ms.toFixed(0)} ms${r.wrong ? ` (wrong: ${r.wrong})` : ""}`;

/** Runs every shape and returns the report's lines (Markdown). */
export function hostile({ quick = false, timeoutS = quick ? 10 : 30, log = console.error } = {}) {
  const lines = [
    "## Hostile input: time per shape at 10,000 and 100,000 items", "",
    `Each shape timed ${RUNS} times per size, each time in a fresh process after a 100-item warm-up run, with a limit of ${timeoutS} s; ` +
    "the median is given, and a time counts only when the result is right. Linear work gives a ratio near 10. The input's size " +
    `at ${SIZES.at(-1).toLocaleString("en")} items is beside it: the time reads against the bytes it took. ` +
    "So does the time a minimal JS reader takes on the same input (TextDecoder, eventsource-parser, " +
    "JSON.parse, the entries gathered in a Map, or a body parsed and its choices sorted), which builds " +
    "no events and no message: what the bytes cost in plain JS. The last column is the time the engine's own " +
    "`JSON.parse` takes to make the events and the message (or result) llm-wire returned, from their JSON text " +
    "(its size beside it): what creating that output costs the engine's parser. llm-wire makes the events of a push " +
    "from a flat list of their fields, faster than that; the message goes through \`JSON.parse\`.", "",
    `| shape | ${SIZES.map((n) => `${n.toLocaleString("en")} items`).join(" | ")} | ratio | input at ${SIZES.at(-1).toLocaleString("en")} | JS reader at ${SIZES.at(-1).toLocaleString("en")} | the output by \`JSON.parse\` at ${SIZES.at(-1).toLocaleString("en")} |`,
    `|---|${SIZES.map(() => "---:").join("|")}|---:|---:|---:|---:|`,
  ];
  for (const name of Object.keys(SHAPES)) {
    const results = SIZES.map((n) => measure(name, n, timeoutS));
    const [small, large] = results;
    const timed = (r) => r.ms !== undefined && !r.wrong && !r.failed;
    const ratio = timed(small) && timed(large) ? (large.ms / Math.max(small.ms, 0.01)).toFixed(1) : "–";
    const size = large.bytes === undefined ? "–" : `${(large.bytes / 1e6).toFixed(1)} MB`;
    const js = SHAPES[name].baseline ? cell(measure(name, SIZES.at(-1), timeoutS, "js")) : "–";
    const output = measure(name, SIZES.at(-1), timeoutS, "output");
    const made = output.ms === undefined ? cell(output) : `${cell(output)} (${(output.bytes / 1e6).toFixed(1)} MB)`;
    const row = `| ${name} | ${results.map(cell).join(" | ")} | ${ratio} | ${size} | ${js} | ${made} |`;
    log(`hostile ${name}: ${results.map(cell).join(", ")}; ratio ${ratio}; JS reader ${js}; output by JSON.parse ${made}`);
    lines.push(row);
  }
  return lines;
}

const args = process.argv.slice(2);
if (args[0] === "--one") {
  const one = args[3] === "output" ? outputOne(args[1], Number(args[2])) : runOne(args[1], Number(args[2]), args[3]);
  process.stdout.write(JSON.stringify(await one));
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = args.indexOf("--timeout");
  const quick = args.includes("--quick");
  console.log(hostile({ quick, timeoutS: at >= 0 ? Number(args[at + 1]) : undefined, log: () => {} }).join("\n"));
}

// The wasm memory a stream costs, read from the module's `WebAssembly.Memory` through the glue:
// `node bench/memory-peak.mjs [pkg-dir] [case...]`. Every case runs in a child process of its
// own (wasm memory never shrinks, so its final size is the case's peak) and prints one line:
// the input (the text or arguments it carries), its largest event, the growth of wasm memory over
// the fresh instance, and that growth over the input and over the largest event.
//
// Cases: one SSE event carrying 1 MB or 10 MB of text or of tool arguments (pushed in 64 KiB
// chunks as a fetch reader hands them, and as one chunk, and as one string); one event of 10 MB
// of text, reasoning or arguments in every other format and framing, and with live partial JSON; a sequence of
// streams of growing sizes in one instance; and the "ratchet": rounds of tool calls whose
// arguments total the same bytes, at a new power-of-two length each round.
import { execFileSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { resolve } from "node:path";

const MiB = 1 << 20;
const CHUNK = 64 * 1024;

// Text with multi-byte characters and characters JSON escapes, as model output has.
const WORDS = [" the", " stream", " café", " 日本語", " 🙂", ' "quoted"', "\n", " back\\slash", " of", " bytes"];
function textOf(bytes, seed = 1) {
  const parts = [];
  let n = 0;
  for (let i = seed; n < bytes; i = (i * 1103515245 + 12345) >>> 0) {
    const word = WORDS[(i >>> 16) % WORDS.length];
    parts.push(word);
    n += Buffer.byteLength(word);
  }
  return parts.join("");
}

const enc = new TextEncoder();
const sse = (object) => `data: ${JSON.stringify(object)}\n\n`;
const chatChunk = (delta, finish = null) => ({ id: "c", choices: [{ index: 0, delta, finish_reason: finish }] });

/** One OpenAI chat stream whose text arrives in one event of `bytes` bytes. */
function oneTextEvent(bytes) {
  const text = textOf(bytes);
  return { text, body: sse(chatChunk({ content: text })) + sse(chatChunk({}, "stop")) + "data: [DONE]\n\n" };
}

/** One OpenAI chat stream whose one tool call's arguments arrive in one event of `bytes` bytes. */
function oneArgumentsEvent(bytes) {
  const args = JSON.stringify({ q: textOf(bytes - 10) });
  const call = { index: 0, id: "call_1", type: "function", function: { name: "f", arguments: args } };
  return { text: args, body: sse(chatChunk({ tool_calls: [call] })) + sse(chatChunk({}, "tool_calls")) + "data: [DONE]\n\n" };
}

/** An OpenAI chat stream of `bytes` bytes of text in deltas of about 40 bytes. */
function textStream(bytes, seed = 1) {
  const text = textOf(bytes, seed);
  const parts = [];
  for (let i = 0; i < text.length;) {
    // Not inside a surrogate pair: each delta is whole characters, as providers send them.
    const end = i + 40 + (/[\ud800-\udbff]/.test(text[i + 39] ?? "") ? 1 : 0);
    parts.push(sse(chatChunk({ content: text.slice(i, end) })));
    i = end;
  }
  return { text, body: parts.join("") + sse(chatChunk({}, "stop")) + "data: [DONE]\n\n" };
}

/** `count` tool calls of `size` bytes of arguments each, every call's arguments in 64 KB deltas. */
function toolCallsStream(count, size) {
  const parts = [];
  for (let i = 0; i < count; i++) {
    const args = JSON.stringify({ q: "x".repeat(size - 8) });
    parts.push(sse(chatChunk({ tool_calls: [{ index: i, id: `call_${i}`, type: "function", function: { name: "f", arguments: "" } }] })));
    for (let at = 0; at < args.length; at += 65536) {
      parts.push(sse(chatChunk({ tool_calls: [{ index: i, function: { arguments: args.slice(at, at + 65536) } }] })));
    }
  }
  return parts.join("") + sse(chatChunk({}, "tool_calls")) + "data: [DONE]\n\n";
}

// ---- one large event in the other formats: each returns the stream, the options and the
// value the final message must hold ---------------------------------------------------------
const named = (event, object) => `event: ${event}\n${sse(object)}`;
const anthropicStream = (blockStart, delta) =>
  named("message_start", { type: "message_start", message: { id: "m", model: "c", role: "assistant", content: [], usage: { input_tokens: 1, output_tokens: 1 } } }) +
  named("content_block_start", { type: "content_block_start", index: 0, content_block: blockStart }) +
  named("content_block_delta", { type: "content_block_delta", index: 0, delta }) +
  named("content_block_stop", { type: "content_block_stop", index: 0 }) +
  named("message_stop", { type: "message_stop" });
const geminiChunk = (parts, finishReason) => ({ candidates: [{ content: { role: "model", parts }, index: 0, ...(finishReason ? { finishReason } : {}) }] });

/** The CRC-32 (IEEE) AWS's event stream checks each prelude and message with. */
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** One AWS event-stream message: an `event` of `type` whose payload is `object` as JSON. */
function eventMessage(type, object) {
  const headers = [];
  for (const [name, value] of [[":event-type", type], [":content-type", "application/json"], [":message-type", "event"]]) {
    const n = enc.encode(name), v = enc.encode(value);
    headers.push(Uint8Array.of(n.length), n, Uint8Array.of(7, v.length >> 8, v.length & 0xff), v);
  }
  const head = concat(headers), payload = enc.encode(JSON.stringify(object));
  const message = new Uint8Array(12 + head.length + payload.length + 4);
  const view = new DataView(message.buffer);
  view.setUint32(0, message.length);
  view.setUint32(4, head.length);
  view.setUint32(8, crc32(message.subarray(0, 8)));
  message.set(head, 12);
  message.set(payload, 12 + head.length);
  view.setUint32(message.length - 4, crc32(message.subarray(0, message.length - 4)));
  return message;
}
function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

const FORMAT_EVENTS = {
  "Chat reasoning": (text) => ({
    body: sse(chatChunk({ reasoning_content: text })) + sse(chatChunk({}, "stop")) + "data: [DONE]\n\n",
    check: (m) => m.reasoning === text,
  }),
  "Anthropic text": (text) => ({
    body: anthropicStream({ type: "text", text: "" }, { type: "text_delta", text }),
    check: (m) => m.text === text,
  }),
  "Anthropic thinking": (text) => ({
    body: anthropicStream({ type: "thinking", thinking: "" }, { type: "thinking_delta", thinking: text }),
    check: (m) => m.reasoning === text,
  }),
  "Anthropic tool input": (text) => {
    const input = JSON.stringify({ q: text });
    return {
      body: anthropicStream({ type: "tool_use", id: "t", name: "f", input: {} }, { type: "input_json_delta", partial_json: input }),
      options: BIG_ARGUMENTS,
      check: (m) => m.toolCalls[0].arguments === input,
    };
  },
  "Responses text delta": (text) => ({
    body: sse({ type: "response.created", response: { id: "r", model: "m", output: [] } }) +
      sse({ type: "response.output_item.added", output_index: 0, item: { type: "message", id: "msg", role: "assistant", content: [] } }) +
      sse({ type: "response.output_text.delta", item_id: "msg", output_index: 0, content_index: 0, delta: text }) +
      sse({ type: "response.completed", response: { id: "r", model: "m", status: "completed", output: [] } }),
    check: (m) => m.text === text,
  }),
  "Responses text, repeated when done": (text) => {
    const item = { type: "message", id: "msg", role: "assistant", content: [{ type: "output_text", text }] };
    return {
      body: sse({ type: "response.created", response: { id: "r", model: "m", output: [] } }) +
        sse({ type: "response.output_item.added", output_index: 0, item: { ...item, content: [] } }) +
        sse({ type: "response.output_text.delta", item_id: "msg", output_index: 0, content_index: 0, delta: text }) +
        sse({ type: "response.output_item.done", output_index: 0, item }) +
        sse({ type: "response.completed", response: { id: "r", model: "m", status: "completed", output: [item] } }),
      check: (m) => m.text === text,
    };
  },
  "Chat arguments, live partial JSON": (text) => {
    const args = JSON.stringify({ q: text });
    const call = { index: 0, id: "call_1", type: "function", function: { name: "f", arguments: args } };
    return {
      body: sse(chatChunk({ tool_calls: [call] })) + sse(chatChunk({}, "tool_calls")) + "data: [DONE]\n\n",
      options: { ...BIG_ARGUMENTS, partialJson: true },
      check: (m) => m.toolCalls[0].arguments === args,
    };
  },
  "Chat answer, live partial JSON with outputs": (text) => {
    const answer = JSON.stringify({ city: text });
    return {
      body: sse(chatChunk({ content: answer })) + sse(chatChunk({}, "stop")) + "data: [DONE]\n\n",
      options: { partialJson: true, agent: { model: { id: "m" }, outputs: [{ name: "city", kind: "string" }] } },
      check: (m) => m.text === answer,
    };
  },
  "Gemini text": (text) => ({
    body: sse(geminiChunk([{ text }])) + sse(geminiChunk([{ text: "" }], "STOP")),
    check: (m) => m.text === text,
  }),
  "Gemini text, JSON array": (text) => ({
    body: `[${JSON.stringify(geminiChunk([{ text }]))}\r\n,${JSON.stringify(geminiChunk([{ text: "" }], "STOP"))}]`,
    check: (m) => m.text === text,
  }),
  "Gemini thought": (text) => ({
    body: sse(geminiChunk([{ text, thought: true }])) + sse(geminiChunk([{ text: "." }], "STOP")),
    check: (m) => m.reasoning === text,
  }),
  "Gemini function call": (text) => ({
    body: sse(geminiChunk([{ functionCall: { name: "f", args: { q: text } } }], "STOP")),
    options: BIG_ARGUMENTS,
    check: (m) => JSON.parse(m.toolCalls[0].arguments).q === text,
  }),
  "Bedrock text": (text) => ({
    body: concat([
      eventMessage("messageStart", { role: "assistant" }),
      eventMessage("contentBlockDelta", { contentBlockIndex: 0, delta: { text } }),
      eventMessage("contentBlockStop", { contentBlockIndex: 0 }),
      eventMessage("messageStop", { stopReason: "end_turn" }),
      eventMessage("metadata", { usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } }),
    ]),
    check: (m) => m.text === text,
  }),
};

function* chunksOf(bytes, size) {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

/** Runs `body` through a new Accumulator in `how` pieces; returns the final message. */
function run(wire, body, how, options = {}) {
  const acc = new wire.Accumulator(options);
  try {
    if (how === "string") acc.push(body);
    else {
      const bytes = typeof body === "string" ? enc.encode(body) : body;
      for (const chunk of how === "whole" ? [bytes] : chunksOf(bytes, CHUNK)) acc.push(chunk);
    }
    return acc.finish();
  } finally {
    acc.free();
  }
}

const BIG_ARGUMENTS = { maxToolArgumentBytes: 64 * MiB };

/** The bytes of the largest event of `body`: an SSE event, a JSON array's element, or an AWS
 * event-stream message (whose first four bytes are its length). */
function largestEvent(body) {
  if (typeof body === "string") {
    return body.split(/\n\n|\r\n,/).reduce((largest, event) => Math.max(largest, Buffer.byteLength(event)), 0);
  }
  let largest = 0;
  for (let at = 0; at + 4 <= body.length;) {
    const length = new DataView(body.buffer, body.byteOffset + at).getUint32(0);
    largest = Math.max(largest, length);
    at += length;
  }
  return largest;
}

/** name → what it does, given the package; returns the bytes of the text (or arguments) the
 * case's largest input carries, and for one large event, the bytes of that event. */
const CASES = {};
for (const mb of [1, 10]) {
  for (const how of ["64KiB", "whole", "string"]) {
    CASES[`text event ${mb} MB (${how})`] = (wire) => {
      const { text, body } = oneTextEvent(mb * 1e6);
      if (run(wire, body, how).text !== text) throw new Error("wrong text");
      return { input: Buffer.byteLength(text), event: largestEvent(body) };
    };
    CASES[`arguments event ${mb} MB (${how})`] = (wire) => {
      const { text, body } = oneArgumentsEvent(mb * 1e6);
      if (run(wire, body, how, BIG_ARGUMENTS).toolCalls[0].arguments !== text) throw new Error("wrong arguments");
      return { input: Buffer.byteLength(text), event: largestEvent(body) };
    };
  }
}
for (const [name, make] of Object.entries(FORMAT_EVENTS)) {
  for (const how of ["64KiB", "whole"]) {
    CASES[`${name} event 10 MB (${how})`] = (wire) => {
      const text = textOf(10e6);
      const { body, options, check } = make(text);
      if (!check(run(wire, body, how, options))) throw new Error("wrong message");
      return { input: Buffer.byteLength(text), event: largestEvent(body) };
    };
  }
}
const streamsInARow = (sizes) => (wire) => {
  let largest = 0;
  for (const mb of sizes) {
    const { text, body } = textStream(mb * 1e6, mb);
    if (run(wire, body, "64KiB").text !== text) throw new Error("wrong text");
    largest = Math.max(largest, Buffer.byteLength(text));
  }
  return { input: largest };
};
CASES["one stream of 16 MB"] = streamsInARow([16]);
CASES["streams of 1, 2, 4, 8, 16 MB in a row"] = streamsInARow([1, 2, 4, 8, 16]);
CASES["streams of 16, 8, 4, 2, 1, 16 MB in a row"] = streamsInARow([16, 8, 4, 2, 1, 16]);
CASES["ratchet: 32 MB of arguments, 64 KB to 8 MB each"] = (wire) => {
  const total = 32 * MiB;
  for (let size = 64 * 1024; size <= 8 * MiB; size *= 2) {
    const count = total / size;
    const message = run(wire, toolCallsStream(count, size), "64KiB", BIG_ARGUMENTS);
    if (message.toolCalls.length !== count || message.toolCalls[0].arguments.length !== size) throw new Error("wrong calls");
  }
  return { input: total };
};

async function child(pkg, name) {
  const wire = await import(pathToFileURL(resolve(pkg, "node.mjs")));
  // The glue's `initSync` on an instantiated module returns its exports, `memory` among them.
  const glue = await import(pathToFileURL(resolve(pkg, "llm_wire.js")));
  const memory = glue.initSync(undefined).memory;
  const before = memory.buffer.byteLength;
  const { input, event } = CASES[name](wire);
  const grown = memory.buffer.byteLength - before;
  process.stdout.write(JSON.stringify({ name, input, event, before, grown }));
}

const [pkgArg, ...names] = process.argv.slice(2);
const pkg = pkgArg ?? fileURLToPath(new URL("../pkg/", import.meta.url));
if (process.env.MEMORY_PEAK_CASE) {
  await child(pkg, process.env.MEMORY_PEAK_CASE);
} else {
  const script = fileURLToPath(import.meta.url);
  console.log(`wasm memory grown by each case (${pkg}):`);
  for (const name of names.length ? names : Object.keys(CASES)) {
    const env = { ...process.env, MEMORY_PEAK_CASE: name };
    let r;
    try {
      r = JSON.parse(execFileSync(process.execPath, ["--max-old-space-size=4096", script, pkg], { env, encoding: "utf8", stdio: "pipe" }));
    } catch (err) {
      console.log(`${name.padEnd(48)} failed: ${String(err.stderr).split("\n").find((l) => /Error/.test(l))}`);
      continue;
    }
    const mib = (n) => (n / MiB).toFixed(1).padStart(7);
    const times = (n) => `${(r.grown / n).toFixed(2).padStart(6)}x`;
    const event = r.event ? `  ${times(r.event)} the event (${mib(r.event).trim()} MiB)` : "";
    console.log(`${name.padEnd(52)} input ${mib(r.input)} MiB  grown ${mib(r.grown)} MiB  ${times(r.input)} the input${event}`);
  }
}

// The wasm memory a stream costs, read from the module's `WebAssembly.Memory` through the glue:
// `node bench/memory-peak.mjs [pkg-dir] [case...]`. Every case runs in a child process of its
// own (wasm memory never shrinks, so its final size is the case's peak) and prints one line:
// the input, the growth of wasm memory over the fresh instance, and that growth over the input.
//
// Cases: one SSE event carrying 1 MB or 10 MB of text or of tool arguments (pushed in 64 KiB
// chunks as a fetch reader hands them, and as one chunk, and as one string); a sequence of
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

function* chunksOf(bytes, size) {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

/** Runs `body` through a new Accumulator in `how` pieces; returns the final message. */
function run(wire, body, how, options = {}) {
  const acc = new wire.Accumulator(options);
  try {
    if (how === "string") acc.push(body);
    else {
      const bytes = enc.encode(body);
      for (const chunk of how === "whole" ? [bytes] : chunksOf(bytes, CHUNK)) acc.push(chunk);
    }
    return acc.finish();
  } finally {
    acc.free();
  }
}

const BIG_ARGUMENTS = { maxToolArgumentBytes: 64 * MiB };

/** name → what it does, given the package; returns the bytes the case's largest input carries. */
const CASES = {};
for (const mb of [1, 10]) {
  for (const how of ["64KiB", "whole", "string"]) {
    CASES[`text event ${mb} MB (${how})`] = (wire) => {
      const { text, body } = oneTextEvent(mb * 1e6);
      if (run(wire, body, how).text !== text) throw new Error("wrong text");
      return Buffer.byteLength(text);
    };
    CASES[`arguments event ${mb} MB (${how})`] = (wire) => {
      const { text, body } = oneArgumentsEvent(mb * 1e6);
      if (run(wire, body, how, BIG_ARGUMENTS).toolCalls[0].arguments !== text) throw new Error("wrong arguments");
      return Buffer.byteLength(text);
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
  return largest;
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
  return total;
};

async function child(pkg, name) {
  const wire = await import(pathToFileURL(resolve(pkg, "node.mjs")));
  // The glue's `initSync` on an instantiated module returns its exports, `memory` among them.
  const glue = await import(pathToFileURL(resolve(pkg, "llm_wire.js")));
  const memory = glue.initSync(undefined).memory;
  const before = memory.buffer.byteLength;
  const input = CASES[name](wire);
  const grown = memory.buffer.byteLength - before;
  process.stdout.write(JSON.stringify({ name, input, before, grown }));
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
    console.log(`${name.padEnd(48)} input ${mib(r.input)} MiB  grown ${mib(r.grown)} MiB  ${(r.grown / r.input).toFixed(2).padStart(6)}x`);
  }
}

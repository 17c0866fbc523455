// Live partial JSON: llm-wire's incremental `PartialJson` against the peers that re-parse the
// whole growing text at every delta (the AI SDK's `parsePartialJson`, the `partial-json`
// package), on tool-call arguments streamed in small deltas; then llm-wire's cost against the
// length of the text. The reader alone (the wasm `PartialJsonCore`, its change lists parsed)
// should grow in a straight line; the values on top of it copy each container on the changed
// path once per delta, so a very wide array adds a cost per delta in its width.
//
//   make pkg && (cd bench/partial && npm install) && node bench/partial.mjs
//
// Every contender gets the same deltas and must end with `JSON.parse` of the whole text.
import assert from "node:assert/strict";
import { PartialJson } from "../pkg/node.mjs";
import { PartialJsonCore } from "../pkg/llm_wire.js"; // the raw reader node.mjs wraps: not public
import { rng } from "./gen.mjs";

const { parsePartialJson: aiParsePartialJson } = await import("./partial/node_modules/ai/dist/index.mjs");
const { parse: partialJsonParse } = await import("./partial/node_modules/partial-json/dist/index.js");


/** Tool-call arguments of about `size` bytes: search results with text, numbers, escapes. */
function argumentsText(size, seed) {
  const r = rng(seed);
  const words = ["lorem", "ipsum", "délai", "日本語", "\"quoted\"", "line\nbreak", "tab\there", "emoji 🎉", "path/to\\file"];
  const sentence = (n) => Array.from({ length: n }, () => words[Math.floor(r() * words.length)]).join(" ");
  const results = [];
  const value = { query: sentence(6), page: 1, results };
  let length = JSON.stringify(value).length;
  for (let id = 0; length < size; id++) {
    const item = {
      id,
      title: sentence(4),
      score: Math.round(r() * 1e4) / 1e4,
      tags: Array.from({ length: 1 + Math.floor(r() * 3) }, () => words[Math.floor(r() * 3)]),
      body: sentence(10 + Math.floor(r() * 30)),
      ok: r() < 0.5,
      next: null,
    };
    results.push(item);
    length += JSON.stringify(item).length + 1;
  }
  return JSON.stringify(value, null, 1);
}

/** `text` cut into deltas of `size` characters on average (1 to 2×size, seeded). */
function deltas(text, size, seed) {
  const r = rng(seed);
  const out = [];
  for (let at = 0; at < text.length; ) {
    const n = 1 + Math.floor(r() * 2 * size);
    out.push(text.slice(at, at + n));
    at += n;
  }
  return out;
}

/** The median of `runs` timings of `fn` (one warm-up run first), in milliseconds of this
 * process's CPU time: on a machine shared with other work, wall time mostly measures the
 * wait for a core (the same run varied fourfold). */
async function time(runs, fn) {
  await fn();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const start = process.cpuUsage();
    await fn();
    const { user, system } = process.cpuUsage(start);
    times.push((user + system) / 1000);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

/** The wasm reader alone: every delta's change list, no values built. */
function readerAlone(pieces) {
  const core = new PartialJsonCore();
  for (const piece of pieces) core.push(piece);
  core.finish();
  core.free();
}

const contenders = {
  "llm-wire PartialJson": (pieces) => {
    const partial = new PartialJson();
    for (const piece of pieces) partial.push(piece);
    const value = partial.finish();
    partial.free();
    return value;
  },
  "ai parsePartialJson": async (pieces) => {
    let text = "";
    let value;
    for (const piece of pieces) value = (await aiParsePartialJson((text += piece))).value;
    return value;
  },
  "partial-json parse": (pieces) => {
    let text = "";
    let value;
    for (const piece of pieces) value = partialJsonParse((text += piece));
    return value;
  },
};

// ---- 100 KB in 2,000 deltas ------------------------------------------------------------------
const text = argumentsText(100_000, 1);
const pieces = deltas(text, text.length / 2000, 2);
const want = JSON.parse(text);
console.log(`100 KB of tool arguments (${text.length} chars) in ${pieces.length} deltas, median CPU time:\n`);
console.log("| contender | ms | llm-wire is |");
console.log("|---|---:|---:|");
let ours;
for (const [name, run] of Object.entries(contenders)) {
  assert.deepEqual(await run(pieces), want, `${name} ends with JSON.parse of the text`);
  const ms = await time(name.startsWith("llm-wire") ? 21 : 5, () => run(pieces));
  ours ??= ms;
  console.log(`| ${name} | ${ms.toFixed(1)} | ${name.startsWith("llm-wire") ? "" : `${(ms / ours).toFixed(0)}x faster`} |`);
}

// ---- cost against length -------------------------------------------------------------------
console.log("\nCost against length, deltas of 50 characters on average (µs per KB: flat is linear):\n");
console.log("| length | deltas | widest array | reader ms | µs/KB | PartialJson ms | µs/KB | ai ms | partial-json ms |");
console.log("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const size of [10_000, 30_000, 100_000, 300_000, 1_000_000]) {
  const text = argumentsText(size, size);
  const pieces = deltas(text, 50, size + 1);
  const perKb = (ms) => ((ms * 1000) / (text.length / 1000)).toFixed(1);
  const reader = await time(11, () => readerAlone(pieces));
  const ms = await time(11, () => contenders["llm-wire PartialJson"](pieces));
  // The peers grow with the square of the length: measured up to 100 KB.
  const peer = async (name) => (size <= 100_000 ? (await time(3, () => contenders[name](pieces))).toFixed(1) : "—");
  const width = JSON.parse(text).results.length;
  const row = [size, pieces.length, width, reader.toFixed(2), perKb(reader), ms.toFixed(2), perKb(ms)];
  console.log(`| ${row.join(" | ")} | ${await peer("ai parsePartialJson")} | ${await peer("partial-json parse")} |`);
}

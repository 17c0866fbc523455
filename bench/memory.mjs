// Memory over a long stream, run by extra.mjs in its own process: `node bench/memory.mjs MB`.
// Prints JSON: process and wasm memory before the stream, after the pushes, after finish(),
// after free(), for two passes with a new Accumulator each.
import v8 from "node:v8";
import vm from "node:vm";
import { Accumulator } from "../pkg/node.mjs";
import { initSync } from "../pkg/llm_wire.js"; // the glue node.mjs instantiated: not a public export
import { openaiTextOfSize, CHUNKINGS } from "./gen.mjs";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc");
const MB = Number(process.argv[2] ?? 50);
const wasm = initSync(undefined); // already instantiated by node.mjs: returns its exports
const s = openaiTextOfSize(MB * 1e6, 13);
const chunks = CHUNKINGS["64B–4KB"](s.bytes);
const snap = () => { gc(); const m = process.memoryUsage(); return { rss: m.rss, heap: m.heapUsed, external: m.external, wasm: wasm.memory.buffer.byteLength }; };
const out = [];
for (let pass = 1; pass <= 2; pass++) {
  const before = snap();
  let acc = new Accumulator({ format: "openai-chat" });
  let events = 0;
  for (const c of chunks) events += acc.push(c).length;
  const afterPush = snap();
  let m = acc.finish();
  const textLen = m.text.length;
  const afterFinish = snap();
  acc.free();
  acc = null;
  m = null;
  const afterFree = snap();
  out.push({ pass, before, afterPush, afterFinish, afterFree, events, textLen });
}
process.stdout.write(JSON.stringify({ MB: s.bytes.length / 1e6, textBytes: new TextEncoder().encode(s.expected.text).length, out }));

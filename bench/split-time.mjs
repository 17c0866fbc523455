// Where one llm-wire run of the benchmark goes: constructor, pushes, finish, free, timed apart
// over the same rounds as bench/run.mjs (GC before each run), beside the JS baseline.
// `node --expose-gc bench/split-time.mjs [--rounds N]`
import { openaiText, openaiTools, anthropic, CHUNKINGS } from "./gen.mjs";
import { CONTENDERS, BASELINE } from "./contenders.mjs";
import { Accumulator } from "../pkg/node.mjs";

const ri = process.argv.indexOf("--rounds");
const ROUNDS = ri > 0 ? Number(process.argv[ri + 1]) : 15;
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const baseline = CONTENDERS.find((c) => c.name === BASELINE).make();

for (const stream of [openaiText(), openaiTools(), anthropic()]) {
  const chunks = CHUNKINGS["64B–4KB"](stream.bytes);
  const format = stream.format === "openai" ? "openai-chat" : "anthropic";
  const t = { ctor: [], push: [], finish: [], free: [], total: [], baseline: [] };
  for (let r = 0; r < ROUNDS + 4; r++) {
    globalThis.gc?.();
    let b0 = performance.now();
    await baseline(chunks, stream);
    const base = performance.now() - b0;
    globalThis.gc?.();
    const t0 = performance.now();
    const acc = new Accumulator({ format });
    const t1 = performance.now();
    for (const c of chunks) acc.push(c);
    const t2 = performance.now();
    acc.finish();
    const t3 = performance.now();
    acc.free();
    const t4 = performance.now();
    if (r < 4) continue;
    t.ctor.push(t1 - t0); t.push.push(t2 - t1); t.finish.push(t3 - t2); t.free.push(t4 - t3);
    t.total.push(t4 - t0); t.baseline.push(base);
  }
  const parts = Object.entries(t).map(([k, v]) => `${k} ${median(v).toFixed(3)} ms`);
  console.log(`${stream.name} (${chunks.length} chunks): ${parts.join(" · ")}`);
}

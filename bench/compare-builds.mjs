// Paired comparison of several llm-wire builds (pkg dirs) against the JS baseline, full `push`
// only: `node bench/compare-builds.mjs [--rounds N] PKG_DIR...`. Same rounds, shuffled order,
// ratio to the baseline of the same round (median [p25–p75]). For trying build settings and
// design changes made in a scratch copy.
import path from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import { pathToFileURL } from "node:url";
import { openaiText, openaiTools, anthropic, CHUNKINGS, rng } from "./gen.mjs";
import { CONTENDERS, BASELINE } from "./contenders.mjs";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc");
const args = process.argv.slice(2);
const ri = args.indexOf("--rounds");
const ROUNDS = ri >= 0 ? Number(args.splice(ri, 2)[1]) : 15;
const builds = [];
for (const d of args) builds.push({ name: path.basename(d), mod: await import(pathToFileURL(path.resolve(d, "node.mjs")).href) });
const q = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor((s.length - 1) * p)]; };
const r = rng(77);
const baseline = CONTENDERS.find((c) => c.name === BASELINE);
for (const s of [openaiText(), openaiTools(), anthropic()]) {
  for (const cut of ["64B–4KB", "whole"]) {
    const chunks = CHUNKINGS[cut](s.bytes);
    const format = s.format === "openai" ? "openai-chat" : "anthropic";
    const base = baseline.make();
    const jobs = [{ name: "baseline", run: () => base(chunks, s) }];
    for (const b of builds) {
      const probe = new b.mod.Accumulator({ format });
      for (const c of chunks) probe.push(c);
      if (probe.finish().text !== s.expected.text) { console.log(`${b.name} ${s.name}: wrong result, skipped`); continue; }
      jobs.push({ name: b.name, run: () => { const a = new b.mod.Accumulator({ format }); for (const c of chunks) a.push(c); a.finish(); a.free(); } });
    }
    if (jobs.length === 1) continue;
    for (const j of jobs) { j.t = []; j.ratio = []; for (let w = 0; w < 3; w++) await j.run(); }
    for (let i = 0; i < ROUNDS; i++) {
      for (const j of [...jobs].sort(() => r() - 0.5)) { gc(); const t0 = performance.now(); await j.run(); j.t.push(performance.now() - t0); }
      for (const j of jobs) j.ratio.push(j.t[i] / jobs[0].t[i]);
    }
    console.log(`${s.name} / ${cut} (${chunks.length} chunks): ` + jobs.map((j) => `${j.name} ${q(j.t, 0.5).toFixed(2)} ms ×${q(j.ratio, 0.5).toFixed(2)} [${q(j.ratio, 0.25).toFixed(2)}–${q(j.ratio, 0.75).toFixed(2)}]`).join(" · "));
  }
}

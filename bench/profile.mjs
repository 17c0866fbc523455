// Where llm-wire's push time goes. Needs a build with the probe methods of bench/patches/probe.patch
// (`git apply bench/patches/probe.patch` in a scratch copy, then wasm-pack build into a pkg dir):
//
//   node bench/profile.mjs [--rounds N] PKG_DIR [PKG_DIR...]
//
// Each stage adds one step to the one before, so the differences are the cost of each step:
//   copy      Uint8Array → wasm memory (the `scratch` Vec)
//   frame     + SSE framing (lines, data fields, events; nothing decoded)
//   json      + serde_json decoding of each OpenAI chunk into the borrowed structs (no builder)
//   decode    + the message builder, in place of json's throwaway decode (events made, dropped)
//   serialize + serde_json::to_string of the events (string stays in Rust)
//   string    + the string crossing to JS (UTF-8 → JS string), no JSON.parse
//   push      + JSON.parse in JS: the real `push`
// With several PKG_DIRs (e.g. opt-level "z" and 3), all run in the same rounds.

import { createParser } from "eventsource-parser";
import v8 from "node:v8";
import vm from "node:vm";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { openaiText, openaiTools, anthropic, CHUNKINGS, rng } from "./gen.mjs";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc");
const args = process.argv.slice(2);
const ri = args.indexOf("--rounds");
const ROUNDS = ri >= 0 ? Number(args.splice(ri, 2)[1]) : 15;
const dirs = args.length ? args : ["pkg"];
const mods = [];
for (const d of dirs) mods.push({ dir: path.basename(d), mod: await import(pathToFileURL(path.resolve(d, "node.mjs")).href) });

const STAGES = ["copy", "frame", "json", "decode", "serialize", "string", "push", "slice"];
const METHOD = { copy: "probeCopy", frame: "probeFrame", json: "probeJson", decode: "probeDecode", serialize: "probeSerialize", string: "probeString", push: "push", slice: "probeSlice" };

function baseline(chunks) {
  const dec = new TextDecoder();
  let text = "", args = "";
  const p = createParser({ onEvent(ev) {
    if (ev.data === "[DONE]") return;
    const j = JSON.parse(ev.data);
    const d = j.choices?.[0]?.delta ?? j.delta;
    if (!d) return;
    if (typeof d.content === "string") text += d.content;
    if (d.tool_calls) for (const t of d.tool_calls) args += t.function?.arguments ?? "";
    if (d.text) text += d.text; if (d.thinking) text += d.thinking; if (d.partial_json) args += d.partial_json;
  } });
  for (const c of chunks) p.feed(dec.decode(c, { stream: true }));
  p.feed(dec.decode());
  return text.length + args.length;
}

const quantile = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor((s.length - 1) * q)]; };
const r = rng(99);
for (const s of [openaiText(), openaiTools(), anthropic()]) {
  for (const cut of ["64B–4KB", "whole"]) {
    const chunks = CHUNKINGS[cut](s.bytes);
    const format = s.format === "openai" ? "openai-chat" : "anthropic";
    const jobs = [{ name: "JS baseline", run: () => baseline(chunks) }];
    // JSON.parse alone of the strings `push` parses (collected once).
    for (const { dir, mod } of mods) {
      const probe = new mod.Accumulator({ format });
      if (typeof probe.probeCopy !== "function") { console.error(`${dir}: no probe methods (apply bench/patches/probe.patch)`); process.exit(1); }
      const strings = chunks.map((c) => probe.probeString(c)).filter(Boolean);
      if (strings.some((x) => x.includes('"type":"error"'))) { console.error(`${dir} ${s.name}: the stream gives an error event; skipped`); continue; }
      jobs.push({ name: `${dir} JSON.parse only`, run: () => { let n = 0; for (const x of strings) n += JSON.parse(x).length; return n; } });
      for (const st of STAGES) {
        if (st === "json" && s.format !== "openai") continue;
        jobs.push({ name: `${dir} ${st}`, run: () => {
          const acc = new mod.Accumulator({ format });
          const m = METHOD[st];
          let n = 0;
          for (const c of chunks) { const x = acc[m](c); n += typeof x === "number" ? x : x.length; }
          acc.free();
          return n;
        } });
      }
    }
    for (const j of jobs) { j.times = []; for (let w = 0; w < 3; w++) j.run(); }
    for (let round = 0; round < ROUNDS; round++) {
      for (const j of [...jobs].sort(() => r() - 0.5)) { gc(); const t0 = performance.now(); j.run(); j.times.push(performance.now() - t0); }
    }
    const base = quantile(jobs[0].times, 0.5);
    console.log(`\n${s.name} / ${cut}: ${(s.bytes.length / 1e6).toFixed(2)} MB, ${s.events} events, ${chunks.length} chunks; baseline ${base.toFixed(2)} ms`);
    console.log(`| step | ms (cumulative) | step ms | µs/event | ÷ baseline |`);
    console.log(`|---|---:|---:|---:|---:|`);
    let prev = 0, prevDir = "";
    for (const j of jobs) {
      const ms = quantile(j.times, 0.5);
      const dir = j.name.split(" ")[0];
      if (dir !== prevDir) prev = 0;
      const cumulative = !j.name.includes("JSON.parse only") && !j.name.endsWith("slice") && j.name !== "JS baseline";
      const step = cumulative ? ms - prev : NaN;
      if (cumulative) prev = ms;
      prevDir = dir;
      console.log(`| ${j.name} | ${ms.toFixed(2)} | ${Number.isFinite(step) ? step.toFixed(2) : ""} | ${(ms * 1e3 / s.events).toFixed(2)} | ${(ms / base).toFixed(2)} |`);
    }
  }
}

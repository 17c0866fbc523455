// The other measurements of issue 8: the latency of one push of a typical event, linearity in the
// stream's length (text and 100 KB+ tool arguments), and memory growth over a long stream.

import { createParser } from "eventsource-parser";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Accumulator } from "../pkg/node.mjs";
import { openaiText, openaiTools, CHUNKINGS } from "./gen.mjs";
import { CONTENDERS, BASELINE } from "./contenders.mjs";

const quantile = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((s.length - 1) * q))]; };

/** One push of one typical event (an OpenAI text delta, one whole SSE event per push). */
function pushLatency({ quick, gc }) {
  const s = openaiText({ seed: 5, deltas: 200 });
  const text = new TextDecoder().decode(s.bytes);
  const events = text.split("\n\n").filter(Boolean).slice(1, 101).map((e) => new TextEncoder().encode(e + "\n\n"));
  const N = quick ? 20000 : 100000;
  const out = {};
  const contenders = {
    "llm-wire Accumulator.push": () => {
      const acc = new Accumulator({ format: "openai-chat" });
      return (b) => acc.push(b);
    },
    "JS baseline (decode + feed + JSON.parse + concat)": () => {
      const dec = new TextDecoder();
      let t = "";
      const p = createParser({ onEvent(ev) { const j = JSON.parse(ev.data); t += j.choices[0].delta.content ?? ""; } });
      return (b) => p.feed(dec.decode(b, { stream: true }));
    },
  };
  for (const [name, make] of Object.entries(contenders)) {
    // Fresh state every 5,000 pushes so the accumulated text stays typical.
    const single = [];
    const batches = [];
    for (let round = 0; round < N / 5000; round++) {
      const push = make();
      gc();
      for (let i = 0; i < 5000; i += 100) {
        const t0 = process.hrtime.bigint();
        for (let k = 0; k < 100; k++) push(events[k]);
        batches.push(Number(process.hrtime.bigint() - t0) / 100 / 1e3);
      }
      const push2 = make();
      for (let i = 0; i < 1000; i++) {
        const t0 = process.hrtime.bigint();
        push2(events[i % 100]);
        single.push(Number(process.hrtime.bigint() - t0) / 1e3);
      }
    }
    out[name] = { batch: quantile(batches, 0.5), p50: quantile(single, 0.5), p99: quantile(single, 0.99), max: Math.max(...single) };
  }
  return { out, eventBytes: events.reduce((a, e) => a + e.length, 0) / events.length };
}

/** Time per MB as the stream grows: text (events) and one tool call's arguments (bytes). */
async function linearity({ quick, gc }) {
  const pick = CONTENDERS.filter((c) => c.name === BASELINE || c.name.startsWith("llm-wire"));
  const series = [
    { label: "OpenAI text", streams: (quick ? [2500, 10000] : [2500, 5000, 10000, 20000]).map((d) => openaiText({ seed: 9, deltas: d })), unit: (s) => `${s.events - 4} deltas` },
    { label: "one tool call's arguments", streams: (quick ? [25, 100] : [25, 100, 400, 1600]).map((kb) => openaiTools({ seed: 10, calls: 1, argBytes: kb * 1000, frags: kb * 20, name: `args-${kb}KB` })), unit: (s) => `${(s.expected.toolCalls[0].arguments.length / 1e3).toFixed(0)} KB args` },
  ];
  const rows = [];
  for (const ser of series) {
    for (const s of ser.streams) {
      const chunks = CHUNKINGS["64B–4KB"](s.bytes);
      const r = { label: ser.label, size: ser.unit(s), mb: s.bytes.length / 1e6, ms: {} };
      for (const c of pick) {
        const run = c.make();
        await run(chunks, s);
        const ts = [];
        for (let i = 0; i < (quick ? 3 : 7); i++) { gc(); const t0 = performance.now(); await run(chunks, s); ts.push(performance.now() - t0); }
        r.ms[c.name] = quantile(ts, 0.5);
      }
      rows.push(r);
    }
  }
  return { rows, names: pick.map((c) => c.name) };
}

/** Memory over a long stream, in a fresh process (bench/memory.mjs), so that nothing measured
 * before has grown the wasm memory already: process and wasm memory before, after the pushes,
 * after finish, after free, twice (the second pass shows whether memory is reused). */
function memory({ quick }) {
  const out = execFileSync(process.execPath, [fileURLToPath(new URL("./memory.mjs", import.meta.url)), quick ? "10" : "50"], { encoding: "utf8" });
  return JSON.parse(out);
}

export async function extra({ quick, gc, log }) {
  const lines = [];
  // Memory first: wasm memory never shrinks, so later measurements would hide its growth.
  log("memory…");
  const mem = memory({ quick, gc });
  const f = (b) => (b / 2 ** 20).toFixed(1);
  const d = (a, b, k) => `${(b[k] - a[k] >= 0 ? "+" : "")}${f(b[k] - a[k])}`;
  lines.push(`## Memory over a long stream (${mem.MB.toFixed(0)} MB of OpenAI text events, 64B–4KB chunks, one Accumulator; text ${f(mem.textBytes)} MiB UTF-8)`, "");
  lines.push("Growth in MiB from before the stream (after a GC each time), in a fresh process. wasm = the module's linear memory (`memory.buffer.byteLength`), which never shrinks; its absolute size is in brackets.", "");
  lines.push("| pass | point | rss | JS heap | external | wasm memory (absolute) |", "|---|---|---:|---:|---:|---:|");
  for (const p of mem.out) {
    for (const [label, at] of [["after the pushes", p.afterPush], ["after finish()", p.afterFinish], ["after free()", p.afterFree]]) {
      lines.push(`| ${p.pass} | ${label} | ${d(p.before, at, "rss")} | ${d(p.before, at, "heap")} | ${d(p.before, at, "external")} | ${d(p.before, at, "wasm")} (${f(at.wasm)}) |`);
    }
  }

  log("push latency…");
  const lat = pushLatency({ quick, gc });
  lines.push("", "## Latency of one push (one typical OpenAI text event per push)", "");
  lines.push(`Event: one \`data:\` line of an OpenAI text delta, ${lat.eventBytes.toFixed(0)} B on average, pushed as one chunk. ` +
    "“batch” is the mean over 100 consecutive pushes (median of those means); p50/p99/max time single pushes (timer overhead included, ~0.1 µs).", "");
  lines.push("| contender | µs per push (batch) | p50 | p99 | max |", "|---|---:|---:|---:|---:|");
  for (const [n, r] of Object.entries(lat.out)) lines.push(`| ${n} | ${r.batch.toFixed(2)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.max.toFixed(0)} |`);

  log("linearity…");
  const lin = await linearity({ quick, gc });
  lines.push("", "## Linearity (64B–4KB chunks; ms per MB of stream should stay flat as the stream grows)", "");
  lines.push(`| series | size | MB | ${lin.names.map((n) => `${n} ms (ms/MB)`).join(" | ")} |`, `|---|---|---:|${lin.names.map(() => "---:").join("|")}|`);
  for (const r of lin.rows) lines.push(`| ${r.label} | ${r.size} | ${r.mb.toFixed(2)} | ${lin.names.map((n) => `${r.ms[n].toFixed(1)} (${(r.ms[n] / r.mb).toFixed(1)})`).join(" | ")} |`);

  return lines;
}

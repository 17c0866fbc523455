// Paired rounds for one generated stream, as in run.mjs: every contender runs on the same chunks
// in each shuffled round, GC before each run, and its time is divided by the baseline's from the
// same round. Used by the per-format benchmarks (bedrock.mjs, gemini.mjs).

import vm from "node:vm";
import v8 from "node:v8";
import { fileURLToPath } from "node:url";
import { Accumulator } from "../pkg/node.mjs";
import { Accumulator as StreamAccumulator } from "../pkg/stream/node.mjs";
import { rng, CHUNKINGS } from "./gen.mjs";

export const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  const p = (s.length - 1) * q, lo = Math.floor(p), hi = Math.ceil(p);
  return s[lo] + (s[hi] - s[lo]) * (p - lo);
};

/** Text, reasoning and tool calls (`id`, `name`, `arguments`) equal to what the stream holds. */
export const sameResult = (got, exp) => got.text === exp.text && got.reasoning === exp.reasoning &&
  JSON.stringify(got.toolCalls.map((c) => [c.id, c.name, c.arguments])) === JSON.stringify(exp.toolCalls.map((c) => [c.id, c.name, c.arguments]));

/**
 * Runs `contenders` (each `{name, make: () => async (chunks) => result}`, the first the baseline)
 * on `stream.bytes` cut every way CHUNKINGS knows, and returns the table rows as lines. A
 * contender whose result differs from `stream.expected` is reported, not timed.
 */
export async function pairedTable({ label, stream, contenders, quick = false, gc, log = console.error }) {
  const rounds = quick ? 5 : 15, warmup = quick ? 2 : 4;
  const shuffleRng = rng(99);
  const lines = [
    `**${stream.name}**: ${(stream.bytes.length / 1e6).toFixed(2)} MB, ${stream.events} events. ${rounds} rounds after ${warmup} warm-up runs, ` +
      "shuffled, GC before each run; ratio = time ÷ the baseline's in the same round, median [p25–p75]. " +
      `Baseline = ${contenders[0].name}.`, "",
    "| chunks | contender | ms | ratio to baseline [p25–p75] |", "|---|---|---:|---|"];
  for (const [cname, cut] of Object.entries(CHUNKINGS)) {
    const chunks = cut(stream.bytes);
    const entries = [];
    for (const c of contenders) {
      const run = c.make();
      const e = { name: c.name, run, times: [], ratios: [], error: null };
      try {
        if (!sameResult(await run(chunks.map((x) => x.slice())), stream.expected)) e.error = "result differs";
      } catch (err) {
        e.error = `failed: ${String(err?.message ?? err).split("\n")[0].slice(0, 120)}`;
      }
      entries.push(e);
    }
    const live = entries.filter((e) => !e.error);
    const base = live.find((e) => e.name === contenders[0].name);
    for (let w = 0; w < warmup; w++) for (const e of live) await e.run(chunks.map((x) => x.slice()));
    for (let r = 0; r < rounds; r++) {
      const t = new Map();
      const order = [...live];
      for (let i = order.length - 1; i > 0; i--) { const j = Math.floor(shuffleRng() * (i + 1)); [order[i], order[j]] = [order[j], order[i]]; }
      for (const e of order) {
        const own = chunks.map((x) => x.slice());
        gc?.();
        const t0 = performance.now();
        await e.run(own);
        t.set(e, performance.now() - t0);
      }
      for (const e of live) { e.times.push(t.get(e)); if (base) e.ratios.push(t.get(e) / t.get(base)); }
    }
    for (const e of entries) {
      const row = e.error ? `– | ${e.error}` :
        `${quantile(e.times, 0.5).toFixed(2)} | **${quantile(e.ratios, 0.5).toFixed(2)}** [${quantile(e.ratios, 0.25).toFixed(2)}–${quantile(e.ratios, 0.75).toFixed(2)}]`;
      lines.push(`| ${cname} (${chunks.length}) | ${e.name} | ${row} |`);
      log(`${label} / ${cname}: ${e.name.padEnd(48)} ${row}`);
    }
  }
  return lines;
}

/** llm-wire's two entries as contenders, reading `format`. */
export const llmWire = (format) => [["llm-wire Accumulator", Accumulator], ["llm-wire/stream Accumulator", StreamAccumulator]].map(([name, Acc]) => ({
  name,
  make: () => async (chunks) => {
    const acc = new Acc({ format });
    for (const c of chunks) acc.push(c);
    const m = acc.finish();
    acc.free();
    if (m.error) throw new Error(m.error.message);
    return { text: m.text, reasoning: m.reasoning, toolCalls: m.toolCalls };
  },
}));

/** A RESULTS.md section: its title, then the paired table of `stream`. */
export async function pairedSection(title, stream, contenders, options = {}) {
  return [title, "", ...await pairedTable({ label: title.slice(3).split(" ")[0].toLowerCase(), stream, contenders, ...options })];
}

/** Runs `section` and prints it when `moduleUrl` is the script node was started with. */
export async function runAlone(moduleUrl, section) {
  if (process.argv[1] !== fileURLToPath(moduleUrl)) return;
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc");
  console.log((await section({ quick: process.argv.includes("--quick"), gc })).join("\n"));
}

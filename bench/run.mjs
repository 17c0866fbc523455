// llm-wire vs the JS peers (issue 8), then hostile input at scale (bench/hostile.mjs). `make bench`
// runs this; `make bench BENCH_ARGS=--quick` is a short run for development. Writes
// bench/RESULTS.md (or --out FILE). `--no-extra` and `--no-hostile` leave those sections out.
//
// Method: one Node process; per (stream, chunking) cell every contender's result is checked
// against the expected one first (a contender that differs is reported and not timed), then
// warm-up runs, then rounds in which the contenders run in a freshly shuffled order; each
// contender's time is divided by the baseline's time *in the same round* (paired ratio). Reported:
// medians and the p25–p75 spread of those ratios. A GC runs before every timed run, so one
// contender's garbage is not collected on another's clock.

import { readFileSync, readdirSync, writeFileSync, existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import os from "node:os";
import v8 from "node:v8";
import vm from "node:vm";
import { CONTENDERS, BASELINE } from "./contenders.mjs";
import { openaiText, openaiTools, anthropic, CHUNKINGS, rng } from "./gen.mjs";
import { extra } from "./extra.mjs";
import { hostile } from "./hostile.mjs";
import { bedrock } from "./bedrock.mjs";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc");

const args = process.argv.slice(2);
const QUICK = args.includes("--quick");
const arg = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const ROUNDS = Number(arg("--rounds", QUICK ? 5 : 15));
const WARMUP = Number(arg("--warmup", QUICK ? 2 : 4));
const ONLY = arg("--only", null); // substring filter on contender names
const OUT = arg("--out", fileURLToPath(new URL(QUICK ? "./RESULTS.quick.md" : "./RESULTS.md", import.meta.url)));
const SKIP_EXTRA = args.includes("--no-extra");
const SKIP_HOSTILE = args.includes("--no-hostile");

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const log = (...a) => console.error(...a);

// ---- checking -------------------------------------------------------------------------------
const canonArgs = (s) => { try { return JSON.stringify(JSON.parse(s || "{}")); } catch { return `!${s}`; } };
function check(got, exp) {
  const diffs = [];
  if ("text" in exp && got.text !== exp.text) diffs.push(`text (${got.text?.length} vs ${exp.text.length} chars)`);
  if ("reasoning" in exp && got.reasoning !== exp.reasoning) diffs.push(`reasoning (${got.reasoning?.length} vs ${exp.reasoning.length} chars)`);
  if ("toolCalls" in exp) {
    const g = (got.toolCalls ?? []).map((c) => [c.id, c.name, canonArgs(c.arguments)]);
    const e = exp.toolCalls.map((c) => [c.id, c.name, canonArgs(c.arguments)]);
    if (JSON.stringify(g) !== JSON.stringify(e)) diffs.push(`toolCalls ${JSON.stringify(g).slice(0, 120)}`);
  }
  return diffs;
}

// ---- statistics -----------------------------------------------------------------------------
function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  const p = (s.length - 1) * q, lo = Math.floor(p), hi = Math.ceil(p);
  return s[lo] + (s[hi] - s[lo]) * (p - lo);
}
function shuffle(xs, r) {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) { const j = Math.floor(r() * (i + 1)); [a[i], a[j]] = [a[j], a[i]]; }
  return a;
}
const copyChunks = (chunks) => chunks.map((c) => c.slice());

// ---- one cell: a stream cut one way, all contenders of its format ----------------------------
async function cell(stream, chunkingName, chunks, contenders, shuffleRng) {
  const entries = [];
  for (const c of contenders) {
    if (!c.formats.includes(stream.format)) continue;
    const run = c.make();
    const own = copyChunks(chunks);
    const e = { name: c.name, run, chunks: own, times: [], ratios: [], error: null };
    try {
      const diffs = check(await run(own, stream), stream.expected);
      if (diffs.length) e.error = `result differs: ${diffs.join("; ")}`;
    } catch (err) {
      e.error = `failed: ${String(err?.message ?? err).split("\n")[0].slice(0, 160)}`;
    }
    entries.push(e);
  }
  const live = entries.filter((e) => !e.error);
  const base = live.find((e) => e.name === BASELINE);
  for (let w = 0; w < WARMUP; w++) for (const e of live) await e.run(e.chunks, stream);
  for (let r = 0; r < ROUNDS; r++) {
    const t = new Map();
    for (const e of shuffle(live, shuffleRng)) {
      gc();
      const t0 = performance.now();
      await e.run(e.chunks, stream);
      t.set(e, performance.now() - t0);
    }
    for (const e of live) {
      e.times.push(t.get(e));
      if (base) e.ratios.push(t.get(e) / t.get(base));
    }
  }
  return entries.map((e) => {
    if (e.error) return { name: e.name, error: e.error };
    const ms = quantile(e.times, 0.5);
    return {
      name: e.name, ms, msP25: quantile(e.times, 0.25), msP75: quantile(e.times, 0.75),
      mbps: stream.bytes.length / 1e6 / (ms / 1e3), usPerEvent: (ms * 1e3) / stream.events,
      ratio: base ? quantile(e.ratios, 0.5) : NaN, ratioP25: base ? quantile(e.ratios, 0.25) : NaN,
      ratioP75: base ? quantile(e.ratios, 0.75) : NaN,
    };
  });
}

// ---- the real fixtures ----------------------------------------------------------------------
const OPENAI_LIKE = ["openai-chat", "groq", "deepseek", "mistral", "openrouter", "azure-openai"];
function fixtures() {
  const root = here("../tests/fixtures/");
  const out = [];
  for (const dir of [...OPENAI_LIKE, "anthropic"]) {
    if (!existsSync(root + dir)) continue;
    for (const f of readdirSync(root + dir).filter((f) => f.endsWith(".sse")).sort()) {
      const expPath = `${root}${dir}/${f.replace(/\.sse$/, ".expect.json")}`;
      if (!existsSync(expPath)) continue;
      const exp = JSON.parse(readFileSync(expPath, "utf8"));
      const expected = {};
      if ("text" in exp) expected.text = exp.text;
      if ("toolCalls" in exp) expected.toolCalls = exp.toolCalls;
      if (!Object.keys(expected).length) continue;
      const bytes = new Uint8Array(readFileSync(`${root}${dir}/${f}`));
      const events = (new TextDecoder().decode(bytes).match(/^data:/gm) ?? []).length;
      expected.toolCalls ??= [];
      out.push({ name: `${dir}/${f.replace(/\.sse$/, "")}`, format: dir === "anthropic" ? "anthropic" : "openai", bytes, events, expected });
    }
  }
  return out;
}

// ---- main -----------------------------------------------------------------------------------
const contenders = CONTENDERS.filter((c) => !ONLY || c.name === BASELINE || c.name.includes(ONLY));
const shuffleRng = rng(2024);
const generated = [openaiText(), openaiTools(), anthropic()];
const results = [];
const started = new Date();
for (const s of generated) {
  for (const [cname, cut] of Object.entries(CHUNKINGS)) {
    const chunks = cut(s.bytes);
    log(`${s.name} / ${cname}: ${(s.bytes.length / 1e6).toFixed(2)} MB, ${s.events} events, ${chunks.length} chunks`);
    const rows = await cell(s, cname, chunks, contenders, shuffleRng);
    for (const r of rows) log(`  ${r.name.padEnd(36)} ${r.error ?? `${r.ms.toFixed(2)} ms  ×${r.ratio.toFixed(2)} [${r.ratioP25.toFixed(2)}–${r.ratioP75.toFixed(2)}]`}`);
    results.push({ stream: s, chunking: cname, chunks: chunks.length, rows });
  }
}
// The chunk-size target compares llm-wire with itself: the chunkings of one stream run in the same
// rounds (shuffled), and each round gives whole ÷ 64B–4KB and 16–64KB ÷ 64B–4KB.
const LWC = contenders.find((c) => c.name.startsWith("llm-wire"));
const chunkPairs = [];
for (const s of LWC ? generated : []) {
  const jobs = Object.entries(CHUNKINGS).map(([name, cut]) => ({ name, chunks: cut(s.bytes), run: LWC.make(), t: [] }));
  let ok = true;
  for (const j of jobs) { try { if (check(await j.run(j.chunks, s), s.expected).length) ok = false; } catch { ok = false; } }
  if (!ok) continue;
  for (let w = 0; w < WARMUP; w++) for (const j of jobs) await j.run(j.chunks, s);
  for (let r = 0; r < ROUNDS; r++) {
    for (const j of shuffle(jobs, shuffleRng)) { gc(); const t0 = performance.now(); await j.run(j.chunks, s); j.t.push(performance.now() - t0); }
  }
  const ratios = (k) => jobs[k].t.map((t, i) => t / jobs[0].t[i]);
  const row = { stream: s.name };
  for (const k of [1, 2]) row[jobs[k].name] = { m: quantile(ratios(k), 0.5), lo: quantile(ratios(k), 0.25), hi: quantile(ratios(k), 0.75) };
  log(`chunk sizes ${s.name}: ${jobs.map((j) => `${j.name} ${quantile(j.t, 0.5).toFixed(2)} ms`).join(", ")}; whole ÷ 64B–4KB ×${row.whole.m.toFixed(2)}`);
  chunkPairs.push(row);
}
const fixtureResults = [];
for (const s of QUICK ? fixtures().slice(0, 4) : fixtures()) {
  const chunks = CHUNKINGS["64B–4KB"](s.bytes);
  const rows = await cell(s, "64B–4KB", chunks, contenders, shuffleRng);
  log(`fixture ${s.name}: ${rows.map((r) => `${r.name.split(" ")[0]} ${r.error ? "✗" : `×${r.ratio.toFixed(2)}`}`).join(", ")}`);
  fixtureResults.push({ stream: s, rows });
}
const more = SKIP_EXTRA ? null : await extra({ quick: QUICK, gc, log });
const hostileLines = SKIP_HOSTILE ? null : hostile({ quick: QUICK, log });
const bedrockLines = await bedrock({ quick: QUICK, gc, log });

// ---- report ---------------------------------------------------------------------------------
const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : "–");
const lines = [];
lines.push(`# Benchmark results${QUICK ? " (quick run: few rounds, not for quoting)" : ""}`, "");
lines.push(`Generated by \`make bench${QUICK ? " BENCH_ARGS=--quick" : ""}\` (bench/run.mjs) on ${started.toISOString()}.`);
lines.push(`Machine: ${os.cpus()[0]?.model ?? "?"} × ${os.cpus().length}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.type()} ${os.release()}; Node ${process.version} (V8 ${process.versions.v8}).`);
const pkgs = JSON.parse(readFileSync(here("./package.json"), "utf8")).dependencies;
lines.push(`Peers: ${Object.entries(pkgs).map(([k, v]) => `${k} ${v}`).join(", ")}. llm-wire: ../pkg and its stream entry ../pkg/stream, built from this tree (release).`);
lines.push(`Method: ${ROUNDS} rounds after ${WARMUP} warm-up runs; contenders shuffled in every round; GC before each run; ` +
  `**ratio** = contender time ÷ baseline time in the same round, median and [p25–p75]; ms is the median time of one whole stream; ` +
  `MB/s and µs/event derive from it. The machine is shared: read the ratios, not the absolute times. ` +
  `Baseline = TextDecoder + eventsource-parser + JSON.parse + string concatenation + tool calls assembled by index.`, "");
lines.push("## Generated streams (fixed seed)", "");
for (const s of generated) {
  lines.push(`- **${s.name}**: ${(s.bytes.length / 1e6).toFixed(2)} MB, ${s.events} events; text ${s.expected.text.length} chars, reasoning ${s.expected.reasoning.length}, ` +
    `tool calls ${s.expected.toolCalls.length} (${s.expected.toolCalls.map((c) => c.arguments.length).join("+") || 0} B of arguments)`);
}
lines.push("", "| stream | chunks | contender | ms | MB/s | µs/event | ratio to baseline [p25–p75] |", "|---|---|---|---:|---:|---:|---|");
for (const r of results) {
  for (const row of r.rows) {
    const where = `${r.stream.name} | ${r.chunking} (${r.chunks})`;
    if (row.error) lines.push(`| ${where} | ${row.name} | – | – | – | ${row.error} |`);
    else lines.push(`| ${where} | ${row.name} | ${f2(row.ms)} | ${row.mbps.toFixed(0)} | ${f2(row.usPerEvent)} | **${f2(row.ratio)}** [${f2(row.ratioP25)}–${f2(row.ratioP75)}] |`);
  }
}
// Targets of issue 8 that the table shows.
lines.push("", "## Targets (issue 8)", "");
const find = (stream, chunking, name) => results.find((r) => r.stream.name === stream && r.chunking === chunking)?.rows.find((x) => x.name === name);
const LW = "llm-wire Accumulator";
lines.push("The chunk-size columns are paired too: llm-wire against itself, the three chunkings of a stream in the same shuffled rounds.", "");
lines.push("| stream | llm-wire ÷ baseline, 64B–4KB (target ≤ 0.50) | llm-wire whole body ÷ own 64B–4KB (target ≤ 1.20) | 16–64KB ÷ own 64B–4KB |", "|---|---|---|---|");
for (const s of generated) {
  const a = find(s.name, "64B–4KB", LW);
  if (!a || a.error) { lines.push(`| ${s.name} | ${a?.error ?? "not run"} | | |`); continue; }
  const ok = (x, lim) => `**${f2(x)}** ${x <= lim ? "✓" : "✗"}`;
  const p = chunkPairs.find((c) => c.stream === s.name);
  const cell = (k, lim) => (p ? `${lim ? ok(p[k].m, lim) : f2(p[k].m)} [${f2(p[k].lo)}–${f2(p[k].hi)}]` : "–");
  lines.push(`| ${s.name} | ${ok(a.ratio, 0.5)} [${f2(a.ratioP25)}–${f2(a.ratioP75)}] | ${cell("whole", 1.2)} | ${cell("16–64KB")} |`);
}
lines.push("", "## Real fixtures (tests/fixtures, 64B–4KB chunks; checked on the keys their expect.json gives: text, toolCalls)", "");
const names = contenders.map((c) => c.name);
lines.push(`| fixture | KB | events | ${names.join(" | ")} |`, `|---|---:|---:|${names.map(() => "---").join("|")}|`);
for (const fx of fixtureResults) {
  const cells = names.map((n) => {
    const row = fx.rows.find((r) => r.name === n);
    if (!row) return "n/a";
    if (row.error) return `✗ ${row.error.slice(0, 60)}`;
    return n === BASELINE || !Number.isFinite(row.ratio) ? `${f2(row.ms * 1e3 / fx.stream.events)} µs/ev` : `×${f2(row.ratio)}`;
  });
  lines.push(`| ${fx.stream.name} | ${(fx.stream.bytes.length / 1e3).toFixed(1)} | ${fx.stream.events} | ${cells.join(" | ")} |`);
}
lines.push("", "Baseline column: its median µs per event; other columns: median paired ratio to the baseline. ✗: the contender's result differs from the fixture's expected one (or it failed), so it was not timed.");
if (more) lines.push("", ...more);
if (hostileLines) lines.push("", ...hostileLines);
lines.push("", ...bedrockLines);
writeFileSync(OUT, lines.join("\n") + "\n");
log(`wrote ${OUT}`);

// A Bedrock ConverseStream (AWS event-stream frames): llm-wire against a minimal JS baseline
// (AWS's own @smithy/eventstream-codec to split and check the frames, TextDecoder + JSON.parse,
// concatenation) and the AWS SDK's ConverseStream (@aws-sdk/client-bedrock-runtime, its HTTP
// handler replaced by one that answers with the chunks). Paired rounds, as in run.mjs: each
// contender's time ÷ the baseline's in the same round. Run alone (`node bench/bedrock.mjs
// [--quick]`) or from run.mjs, which adds its table to RESULTS.md.

import { Readable } from "node:stream";
import vm from "node:vm";
import v8 from "node:v8";
import { fileURLToPath } from "node:url";
import { EventStreamCodec } from "@smithy/eventstream-codec";
import { BedrockRuntimeClient, ConverseStreamCommand } from "@aws-sdk/client-bedrock-runtime";
import { Accumulator } from "../pkg/node.mjs";
import { Accumulator as StreamAccumulator } from "../pkg/stream/node.mjs";
import { rng, CHUNKINGS } from "./gen.mjs";

const toUtf8 = (bytes) => new TextDecoder().decode(bytes);
const fromUtf8 = (text) => new TextEncoder().encode(text);
const codec = new EventStreamCodec(toUtf8, fromUtf8);
const WORDS = ["the", " river", " runs", " past", " old", " stone", " walls", ",", " and", " a", " café", " 🌊", "\n", " quietly", " \"here\""];

/** A Claude-like ConverseStream: reasoning deltas and a signature, text deltas, one tool call
 * whose input streams in fragments, then `messageStop` and `metadata`; every payload padded
 * with `p` as Bedrock pads it. */
export function converseStream({ seed = 7, reasoning = 1500, text = 2500, frags = 300 } = {}) {
  const r = rng(seed);
  const frames = [];
  const frame = (type, payload) => {
    payload.p = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".slice(0, 2 + Math.floor(r() * 60));
    frames.push(codec.encode({
      headers: {
        ":event-type": { type: "string", value: type },
        ":content-type": { type: "string", value: "application/json" },
        ":message-type": { type: "string", value: "event" },
      },
      body: fromUtf8(JSON.stringify(payload)),
    }));
  };
  const words = (n) => Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)]).join("");
  const expected = { text: "", reasoning: "", toolCalls: [] };
  frame("messageStart", { role: "assistant" });
  for (let i = 0; i < reasoning; i++) {
    const t = words(1 + Math.floor(r() * 6));
    expected.reasoning += t;
    frame("contentBlockDelta", { contentBlockIndex: 0, delta: { reasoningContent: { text: t } } });
  }
  frame("contentBlockDelta", { contentBlockIndex: 0, delta: { reasoningContent: { signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds" } } });
  frame("contentBlockStop", { contentBlockIndex: 0 });
  for (let i = 0; i < text; i++) {
    const t = words(1 + Math.floor(r() * 6));
    expected.text += t;
    frame("contentBlockDelta", { contentBlockIndex: 1, delta: { text: t } });
  }
  frame("contentBlockStop", { contentBlockIndex: 1 });
  frame("contentBlockStart", { contentBlockIndex: 2, start: { toolUse: { toolUseId: "tooluse_bench", name: "lookup" } } });
  const args = JSON.stringify({ query: words(frags * 3), limit: 10 });
  const step = Math.ceil(args.length / frags);
  for (let i = 0; i < args.length; i += step) frame("contentBlockDelta", { contentBlockIndex: 2, delta: { toolUse: { input: args.slice(i, i + step) } } });
  frame("contentBlockStop", { contentBlockIndex: 2 });
  expected.toolCalls.push({ id: "tooluse_bench", name: "lookup", arguments: args });
  frame("messageStop", { stopReason: "tool_use" });
  frame("metadata", { usage: { inputTokens: 120, outputTokens: 4000, totalTokens: 4120 }, metrics: { latencyMs: 900 } });
  const bytes = new Uint8Array(frames.reduce((n, f) => n + f.length, 0));
  let at = 0;
  for (const f of frames) { bytes.set(f, at); at += f.length; }
  return { name: "Bedrock reasoning + text + tool", bytes, events: frames.length, expected };
}

// ---- the contenders -------------------------------------------------------------------------
const llmWireOf = (name, Acc) => ({
  name,
  make: () => (chunks) => {
    const acc = new Acc({ format: "bedrock" });
    for (const c of chunks) acc.push(c);
    const m = acc.finish();
    acc.free();
    if (m.error) throw new Error(m.error.message);
    return { text: m.text, reasoning: m.reasoning, toolCalls: m.toolCalls };
  },
});

/** The minimal baseline: frames split by their length prefix, decoded (CRCs checked) by AWS's
 * codec, payloads by TextDecoder + JSON.parse, text concatenated, tool input by block index. */
const baseline = {
  name: "baseline (@smithy/eventstream-codec + JSON.parse)",
  make: () => (chunks) => {
    const dec = new TextDecoder();
    const out = { text: "", reasoning: "", toolCalls: [] };
    const calls = new Map();
    let held = new Uint8Array(0);
    for (const chunk of chunks) {
      let buf = held.length ? concat(held, chunk) : chunk;
      let at = 0;
      while (buf.length - at >= 4) {
        const total = new DataView(buf.buffer, buf.byteOffset + at, 4).getUint32(0);
        if (buf.length - at < total) break;
        const message = codec.decode(buf.subarray(at, at + total));
        at += total;
        const type = message.headers[":event-type"]?.value;
        const e = JSON.parse(dec.decode(message.body));
        if (type === "contentBlockDelta") {
          const d = e.delta;
          if (d.text !== undefined) out.text += d.text;
          else if (d.reasoningContent?.text !== undefined) out.reasoning += d.reasoningContent.text;
          else if (d.toolUse) calls.get(e.contentBlockIndex).arguments += d.toolUse.input;
        } else if (type === "contentBlockStart" && e.start.toolUse) {
          const call = { id: e.start.toolUse.toolUseId, name: e.start.toolUse.name, arguments: "" };
          calls.set(e.contentBlockIndex, call);
          out.toolCalls.push(call);
        }
      }
      held = buf.subarray(at);
    }
    return out;
  },
};

function concat(a, b) {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** The AWS SDK's own ConverseStream, its HTTP handler answering with the chunks. */
const awsSdk = {
  name: "@aws-sdk/client-bedrock-runtime ConverseStream",
  make: () => {
    const current = {};
    const client = new BedrockRuntimeClient({
      region: "us-east-1",
      credentials: { accessKeyId: "AKIDBENCH", secretAccessKey: "bench" },
      maxAttempts: 1,
      requestHandler: {
        handle: async () => ({
          response: {
            statusCode: 200,
            headers: { "content-type": "application/vnd.amazon.eventstream" },
            body: Readable.from(current.chunks),
          },
        }),
        updateHttpClientConfig() {},
        httpHandlerConfigs: () => ({}),
      },
    });
    return async (chunks) => {
      current.chunks = chunks;
      const response = await client.send(new ConverseStreamCommand({ modelId: "bench", messages: [{ role: "user", content: [{ text: "hi" }] }] }));
      const out = { text: "", reasoning: "", toolCalls: [] };
      const calls = new Map();
      for await (const e of response.stream) {
        if (e.contentBlockDelta) {
          const d = e.contentBlockDelta.delta;
          if (d.text !== undefined) out.text += d.text;
          else if (d.reasoningContent?.text !== undefined) out.reasoning += d.reasoningContent.text;
          else if (d.toolUse) calls.get(e.contentBlockDelta.contentBlockIndex).arguments += d.toolUse.input;
        } else if (e.contentBlockStart?.start?.toolUse) {
          const t = e.contentBlockStart.start.toolUse;
          const call = { id: t.toolUseId, name: t.name, arguments: "" };
          calls.set(e.contentBlockStart.contentBlockIndex, call);
          out.toolCalls.push(call);
        }
      }
      return out;
    };
  },
};

const CONTENDERS = [baseline, llmWireOf("llm-wire Accumulator", Accumulator), llmWireOf("llm-wire/stream Accumulator", StreamAccumulator), awsSdk];

// ---- measuring --------------------------------------------------------------------------------
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  const p = (s.length - 1) * q, lo = Math.floor(p), hi = Math.ceil(p);
  return s[lo] + (s[hi] - s[lo]) * (p - lo);
};
const same = (got, exp) => got.text === exp.text && got.reasoning === exp.reasoning &&
  JSON.stringify(got.toolCalls.map((c) => [c.id, c.name, c.arguments])) === JSON.stringify(exp.toolCalls.map((c) => [c.id, c.name, c.arguments]));

/** The Bedrock section of RESULTS.md, as lines. */
export async function bedrock({ quick = false, gc, log = console.error } = {}) {
  const rounds = quick ? 5 : 15, warmup = quick ? 2 : 4;
  const s = converseStream();
  const shuffleRng = rng(99);
  const lines = ["## Bedrock ConverseStream (AWS event-stream frames)", "",
    `**${s.name}**: ${(s.bytes.length / 1e6).toFixed(2)} MB, ${s.events} frames. ${rounds} rounds after ${warmup} warm-up runs, ` +
    "shuffled, GC before each run; ratio = time ÷ the baseline's in the same round, median [p25–p75]. " +
    `Baseline = ${baseline.name} + concatenation + tool input by block index.`, "",
    "| chunks | contender | ms | ratio to baseline [p25–p75] |", "|---|---|---:|---|"];
  for (const [cname, cut] of Object.entries(CHUNKINGS)) {
    const chunks = cut(s.bytes);
    const entries = [];
    for (const c of CONTENDERS) {
      const run = c.make();
      const e = { name: c.name, run, times: [], ratios: [], error: null };
      try {
        if (!same(await run(chunks.map((x) => x.slice())), s.expected)) e.error = "result differs";
      } catch (err) {
        e.error = `failed: ${String(err?.message ?? err).split("\n")[0].slice(0, 120)}`;
      }
      entries.push(e);
    }
    const live = entries.filter((e) => !e.error);
    const base = live.find((e) => e.name === baseline.name);
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
      log(`bedrock / ${cname}: ${e.name.padEnd(48)} ${row}`);
    }
  }
  return lines;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc");
  console.log((await bedrock({ quick: process.argv.includes("--quick"), gc })).join("\n"));
}

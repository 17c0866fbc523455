// A Bedrock ConverseStream (AWS event-stream frames): llm-wire against a minimal JS baseline
// (AWS's own @smithy/eventstream-codec to split and check the frames, TextDecoder + JSON.parse,
// concatenation) and the AWS SDK's ConverseStream (@aws-sdk/client-bedrock-runtime, its HTTP
// handler replaced by one that answers with the chunks). Paired rounds, as in run.mjs: each
// contender's time ÷ the baseline's in the same round. Run alone (`node bench/bedrock.mjs
// [--quick]`) or from run.mjs, which adds its table to RESULTS.md.

import { Readable } from "node:stream";
import { EventStreamCodec } from "@smithy/eventstream-codec";
import { BedrockRuntimeClient, ConverseStreamCommand } from "@aws-sdk/client-bedrock-runtime";
import { rng } from "./gen.mjs";
import { llmWire, pairedSection, runAlone } from "./paired.mjs";

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
  // Cut between code points, as a model's tokens are: each fragment is valid UTF-8.
  const points = Array.from(args);
  const step = Math.ceil(points.length / frags);
  for (let i = 0; i < points.length; i += step) {
    frame("contentBlockDelta", { contentBlockIndex: 2, delta: { toolUse: { input: points.slice(i, i + step).join("") } } });
  }
  frame("contentBlockStop", { contentBlockIndex: 2 });
  expected.toolCalls.push({ id: "tooluse_bench", name: "lookup", arguments: args });
  frame("messageStop", { stopReason: "tool_use" });
  frame("metadata", { usage: { inputTokens: 120, outputTokens: 4000, totalTokens: 4120 }, metrics: { latencyMs: 900 } });
  const bytes = new Uint8Array(frames.reduce((n, f) => n + f.length, 0));
  let at = 0;
  for (const f of frames) { bytes.set(f, at); at += f.length; }
  return { name: "Bedrock reasoning + text + tool", bytes, events: frames.length, expected };
}

/** The minimal baseline: frames split by their length prefix, decoded (CRCs checked) by AWS's
 * codec, payloads by TextDecoder + JSON.parse, text concatenated, tool input by block index. */
const baseline = {
  name: "baseline (@smithy/eventstream-codec + JSON.parse + concatenation)",
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

const CONTENDERS = [baseline, ...llmWire("bedrock"), awsSdk];

/** The Bedrock section of RESULTS.md, as lines. */
export const bedrock = (options = {}) => pairedSection("## Bedrock ConverseStream (AWS event-stream frames)", converseStream(), CONTENDERS, options);

runAlone(import.meta.url, bedrock);

// Streams generated with a fixed seed, byte for byte as the providers send them, with the final
// result each contender must reach (text, reasoning, tool calls).

export function rng(seed) {
  // mulberry32: small, fast, reproducible.
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const int = (r, lo, hi) => lo + Math.floor(r() * (hi - lo + 1));
const pick = (r, xs) => xs[Math.floor(r() * xs.length)];

// Tokens: mostly ASCII words, some multi-byte (accents, CJK, emoji), some characters JSON escapes.
const WORDS = ["the", " model", " stream", " of", " bytes", " and", " a", " token", ",", ".", " is",
  " to", " with", " JSON", " event", " data", " in", " for", " we", " it", "\n", " parse", " wire"];
const MULTI = [" café", " naïve", " 日本語", " über", " 🙂", " déjà", " Ωμέγα", " 中文", " ✓", " Привет"];
const ESCAPED = [' "quoted"', " back\\slash", "\ttab", " </tag>"];
function token(r) {
  const x = r();
  if (x < 0.08) return pick(r, MULTI);
  if (x < 0.1) return pick(r, ESCAPED);
  return pick(r, WORDS);
}
function tokens(r, lo, hi) {
  let s = "";
  for (let i = int(r, lo, hi); i > 0; i--) s += token(r);
  return s;
}

const enc = new TextEncoder();
const sse = (obj) => `data: ${JSON.stringify(obj)}\n\n`;
const named = (type, obj) => `event: ${type}\ndata: ${JSON.stringify(obj)}\n\n`;

// OpenAI pads every chunk with a random `obfuscation` string of varying length (see the recorded
// fixtures); its own generator, reset by each stream, so the streams' texts do not depend on it.
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
let padRng = rng(0);
function obfuscation() {
  let s = "";
  for (let n = int(padRng, 1, 16); n > 0; n--) s += ALNUM[Math.floor(padRng() * ALNUM.length)];
  return s;
}
function chatChunk(id, delta, finish = null, extra = {}) {
  return {
    id, object: "chat.completion.chunk", created: 1754693439, model: "gpt-4o-2024-08-06",
    service_tier: "default", system_fingerprint: "fp_07871e2ad8", usage: null,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], obfuscation: obfuscation(), ...extra,
  };
}
const USAGE = { prompt_tokens: 120, completion_tokens: 9000, total_tokens: 9120 };
function chatTail(id, finish) {
  return sse(chatChunk(id, {}, finish)) +
    sse({ id, object: "chat.completion.chunk", created: 1754693439, model: "gpt-4o-2024-08-06", choices: [], usage: USAGE }) +
    "data: [DONE]\n\n";
}

/** OpenAI chat, `deltas` text deltas of 1–8 tokens. */
export function openaiText({ seed = 1, deltas = 5000 } = {}) {
  const r = rng(seed);
  padRng = rng(seed + 7919);
  const id = "chatcmpl-bench-text";
  let body = sse(chatChunk(id, { role: "assistant", content: "", refusal: null }));
  let text = "";
  for (let i = 0; i < deltas; i++) {
    const t = tokens(r, 1, 8);
    text += t;
    body += sse(chatChunk(id, { content: t }));
  }
  body += chatTail(id, "stop");
  return { name: `openai-text`, format: "openai", bytes: enc.encode(body), events: deltas + 4,
    expected: { text, reasoning: "", toolCalls: [] } };
}

/** A JSON object serialised to about `size` bytes, with nested values and escapes. */
function argsObject(r, size) {
  const obj = { query: tokens(r, 3, 10), limit: int(r, 1, 100), filters: { lang: "fr", exact: true }, items: [] };
  let s = JSON.stringify(obj);
  while (s.length < size) {
    obj.items.push({ title: tokens(r, 2, 12), score: Math.round(r() * 1000) / 1000, tags: [tokens(r, 1, 2), tokens(r, 1, 2)] });
    s = JSON.stringify(obj);
  }
  return s;
}
/** Splits a string into `n` fragments (on code points) of random sizes. */
function fragments(r, s, n) {
  const cps = Array.from(s);
  const cuts = new Set();
  while (cuts.size < Math.min(n - 1, cps.length - 1)) cuts.add(int(r, 1, cps.length - 1));
  const sorted = [0, ...[...cuts].sort((a, b) => a - b), cps.length];
  const out = [];
  for (let i = 1; i < sorted.length; i++) out.push(cps.slice(sorted[i - 1], sorted[i]).join(""));
  return out;
}

/** OpenAI chat, parallel tool calls: `calls` calls sharing `fragments` argument fragments. */
export function openaiTools({ seed = 2, calls = 3, frags = 2000, argBytes = 4000, name = "openai-tools" } = {}) {
  const r = rng(seed);
  padRng = rng(seed + 7919);
  const id = "chatcmpl-bench-tools";
  let body = sse(chatChunk(id, { role: "assistant", content: null }));
  const toolCalls = [];
  const per = Math.floor(frags / calls);
  for (let i = 0; i < calls; i++) {
    const args = argsObject(r, argBytes);
    const call = { id: `call_${i}_bench${seed}abcdef`, name: ["get_weather", "search_docs", "lookup_order"][i % 3], arguments: args };
    toolCalls.push(call);
    body += sse(chatChunk(id, { tool_calls: [{ index: i, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }));
    for (const f of fragments(r, args, per)) body += sse(chatChunk(id, { tool_calls: [{ index: i, function: { arguments: f } }] }));
  }
  body += chatTail(id, "tool_calls");
  return { name, format: "openai", bytes: enc.encode(body), events: frags + calls + 4,
    expected: { text: "", reasoning: "", toolCalls } };
}

/** Anthropic Messages: a thinking block, a text block and a tool_use block. */
export function anthropic({ seed = 3, thinking = 1500, text = 2500, frags = 500, argBytes = 3000 } = {}) {
  const r = rng(seed);
  let body = named("message_start", { type: "message_start", message: { model: "claude-sonnet-4-5-20250929", id: "msg_bench",
    type: "message", role: "assistant", content: [], stop_reason: null, stop_sequence: null,
    usage: { input_tokens: 69, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 2, service_tier: "standard" } } });
  let events = 1;
  const delta = (index, d) => { events++; return named("content_block_delta", { type: "content_block_delta", index, delta: d }); };
  body += named("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } });
  body += named("ping", { type: "ping" });
  let reasoning = "";
  for (let i = 0; i < thinking; i++) { const t = tokens(r, 1, 8); reasoning += t; body += delta(0, { type: "thinking_delta", thinking: t }); }
  body += delta(0, { type: "signature_delta", signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds" });
  body += named("content_block_stop", { type: "content_block_stop", index: 0 });
  body += named("content_block_start", { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } });
  let out = "";
  for (let i = 0; i < text; i++) { const t = tokens(r, 1, 8); out += t; body += delta(1, { type: "text_delta", text: t }); }
  body += named("content_block_stop", { type: "content_block_stop", index: 1 });
  const call = { id: "toolu_01BenchABCDEFGHIJKLMNOP", name: "search_docs", arguments: argsObject(r, argBytes) };
  body += named("content_block_start", { type: "content_block_start", index: 2, content_block: { type: "tool_use", id: call.id, name: call.name, input: {} } });
  for (const f of fragments(r, call.arguments, frags)) body += delta(2, { type: "input_json_delta", partial_json: f });
  body += named("content_block_stop", { type: "content_block_stop", index: 2 });
  body += named("message_delta", { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 9000 } });
  body += named("message_stop", { type: "message_stop" });
  events += 8;
  return { name: "anthropic", format: "anthropic", bytes: enc.encode(body), events,
    expected: { text: out, reasoning, toolCalls: [call] } };
}

/** A stream of about `bytes` bytes: OpenAI text whose delta count is scaled to fit. */
export function openaiTextOfSize(bytes, seed = 7) {
  const probe = openaiText({ seed, deltas: 1000 });
  const perDelta = probe.bytes.length / 1000;
  return openaiText({ seed, deltas: Math.max(1, Math.round(bytes / perDelta)) });
}

// ---- chunkings ------------------------------------------------------------------------------

export const CHUNKINGS = {
  "64B–4KB": (bytes, seed = 11) => split(bytes, rng(seed), 64, 4096),
  "16–64KB": (bytes, seed = 12) => split(bytes, rng(seed), 16384, 65536),
  "whole": (bytes) => [bytes],
};
function split(bytes, r, lo, hi) {
  const out = [];
  for (let i = 0; i < bytes.length;) {
    const n = Math.min(int(r, lo, hi), bytes.length - i);
    out.push(bytes.slice(i, i + n)); // own copies, like network buffers
    i += n;
  }
  return out;
}

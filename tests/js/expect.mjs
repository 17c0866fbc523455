// The `.expect.json` rules of tests/fixtures/README.md, on a final message as JS sees it, and
// the fixture list shared by the Node suites.
import { readdirSync, readFileSync, existsSync } from "node:fs";
import assert from "node:assert/strict";
import { rng } from "../../bench/gen.mjs";

export const FIXTURES = new URL("../fixtures/", import.meta.url);

/** Directory → stream format, for every directory of streamed fixtures. */
export const STREAM_DIRS = {
  "openai-chat": "openai-chat", "azure-openai": "openai-chat", deepseek: "openai-chat", groq: "openai-chat",
  mistral: "openai-chat", minimax: "openai-chat", ollama: "openai-chat", openrouter: "openai-chat",
  anthropic: "anthropic", "openai-responses": "openai-responses",
};

/** Every `.sse` fixture: {name, format, body, expect?}. */
export function streamFixtures() {
  const out = [];
  for (const [dir, format] of Object.entries(STREAM_DIRS)) {
    for (const file of readdirSync(new URL(`${dir}/`, FIXTURES)).filter((f) => f.endsWith(".sse")).sort()) {
      const stem = new URL(`${dir}/${file.slice(0, -4)}`, FIXTURES);
      const expectPath = new URL(`${stem}.expect.json`);
      out.push({
        name: `${dir}/${file}`,
        format,
        body: new Uint8Array(readFileSync(new URL(`${stem}.sse`))),
        expect: existsSync(expectPath) ? JSON.parse(readFileSync(expectPath, "utf8")) : undefined,
      });
    }
  }
  return out;
}

const parse = (s) => { try { return JSON.parse(s); } catch { return Symbol("invalid"); } };

export function checkExpect(message, expect, name) {
  for (const [key, want] of Object.entries(expect)) {
    const at = `${name}: ${key}`;
    switch (key) {
      case "_source": case "_note": break;
      case "text": case "reasoning": case "rawFinishReason":
        assert.equal(message[key], want, at); break;
      case "toolCalls":
        assert.equal(message.toolCalls.length, want.length, at);
        want.forEach((w, i) => {
          // An id is checked where the source asserted one (Gemini invents most).
          if ("id" in w) assert.equal(message.toolCalls[i].id, w.id, at);
          assert.equal(message.toolCalls[i].name, w.name, at);
          assert.deepEqual(parse(message.toolCalls[i].arguments), parse(w.arguments), at);
        });
        break;
      case "usage":
        for (const [field, value] of Object.entries(want)) assert.equal(message.usage[field], value, `${at}.${field}`);
        break;
      case "error":
        assert.equal(message.error.message, want.message, at);
        if ("code" in want) assert.equal(String(message.error.code), String(want.code), at);
        break;
      case "reasoningSignatures": case "redactedReasoning": {
        const field = key === "reasoningSignatures" ? "signature" : "redacted";
        const got = message.content.filter((b) => b.type === "reasoning" && b[field] != null).map((b) => b[field]);
        assert.deepEqual(got, want, at); break;
      }
      case "thoughtSignatures": {
        // Gemini's signatures in wire order, on whichever blocks carry them.
        const got = message.content.filter((b) => b.signature != null).map((b) => b.signature);
        assert.deepEqual(got, want, at); break;
      }
      case "textContains": for (const s of want) assert.ok(message.text.includes(s), `${at} ${s}`); break;
      case "textNotContains": for (const s of want) assert.ok(!message.text.includes(s), `${at} ${s}`); break;
      case "reasoningContains": for (const s of want) assert.ok(message.reasoning.includes(s), `${at} ${s}`); break;
      case "reasoningNonEmpty": assert.equal(message.reasoning.length > 0, want, at); break;
      default: assert.fail(`${name}: the checker does not know the expect key ${key}`);
    }
  }
}

/** A seeded generator (the benchmark's mulberry32), so a failing split can be replayed. */
export { rng };

/** `body` cut into 1 to 64 random pieces by split number `seed`. */
export function randomPieces(body, seed) {
  const next = rng(seed);
  const cuts = Array.from({ length: Math.floor(next() * 64) }, () => Math.floor(next() * (body.length + 1))).sort((a, b) => a - b);
  const pieces = [];
  let start = 0;
  for (const cut of cuts) { pieces.push(body.subarray(start, cut)); start = cut; }
  pieces.push(body.subarray(start));
  return pieces;
}

/** `body` as a response body stream of `size`-byte chunks. */
export function chunkedStream(body, size) {
  return new ReadableStream({
    start(controller) {
      for (let i = 0; i < body.length; i += size) controller.enqueue(body.slice(i, i + size));
      controller.close();
    },
  });
}

/** `pieces` pushed into a new `Accumulator` of `format`: its events, its detected format (read
 * before `finish`) and its message. */
export function runPieces(Accumulator, pieces, format = "auto") {
  const acc = new Accumulator({ format });
  const events = [];
  for (const piece of pieces) events.push(...acc.push(piece));
  events.push(...acc.flush());
  const detected = acc.format;
  const message = acc.finish();
  acc.free();
  return { message, events, format: detected };
}

// One module instance against 100,000 hostile calls in a row — malformed JSON, wrong types,
// lone surrogates, huge numbers, deep nesting, null and undefined everywhere — then the same
// instance must still give correct results. A panic would kill the instance (every later call
// would throw `RuntimeError: unreachable`), so surviving is checked by the calls after.
// Also: `__proto__`, `constructor` and `prototype` keys in model-supplied JSON never reach a
// prototype.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as wire from "../../pkg/node.mjs";
import { rng } from "./expect.mjs";

const deep = (n) => { let v = {}; for (let i = 0; i < n; i++) v = { a: v }; return v; };
const deepJson = (n) => "[".repeat(n) + "]".repeat(n);
const HOSTILE_VALUES = [
  undefined, null, 0, -1, NaN, Infinity, 1e308, 2 ** 53 + 1, "", "\ud800", "a\udfffb", "\u0000", "x".repeat(10000),
  [], {}, [null], { model: null }, { model: { id: 5 } }, { model: { id: "m" }, tools: [{}] }, { model: { id: "m" }, tools: "x" },
  { model: { id: "m", provider: "anthropic" }, outputs: [{ name: "a", kind: "nope" }] }, deep(500), [[[[[[]]]]]],
  { __proto__: { polluted: true } }, Object.create(null), new Uint8Array(3), true, Symbol.iterator, () => 1,
];
const HOSTILE_TEXT = [
  "{", "}", "[", "null", "[]", "{\"choices\":5}", "{\"choices\":[{\"delta\":{\"content\":7}}]}", "{\"error\":{}}", "1e999999",
  "{\"usage\":{\"prompt_tokens\":1e400}}", deepJson(5000), "\"\\ud800\"", "{\"a\":\"\\udfff\"}", "data: {\n\n", "\r\r\r\n\n",
  "data: " + "{\"a\":".repeat(300) + "1" + "}".repeat(300) + "\n\n", "\ufeff\ufeffdata: x\n\n", "event: error\ndata: {]\n\n",
  "event: message_start\ndata: {\"type\":\"message_start\",\"message\":null}\n\n", "data: {\"type\":\"response.output_item.done\",\"item\":7}\n\n",
  "data: {\"type\":\"content_block_delta\",\"index\":-1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":5}}\n\n",
];

function attempt(fn) {
  try {
    fn();
  } catch (err) {
    // Every failure is an ordinary Error with a code — a wasm trap (RuntimeError) would not be.
    assert.ok(!(err instanceof WebAssembly.RuntimeError), `a trap: ${err}`);
    if (!(err instanceof Error) || typeof err.code !== "string") assert.fail(`an error without a code: ${err}`);
  }
}

test("one instance survives 100,000 hostile calls and still gives correct results", () => {
  const next = rng(7);
  const pick = (list) => list[Math.floor(next() * list.length)];
  let acc = new wire.Accumulator();
  for (let i = 0; i < 100000; i++) {
    switch (i % 9) {
      case 0: attempt(() => acc.push(pick(HOSTILE_TEXT))); break;
      case 1: attempt(() => acc.push(pick(HOSTILE_VALUES))); break;
      case 2: attempt(() => new wire.Accumulator(pick(HOSTILE_VALUES)).free()); break;
      case 3: attempt(() => wire.buildChatArgs(pick(HOSTILE_VALUES), pick(HOSTILE_VALUES))); break;
      case 4: attempt(() => wire.process(pick(HOSTILE_VALUES), pick([...HOSTILE_TEXT, ...HOSTILE_VALUES]))); break;
      case 5: attempt(() => wire.parseToolArguments(pick(HOSTILE_VALUES))); break;
      case 6: attempt(() => wire.parseStructuredOutput(pick(HOSTILE_TEXT), pick(HOSTILE_VALUES))); break;
      case 7: attempt(() => wire.toMessage(pick([...HOSTILE_TEXT, ...HOSTILE_VALUES]), pick(HOSTILE_VALUES))); break;
      case 8:
        attempt(() => acc.abort(pick([...HOSTILE_TEXT, ...HOSTILE_VALUES])));
        attempt(() => wire.registerTool(pick(HOSTILE_VALUES), pick(HOSTILE_VALUES)));
        attempt(() => acc.finish());
        attempt(() => acc.result());
        acc.free();
        attempt(() => acc.push(pick(HOSTILE_TEXT)));
        acc = new wire.Accumulator({ format: pick(["auto", "openai-chat", "anthropic", "openai-responses"]) });
        break;
    }
  }
  acc.free();
  // The same instance, afterwards: a real stream, a request body, a processed body.
  const body = new Uint8Array(readFileSync(new URL("../fixtures/anthropic/vercel-thinking-signature-text.sse", import.meta.url)));
  const fresh = new wire.Accumulator();
  fresh.push(body);
  const message = fresh.finish();
  assert.equal(message.text, "925 ÷ 5 = 185");
  assert.equal(message.complete, true);
  assert.deepEqual(wire.buildChatArgs({ model: { id: "m" } }, [{ role: "user", content: "hi" }]), { model: "m", messages: [{ role: "user", content: "hi" }] });
  assert.equal(wire.process({ model: { id: "m" } }, '{"choices":[{"message":{"content":"ok"}}]}'), "ok");
});

test("__proto__, constructor and prototype keys in model output never touch a prototype", () => {
  const evil = '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":2}},"prototype":{"polluted":3}}';
  const [action] = wire.parseToolArguments([{ id: "c", name: "f", arguments: evil }]);
  assert.ok(Object.hasOwn(action.arguments, "__proto__"), "kept as an own key");
  assert.equal(Object.getPrototypeOf(action.arguments), Object.prototype);
  const structured = wire.parseStructuredOutput('{"__proto__":{"polluted":1},"a":"x"}', [{ name: "a", kind: "string" }, { name: "__proto__", kind: "object" }]);
  assert.equal(Object.getPrototypeOf(structured), Object.prototype);
  const acc = new wire.Accumulator();
  acc.push(`data: {"choices":[{"delta":{"content":"x"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"__proto__":{"polluted":4}}}\n\n`);
  const message = acc.finish();
  assert.ok(Object.hasOwn(message.usage.raw, "__proto__"));
  const processed = wire.process({ model: { id: "m" }, outputs: [{ name: "a", kind: "string" }] }, { choices: [{ message: { content: evil } }] });
  assert.equal(Object.getPrototypeOf(processed), Object.prototype);
  assert.equal({}.polluted, undefined, "Object.prototype is untouched");
  assert.equal(Object.prototype.polluted, undefined);
});

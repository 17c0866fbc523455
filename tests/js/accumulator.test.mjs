// The built npm package (pkg/) in Node: every recorded stream through `Accumulator`, the
// errors JS sees, and the shape of what comes back.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Accumulator, AccumulatorStream, buildChatArgs, streamEvents } from "../../pkg/node.mjs";
import * as streamEntry from "../../pkg/stream/node.mjs";
import { checkExpect, randomPieces, streamFixtures } from "./expect.mjs";

function run(pieces, format = "auto") {
  const acc = new Accumulator({ format });
  const events = [];
  for (const piece of pieces) events.push(...acc.push(piece));
  events.push(...acc.flush());
  return { message: acc.finish(), events };
}

const concat = (events, type, field) => events.filter((e) => e.type === type && !e.choice).map((e) => e[field]).join("");

for (const fixture of streamFixtures()) {
  test(`${fixture.name} matches its expectations and is the same at every split`, () => {
    const whole = run([fixture.body], fixture.format);
    if (fixture.expect) checkExpect(whole.message, fixture.expect, fixture.name);
    assert.deepEqual(run([fixture.body]).message, whole.message, "auto detection");
    const bytewise = run(Array.from(fixture.body, (_, i) => fixture.body.subarray(i, i + 1)), fixture.format);
    assert.deepEqual(bytewise.message, whole.message, "one byte at a time");
    assert.equal(concat(bytewise.events, "text", "text"), whole.message.text, "text events add up to the text");
    for (let seed = 0; seed < 100; seed++) {
      assert.deepEqual(run(randomPieces(fixture.body, seed), fixture.format).message, whole.message, `random split seed ${seed}`);
    }
    assert.deepEqual(JSON.parse(JSON.stringify(whole.message)), whole.message, "plain JSON data");
  });
}

test("a push that gives one text event gives what the same event through JSON gives", () => {
  // A lone text event of the first choice comes from wasm as its string; pushJson's events are
  // always JSON. Short and lent (64 KiB and over) texts, escapes and non-ASCII alike.
  const chunk = (delta, index = 0) => ({ id: "c", object: "chat.completion.chunk", model: "m", choices: [{ index, delta }] });
  const texts = ["plain", "é \"q\" \\ \u2028 🙂 \u0000", "x".repeat(70000) + "🙂", ""];
  for (const [name, events] of [
    ["text", texts.map((text) => [chunk({ content: text })])],
    ["a second choice", texts.map((text) => [chunk({ content: text }, 1)])],
    ["reasoning", texts.map((text) => [chunk({ reasoning_content: text })])],
    ["text and a finish", texts.map((text) => [chunk({ content: text }), { ...chunk({}), choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }])],
  ]) {
    const bytes = new Accumulator({ format: "openai-chat" });
    const json = new Accumulator({ format: "openai-chat" });
    for (const group of events) {
      const pushed = bytes.push(group.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(""));
      const parsed = group.flatMap((e) => json.pushJson(e));
      assert.deepEqual(pushed, parsed, name);
    }
    assert.deepEqual(bytes.finish(), json.finish(), name);
  }
});

/** An event as a string that holds its keys in order, where the order is the writer's own (the
 * events `push` gives from its flat list); a `usage` or `error` event, whose provider object
 * another path may order otherwise, with its keys sorted. */
const FLAT_TYPES = new Set(["text", "reasoning", "text_end", "reasoning_end", "tool_call_start", "tool_call_delta", "tool_call_end", "finish"]);
function keyForKey(event) {
  if (FLAT_TYPES.has(event.type)) return JSON.stringify(event);
  const keys = new Set();
  JSON.stringify(event, (key, value) => (keys.add(key), value));
  return JSON.stringify(event, [...keys].sort());
}

test("a push's events are the objects their JSON makes, key for key", () => {
  // `push` gets its events from wasm as a flat list and makes the objects in JS; `apply` gets
  // the events it gives back as JSON. Every push of every recorded stream, and of a stream with
  // a second choice and long strings (set after the parse, and lent), goes through both.
  const chunk = (index, delta, finish) => ({ id: "c", object: "chat.completion.chunk", model: "m", choices: [{ index, delta, finish_reason: finish ?? null }] });
  const call = (i, id, name, args) => ({ tool_calls: [{ index: i, ...(id ? { id, type: "function" } : {}), function: { ...(name ? { name } : {}), arguments: args } }] });
  const many = [
    chunk(0, { reasoning_content: "why" }), chunk(1, { reasoning_content: "r".repeat(3000) }),
    chunk(0, { content: "a" }), chunk(1, { content: "b".repeat(70000) }), chunk(1, { content: "é🙂\"" }),
    chunk(0, call(0, "call_1", "f", "{\"q\":")), chunk(1, call(0, "call_2", "g", "x".repeat(5000))),
    chunk(0, call(0, undefined, undefined, "1}")), chunk(0, {}, "tool_calls"), chunk(1, {}, "length"),
  ].map((e) => `data: ${JSON.stringify(e)}\n\n`).join("");
  const streams = [...streamFixtures(), { name: "two choices", format: "openai-chat", body: new TextEncoder().encode(many) }];
  for (const fixture of streams) {
    for (const size of [fixture.body.length, 64, 7]) {
      const pushed = new Accumulator({ format: fixture.format });
      const applied = new Accumulator({ format: fixture.format });
      for (let at = 0; at < fixture.body.length; at += size) {
        const events = pushed.push(fixture.body.subarray(at, at + size));
        if (events.length === 0) continue;
        assert.deepEqual(applied.apply(events).map(keyForKey), events.map(keyForKey), `${fixture.name} in pieces of ${size}`);
      }
    }
  }
});

test("a string chunk is taken as UTF-8 text", () => {
  const acc = new Accumulator();
  acc.push('data: {"choices":[{"index":0,"delta":{"content":"héllo 🎉"},"finish_reason":"stop"}]}\n\n');
  assert.equal(acc.finish().text, "héllo 🎉");
});

test("an ArrayBuffer chunk is accepted", () => {
  const acc = new Accumulator();
  acc.push(new TextEncoder().encode('data: {"choices":[{"delta":{"content":"ab"}}]}\n\n').buffer);
  assert.equal(acc.finish().text, "ab");
});

test("options are read as properties: inherited ones and getters count, a throwing getter throws", () => {
  assert.equal(new Accumulator(Object.create({ format: "anthropic" })).format, "anthropic");
  class Options { get format() { return "openai-responses"; } }
  assert.equal(new Accumulator(new Options()).format, "openai-responses");
  const boom = new Error("boom");
  assert.throws(() => new Accumulator({ get maxMessageBytes() { throw boom; } }), (e) => e === boom);
  const acc = new Accumulator({ maxEventBytes: 16, maxBufferedBytes: 16 });
  assert.ok(acc.push("data: " + "x".repeat(40) + "\n\n").some((e) => e.type === "error" && e.code === "limit_exceeded"));
});

test("push after finish throws an Error with code finished", () => {
  const acc = new Accumulator();
  acc.finish();
  assert.throws(() => acc.push("data: x\n\n"), (e) => e instanceof Error && e.code === "finished");
});

test("bad options throw invalid_input with the path", () => {
  assert.throws(() => new Accumulator({ format: "xml" }), (e) => e.code === "invalid_input" && e.path === "options.format");
  assert.throws(() => new Accumulator({ maxEventBytes: -1 }), (e) => e.path === "options.maxEventBytes");
  assert.throws(() => new Accumulator({ maxEventBytes: 1.5 }), (e) => e.path === "options.maxEventBytes");
  assert.throws(() => new Accumulator({ format: 7 }), (e) => e.path === "options.format");
  assert.throws(() => new Accumulator([]), (e) => e.code === "invalid_input" && e.path === "options");
  assert.throws(() => new Accumulator({ agent: { model: 10n } }), (e) => e.code === "invalid_input" && e.path === "options.agent");
  // Whole numbers are integers, and an explicit undefined is absent.
  assert.equal(new Accumulator({ maxEventBytes: 4096, format: undefined }).format, "auto");
});

test("an endless line gives limit_exceeded, then refuses input, and keeps the text", () => {
  const acc = new Accumulator({ maxEventBytes: 1024 });
  acc.push('data: {"choices":[{"delta":{"content":"kept"}}]}\n\n');
  const events = acc.push("data: " + "x".repeat(4096));
  assert.equal(events.at(-1).type, "error");
  assert.equal(events.at(-1).code, "limit_exceeded");
  assert.throws(() => acc.push("more"), (e) => e.code === "limit_exceeded");
  const message = acc.finish();
  assert.equal(message.text, "kept");
  assert.equal(message.complete, false);
});

test("abort keeps the partial text and marks the outcome indeterminate", () => {
  const acc = new Accumulator();
  acc.push('data: {"choices":[{"delta":{"content":"partial"}}]}\n\n');
  const events = acc.abort("connection reset");
  assert.deepEqual(events.find((e) => e.type === "error"), { type: "error", message: "connection reset", code: "transport_error", outcome: "indeterminate", retryable: true });
  const message = acc.finish();
  assert.equal(message.text, "partial");
  assert.equal(message.complete, false);
  assert.throws(() => acc.result(), (e) => e.code === "transport_error");
});

test("result() parses structured output when the agent has outputs", () => {
  const acc = new Accumulator({ agent: { model: { id: "m" }, outputs: [{ name: "city", kind: "string" }] } });
  acc.push('data: {"choices":[{"delta":{"content":"{\\"city\\":\\"Paris\\"}"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n');
  assert.deepEqual(acc.result(), { city: "Paris" });
});

test("result() returns tool calls when there are any", () => {
  const acc = new Accumulator();
  acc.push('data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}\n\n');
  assert.deepEqual(acc.result(), [{ id: "c", name: "f", arguments: "{}" }]);
});

test("the format getter reports the detected format", () => {
  const acc = new Accumulator();
  assert.equal(acc.format, "auto");
  acc.push('data: {"choices":[]}\n\n');
  assert.equal(acc.format, "openai-chat");
});

test("buildChatArgs is exported and returns plain data", () => {
  const body = buildChatArgs({ model: { id: "gpt-4o" } }, [{ role: "user", content: "Hi" }]);
  assert.deepEqual(body, { model: "gpt-4o", messages: [{ role: "user", content: "Hi" }] });
});

test("onSpan receives the process span once, on the first finish(), also after result()", () => {
  const spans = [];
  const acc = new Accumulator({ agent: { model: { id: "gpt-4o", provider: "openai" } }, onSpan: (span) => spans.push(span) });
  acc.push('data: {"id":"r1","model":"gpt-4o","choices":[{"delta":{"content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}\n\n');
  assert.equal(acc.result(), "hi");
  assert.equal(spans.length, 0, "result() sends no span");
  acc.finish();
  acc.finish();
  assert.equal(spans.length, 1);
  assert.equal(spans[0].name, "process");
  assert.equal(spans[0].attributes["gen_ai.usage.input_tokens"], 3);
  assert.equal(spans[0].attributes["gen_ai.response.id"], "r1");
});

test("inputs JSON cannot carry (a cycle, a BigInt) are invalid_input at their path", () => {
  const agent = { model: { id: "m" } };
  agent.self = agent;
  assert.throws(() => buildChatArgs(agent, []), (e) => e.code === "invalid_input" && e.path === "agent" && /circular/i.test(e.message));
  assert.throws(() => buildChatArgs({ model: { id: "m" } }, [{ role: "user", content: "x", metadata: { n: 1n } }]), (e) => e.code === "invalid_input" && e.path === "messages");
});

test("a lone surrogate in an input string becomes U+FFFD instead of failing", () => {
  const body = buildChatArgs({ model: { id: "m" } }, [{ role: "user", content: "a\ud83cb" }]);
  assert.equal(body.messages[0].content, "a\ufffdb");
});

// ---- streamEvents and AccumulatorStream: the reader is released and the wasm object freed on
// completion, error and cancel ----

const CHUNKS = ['data: {"choices":[{"delta":{"content":"Hel"}}]}\n\n', 'data: {"choices":[{"delta":{"content":"lo"},"finish_reason":"stop"}]}\n\n'];

function bodyOf(chunks, { failAfter } = {}) {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (failAfter !== undefined && i === failAfter) return controller.error(new Error("connection reset"));
      if (i === chunks.length) return controller.close();
      controller.enqueue(new TextEncoder().encode(chunks[i++]));
    },
  });
}

/** Counts live wasm Accumulators by wrapping free(). */
function tracking() {
  const original = Accumulator.prototype.free;
  let freed = 0;
  Accumulator.prototype.free = function () { freed++; return original.call(this); };
  return { freed: () => freed, restore: () => { Accumulator.prototype.free = original; } };
}

test("streamEvents yields the events then the final message, and frees and releases on completion", async () => {
  const t = tracking();
  try {
    const body = bodyOf(CHUNKS);
    const items = [];
    for await (const item of streamEvents(body)) items.push(item);
    assert.equal(items.at(-1).type, "final");
    assert.equal(items.at(-1).message.text, "Hello");
    assert.equal(items.filter((e) => e.type === "text").map((e) => e.text).join(""), "Hello");
    assert.equal(t.freed(), 1);
    assert.equal(body.locked, false, "the reader is released");
  } finally { t.restore(); }
});

test("streamEvents on a reader error yields the error event and the kept text, then rethrows", async () => {
  const t = tracking();
  try {
    const body = bodyOf(CHUNKS, { failAfter: 1 });
    const items = [];
    await assert.rejects(async () => { for await (const item of streamEvents(body)) items.push(item); }, /connection reset/);
    const final = items.at(-1);
    assert.equal(final.type, "final");
    assert.equal(final.message.text, "Hel");
    assert.equal(final.message.error.outcome, "indeterminate");
    assert.equal(t.freed(), 1);
  } finally { t.restore(); }
});

test("breaking out of streamEvents early frees the accumulator and releases the reader", async () => {
  const t = tracking();
  try {
    const body = bodyOf(CHUNKS);
    for await (const item of streamEvents(body)) if (item.type === "text") break;
    assert.equal(t.freed(), 1);
    assert.equal(body.locked, false);
  } finally { t.restore(); }
});

test("AccumulatorStream frees on completion and on cancel", async () => {
  const t = tracking();
  try {
    const stream = new AccumulatorStream();
    const out = bodyOf(CHUNKS).pipeThrough(stream);
    const items = [];
    for await (const item of out) items.push(item);
    assert.equal(stream.message.text, "Hello");
    assert.equal(items.at(-1).message.text, "Hello");
    assert.equal(t.freed(), 1);
    const cancelled = bodyOf(CHUNKS).pipeThrough(new AccumulatorStream());
    const reader = cancelled.getReader();
    await reader.read();
    await reader.cancel("user left");
    assert.equal(t.freed(), 2);
  } finally { t.restore(); }
});

test("result() of a stream that failed with a provider error throws its type, code and retryable, in both entries", () => {
  const error = { error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" } };
  const bytes = `data: {"choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\ndata: ${JSON.stringify(error)}\n\n`;
  for (const Acc of [Accumulator, streamEntry.Accumulator]) {
    const acc = new Acc();
    acc.push(bytes);
    const message = acc.finish();
    assert.deepEqual(message.error, {
      message: "Rate limit reached", code: "rate_limit_exceeded", outcome: "determinate", retryable: true,
      providerType: "requests", providerCode: "rate_limit_exceeded",
    });
    assert.throws(() => acc.result(), (err) => {
      assert.deepEqual([err.code, err.message, err.providerType, err.providerCode, err.retryable],
        ["provider_error", "Rate limit reached", "requests", "rate_limit_exceeded", true]);
      return true;
    });
  }
});

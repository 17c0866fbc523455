// Views of a stream in JS, on the built package: live partial JSON of tool-call arguments and
// structured output (values that only grow, untouched subtrees kept by identity, the parsed
// value at the end), block ends, and the message so far.
import { test } from "node:test";
import assert from "node:assert/strict";
import { isDeepStrictEqual } from "node:util";
import { Accumulator, parseStructuredOutput } from "../../pkg/node.mjs";
import { randomPieces, streamFixtures } from "./expect.mjs";

/** Runs `pieces` through an accumulator; the message, the events, and the partial values in
 * the order they came, per call (`"choice:index"`) and per output (`"out:choice"`). */
function run(pieces, options) {
  const acc = new Accumulator(options);
  const events = [];
  for (const piece of pieces) events.push(...acc.push(piece));
  events.push(...acc.flush());
  const values = new Map();
  for (const event of events) {
    let key;
    if (event.type === "tool_call_partial") key = `${event.choice ?? 0}:${event.index}`;
    else if (event.type === "output_partial") key = `out:${event.choice ?? 0}`;
    else continue;
    assert.equal("changes" in event, false, "the change list stays inside");
    if (!values.has(key)) values.set(key, []);
    values.get(key).push(event.value);
  }
  return { message: acc.finish(), events, values };
}

const isContainer = (v) => typeof v === "object" && v !== null;

/** A streamed JSON value changes only at its end: in each container every child but the last is
 * the same object as before (when it is one), and the last grows. */
function assertGrowsSharing(before, after, path = "$") {
  if (!isContainer(before)) {
    if (typeof before === "string") assert.ok(after.startsWith(before), `${path}: a string grows at its end`);
    else assert.equal(after, before, `${path}: a scalar does not change`);
    return;
  }
  assert.equal(Array.isArray(after), Array.isArray(before), `${path}: the same kind`);
  const keys = Object.keys(before);
  assert.deepEqual(Object.keys(after).slice(0, keys.length), keys, `${path}: members stay, in order`);
  keys.forEach((key, i) => {
    if (i < keys.length - 1 && isContainer(before[key])) {
      assert.equal(after[key], before[key], `${path}.${key}: an untouched subtree keeps its identity`);
    } else {
      assertGrowsSharing(before[key], after[key], `${path}.${key}`);
    }
  });
}

function assertMonotonic(values, name) {
  for (let i = 1; i < values.length; i++) {
    assert.notEqual(values[i], values[i - 1], `${name}: an event comes only when the value changed`);
    assertGrowsSharing(values[i - 1], values[i]);
  }
}

const parse = (text) => { try { return JSON.parse(text); } catch { return undefined; } };

for (const fixture of streamFixtures()) {
  const plain = run([fixture.body], { format: fixture.format });
  if (plain.message.toolCalls.length === 0) continue;
  test(`${fixture.name}: each call's live value grows, shares what it did not touch and ends as its arguments`, () => {
    const splits = [[fixture.body], Array.from(fixture.body, (_, i) => fixture.body.subarray(i, i + 1))];
    for (let seed = 0; seed < 20; seed++) splits.push(randomPieces(fixture.body, seed));
    for (const pieces of splits) {
      const live = run(pieces, { format: fixture.format, partialJson: true });
      assert.deepEqual(live.message, plain.message, "the message is the same with partialJson");
      live.message.toolCalls.forEach((call, i) => {
        const values = live.values.get(`0:${i}`) ?? [];
        assertMonotonic(values, `call ${i}`);
        const parsed = parse(call.arguments);
        if (parsed !== undefined) assert.deepEqual(values.at(-1), parsed, `call ${i} ends as its arguments`);
      });
    }
  });
}

const chunk = (delta, finish = null) =>
  `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const toolDelta = (args) => chunk({ tool_calls: [{ index: 0, id: "c1", function: { name: "f", arguments: args } }] });

test("a growing array of rows keeps every finished row by identity", () => {
  const rows = Array.from({ length: 30 }, (_, i) => ({ id: i, name: `row ${i}`, tags: ["a", "b"] }));
  const text = JSON.stringify({ rows, done: true });
  const pieces = [];
  for (let i = 0; i < text.length; i += 7) pieces.push(toolDelta(text.slice(i, i + 7)));
  pieces.push(chunk({}, "tool_calls"));
  const { values } = run(pieces, { partialJson: true });
  const seen = values.get("0:0");
  assertMonotonic(seen, "rows");
  assert.deepEqual(seen.at(-1), JSON.parse(text));
  // The first row is finished long before the end: from then on it is one object.
  const firstDone = seen.findIndex((v) => v.rows?.length > 1);
  assert.ok(firstDone > 0);
  for (const v of seen.slice(firstDone)) assert.equal(v.rows[0], seen[firstDone].rows[0]);
});

test("arguments that stop being JSON give one error event and the last good value stays", () => {
  const pieces = [toolDelta('{"a": [1, '), toolDelta("2], "), toolDelta('"b" oops'), toolDelta(": 3}"), chunk({}, "tool_calls")];
  const { message, events, values } = run(pieces, { partialJson: true });
  const errors = events.filter((e) => e.type === "error");
  assert.equal(errors.length, 1);
  assert.equal(errors[0].code, "invalid_json");
  assert.match(errors[0].message, /^the arguments of tool call 0: /);
  assert.deepEqual(values.get("0:0").at(-1), { a: [1, 2] });
  assert.equal(message.complete, true, "the message itself is not failed");
});

test("a structured answer streams as a value that ends as the lenient parseStructuredOutput, prose and fence skipped", () => {
  const agent = { model: { id: "m" }, outputs: [{ name: "city", kind: "string" }, { name: "days", kind: "array", items: { kind: "integer" } }] };
  const text = 'Sure:\n```json\n{"city": "Oslo", "days": [4, 6, 12]}\n```';
  const pieces = Array.from({ length: Math.ceil(text.length / 3) }, (_, i) => chunk({ content: text.slice(i * 3, i * 3 + 3) }));
  pieces.push(chunk({}, "stop"));
  const acc = new Accumulator({ agent, partialJson: true });
  const values = [];
  for (const piece of pieces) for (const e of acc.push(piece)) if (e.type === "output_partial") values.push(e.value);
  for (const e of acc.flush()) if (e.type === "output_partial") values.push(e.value);
  assertMonotonic(values, "output");
  assert.deepEqual(values.at(-1), parseStructuredOutput(acc.finish().text, agent.outputs, { lenient: true }));
  assert.deepEqual(values.at(-1), { city: "Oslo", days: [4, 6, 12] });
});

test("a structured answer that breaks the outputs says so as soon as the key is read", () => {
  const agent = { model: { id: "m" }, outputs: [{ name: "city", kind: "string" }] };
  const acc = new Accumulator({ agent, partialJson: true });
  const first = acc.push(chunk({ content: '{"city": "Oslo", ' }));
  assert.deepEqual(first.filter((e) => e.type === "output_partial").at(-1).value, { city: "Oslo" });
  const second = acc.push(chunk({ content: '"zip"' }));
  const error = second.find((e) => e.type === "error");
  assert.equal(error?.code, "validation_failed");
  assert.match(error.message, /"zip" is not a property/);
  assert.equal(second.filter((e) => e.type === "output_partial").length, 0, "the value stays the last good one");
  assert.equal(acc.push(chunk({ content: ': 1}' })).filter((e) => e.type === "error").length, 0, "reported once");
});

test("partialJson must be a boolean", () => {
  assert.throws(() => new Accumulator({ partialJson: "yes" }), { code: "invalid_input", path: "options.partialJson" });
});

test("each text block ends once, after its last delta, and snapshot() is the message so far", () => {
  for (const fixture of streamFixtures()) {
    const acc = new Accumulator({ format: fixture.format });
    const events = [];
    let text = "";
    const step = Math.ceil(fixture.body.length / 5);
    for (let i = 0; i < fixture.body.length; i += step) {
      for (const e of acc.push(fixture.body.subarray(i, i + step))) {
        events.push(e);
        if (e.type === "text" && !e.choice) text += e.text;
      }
      const snapshot = acc.snapshot();
      assert.equal(snapshot.complete, false, fixture.name);
      assert.equal(snapshot.text, text, `${fixture.name}: the text so far`);
    }
    events.push(...acc.flush());
    const open = new Map();
    for (const e of events) {
      const choice = e.choice ?? 0;
      if (e.type === "text") open.set(choice, true);
      if (e.type === "text_end") {
        assert.equal(open.get(choice), true, `${fixture.name}: an end after text`);
        open.set(choice, false);
      }
    }
    assert.ok(![...open.values()].some(Boolean), `${fixture.name}: every text block ended`);
    const message = acc.finish();
    const ends = events.filter((e) => e.type === "text_end" && !e.choice).length;
    const blocks = message.content.filter((b) => b.type === "text" && b.text !== "").length;
    assert.equal(ends, blocks, `${fixture.name}: one end per text block`);
    assert.deepEqual(acc.snapshot(), message, `${fixture.name}: after the end, the final message`);
  }
});

/** Each SSE event's data that is a JSON object, parsed: what another SDK would hand over. */
function eventObjects(body) {
  const text = new TextDecoder().decode(body);
  const out = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const data = block.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).replace(/^ /, "")).join("\n");
    try {
      const value = JSON.parse(data);
      if (typeof value === "object" && value !== null && !Array.isArray(value)) out.push(value);
    } catch {}
  }
  return out;
}

test("decoded event objects pushed with pushJson give the message their bytes give", () => {
  for (const fixture of streamFixtures()) {
    const fromBytes = run([fixture.body], { format: fixture.format }).message;
    const acc = new Accumulator();
    for (const object of eventObjects(fixture.body)) acc.pushJson(object);
    assert.equal(acc.format, fixture.format, fixture.name);
    const message = acc.finish();
    // `[DONE]` is not an object: a Chat stream ends there only in its bytes.
    if (fixture.format === "openai-chat" && fromBytes.complete) message.complete = true;
    assert.deepEqual(message, fromBytes, fixture.name);
  }
});

test("events from another converter go through apply() to the same text, calls and result", () => {
  for (const fixture of streamFixtures()) {
    const fromBytes = run([fixture.body], { format: fixture.format });
    const acc = new Accumulator();
    acc.apply(JSON.parse(JSON.stringify(fromBytes.events)));
    const message = acc.finish();
    for (const key of ["text", "reasoning", "toolCalls", "rawFinishReason", "error"]) {
      assert.deepEqual(message[key], fromBytes.message[key], `${fixture.name}: ${key}`);
    }
  }
  assert.throws(() => new Accumulator().apply([{ type: "text" }]), { code: "invalid_input", path: "events[0].text" });
});

// Live partial JSON in JS: the copy-on-write applier (`PartialState`) on hand-written change
// lists, then `PartialJson` and `parsePartialJson` on the built package's wasm reader over
// generated documents split every way: the end value is `JSON.parse`'s (key order included),
// values only grow, and every subtree a piece did not touch keeps its identity.
import { test } from "node:test";
import assert from "node:assert/strict";
import { PartialJson, parsePartialJson } from "../../pkg/node.mjs";
import { PartialState } from "../../pkg-template/partial.mjs";
import { rng } from "../../bench/gen.mjs";

// ---- the applier on hand-written change lists ----------------------------------------------

test("a change list builds the value it describes", () => {
  const state = new PartialState();
  assert.equal(state.apply([]), undefined);
  assert.deepEqual(state.apply([2, {}, 4, "a", [], 1, 1, 2, "x"]), { a: [1, "x"] });
  assert.deepEqual(state.apply(["yz", 0, 0, 3, "b", null, 0]), { a: [1, "xyz"], b: null });
});

test("a piece copies only the containers on the path it changed", () => {
  const state = new PartialState();
  const first = state.apply([2, {}, 3, "done", {}, 4, "list", [], 2, {}, 4, "s", "ab"]);
  const kept = first.done;
  const second = state.apply(["c"]);
  assert.notEqual(second, first, "the document's value is new");
  assert.notEqual(second.list, first.list, "so is each container down to the string");
  assert.notEqual(second.list[0], first.list[0]);
  assert.equal(second.done, kept, "a member the piece did not touch is the same object");
  assert.deepEqual(first, { done: {}, list: [{ s: "ab" }] }, "the earlier value is unchanged");
  assert.deepEqual(second, { done: {}, list: [{ s: "abc" }] });
  assert.equal(state.apply([]), second, "no change, the same value");
});

test("a piece that closes containers and opens others copies each one once", () => {
  const state = new PartialState();
  const first = state.apply([2, [], 2, [], 1, 1]);
  const second = state.apply([1, 2, 0, 2, [], 1, 3, 0, 1, 4]);
  assert.deepEqual(first, [[1]]);
  assert.deepEqual(second, [[1, 2], [3], 4]);
  assert.notEqual(second[0], first[0]);
});

test("a string that is the whole document grows", () => {
  const state = new PartialState();
  assert.equal(state.apply([2, "he"]), "he");
  assert.equal(state.apply(["llo", 0]), "hello");
});

test("a __proto__ key is an own member, never the prototype", () => {
  const state = new PartialState();
  const value = state.apply([2, {}, 4, "__proto__", {}, 3, "polluted", true, 0, 0]);
  assert.deepEqual(value, JSON.parse('{"__proto__": {"polluted": true}}'));
  assert.equal(Object.getPrototypeOf(value), Object.prototype);
  assert.equal({}.polluted, undefined);
  assert.deepEqual(Object.keys(value), ["__proto__"]);
});

test("a key given twice keeps its first place and takes the later value, as JSON.parse does", () => {
  const state = new PartialState();
  const value = state.apply([2, {}, 3, "a", 1, 3, "b", 2, 4, "a", "x", 0, 0]);
  assert.equal(JSON.stringify(value), JSON.stringify(JSON.parse('{"a": 1, "b": 2, "a": "x"}')));
});

// ---- PartialJson on the wasm reader ---------------------------------------------------------

/** Random JSON text up to `depth` levels deep (keys may repeat unless `uniqueKeys`). */
function documentText(r, depth, uniqueKeys) {
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  const ws = () => pick(["", "", "", " ", "\n  ", "\t"]);
  const string = () =>
    '"' +
    Array.from({ length: Math.floor(r() * 6) }, () =>
      pick(["plain", " ", "é", "日本", "🎉", '\\"', "\\\\", "\\n", "\\u00e9", "\\ud83d\\ude00", "\\u0000", "/", "{[,:]}"]),
    ).join("") +
    '"';
  const value = (depth) => {
    const kind = Math.floor(r() * (depth > 0 ? 6 : 3));
    if (kind === 0) return string();
    if (kind === 1) return pick(["0", "-0", "7", "-13", "3.25", "1e5", "2.5E-3", "123456789012", "9007199254740993", "0.1"]);
    if (kind === 2) return pick(["true", "false", "null"]);
    const n = Math.floor(r() * 5);
    if (kind === 3 || (kind === 4 && r() < 0.5)) {
      let keys = Array.from({ length: n }, () => (r() < 0.3 ? string() : pick(['"a"', '"b"', '"name"', '"0"', '"10"', '"__proto__"', '""'])));
      if (uniqueKeys) keys = keys.filter((k, i) => keys.findIndex((o) => JSON.parse(o) === JSON.parse(k)) === i);
      return "{" + keys.map((k) => ws() + k + ws() + ":" + ws() + value(depth - 1) + ws()).join(",") + "}";
    }
    return "[" + Array.from({ length: n }, () => ws() + value(depth - 1) + ws()).join(",") + "]";
  };
  return ws() + value(depth) + ws();
}

/** Split points of a text of `length`: up to 40 random cuts. */
function cuts(r, length) {
  return Array.from({ length: Math.floor(r() * 40) }, () => Math.floor(r() * (length + 1))).sort((a, b) => a - b);
}

/** Whether `now` is `before` grown: strings extended, arrays with the same elements grown and
 * maybe more after, objects with the same members grown, in the same order (JS puts
 * integer-like keys first, so a new one may come before them), scalars the same. */
function grows(before, now) {
  if (typeof before === "string") return typeof now === "string" && now.startsWith(before);
  if (Array.isArray(before)) return Array.isArray(now) && before.every((item, i) => i < now.length && grows(item, now[i]));
  if (before !== null && typeof before === "object") {
    const keys = Object.keys(before);
    const kept = Object.keys(now).filter((k) => Object.hasOwn(before, k));
    return kept.length === keys.length && keys.every((k, i) => kept[i] === k && grows(before[k], now[k]));
  }
  return Object.is(before, now);
}

/** Every container of `before` is the same object in `now` when its content is the same, and
 * a new object when it changed. */
function checkSharing(before, now, where) {
  if (before === null || typeof before !== "object") return;
  if (JSON.stringify(before) === JSON.stringify(now)) {
    assert.equal(now, before, `${where}: an untouched subtree keeps its identity`);
    return;
  }
  assert.notEqual(now, before, `${where}: a changed container is a new object`);
  // A key given twice may have replaced a container by something else.
  if (now === null || typeof now !== "object") return;
  for (const key of Object.keys(before)) checkSharing(before[key], now[key], `${where}.${key}`);
}

/** Feeds `text` in pieces (strings, or UTF-8 bytes when `bytes`), checking each value: it
 * grows (unless a key is given twice, whose later value starts over), and shares what did
 * not change. */
function feed(text, points, bytes, uniqueKeys = true) {
  const source = bytes ? new TextEncoder().encode(text) : text;
  const partial = new PartialJson();
  let before;
  let from = 0;
  for (const cut of [...points, source.length]) {
    const shownBefore = before === undefined ? undefined : JSON.stringify(before);
    const now = partial.push(source.slice(from, cut));
    from = cut;
    assert.equal(partial.value, now);
    if (before !== undefined) {
      const shown = `${JSON.stringify(text)}: ${JSON.stringify(before)} then ${JSON.stringify(now)}`;
      assert.ok(!uniqueKeys || grows(before, now), shown);
      checkSharing(before, now, "$");
      assert.equal(JSON.stringify(before), shownBefore, "an earlier value is never changed");
    }
    before = now;
  }
  return partial.finish();
}

test("generated documents end as JSON.parse reads them, whatever the splits", () => {
  const r = rng(7);
  for (let n = 0; n < 400; n++) {
    const text = documentText(r, n % 5, true);
    const want = JSON.parse(text);
    for (const bytes of [false, true]) {
      for (let seed = 0; seed < 4; seed++) {
        const end = feed(text, cuts(r, bytes ? new TextEncoder().encode(text).length : text.length), bytes);
        assert.deepEqual(end, want, text);
        assert.equal(JSON.stringify(end), JSON.stringify(want), `${text}: member order`);
      }
    }
  }
});

test("one character at a time: a surrogate pair or a byte sequence cut in two waits", () => {
  const text = '{"emoji": "🎉 \\ud83d\\ude00 日本", "n": [1, -0, 2.5e3]}';
  const partial = new PartialJson();
  for (const char of text.split("")) partial.push(char); // UTF-16 code units, pairs cut
  assert.deepEqual(partial.finish(), JSON.parse(text));
  const bytes = new TextEncoder().encode(text);
  const byBytes = new PartialJson();
  for (let i = 0; i < bytes.length; i++) {
    const value = byBytes.push(bytes.subarray(i, i + 1));
    for (const s of JSON.stringify(value ?? "").split("")) assert.notEqual(s, "\ufffd", "never half a character");
  }
  assert.deepEqual(byBytes.finish(), JSON.parse(text));
  assert.ok(Object.is(byBytes.value.n[1], -0));
});

test("a high surrogate held back from a string piece keeps its place before bytes", () => {
  const partial = new PartialJson();
  partial.push('["a\ud83d');
  partial.push(new TextEncoder().encode('b"]'));
  assert.deepEqual(partial.finish(), ["a\ufffdb"]);
});

test("keys given twice end as JSON.parse reads them", () => {
  const r = rng(8);
  for (let n = 0; n < 200; n++) {
    const text = documentText(r, 3, false);
    const end = feed(text, cuts(r, text.length), false, false);
    assert.equal(JSON.stringify(end), JSON.stringify(JSON.parse(text)), text);
  }
});

test("parsePartialJson shows what pushing the text shows, and completes a whole document", () => {
  assert.equal(parsePartialJson(""), undefined);
  assert.equal(parsePartialJson("42"), 42);
  assert.deepEqual(parsePartialJson('{"a": [1, 2'), { a: [1] });
  assert.deepEqual(parsePartialJson('{"a": "b'), { a: "b" });
  const r = rng(9);
  for (let n = 0; n < 100; n++) {
    const text = documentText(r, 3, true).trim();
    assert.deepEqual(parsePartialJson(text), JSON.parse(text));
    const prefix = text.slice(0, Math.floor(r() * text.length));
    let complete;
    try {
      complete = JSON.parse(prefix);
    } catch {
      complete = new PartialJson().push(prefix);
    }
    assert.deepEqual(parsePartialJson(prefix), complete, prefix);
  }
});

test("text that stops being JSON throws invalid_json, keeps the last good value, and throws again", () => {
  const partial = new PartialJson();
  const good = partial.push('{"a": [1, "b');
  assert.throws(() => partial.push('c", 2 3]'), (e) => {
    assert.equal(e.code, "invalid_json");
    assert.equal(e.message, "expected `,` or `]` at byte 18");
    assert.equal(e.path, "$.a");
    return true;
  });
  assert.equal(partial.value, good);
  assert.deepEqual(good, { a: [1, "b"] });
  assert.throws(() => partial.push("]}"), /at byte 18/);
  assert.throws(() => partial.finish(), /at byte 18/);
  assert.throws(() => new PartialJson().push(42), TypeError);
  assert.throws(() => new PartialJson({ lenient: "yes" }), (e) => e.code === "invalid_input" && e.path === "options.lenient");
  const unfinished = new PartialJson();
  unfinished.push('{"a": 1');
  assert.throws(() => unfinished.finish(), (e) => e.code === "invalid_json" && /unexpected end of input at byte 7/.test(e.message));
});

test("lenient mode reads a fenced answer among prose", () => {
  const text = 'Here it is:\n```json\n{"city": "Paris", "tags": ["a",],}\n```\nAnything else?';
  const partial = new PartialJson({ lenient: true });
  for (let i = 0; i < text.length; i += 5) partial.push(text.slice(i, i + 5));
  assert.deepEqual(partial.finish(), { city: "Paris", tags: ["a"] });
  assert.deepEqual(parsePartialJson(text, { lenient: true }), { city: "Paris", tags: ["a"] });
});

test("an answer that breaks the agent's outputs throws validation_failed with the path", () => {
  const outputs = [
    { name: "city", kind: "string", required: true },
    { name: "days", kind: "integer" },
  ];
  const partial = new PartialJson({ outputs });
  partial.push('{"city": "Par');
  assert.throws(() => partial.push('is", "days": "3"'), (e) => {
    assert.equal(e.code, "validation_failed");
    assert.equal(e.path, "$.days");
    assert.equal(e.message, "expected integer, got a string");
    return true;
  });
  assert.deepEqual(partial.value, { city: "Par" });
  assert.throws(() => parsePartialJson('{"town": ', { outputs }), (e) => e.path === "$.town");
});

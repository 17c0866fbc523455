// The package at the JS boundary: every error a call can throw is an `Error` with a `code`
// (after `free()`, on a wrong receiver, for a non-string where a string is due, from inside
// `onSpan`), a thrown error leaves the object usable, and string chunks are split-invariant
// like bytes, a surrogate pair cut between two pushes included.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import * as full from "../../pkg/node.mjs";
import * as stream from "../../pkg/stream/node.mjs";
import { rng, streamFixtures } from "./expect.mjs";

const require = createRequire(import.meta.url);
const ENTRIES = {
  "llm-wire": full,
  "llm-wire/stream": stream,
  "llm-wire (require)": require("../../pkg/node.cjs"),
  "llm-wire/stream (require)": require("../../pkg/stream/node.cjs"),
};
const TEXT = (text) => `data: {"choices":[{"index":0,"delta":{"content":${JSON.stringify(text)}}}]}\n\n`;

/** What `f` throws, checked to be an `Error` with a code. */
function thrown(f) {
  try {
    f();
  } catch (err) {
    assert.ok(err instanceof Error, `an Error: ${err}`);
    assert.equal(typeof err.code, "string", `a code on: ${err}`);
    return err;
  }
  assert.fail("did not throw");
}

for (const [entry, wire] of Object.entries(ENTRIES)) {
  test(`${entry}: after free(), every method and the format throw finished, and free() again does nothing`, () => {
    const acc = new wire.Accumulator();
    acc.push(TEXT("kept"));
    acc.free();
    for (const [name, call] of [
      ["push", () => acc.push(TEXT("x"))], ["flush", () => acc.flush()], ["abort", () => acc.abort("reset")],
      ["finish", () => acc.finish()], ["result", () => acc.result()], ["format", () => acc.format],
    ]) {
      assert.equal(thrown(call).code, "finished", name);
    }
    acc.free();
    if (Symbol.dispose) acc[Symbol.dispose]();
    // The module itself is untouched.
    const next = new wire.Accumulator();
    next.push(TEXT("fine"));
    assert.equal(next.finish().text, "fine");
  });

  test(`${entry}: Symbol.dispose frees the accumulator`, { skip: !Symbol.dispose }, () => {
    const acc = new wire.Accumulator();
    acc[Symbol.dispose]();
    assert.equal(thrown(() => acc.push(TEXT("x"))).code, "finished");
  });

  test(`${entry}: a method called on another object throws invalid_input`, () => {
    for (const receiver of [{}, undefined, null, 5, Object.create(wire.Accumulator.prototype)]) {
      for (const name of ["push", "pushJson", "apply", "flush", "abort", "snapshot", "finish", "result", "free"]) {
        const err = thrown(() => wire.Accumulator.prototype[name].call(receiver, "data: x\n\n"));
        assert.equal(err.code, "invalid_input", `${name} on ${String(receiver)}`);
        assert.equal(err.path, "this");
      }
      const format = Object.getOwnPropertyDescriptor(wire.Accumulator.prototype, "format").get;
      assert.equal(thrown(() => format.call(receiver)).code, "invalid_input");
    }
  });

  test(`${entry}: abort with a non-string throws invalid_input and aborts nothing`, () => {
    const acc = new wire.Accumulator();
    acc.push(TEXT("kept"));
    for (const bad of [undefined, 5, null, { message: "x" }, Symbol("s")]) {
      const err = thrown(() => acc.abort(bad));
      assert.deepEqual([err.code, err.path], ["invalid_input", "message"], String(bad));
    }
    acc.push(TEXT(" and more"));
    const message = acc.finish();
    assert.equal(message.text, "kept and more");
    assert.equal(message.error, undefined, "not aborted");
  });

  test(`${entry}: onSpan calling the accumulator during finish() meets invalid_input, and free() there waits for finish()`, () => {
    const seen = [];
    let acc;
    acc = new wire.Accumulator({
      onSpan() {
        for (const call of [() => acc.push(TEXT("x")), () => acc.finish(), () => acc.result(), () => acc.format]) {
          seen.push(thrown(call).code);
        }
        acc.free();
      },
    });
    acc.push(TEXT("hello"));
    assert.equal(acc.finish().text, "hello", "finish() returns the message");
    assert.deepEqual(seen, ["invalid_input", "invalid_input", "invalid_input", "invalid_input"]);
    assert.equal(thrown(() => acc.finish()).code, "finished", "freed once finish() was done");
  });

  test(`${entry}: an onSpan that throws passes its error through and leaves the accumulator usable`, () => {
    const boom = new Error("boom");
    const acc = new wire.Accumulator({ onSpan() { throw boom; } });
    acc.push(TEXT("hello"));
    assert.throws(() => acc.finish(), (e) => e === boom);
    assert.equal(acc.finish().text, "hello");
    acc.free();
  });

  test(`${entry}: a bad chunk throws invalid_input and the accumulator goes on`, () => {
    const acc = new wire.Accumulator();
    acc.push(TEXT("a"));
    for (const bad of [42, null, undefined, {}, [1, 2], Symbol("s"), new Uint16Array(2), new DataView(new ArrayBuffer(2))]) {
      assert.equal(thrown(() => acc.push(bad)).code, "invalid_input", String(bad?.constructor?.name ?? bad));
    }
    acc.push(TEXT("b"));
    assert.equal(acc.finish().text, "ab");
  });

  test(`${entry}: the class keeps its name and instanceof`, () => {
    const acc = new wire.Accumulator();
    assert.equal(wire.Accumulator.name, "Accumulator");
    assert.ok(acc instanceof wire.Accumulator);
    acc.free();
  });
}

test("registerTool and parseStructuredOutput with a non-string throw invalid_input at the parameter", () => {
  for (const bad of [undefined, 5, null, {}, Symbol("s")]) {
    assert.deepEqual(
      ((e) => [e.code, e.path])(thrown(() => full.registerTool(bad, { description: "d" }))),
      ["invalid_input", "name"],
    );
    assert.deepEqual(
      ((e) => [e.code, e.path])(thrown(() => full.parseStructuredOutput(bad, [{ name: "a", kind: "string" }]))),
      ["invalid_input", "text"],
    );
  }
  assert.deepEqual(full.parseStructuredOutput('{"a":"x"}', [{ name: "a", kind: "string" }]), { a: "x" });
});

/** Arguments of every JS type, for the calls below: each is wrong somewhere. */
const ODD_ARGUMENTS = [5, NaN, null, undefined, true, 10n, Symbol("s"), () => 1, {}, ["a"], new Uint8Array(3), "x"];

/** Each export called with `bad` in one argument, the others right; the stream entry has fewer. */
function oddCalls(wire, bad) {
  const agent = { model: { id: "m" } };
  const hi = [{ role: "user", content: "hi" }];
  const calls = {
    "new Accumulator": () => new wire.Accumulator(bad),
    "Accumulator.push": () => new wire.Accumulator().push(bad),
    "Accumulator.pushJson": () => new wire.Accumulator({ format: "openai-chat" }).pushJson(bad),
    "Accumulator.apply": () => new wire.Accumulator().apply(bad),
    "Accumulator.abort": () => new wire.Accumulator().abort(bad),
    "new PartialJson": () => new wire.PartialJson(bad),
    "PartialJson.push": () => new wire.PartialJson().push(bad),
    "parsePartialJson text": () => wire.parsePartialJson(bad),
    "parsePartialJson options": () => wire.parsePartialJson("{", bad),
  };
  if (!wire.buildChatArgs) return calls;
  return {
    ...calls,
    "buildChatArgs agent": () => wire.buildChatArgs(bad, hi),
    "buildChatArgs messages": () => wire.buildChatArgs(agent, bad),
    "buildRequest options": () => wire.buildRequest(agent, hi, bad),
    "genAiAttributes": () => wire.genAiAttributes(bad),
    "parseResponse": () => wire.parseResponse(bad),
    "parseStructuredOutput outputs": () => wire.parseStructuredOutput("{}", bad),
    "parseToolArguments": () => wire.parseToolArguments(bad),
    "process agent": () => wire.process(bad, "{}"),
    "process response": () => wire.process(agent, bad),
    "registerTool definition": () => wire.registerTool("t", bad),
    "toMessage": () => wire.toMessage(bad),
    "asMessage": () => wire.asMessage(bad),
  };
}

for (const [entry, wire] of Object.entries(ENTRIES)) {
  test(`${entry}: every export given an argument of the wrong type throws a coded Error, never a trap`, () => {
    for (const bad of ODD_ARGUMENTS) {
      for (const [name, call] of Object.entries(oddCalls(wire, bad))) {
        try {
          const out = call();
          if (out instanceof wire.Accumulator || out instanceof wire.PartialJson) out.free();
        } catch (err) {
          const shown = typeof bad === "symbol" || typeof bad === "bigint" ? String(bad) : JSON.stringify(bad);
          assert.ok(!(err instanceof WebAssembly.RuntimeError), `${name}(${shown}) trapped: ${err}`);
          assert.ok(err instanceof Error, `${name}(${shown}) threw ${err}`);
          assert.equal(typeof err.code, "string", `${name}(${shown}) threw with no code: ${err}`);
        }
      }
    }
    // The module is untouched.
    assert.deepEqual(wire.parsePartialJson('{"a":[1,'), { a: [1] });
    const acc = new wire.Accumulator();
    acc.push(TEXT("fine"));
    assert.equal(acc.finish().text, "fine");
  });
}

test("parsePartialJson and PartialJson.push name the argument that is not text", () => {
  for (const bad of [5, NaN, null, undefined, {}, ["a"], true, 10n, Symbol("s"), new Uint16Array(2)]) {
    assert.deepEqual(((e) => [e.code, e.path])(thrown(() => full.parsePartialJson(bad))), ["invalid_input", "text"]);
    const partial = new stream.PartialJson();
    const err = thrown(() => partial.push(bad));
    assert.ok(err instanceof TypeError);
    assert.deepEqual([err.code, err.path], ["invalid_input", "piece"]);
    // The reader goes on: a refused piece is not read.
    assert.deepEqual(partial.push('{"a":'), {});
    partial.free();
  }
});

// ---- string chunks ---------------------------------------------------------------------------

/** The final message of `pieces` pushed in order (strings or bytes), then finish(). */
function messageOf(wire, pieces, options) {
  const acc = new wire.Accumulator(options);
  for (const piece of pieces) acc.push(piece);
  const message = acc.finish();
  acc.free();
  return message;
}

const ASTRAL = /[\ud800-\udbff][\udc00-\udfff]/;

/**
 * The cuts of `text` to try: every one when it is short; else every one within the SSE events
 * around each surrogate pair and `others` seeded random ones (a cut's cost is a whole stream).
 */
function cutsOf(text, others = 400) {
  if (text.length <= 16384) return Array.from({ length: text.length + 1 }, (_, i) => i);
  const cuts = new Set();
  for (const match of text.matchAll(new RegExp(ASTRAL, "g"))) {
    const from = Math.max(0, text.lastIndexOf("\n\n", text.lastIndexOf("\n\n", match.index) - 1));
    const to = Math.min(text.length, text.indexOf("\n\n", text.indexOf("\n\n", match.index) + 2) + 2);
    for (let i = from; i <= to; i++) cuts.add(i);
  }
  const next = rng(text.length);
  for (let i = 0; i < others; i++) cuts.add(Math.floor(next() * (text.length + 1)));
  return [...cuts];
}

/** `text` cut into 1 to 64 random pieces by split number `seed`. */
function randomTextPieces(text, seed) {
  const next = rng(seed);
  const cuts = Array.from({ length: Math.floor(next() * 64) }, () => Math.floor(next() * (text.length + 1))).sort((a, b) => a - b);
  return [...cuts, text.length].map((cut, i, all) => text.slice(i ? all[i - 1] : 0, cut));
}

test("recorded streams with emoji give the same message as their text cut anywhere, around the emoji at every point", () => {
  const fixtures = streamFixtures().filter((f) => ASTRAL.test(new TextDecoder().decode(f.body)));
  assert.ok(fixtures.length >= 2, "the recorded streams with emoji");
  let kept = 0;
  for (const fixture of fixtures) {
    const text = new TextDecoder().decode(fixture.body);
    const whole = messageOf(full, [fixture.body]);
    if (ASTRAL.test(JSON.stringify(whole))) kept++;
    for (const cut of cutsOf(text)) {
      assert.deepEqual(messageOf(full, [text.slice(0, cut), text.slice(cut)]), whole, `${fixture.name} cut at ${cut}`);
    }
  }
  assert.ok(kept >= 1, "an emoji reaches a message");
});

/** A generated stream of text, reasoning and tool arguments thick with surrogate pairs. */
function emojiStream(seed) {
  const next = rng(seed);
  const pick = (list) => list[Math.floor(next() * list.length)];
  const words = ["🎉", "😊", "a", " ", "é", "日本", "𝄞", "\\", '"', "\n", "🙂🙂"];
  const piece = (n) => Array.from({ length: n }, () => pick(words)).join("");
  const chunk = (delta) => `data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\n`;
  let body = "";
  for (let i = 0; i < 12; i++) body += chunk(i % 3 === 0 ? { reasoning_content: piece(5) } : { content: piece(6) });
  body += chunk({ tool_calls: [{ index: 0, id: "c", function: { name: "f", arguments: "" } }] });
  body += chunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify({ q: piece(8) }) } }] });
  return body + `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`;
}

test("a generated stream of emoji gives the same message and events as a string cut anywhere", () => {
  const text = emojiStream(3);
  const whole = messageOf(full, [new TextEncoder().encode(text)]);
  assert.ok(ASTRAL.test(whole.text) && ASTRAL.test(whole.reasoning) && ASTRAL.test(whole.toolCalls[0].arguments));
  for (let cut = 0; cut <= text.length; cut++) {
    assert.deepEqual(messageOf(stream, [text.slice(0, cut), text.slice(cut)]), whole, `cut at ${cut}`);
  }
  // Many pieces, every one of them possibly ending inside a pair; the text events add up.
  for (let seed = 0; seed < 50; seed++) {
    const pieces = randomTextPieces(text, seed);
    const acc = new full.Accumulator();
    let streamed = "";
    for (const piece of pieces) for (const e of acc.push(piece)) if (e.type === "text") streamed += e.text;
    for (const e of acc.flush()) if (e.type === "text") streamed += e.text;
    const message = acc.finish();
    assert.deepEqual(message, whole, `seed ${seed}`);
    assert.equal(streamed, whole.text, `seed ${seed}: the text events`);
  }
});

test("a high surrogate whose pair never comes is U+FFFD, as the same string pushed whole makes it", () => {
  const head = 'data: {"choices":[{"delta":{"content":"a\ud83c';
  const cases = [
    ["another string", [head, 'b"}}]}\n\n']],
    ["another high surrogate", [head, '\ud83cb"}}]}\n\n']],
    ["bytes", [head, new TextEncoder().encode('b"}}]}\n\n')]],
    ["an ArrayBuffer", [head, new TextEncoder().encode('b"}}]}\n\n').buffer]],
    ["an empty string, then the rest", [head, "", 'b"}}]}\n\n']],
  ];
  for (const [what, pieces] of cases) {
    const joined = pieces.map((p) => (typeof p === "string" ? p : new TextDecoder().decode(p))).join("");
    const message = messageOf(full, pieces);
    assert.deepEqual(message, messageOf(full, [joined]), what);
    assert.match(message.text, /^a\ufffd+b$/, what);
  }
  // The stream ends on it: flush, abort, finish and result each release it first.
  const ending = (end) => {
    const acc = new full.Accumulator();
    acc.push(TEXT("x").slice(0, -2) + "\n"); // one data line, the blank line still to come
    acc.push('\ud83c');
    const events = end(acc);
    return { events, message: acc.finish() };
  };
  const reference = (() => {
    const acc = new full.Accumulator();
    acc.push(new TextEncoder().encode(TEXT("x").slice(0, -2) + "\n\ud83c"));
    return { events: acc.flush(), message: acc.finish() };
  })();
  assert.deepEqual(ending((acc) => acc.flush()), reference);
  assert.deepEqual(ending((acc) => acc.finish() && []).message, reference.message);
  const aborted = ending((acc) => acc.abort("reset"));
  assert.equal(aborted.message.text, reference.message.text);
});

test("a lone surrogate in a body object reads as U+FFFD, as in its stream", () => {
  // JSON.stringify writes a lone surrogate as its escape: the body reads as its stream does.
  const chat = { choices: [{ index: 0, message: { role: "assistant", content: "a\ud83db" }, finish_reason: "stop" }] };
  const anthropic = { type: "message", role: "assistant", content: [{ type: "text", text: "a\ude0ab" }], stop_reason: "end_turn" };
  assert.equal(full.toMessage(chat).text, "a\ufffdb");
  assert.equal(full.toMessage(anthropic).text, "a\ufffdb");
  assert.equal(full.process({ model: { id: "m" } }, chat), "a\ufffdb");
  const acc = new full.Accumulator();
  acc.push(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "a\ud83db" }, finish_reason: "stop" }] })}\n\n`);
  assert.equal(acc.finish().text, "a\ufffdb");
});

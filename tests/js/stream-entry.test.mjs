// The stream entry (`llm-wire/stream`, pkg/stream/): a module of its own with the Accumulator
// alone. Every recorded stream must give the same events and message through it as through the
// full module, at random splits; options, results, spans and errors must behave the same.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import * as full from "../../pkg/node.mjs";
import * as stream from "../../pkg/stream/node.mjs";
import { randomPieces, streamFixtures } from "./expect.mjs";

const require = createRequire(import.meta.url);

function run(module, pieces, options) {
  const acc = new module.Accumulator(options);
  const events = [];
  for (const piece of pieces) events.push(...acc.push(piece));
  events.push(...acc.flush());
  let result;
  try {
    result = { value: acc.result() };
  } catch (err) {
    result = { code: err.code, message: err.message };
  }
  return { events, message: acc.finish(), result };
}

test("every recorded stream gives the same events, message and result as the full module", () => {
  let checked = 0;
  for (const fixture of streamFixtures()) {
    const options = { format: fixture.format };
    const whole = run(full, [fixture.body], options);
    assert.deepEqual(run(stream, [fixture.body], options), whole, fixture.name);
    for (let seed = 0; seed < 10; seed++) {
      const pieces = randomPieces(fixture.body, seed);
      assert.deepEqual(run(stream, pieces, options), run(full, pieces, options), `${fixture.name} seed ${seed}`);
    }
    checked++;
  }
  assert.ok(checked >= 40, `all recorded streams (${checked})`);
});

test("it exports the Accumulator, its helpers and live partial JSON, and none of the request or response functions", () => {
  const expected = ["Accumulator", "AccumulatorStream", "PartialJson", "parsePartialJson", "streamEvents"];
  assert.deepEqual(Object.keys(stream).sort(), expected);
  for (const name of ["buildChatArgs", "buildRequest", "process", "processResponse", "toMessage", "parseToolArguments", "parseStructuredOutput", "genAiAttributes", "registerTool"]) {
    assert.equal(typeof full[name], "function", `the full module has ${name}`);
    assert.equal(stream[name], undefined, `the stream entry has no ${name}`);
  }
  const cjs = require("../../pkg/stream/node.cjs");
  assert.deepEqual(Object.keys(cjs).sort(), expected);
});

test("each entry's ESM and CommonJS files export the same names, and none of the raw ones", () => {
  const raw = ["PartialJsonCore", "partialJsonChanges", "initSync", "default"];
  for (const [esm, cjs] of [[full, require("../../pkg/node.cjs")], [stream, require("../../pkg/stream/node.cjs")]]) {
    assert.deepEqual(Object.keys(cjs).sort(), Object.keys(esm).sort());
    for (const name of raw) assert.ok(!(name in esm) && !(name in cjs), `${name} is not exported`);
  }
});

test("agent options, structured results and the span are the same as the full module's", () => {
  const agent = {
    model: { id: "gpt-4o-mini", provider: "openai" },
    outputs: [{ name: "city", kind: "string", required: true }],
  };
  const body = 'data: {"id":"c1","model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"{\\"city\\":\\"Oslo\\"}"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
  const outcome = (module) => {
    const spans = [];
    const acc = new module.Accumulator({ agent, onSpan: (s) => spans.push(s) });
    acc.push(body);
    return { result: acc.result(), message: acc.finish(), spans };
  };
  const ours = outcome(stream);
  assert.deepEqual(ours.result, { city: "Oslo" });
  assert.equal(ours.spans.length, 1);
  assert.deepEqual(ours, outcome(full));
});

test("bad input throws the same coded errors as the full module", () => {
  const thrown = (f) => {
    try {
      f();
    } catch (err) {
      return { isError: err instanceof Error, code: err.code, path: err.path, message: err.message };
    }
    assert.fail("did not throw");
  };
  const cases = [
    (m) => new m.Accumulator({ format: "smoke-signals" }),
    (m) => new m.Accumulator({ maxEventBytes: -1 }),
    (m) => new m.Accumulator({ agent: { model: 3 } }),
    (m) => new m.Accumulator().push(42),
    (m) => { const a = new m.Accumulator(); a.finish(); a.push("data: x\n\n"); },
  ];
  for (const make of cases) {
    const ours = thrown(() => make(stream));
    assert.ok(ours.isError && typeof ours.code === "string", `${make}: an Error with a code`);
    assert.deepEqual(ours, thrown(() => make(full)), String(make));
  }
});

test("the minified glue keeps its exports' names, as the CommonJS glue does", () => {
  const cjs = { full: require("../../pkg/node.cjs"), stream: require("../../pkg/stream/node.cjs") };
  for (const [entry, module] of Object.entries({ full, stream })) {
    const exported = Object.entries(module).filter(([, value]) => typeof value === "function");
    assert.ok(exported.length >= (entry === "full" ? 12 : 4), entry);
    for (const [name, value] of exported) {
      if (name === "default") continue;
      assert.equal(value.name, name, `${entry}: ${name}`);
      if (typeof cjs[entry][name] === "function") assert.equal(cjs[entry][name].name, name, `${entry} (CommonJS): ${name}`);
    }
  }
});

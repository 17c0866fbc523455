// Hostile inputs that grow memory without bound unless a limit stops them. Each runs in a fresh
// module instance of the package's full module (wasm memory never shrinks, so its growth is the
// attack's) and must end in a `limit_exceeded` error, not a trap (`WebAssembly.RuntimeError`),
// with what came before kept, the instance still usable, and wasm memory bounded.
//
// The stream attacks use `maxMessageBytes: 1 MiB` and events of about 1 MB, so a missing limit
// shows after a few dozen events (seconds) rather than at 4 GiB (the traps they reproduce: an
// unknown Anthropic block type of 15 MB at event 254, Responses deltas with a new 1 MB item_id
// at event 4,092, `server_tool_use` blocks left open with 7 MB of input at event 509).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { makeHelpers } from "../../pkg/helpers.mjs";

const MiB = 1 << 20;
const MODULE = new WebAssembly.Module(readFileSync(new URL("../../pkg/llm_wire_bg.wasm", import.meta.url)));
let instances = 0;

/** The package's exports over a module instance of their own, and its memory. */
async function freshInstance() {
  const glue = await import(`../../pkg/llm_wire.js?instance=${++instances}`);
  const { memory } = glue.initSync({ module: MODULE });
  return { ...glue, ...makeHelpers(glue.Accumulator), memory };
}

const sse = (object, event) => `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(object)}\n\n`;
const big = (n, seed) => `${seed}:`.padEnd(n, "x");

/** Fails on a trap; gives back any other error for the caller to judge. */
function noTrap(f, what) {
  try {
    return { value: f() };
  } catch (error) {
    assert.ok(!(error instanceof WebAssembly.RuntimeError), `${what}: a trap (${error})`);
    return { error };
  }
}

/** What every attack must leave: the instance works for a new stream and a new request. */
function stillUsable(wire) {
  const acc = new wire.Accumulator();
  acc.push(sse({ choices: [{ index: 0, delta: { content: "still here" }, finish_reason: "stop" }] }));
  assert.equal(acc.finish().text, "still here", "a new Accumulator works");
  acc.free();
  assert.deepEqual(wire.buildChatArgs({ model: { id: "m" } }, [{ role: "user", content: "hi" }]), {
    model: "m",
    messages: [{ role: "user", content: "hi" }],
  });
}

/**
 * Pushes `prelude`, then `attack(i)` events until one push reports (or throws) `limit_exceeded`,
 * at most `events` of them, and checks the outcome.
 */
async function streamAttack({ prelude, attack, events = 48, bound = 32 * MiB }) {
  const wire = await freshInstance();
  const acc = new wire.Accumulator({ maxMessageBytes: MiB });
  acc.push(prelude);
  const kept = (() => {
    const probe = new wire.Accumulator();
    probe.push(prelude);
    return probe.finish().text;
  })();
  assert.ok(kept.length > 0, "the prelude has text");
  const before = wire.memory.buffer.byteLength;
  let limit;
  let sent = 0;
  while (!limit && sent < events) {
    const { value, error } = noTrap(() => acc.push(attack(sent)), `event ${sent}`);
    sent++;
    limit = error ?? value.find((e) => e.type === "error");
  }
  assert.ok(limit, `no error after ${sent} attack events (${(wire.memory.buffer.byteLength - before) / MiB} MiB more memory)`);
  assert.equal(limit.code, "limit_exceeded", `the error after ${sent} events: ${limit.message}`);
  assert.equal(noTrap(() => acc.push("data: {}\n\n"), "a push after the limit").error?.code, "limit_exceeded");
  const message = noTrap(() => acc.finish(), "finish").value;
  assert.ok(message.text.startsWith(kept), `the text before the attack is kept (${JSON.stringify(message.text.slice(0, 40))})`);
  assert.equal(message.error?.code, "limit_exceeded");
  assert.equal(message.complete, false);
  acc.free();
  const grown = wire.memory.buffer.byteLength - before;
  assert.ok(grown <= bound, `wasm memory grew by ${grown / MiB} MiB, over ${bound / MiB} MiB`);
  stillUsable(wire);
}

const ANTHROPIC_PRELUDE =
  sse({ type: "message_start", message: { id: "msg_1", model: "claude", role: "assistant", content: [], usage: { input_tokens: 1, output_tokens: 1 } } }, "message_start") +
  sse({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }, "content_block_start") +
  sse({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "kept text" } }, "content_block_delta") +
  sse({ type: "content_block_stop", index: 0 }, "content_block_stop");

const RESPONSES_PRELUDE =
  sse({ type: "response.created", response: { id: "resp_1", model: "gpt", status: "in_progress", output: [] } }, "response.created") +
  sse({ type: "response.output_text.delta", item_id: "msg_0", output_index: 0, content_index: 0, delta: "kept text" }, "response.output_text.delta");

test("Anthropic content_block_start events of an unknown block type stop at a limit", async () => {
  await streamAttack({
    prelude: ANTHROPIC_PRELUDE,
    attack: (i) => sse({ type: "content_block_start", index: i + 1, content_block: { type: "mystery_block", payload: big(MiB - 100, i) } }, "content_block_start"),
  });
});

test("Responses text deltas each with a new output_index and a new 1 MB item_id stop at a limit", async () => {
  await streamAttack({
    prelude: RESPONSES_PRELUDE,
    attack: (i) => sse({ type: "response.output_text.delta", item_id: big(MiB - 100, i), output_index: i + 1, content_index: 0, delta: "y" }, "response.output_text.delta"),
  });
});

test("Anthropic server_tool_use blocks left open with 1 MB of input each stop at a limit", async () => {
  await streamAttack({
    prelude: ANTHROPIC_PRELUDE,
    attack: (i) =>
      sse({ type: "content_block_start", index: i + 1, content_block: { type: "server_tool_use", id: `srvtoolu_${i}`, name: "web_search", input: {} } }, "content_block_start") +
      sse({ type: "content_block_delta", index: i + 1, delta: { type: "input_json_delta", partial_json: JSON.stringify({ query: big(MiB - 100, i) }) } }, "content_block_delta"),
  });
});

test("Responses output_item.done events of an unknown item type stop at a limit", async () => {
  await streamAttack({
    prelude: RESPONSES_PRELUDE,
    attack: (i) => sse({ type: "response.output_item.done", output_index: i + 1, item: { type: "mystery_item", id: `it_${i}`, payload: big(MiB - 100, i) } }, "response.output_item.done"),
  });
});

test("an OpenAPI document with 600 $refs to one parameter with an 8 MB description stops at a limit", async () => {
  const wire = await freshInstance();
  const parameter = { name: "q", in: "query", description: big(8 * MiB, "d"), schema: { type: "string" } };
  const paths = {};
  for (let i = 0; i < 600; i++) paths[`/r${i}`] = { get: { operationId: `op${i}`, parameters: [{ $ref: "#/components/parameters/Q" }] } };
  const specification = JSON.stringify({ openapi: "3.0.0", info: { title: "t", version: "1" }, paths, components: { parameters: { Q: parameter } } });
  const agent = { model: { id: "m" }, tools: [{ kind: "openapi", name: "api", specification }] };
  const before = wire.memory.buffer.byteLength;
  const { error } = noTrap(() => wire.buildChatArgs(agent, [{ role: "user", content: "hi" }]), "buildChatArgs");
  assert.ok(error, "the expansion is refused");
  assert.equal(error.code, "limit_exceeded", error.message);
  const grown = wire.memory.buffer.byteLength - before;
  assert.ok(grown <= 256 * MiB, `wasm memory grew by ${grown / MiB} MiB`);
  stillUsable(wire);
});

test("registerTool of a custom tool with a 200 MB description stops at a limit and leaves the registry usable", async () => {
  const wire = await freshInstance();
  const before = wire.memory.buffer.byteLength;
  const agent = (name) => ({ model: { id: "m" }, tools: [{ kind: "custom_kind", name }] });
  let outcome = noTrap(() => wire.registerTool("huge", { description: big(200 * MiB, "d"), parameters: { type: "object" } }), "registerTool");
  if (!outcome.error) outcome = noTrap(() => wire.buildChatArgs(agent("huge"), []), "the lookup in buildChatArgs");
  assert.ok(outcome.error, "the 200 MB description is refused");
  assert.equal(outcome.error.code, "limit_exceeded", outcome.error.message);
  const grown = wire.memory.buffer.byteLength - before;
  assert.ok(grown <= 1024 * MiB, `wasm memory grew by ${grown / MiB} MiB`);
  // The registry is not left locked: registering and looking up work.
  noTrap(() => wire.registerTool("small", { description: "a small tool", parameters: { type: "object" } }), "a later registerTool");
  const body = noTrap(() => wire.buildChatArgs(agent("small"), []), "a later lookup").value;
  assert.equal(body.tools[0].function.description, "a small tool");
  stillUsable(wire);
});

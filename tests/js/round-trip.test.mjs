// A finished turn goes back in, through the built npm package (pkg/) in Node: asMessage, and a
// FinalMessage given directly among the messages, in a whole loop of recorded Responses turns
// and in a conversation moved from Anthropic to OpenAI chat and Responses and back.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Accumulator, asMessage, buildChatArgs, buildRequest } from "../../pkg/node.mjs";

const fixture = (name) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url), "utf8");

const agent = (provider, apiType = "chat") => ({
  model: { id: "m", provider, apiType },
  tools: [{ kind: "function", name: "calculator", parameters: [
    { name: "a", kind: "float", required: true },
    { name: "b", kind: "float", required: true },
    { name: "op", kind: "string", required: true },
  ] }],
});

const finish = (stream) => {
  const acc = new Accumulator();
  try {
    acc.push(stream);
    return acc.finish();
  } finally {
    acc.free();
  }
};

const calculate = (call) => {
  const { a, b, op } = JSON.parse(call.arguments);
  return String(op === "add" ? a + b : a * b);
};

const results = (turn) => turn.toolCalls.map((c) => ({ role: "tool", content: calculate(c), metadata: { tool_call_id: c.id } }));

test("asMessage gives the text, the calls in OpenAI's shape and the blocks verbatim", () => {
  const turn = finish(fixture("anthropic/pyd-thinking-signature-stream.sse"));
  const message = asMessage(turn);
  assert.equal(message.role, "assistant");
  assert.equal(message.content, turn.text);
  assert.deepEqual(message.metadata.blocks, turn.content);
  const calls = finish(fixture("openai-chat/pyd-parallel-tool-calls.sse"));
  assert.deepEqual(
    asMessage(calls).metadata.tool_calls,
    calls.toolCalls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } })),
  );
});

test("a FinalMessage among the messages builds what its asMessage builds, in every format", () => {
  const turn = finish(fixture("anthropic/pyd-redacted-thinking-stream.sse"));
  for (const [provider, apiType] of [["openai", "chat"], ["openai", "responses"], ["anthropic", "chat"], ["google", "chat"], ["bedrock", "chat"]]) {
    const direct = buildChatArgs(agent(provider, apiType), [{ role: "user", content: "Go" }, turn]);
    const converted = buildChatArgs(agent(provider, apiType), [{ role: "user", content: "Go" }, asMessage(turn)]);
    assert.deepEqual(direct, converted, `${provider}/${apiType}`);
    assert.ok(!JSON.stringify(direct).includes('"blocks"'), `${provider}/${apiType}: blocks stay private`);
  }
});

test("a Responses loop of recorded turns sends each turn's reasoning items back with their encrypted content", () => {
  const messages = [{ role: "user", content: "What is (12 + 7) * 3 * 10?" }];
  const bodies = [];
  let last;
  for (const part of [1, 2, 3, 4]) {
    const request = buildRequest(agent("openai", "responses"), messages, { apiKey: "k", stream: true });
    bodies.push(JSON.parse(request.body));
    last = finish(fixture(`openai-responses/vercel-reasoning-summary-tool-calls.part${part}.sse`));
    messages.push(last, ...results(last));
  }
  assert.equal(last.text, "The final result is **570**.");
  const first = finish(fixture("openai-responses/vercel-reasoning-summary-tool-calls.part1.sse"));
  const sentBack = bodies[1].input.filter((item) => item.type === "reasoning");
  const kept = first.content.filter((b) => b.type === "reasoning" && b.encryptedContent);
  assert.ok(kept.length > 0);
  assert.deepEqual(sentBack.map((r) => [r.id, r.encrypted_content]), kept.map((b) => [b.id, b.encryptedContent]));
  const outputs = bodies[3].input.filter((i) => i.type === "function_call_output").map((i) => i.output);
  assert.deepEqual(outputs, ["19", "57", "570"]);
  const calls = bodies[3].input.filter((i) => i.type === "function_call").map((i) => i.call_id);
  assert.deepEqual(calls, bodies[3].input.filter((i) => i.type === "function_call_output").map((i) => i.call_id));
});

test("a conversation moved Anthropic → OpenAI chat → Responses → Anthropic carries text and calls, not foreign reasoning", () => {
  const thinking = finish(fixture("anthropic/pyd-thinking-signature-stream.sse"));
  const signature = thinking.content.find((b) => b.type === "reasoning").signature;
  assert.ok(signature && thinking.text);
  const responsesTurn = finish(fixture("openai-responses/vercel-reasoning-summary-tool-calls.part1.sse"));
  const encrypted = responsesTurn.content.find((b) => b.encryptedContent).encryptedContent;
  const messages = [{ role: "user", content: "Go" }, thinking, { role: "user", content: "Now add" }, responsesTurn, ...results(responsesTurn)];
  const body = (provider, apiType) => JSON.stringify(buildChatArgs(agent(provider, apiType), messages));
  // (the format, the reasoning state it takes back, the one it must not be sent)
  for (const [provider, apiType, own, foreign] of [
    ["anthropic", "chat", [signature], [encrypted]],
    ["openai", "chat", [], [signature, encrypted]],
    ["openai", "responses", [encrypted], [signature]],
  ]) {
    const sent = body(provider, apiType);
    for (const state of own) assert.ok(sent.includes(JSON.stringify(state)), `${provider}/${apiType} keeps its own`);
    for (const state of foreign) assert.ok(!sent.includes(JSON.stringify(state)), `${provider}/${apiType} gets no foreign state`);
    assert.ok(sent.includes(JSON.stringify(responsesTurn.toolCalls[0].id).slice(1, -1)), `${provider}/${apiType} keeps the call`);
    assert.ok(sent.includes(JSON.stringify(thinking.text).slice(1, -1)), `${provider}/${apiType} keeps the text`);
  }
});

test("a FinalMessage that is not one is refused at its path", () => {
  assert.throws(
    () => buildChatArgs(agent("openai"), [{ content: [{ type: "tool_call", name: "f" }] }]),
    (e) => e.code === "invalid_input" && e.path === "messages[0].content[0].id",
  );
  assert.throws(() => asMessage({ role: "user", finishReason: "stop" }), (e) => e.code === "invalid_input" && e.path === "final.role");
});

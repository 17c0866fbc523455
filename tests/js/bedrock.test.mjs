// Amazon Bedrock through the built npm package (pkg/) in Node: the recorded ConverseStream
// bytes as Uint8Arrays at every split, a string chunk refused, and the request and body side.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { Accumulator, buildChatArgs, buildRequest, process as processBody, streamEvents, toMessage } from "../../pkg/node.mjs";
import { checkExpect, chunkedStream, randomPieces, runPieces } from "./expect.mjs";

const DIR = new URL("../fixtures/bedrock/", import.meta.url);
const read = (name) => readFileSync(new URL(name, DIR));

const run = (pieces, format) => runPieces(Accumulator, pieces, format);

const streams = readdirSync(DIR).filter((f) => f.endsWith(".eventstream")).sort();

test("every recorded Bedrock stream is read", () => assert.equal(streams.length, 4));

for (const file of streams) {
  test(`bedrock/${file} matches its expectations and is the same at every split`, () => {
    const body = new Uint8Array(read(file));
    const whole = run([body], "bedrock");
    const expectPath = new URL(file.replace(/\.eventstream$/, ".expect.json"), DIR);
    if (existsSync(expectPath)) {
      const { _note, ...expect } = JSON.parse(readFileSync(expectPath, "utf8"));
      // The README's wire value is base64 of the bytes; the message keeps their text.
      if (expect.redactedReasoning) {
        expect.redactedReasoning = expect.redactedReasoning.map((wire) => Buffer.from(wire, "base64").toString("utf8"));
      }
      checkExpect(whole.message, expect, file);
    }
    const detected = run([body]);
    assert.equal(detected.format, "bedrock");
    assert.deepEqual(detected.message, whole.message, "auto detection");
    const bytewise = run(Array.from(body, (_, i) => body.subarray(i, i + 1)), "bedrock");
    assert.deepEqual(bytewise.message, whole.message, "one byte at a time");
    for (let seed = 0; seed < 50; seed++) {
      assert.deepEqual(run(randomPieces(body, seed), "bedrock").message, whole.message, `random split seed ${seed}`);
    }
  });
}

test("a string chunk is refused for a binary stream, and the accumulator stays usable", () => {
  const body = new Uint8Array(read("pyd-nova-text-stream.eventstream"));
  const expected = run([body]).message;
  const cases = [
    ["bedrock", null], // the format says so
    ["auto", body.subarray(0, 40)], // the first bytes said so
    ["auto", null], // a string that starts like a frame (a zero byte)
  ];
  for (const [format, first] of cases) {
    const acc = new Accumulator({ format });
    if (first) acc.push(first);
    assert.throws(() => acc.push("\u0000\u0000\u0001\u0000"), (err) => err.code === "invalid_input" && err.path === "chunk" && /Uint8Array/.test(err.message));
    acc.push(first ? body.subarray(40) : body);
    assert.deepEqual(acc.finish(), expected, `${format}, ${first ? "after bytes" : "at once"}`);
    acc.free();
  }
});

test("streamEvents reads a Bedrock response body", async () => {
  const body = new Uint8Array(read("pyd-claude-reasoning-signature-stream.eventstream"));
  const stream = chunkedStream(body, 100);
  let text = "";
  let final;
  for await (const event of streamEvents(stream)) {
    if (event.type === "text") text += event.text;
    if (event.type === "final") final = event.message;
  }
  assert.equal(text, final.text);
  assert.equal(final.finishReason, "stop");
  assert.ok(final.complete);
  assert.ok(final.content[0].signature.startsWith("Eu0CCkgIBxAB"));
});

const agent = { model: { id: "us.amazon.nova-micro-v1:0", provider: "bedrock", options: { maxOutputTokens: 5 } } };
const messages = [{ role: "system", content: "You are a helpful chatbot." }, { role: "user", content: "What is the capital of France?" }];

test("buildChatArgs and buildRequest give the recorded Converse request", () => {
  const recorded = JSON.parse(read("pyd-max-tokens.request.json"));
  assert.deepEqual(buildChatArgs(agent, messages), recorded.body);
  const request = buildRequest(agent, messages, { region: "us-east-1", apiKey: "key" });
  assert.equal(request.url, recorded.uri);
  assert.deepEqual(JSON.parse(request.body), recorded.body);
  assert.equal(request.headers.Authorization, "Bearer key");
  const streamed = buildRequest(agent, messages, { region: "us-east-1", stream: true });
  assert.ok(streamed.url.endsWith("/converse-stream"));
  assert.equal(streamed.headers.Accept, "application/vnd.amazon.eventstream");
  assert.throws(() => buildRequest(agent, messages), (err) => err.code === "invalid_input" && err.path === "options.region");
});

test("a Converse body is a message, and an AWS error body throws provider_error", () => {
  const body = read("pyd-nova-tool-use.json").toString();
  const message = toMessage(body, agent);
  assert.equal(message.toolCalls[0].name, "final_result");
  assert.deepEqual(JSON.parse(message.toolCalls[0].arguments), { city: "London", date: "2022-01-01", temperature: "30°C" });
  assert.equal(message.rawFinishReason, "tool_use");
  const { provider, ...detected } = message;
  assert.equal(provider, "bedrock", "the agent's provider");
  assert.deepEqual(toMessage(body), detected, "detected without an agent");
  assert.throws(() => processBody(agent, read("pyd-error-400-stream-endpoint.json").toString()),
    (err) => err.code === "provider_error" && err.message === "The provided model identifier is invalid.");
});

/** The events of an AWS event stream as the AWS SDK yields them: `{[event-type]: payload}`, the
 * `p` padding gone and each blob (`redactedContent`, a chunk's `bytes`) a Uint8Array. */
function sdkEvents(body) {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const events = [];
  for (let at = 0; at < body.length;) {
    const [total, headersLength] = [view.getUint32(at), view.getUint32(at + 4)];
    let type;
    for (let h = at + 12; h < at + 12 + headersLength;) {
      const name = Buffer.from(body.subarray(h + 1, h + 1 + body[h])).toString();
      h += 1 + body[h] + 1; // the name, then its value's type (7: a string)
      const length = view.getUint16(h);
      if (name === ":event-type") type = Buffer.from(body.subarray(h + 2, h + 2 + length)).toString();
      h += 2 + length;
    }
    const { p, ...payload } = JSON.parse(Buffer.from(body.subarray(at + 12 + headersLength, at + total - 4)));
    const blob = payload.delta?.reasoningContent;
    if (blob?.redactedContent) blob.redactedContent = new Uint8Array(Buffer.from(blob.redactedContent, "base64"));
    if (payload.bytes) payload.bytes = new Uint8Array(Buffer.from(payload.bytes, "base64"));
    events.push({ [type]: payload });
    at += total;
  }
  return events;
}

test("pushJson reads the AWS SDK's Uint8Array blobs as their base64 wire form", () => {
  const body = new Uint8Array(read("pyd-claude-redacted-reasoning-stream.eventstream"));
  const expected = run([body], "bedrock").message;
  assert.equal(expected.content.filter((b) => b.redacted).length, 2);
  const events = sdkEvents(body);
  assert.ok(events.some((e) => e.contentBlockDelta?.delta.reasoningContent?.redactedContent instanceof Uint8Array));
  const acc = new Accumulator();
  events.forEach((event) => acc.pushJson(event));
  assert.deepEqual(acc.finish(), expected);
  // InvokeModelWithResponseStream: `{chunk: {bytes}}`, an Anthropic event's bytes.
  const chunk = (event) => ({ chunk: { bytes: new TextEncoder().encode(JSON.stringify(event)) } });
  const invoke = new Accumulator();
  invoke.pushJson(chunk({ type: "message_start", message: { id: "m", role: "assistant", content: [], usage: { input_tokens: 3, output_tokens: 1 } } }));
  invoke.pushJson(chunk({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi" } }));
  invoke.pushJson(chunk({ type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 2 } }));
  invoke.pushJson(chunk({ type: "message_stop" }));
  const message = invoke.finish();
  assert.equal(message.text, "Hi");
  assert.equal(message.usage.outputTokens, 2);
  assert.ok(message.complete);
});

// `process` reads its body the same way (one function makes both JSON texts).
test("toMessage reads a ConverseCommand output whose blobs are Uint8Arrays", () => {
  const data = "EtkECkgIBxAB";
  const output = {
    $metadata: { httpStatusCode: 200, requestId: "r", attempts: 1, totalRetryDelay: 0 },
    output: { message: { role: "assistant", content: [
      { reasoningContent: { redactedContent: new TextEncoder().encode(data) } }, { text: "answer" },
    ] } },
    stopReason: "end_turn", usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 }, metrics: { latencyMs: 5 },
  };
  const claude = { model: { id: "anthropic.claude", provider: "bedrock" } };
  const message = toMessage(output, claude);
  assert.deepEqual(message.content, [{ type: "reasoning", text: "", redacted: data }, { type: "text", text: "answer" }]);
  // A Uint8Array the caller passes elsewhere in the object is untouched.
  assert.ok(output.output.message.content[0].reasoningContent.redactedContent instanceof Uint8Array);
});

test("an object copied for its blobs keeps a __proto__ member, and an empty blob reads the same beside others", () => {
  const claude = { model: { id: "anthropic.claude", provider: "bedrock" } };
  const body = (content) => ({
    output: { message: { role: "assistant", content } }, stopReason: "tool_use", usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
  });
  const call = { toolUse: { toolUseId: "t1", name: "f", input: JSON.parse('{"__proto__":{"a":1},"b":2}') } };
  const blob = { reasoningContent: { redactedContent: new TextEncoder().encode("EtkE") } };
  const plain = toMessage(body([call]), claude);
  const copied = toMessage(body([blob, call]), claude);
  assert.equal(plain.toolCalls[0].arguments, '{"__proto__":{"a":1},"b":2}');
  assert.equal(copied.toolCalls[0].arguments, plain.toolCalls[0].arguments);
  // An empty blob is an absent member, alone or beside a blob that makes the object be copied.
  const empty = { reasoningContent: { redactedContent: new Uint8Array(0) } };
  const alone = toMessage(body([empty, { text: "x" }]), claude);
  const beside = toMessage(body([empty, blob, { text: "x" }]), claude);
  const withBlob = toMessage(body([blob, { text: "x" }]), claude);
  assert.deepEqual(beside.content, [...alone.content.slice(0, -1), ...withBlob.content]);
});

// Gemini and Vertex AI through the built npm package (pkg/) in Node: every recorded stream at
// every split, the same stream as a JSON array, and the request and body side.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { Accumulator, buildChatArgs, buildRequest, process as processBody, streamEvents, toMessage } from "../../pkg/node.mjs";
import { checkExpect, chunkedStream, randomPieces, runPieces } from "./expect.mjs";

const FIXTURES = new URL("../fixtures/", import.meta.url);
const read = (path) => readFileSync(new URL(path, FIXTURES));

const run = (pieces, format) => runPieces(Accumulator, pieces, format);

const streams = ["gemini", "vertex"].flatMap((dir) =>
  readdirSync(new URL(`${dir}/`, FIXTURES)).filter((f) => f.endsWith(".sse")).sort().map((f) => `${dir}/${f}`));

test("every recorded Gemini and Vertex AI stream is read", () => assert.ok(streams.length >= 10, `${streams.length}`));

for (const path of streams) {
  test(`${path} matches its expectations and is the same at every split`, () => {
    const body = new Uint8Array(read(path));
    const whole = run([body], "gemini");
    const expectPath = new URL(path.replace(/\.sse$/, ".expect.json"), FIXTURES);
    if (existsSync(expectPath)) checkExpect(whole.message, JSON.parse(readFileSync(expectPath, "utf8")), path);
    const detected = run([body]);
    assert.equal(detected.format, "gemini");
    assert.deepEqual(detected.message, whole.message, "auto detection");
    const bytewise = run(Array.from(body, (_, i) => body.subarray(i, i + 1)), "gemini");
    assert.deepEqual(bytewise.message, whole.message, "one byte at a time");
    const text = bytewise.events.filter((e) => e.type === "text" && !e.choice).map((e) => e.text).join("");
    assert.equal(text, whole.message.text, "text events add up to the text");
    for (let seed = 0; seed < 50; seed++) {
      assert.deepEqual(run(randomPieces(body, seed), "gemini").message, whole.message, `random split seed ${seed}`);
    }
  });
}

/** The chunks of an SSE recording as the JSON array `streamGenerateContent` sends without `alt=sse`. */
function asJsonArray(sse) {
  const chunks = sse.split(/\r?\n\r?\n/).filter((e) => e.startsWith("data:")).map((e) => e.slice(5).trim());
  return `[${chunks.join(",\r\n")}]`;
}

test("a stream sent as a JSON array gives the message its SSE form gives, at every split", () => {
  for (const path of streams) {
    const sse = read(path).toString();
    const expected = run([sse], "gemini").message;
    const array = new TextEncoder().encode(asJsonArray(sse));
    assert.deepEqual(run([array]).message, expected, `${path}, detected`);
    for (let seed = 0; seed < 20; seed++) {
      assert.deepEqual(run(randomPieces(array, seed), "gemini").message, expected, `${path}, split ${seed}`);
    }
  }
});

test("streamEvents reads a Gemini response body", async () => {
  const body = new Uint8Array(read("gemini/pyd-thinking-stream.sse"));
  const stream = chunkedStream(body, 50);
  let reasoning = "";
  let final;
  for await (const event of streamEvents(stream)) {
    if (event.type === "reasoning") reasoning += event.text;
    if (event.type === "final") final = event.message;
  }
  assert.ok(reasoning.length > 0);
  assert.equal(reasoning, final.reasoning);
  assert.ok(final.complete);
});

test("buildChatArgs and buildRequest give each recorded request's body and URL", () => {
  const agent = { model: { id: "gemini-2.0-flash-exp", provider: "google", options: { temperature: 0 } } };
  const messages = [{ role: "system", content: "You are a helpful chatbot." }, { role: "user", content: "What is the capital of France?" }];
  const recorded = JSON.parse(read("gemini/pyd-text-stream.request.json"));
  const request = buildRequest(agent, messages, { apiKey: "key", stream: true });
  assert.equal(request.url, recorded.uri);
  assert.equal(request.headers["x-goog-api-key"], "key");
  const body = JSON.parse(request.body);
  assert.deepEqual(body.contents, recorded.body.contents);
  assert.deepEqual(body.generationConfig, recorded.body.generationConfig);
  assert.deepEqual(body.systemInstruction.parts, recorded.body.systemInstruction.parts);
  assert.deepEqual(buildChatArgs(agent, messages), body);
});

test("Vertex AI requests name the project and region, and refuse names that do not go in a URL", () => {
  const agent = { model: { id: "gemini-2.5-flash", provider: "vertex" } };
  const messages = [{ role: "user", content: "Hello" }];
  const request = buildRequest(agent, messages, { apiKey: "token", project: "my-project", region: "europe-west4", stream: true });
  assert.equal(request.url, "https://europe-west4-aiplatform.googleapis.com/v1/projects/my-project/locations/europe-west4/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
  assert.equal(request.headers.Authorization, "Bearer token");
  assert.equal(buildRequest(agent, messages, { project: "p" }).url,
    "https://aiplatform.googleapis.com/v1/projects/p/locations/global/publishers/google/models/gemini-2.5-flash:generateContent");
  assert.throws(() => buildRequest(agent, messages), (err) => err.code === "invalid_input" && err.path === "options.project");
  assert.throws(() => buildRequest(agent, messages, { project: "p", region: "us/../x" }), (err) => err.code === "invalid_input" && err.path === "options.region");
});

test("a Gemini body is a message, a structured answer is parsed, and an error body throws provider_error", () => {
  const agent = { model: { id: "gemini-2.0-flash", provider: "google" }, outputs: [{ name: "city", kind: "string" }, { name: "country", kind: "string" }] };
  const body = read("gemini/pyd-structured-output.json").toString();
  const expect = JSON.parse(read("gemini/pyd-structured-output.expect.json"));
  const message = toMessage(body, agent);
  checkExpect(message, expect, "pyd-structured-output");
  assert.deepEqual(processBody(agent, body), JSON.parse(message.text));
  const { provider, ...detected } = message;
  assert.deepEqual(toMessage(body), detected, "detected without an agent");
  assert.throws(() => processBody(agent, read("gemini/pyd-error-404.json").toString()),
    (err) => err.code === "provider_error" && err.providerType === "NOT_FOUND" && err.retryable === false);
});

test("a prompt blocked before any candidate throws with the block reason", () => {
  const agent = { model: { id: "gemini-2.5-flash", provider: "vertex" } };
  const body = JSON.parse(read("vertex/pyd-model-armor-prompt-blocked.json"));
  assert.throws(() => processBody(agent, body), (err) => err.code === "provider_error" && err.providerCode === body.promptFeedback.blockReason);
});

test("embeddings: one vector gives a vector, several a list in input order", () => {
  const gemini = { model: { id: "gemini-embedding-001", provider: "google", apiType: "embedding" } };
  const batch = JSON.parse(read("gemini/pyd-batch-embed-contents.json"));
  assert.deepEqual(processBody(gemini, batch), batch.embeddings[0].values);
  const two = { embeddings: [batch.embeddings[0], { values: [0.5, -0.25] }] };
  assert.deepEqual(processBody(gemini, two), [batch.embeddings[0].values, [0.5, -0.25]]);
  const predict = JSON.parse(read("vertex/pyd-predict-embeddings.json"));
  const vertex = { model: { id: "text-embedding-005", provider: "vertex", apiType: "embedding" } };
  assert.deepEqual(processBody(vertex, predict), predict.predictions[0].embeddings.values);
});

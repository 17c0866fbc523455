// `processResponse(agent, response)`: every recorded body and stream, served over HTTP in small
// pieces both ways (with its own content type, and as `application/octet-stream` so that only
// its first bytes tell), must resolve to what `process` or the Accumulator's `result()` gives
// for the same bytes, reject with the same coded error, and send the same span.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { readdirSync, readFileSync } from "node:fs";
import * as wire from "../../pkg/node.mjs";
import * as streamEntry from "../../pkg/stream/node.mjs";
import { FIXTURES, STREAM_DIRS } from "./expect.mjs";

/** The agent a fixture directory's responses were made for. */
function agentFor(dir) {
  const model = { id: "m" };
  if (dir === "anthropic") model.provider = "anthropic";
  if (dir === "openai-responses") model.apiType = "responses";
  if (dir === "openai-embeddings") model.apiType = "embedding";
  if (dir === "openai-images") model.apiType = "image";
  return { model, outputs: dir.includes("structured") ? [{ name: "x", kind: "object" }] : undefined };
}

/** Every recorded stream and JSON body the package reads: {name, dir, body, streamed, type}. */
function recorded() {
  const out = [];
  for (const dir of [...Object.keys(STREAM_DIRS), "openai-embeddings", "openai-images"]) {
    for (const file of readdirSync(new URL(`${dir}/`, FIXTURES)).sort()) {
      const streamed = file.endsWith(".sse");
      if (!streamed && (!file.endsWith(".json") || file.endsWith(".expect.json"))) continue;
      out.push({
        name: `${dir}/${file}`,
        dir,
        body: new Uint8Array(readFileSync(new URL(`${dir}/${file}`, FIXTURES))),
        streamed,
        type: streamed ? "text/event-stream" : "application/json",
      });
    }
  }
  return out;
}

const FIXTURE_LIST = recorded();
let server;
let base;

before(async () => {
  // /<index>/<content type or "none"> serves fixture <index> in 61-byte pieces.
  server = createServer(async (req, res) => {
    const [, index, type] = req.url.split("/");
    const fixture = FIXTURE_LIST[Number(index)];
    res.writeHead(200, type === "none" ? {} : { "content-type": decodeURIComponent(type) });
    for (let at = 0; at < fixture.body.length; at += 61) {
      res.write(fixture.body.subarray(at, at + 61));
      if (at % 610 === 0) await new Promise((r) => setImmediate(r));
    }
    res.end();
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});

after(() => server?.close());

/** What a call gives: its value, or its error's code, message and path; and the spans it sent. */
async function outcome(call) {
  const spans = [];
  try {
    return { value: await call((span) => spans.push(span)), spans };
  } catch (err) {
    assert.ok(err instanceof Error && typeof err.code === "string", `an Error with a code: ${err}`);
    return { error: { code: err.code, message: err.message, path: err.path }, spans };
  }
}

/** The same bytes read all at once, without HTTP. */
function direct(fixture, agent) {
  return outcome((onSpan) => {
    if (!fixture.streamed) return wire.process(agent, new TextDecoder().decode(fixture.body), { onSpan });
    const acc = new wire.Accumulator({ agent, onSpan });
    acc.push(fixture.body);
    acc.finish();
    return acc.result();
  });
}

test("every recorded body and stream gives what process or result() gives, by content type or by its first bytes", async () => {
  let streams = 0;
  let bodies = 0;
  for (const [index, fixture] of FIXTURE_LIST.entries()) {
    const agent = agentFor(fixture.dir);
    const want = await direct(fixture, agent);
    assert.equal(want.spans.length, 1, `${fixture.name}: one span`);
    for (const type of [encodeURIComponent(fixture.type), "application%2Foctet-stream", "none"]) {
      const got = await outcome(async (onSpan) => wire.processResponse(agent, await fetch(`${base}/${index}/${type}`), { onSpan }));
      assert.deepEqual(got, want, `${fixture.name} served as ${decodeURIComponent(type)}`);
    }
    if (fixture.streamed) streams++;
    else bodies++;
  }
  assert.ok(streams >= 40 && bodies >= 35, `${streams} streams, ${bodies} bodies`);
});

test("a JSON body that is a provider error rejects with provider_error and still sends the span", async () => {
  const index = FIXTURE_LIST.findIndex((f) => f.name === "anthropic/pyd-error-400.json");
  const spans = [];
  const response = await fetch(`${base}/${index}/application%2Fjson`);
  await assert.rejects(
    wire.processResponse(agentFor("anthropic"), response, { onSpan: (span) => spans.push(span) }),
    (err) => err.code === "provider_error" && err.message.length > 0,
  );
  assert.equal(spans.length, 1);
  assert.equal(spans[0].name, "process");
});

test("bad arguments reject with invalid_input at their path, and a body left unread is cancelled", async () => {
  const index = FIXTURE_LIST.findIndex((f) => f.streamed);
  const cases = [
    { make: async () => [{ model: { id: "m" } }, "not a response"], path: "response" },
    { make: async () => [{ model: { id: "m" } }, null], path: "response" },
    {
      make: async () => {
        const used = await fetch(`${base}/${index}/none`);
        await used.arrayBuffer();
        return [{ model: { id: "m" } }, used];
      },
      path: "response.body",
    },
    { make: async () => [{ model: { id: 42 } }, await fetch(`${base}/${index}/text%2Fevent-stream`)], path: "agent.model.id" },
  ];
  for (const { make, path } of cases) {
    const [agent, response] = await make();
    await assert.rejects(wire.processResponse(agent, response), (err) => {
      assert.equal(err.code, "invalid_input", String(err));
      assert.equal(err.path, path);
      return true;
    });
    if (response instanceof Response && path !== "response.body") {
      assert.ok(response.bodyUsed, "the body was taken");
      const rest = await response.body.getReader().read();
      assert.equal(rest.done, true, "the body was released and cancelled: nothing more comes");
    }
  }
});

test("a stream whose connection fails rejects with the stream's transport error, the span sent", async () => {
  const text = 'data: {"choices":[{"index":0,"delta":{"content":"Hel"}}]}\n\n';
  let pulls = 0;
  const body = new ReadableStream({
    pull(controller) {
      if (pulls++ === 0) controller.enqueue(new TextEncoder().encode(text));
      else controller.error(new Error("connection reset"));
    },
  });
  const spans = [];
  const response = new Response(body, { headers: { "content-type": "text/event-stream" } });
  await assert.rejects(wire.processResponse({ model: { id: "m" } }, response, { onSpan: (s) => spans.push(s) }), (err) => {
    assert.equal(typeof err.code, "string");
    assert.match(err.message, /connection reset/);
    return true;
  });
  assert.equal(spans.length, 1);
});

test("a stream past a limit rejects with limit_exceeded, the span sent and the rest of the body cancelled", async () => {
  // One event longer than the default maxEventBytes (16 MiB), in pieces of 1 MiB, and more after.
  const piece = new Uint8Array(1 << 20).fill(0x78);
  const head = new TextEncoder().encode('data: {"choices":[{"index":0,"delta":{"content":"');
  let sent = 0;
  let cancelled = false;
  const body = new ReadableStream({
    pull(controller) {
      controller.enqueue(sent++ === 0 ? head : piece);
      if (sent > 40) controller.close();
    },
    cancel() { cancelled = true; },
  });
  const spans = [];
  const response = new Response(body, { headers: { "content-type": "text/event-stream" } });
  await assert.rejects(wire.processResponse({ model: { id: "m" } }, response, { onSpan: (s) => spans.push(s) }), (err) => {
    assert.equal(err.code, "limit_exceeded");
    return true;
  });
  assert.equal(spans.length, 1, "the span is sent");
  assert.ok(cancelled, "the body is cancelled");
  assert.ok(sent < 40, `reading stopped at the limit (${sent} pieces)`);
});

test("a response with no body is an empty body: the error process gives for one", async () => {
  const agent = { model: { id: "m" } };
  const want = await outcome((onSpan) => wire.process(agent, "", { onSpan }));
  assert.ok(want.error, "process refuses an empty body");
  assert.deepEqual(await outcome((onSpan) => wire.processResponse(agent, new Response(null), { onSpan })), want);
});

test("the stream entry has no processResponse: it has no process for a body that is not streamed", () => {
  assert.equal(typeof wire.processResponse, "function");
  assert.equal(streamEntry.processResponse, undefined);
});

/** The error `call` rejects with, as the fields a caller retries by. */
async function thrown(call) {
  try {
    await call();
  } catch (err) {
    const { code, message, providerType, providerCode, retryable } = err;
    return { code, message, providerType, providerCode, retryable };
  }
  assert.fail("expected a rejection");
}

test("a stream's provider error rejects with the type, code and retryable process gives for its body", async () => {
  const google = { model: { id: "gemini-2.5-flash", provider: "google" } };
  const error = { error: { code: 429, message: "quota", status: "RESOURCE_EXHAUSTED" } };
  const fromBody = await thrown(() => wire.process(google, error));
  assert.deepEqual(fromBody, {
    code: "provider_error", message: "quota", providerType: "RESOURCE_EXHAUSTED", providerCode: "429", retryable: true,
  });
  // `streamGenerateContent` without `alt=sse`: a JSON array, here with the failed status.
  const array = new Response(JSON.stringify([error]), { status: 429, headers: { "content-type": "application/json" } });
  assert.deepEqual(await thrown(() => wire.processResponse(google, array)), fromBody);
  const sse = new Response(`data: ${JSON.stringify(error)}\n\n`, { headers: { "content-type": "text/event-stream" } });
  assert.deepEqual(await thrown(() => wire.processResponse(google, sse)), fromBody);

  const anthropic = { model: { id: "claude", provider: "anthropic" } };
  const overloaded = { type: "error", error: { type: "overloaded_error", message: "Overloaded" } };
  const events = `event: message_start\ndata: {"type":"message_start","message":{"id":"m","content":[]}}\n\nevent: error\ndata: ${JSON.stringify(overloaded)}\n\n`;
  const streamed = new Response(events, { headers: { "content-type": "text/event-stream" } });
  assert.deepEqual(await thrown(() => wire.processResponse(anthropic, streamed)), await thrown(() => wire.process(anthropic, overloaded)));
});

test("a failed response takes its AWS error type from x-amzn-ErrorType and retryable from its status", async () => {
  const bedrock = { model: { id: "m", provider: "bedrock" } };
  const chat = { model: { id: "gpt-4o" } };
  const respond = (body, status, errorType) => {
    const headers = { "content-type": "application/json" };
    if (errorType) headers["x-amzn-ErrorType"] = `${errorType}:http://internal.amazon.com/coral/com.amazon.bedrock/`;
    return new Response(JSON.stringify(body), { status, headers });
  };
  const message = { message: "Too many requests, please wait before trying again." };
  // (agent, body, status, header type) → (providerType, providerCode, retryable)
  const cases = [
    [bedrock, message, 429, "ThrottlingException", "ThrottlingException", undefined, true],
    [bedrock, message, 400, "ValidationException", "ValidationException", undefined, false],
    // AWS documents a model timeout (408) as transient: the type says so where the status does not.
    [bedrock, message, 408, "ModelTimeoutException", "ModelTimeoutException", undefined, true],
    // A type AWS's list lacks: the body says nothing, so the status decides.
    [bedrock, message, 500, "InternalFailure", "InternalFailure", undefined, true],
    [bedrock, message, 503, undefined, undefined, undefined, true],
    [bedrock, message, 400, undefined, undefined, undefined, false],
    // The body's own `__type` wins over the header.
    [bedrock, { ...message, __type: "ServiceUnavailableException" }, 503, "ThrottlingException", "ServiceUnavailableException", undefined, true],
    // Every provider: the status decides only when the body names neither a type nor a code.
    [chat, { error: "upstream unavailable" }, 502, undefined, undefined, undefined, true],
    [chat, { error: "bad request" }, 400, undefined, undefined, undefined, false],
    [chat, { error: { message: "quota", type: "insufficient_quota", code: "insufficient_quota" } }, 429, undefined, "insufficient_quota", "insufficient_quota", false],
    [chat, { error: { message: "slow", type: "requests", code: "rate_limit_exceeded" } }, 429, undefined, "requests", "rate_limit_exceeded", true],
  ];
  for (const [agent, body, status, header, providerType, providerCode, retryable] of cases) {
    const got = await thrown(() => wire.processResponse(agent, respond(body, status, header)));
    const what = `${JSON.stringify(body)} ${status} ${header}`;
    assert.equal(got.code, "provider_error", what);
    assert.deepEqual([got.providerType, got.providerCode, got.retryable], [providerType, providerCode, retryable], what);
  }
  // A successful response's headers and status change nothing.
  const ok = new Response(JSON.stringify(message), { headers: { "x-amzn-ErrorType": "ThrottlingException" } });
  assert.deepEqual(await thrown(() => wire.processResponse(bedrock, ok)), await thrown(() => wire.process(bedrock, message)));
});

test("toMessage without an agent reads AWS's error bodies as Bedrock's provider errors", async () => {
  const throttled = await thrown(() => wire.toMessage({ message: "m", __type: "ThrottlingException" }));
  assert.deepEqual(throttled, { code: "provider_error", message: "m", providerType: "ThrottlingException", providerCode: undefined, retryable: true });
  const denied = await thrown(() => wire.toMessage('{"Message":"User is not authorized"}'));
  assert.deepEqual(denied, { code: "provider_error", message: "User is not authorized", providerType: undefined, providerCode: undefined, retryable: false });
});

test("a failed response with no JSON or stream in it rejects with its status, not an empty answer", async () => {
  const chat = { model: { id: "gpt-4o" } };
  const html = "<html>\n<head><title>502 Bad Gateway</title></head>\n<body>" + "x".repeat(500) + "</body></html>";
  // (body, status, statusText, content type) → (message start, retryable)
  const cases = [
    [html, 502, "Bad Gateway", "text/html", "HTTP 502 Bad Gateway: <html> <head><title>502 Bad Gateway</title>", true],
    ["", 503, "", "text/plain", "HTTP 503", true],
    ["  \n", 504, "Gateway Timeout", "text/plain", "HTTP 504 Gateway Timeout", true],
    ["upstream connect error", 400, "", "text/plain", "HTTP 400: upstream connect error", false],
    // No content type: the first bytes tell, and they are no JSON.
    ["Forbidden", 403, "", undefined, "HTTP 403: Forbidden", false],
  ];
  for (const [body, status, statusText, type, message, retryable] of cases) {
    const headers = type ? { "content-type": type } : {};
    const got = await thrown(() => wire.processResponse(chat, new Response(body, { status, statusText, headers })));
    const what = `${status} ${JSON.stringify(body.slice(0, 20))}`;
    assert.equal(got.code, "provider_error", what);
    assert.ok(got.message.startsWith(message), `${what}: ${got.message}`);
    assert.ok(got.message.length <= message.length + 210, `${what}: the message quotes at most the body's start`);
    assert.deepEqual([got.providerCode, got.retryable], [String(status), retryable], what);
  }
  // A failed response that reads as an answer, or as no provider's error, fails by its status.
  const gemini = { model: { id: "gemini-2.5-flash", provider: "google" } };
  const failedAnswers = [
    [gemini, "[]", "application/json", 503],
    [chat, "", "text/event-stream", 503],
    [chat, ": keepalive\n\n", "text/event-stream", 429],
    [chat, 'data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n', "text/event-stream", 500],
    [chat, '["Bad gateway"]', "application/json", 502],
    [chat, '{"status":"missing"}', "application/json", 404],
  ];
  for (const [agent, body, type, status] of failedAnswers) {
    const got = await thrown(() => wire.processResponse(agent, new Response(body, { status, headers: { "content-type": type } })));
    const what = `${status} ${body}`;
    assert.equal(got.code, "provider_error", what);
    assert.ok(got.message.startsWith(`HTTP ${status}`), `${what}: ${got.message}`);
    assert.deepEqual([got.providerCode, got.retryable], [String(status), status !== 404], what);
  }
  // A successful response reads as before.
  assert.equal(await wire.processResponse(chat, new Response("data: [DONE]\n\n")), "");
});

test("a failed response's endless body is read only as far as its error quotes", async () => {
  let sent = 0;
  const page = new TextEncoder().encode("<p>" + "overloaded ".repeat(6000) + "</p>");
  const endless = new ReadableStream({
    pull(controller) {
      sent += page.length;
      controller.enqueue(page);
    },
  });
  const response = new Response(endless, { status: 502, headers: { "content-type": "text/html" } });
  const got = await thrown(() => wire.processResponse({ model: { id: "gpt-4o" } }, response));
  assert.equal(got.code, "provider_error");
  assert.ok(got.message.startsWith("HTTP 502: <p>overloaded overloaded"), got.message);
  assert.ok(sent < 1 << 20, `read ${sent} bytes of an endless body`);
});

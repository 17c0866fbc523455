// The web demo (web-demo/, `make demo`), driven in Chromium through Playwright: for every
// provider profile, select it, type, send, and wait for the final message. What the page shows
// must be what an Accumulator makes of the same recorded bytes in Node (and what the fixture's
// `.expect.json` asserts); model output must be rendered as text. One screenshot per profile
// goes to web-demo/screenshots/ (git-ignored).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { checkExpect } from "./expect.mjs";

const { Accumulator, buildChatArgs } = await import("../../pkg/node.mjs");
const { startServer } = await import("../../web-demo/server.mjs");
const { PROFILES, SYSTEM } = await import("../../web-demo/profiles.mjs");

const FIXTURES = new URL("../fixtures/", import.meta.url);
const SHOTS = fileURLToPath(new URL("../../web-demo/screenshots/", import.meta.url));

/** The final message of a fixture in Node, and the fixture's own assertions when it has them. */
function expected(profile) {
  const body = new Uint8Array(readFileSync(new URL(profile.fixture, FIXTURES)));
  const acc = new Accumulator({ agent: profile.agent, provider: profile.agent.model.provider });
  acc.push(body);
  const message = acc.finish();
  acc.free();
  const expectPath = new URL(profile.fixture.replace(/\.sse$/, ".expect.json"), FIXTURES);
  if (existsSync(expectPath)) checkExpect(message, JSON.parse(readFileSync(expectPath, "utf8")), profile.fixture);
  return message;
}

let server, url, browser;

before(async () => {
  // Half the realistic pauses: still streamed in many pieces over real HTTP, but quick.
  ({ server, url } = await startServer({ port: 0, delayScale: 0.5, env: {} }));
  const { chromium } = await import("playwright-core");
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  mkdirSync(SHOTS, { recursive: true });
});

after(async () => {
  await browser?.close();
  server?.close();
});

/** A fresh page at the demo, ready to send. */
async function open() {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  await page.goto(url);
  await page.waitForSelector("body[data-state=ready]", { timeout: 10000 });
  return { page, errors };
}

/** Sends `text` with a profile and returns how many distinct states the answer went through. */
async function send(page, profileId, text) {
  await page.selectOption("#profile", profileId);
  await page.fill("#message", text);
  await page.evaluate(() => {
    const states = (window.__states = new Set());
    const observe = () => states.add(["#answer", "#reasoning", "#tools"].map((s) => document.querySelector(s).textContent.length).join("/"));
    new MutationObserver(observe).observe(document.querySelector("#answer-card"), { subtree: true, childList: true, characterData: true });
  });
  await page.click("#send");
  await page.waitForSelector("body[data-state=done]", { timeout: 20000 });
  return page.evaluate(() => window.__states.size);
}

for (const profile of PROFILES) {
  test(`demo: ${profile.label}`, async () => {
    const want = expected(profile);
    const { page, errors } = await open();
    try {
      const typed = `${profile.prompt} (asked by the demo test)`;
      const states = await send(page, profile.id, typed);

      // The request body is buildChatArgs's, for the profile's agent and the typed message.
      const request = JSON.parse(await page.textContent("#request"));
      const built = buildChatArgs(profile.agent, [{ role: "system", content: SYSTEM }, { role: "user", content: typed }]);
      for (const [key, value] of Object.entries(built)) assert.deepEqual(request[key], value, `request body ${key}`);
      assert.equal(request.stream, true);

      // Streamed over HTTP in pieces, as a provider sends it.
      assert.ok(Number(await page.getAttribute("#received", "data-chunks")) > 1, "the answer arrived in several chunks");
      assert.ok(states > 2, `the answer was rendered as it streamed in (${states} states)`);

      // The rendered answer.
      assert.equal(await page.textContent("#answer"), want.text, "answer text");
      assert.equal(await page.textContent("#reasoning"), want.reasoning, "reasoning");
      assert.equal(await page.isVisible("#reasoning-box"), want.reasoning.length > 0, "the reasoning part is shown when there is reasoning");
      assert.deepEqual(await page.locator("#tools .tool-name").allTextContents(), want.toolCalls.map((c) => c.name), "tool calls");
      const args = await page.locator("#tools .tool-args").allTextContents();
      want.toolCalls.forEach((call, i) => assert.deepEqual(JSON.parse(args[i]), JSON.parse(call.arguments || "{}"), `arguments of ${call.name}`));
      const finish = await page.textContent("#finish");
      assert.ok(finish.startsWith(want.finishReason) && finish.endsWith(want.complete ? " complete" : " incomplete"), `finish reason: ${finish}`);
      if (want.usage) assert.match(await page.textContent("#usage"), new RegExp(`^${want.usage.inputTokens} in · ${want.usage.outputTokens} out`), "usage");
      const shownErrors = await page.locator("#errors .error").allTextContents();
      if (want.error) assert.ok(shownErrors.some((e) => e.includes(want.error.message)), `the error is shown: ${shownErrors}`);
      else assert.deepEqual(shownErrors, [], "no error shown");

      // The final message is the one Node makes of the same bytes, and the result is shown.
      assert.deepEqual(JSON.parse(await page.textContent("#final")), want, "final message");
      const result = await page.textContent("#result");
      if (want.error) assert.ok(result.startsWith("throws ") && result.includes(want.error.message), result);
      else assert.deepEqual(JSON.parse(result), want.toolCalls.length ? want.toolCalls : want.text, "result");

      assert.deepEqual(errors, [], "page errors");
      await page.screenshot({ path: `${SHOTS}${profile.id}.png`, fullPage: true });
    } finally {
      await page.close();
    }
  });
}

test("demo: model output that looks like HTML is rendered as text", async () => {
  const html = `<img src=x onerror="window.__pwned=1"><b>bold</b> & <script>window.__pwned=2</script>`;
  const reasoning = "<i>thinking</i>";
  // An OpenAI Chat stream whose text and reasoning are HTML, cut mid-tag across chunks.
  const chunk = (delta, finish = null) => `data: ${JSON.stringify({ id: "x", model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const sse = chunk({ reasoning_content: reasoning }) + chunk({ content: html.slice(0, 7) }) + chunk({ content: html.slice(7) })
    + chunk({ tool_calls: [{ index: 0, id: "c1", type: "function", function: { name: "<u>tool</u>", arguments: "{\"q\":\"<em>x</em>\"}" } }] }, "tool_calls")
    + "data: [DONE]\n\n";
  const { page, errors } = await open();
  try {
    await page.route("**/api/chat", (route) => route.fulfill({ status: 200, contentType: "text/event-stream", body: sse }));
    await send(page, PROFILES[0].id, "Say something in HTML");
    assert.equal(await page.textContent("#answer"), html);
    assert.equal(await page.textContent("#reasoning"), reasoning);
    assert.equal(await page.textContent("#tools .tool-name"), "<u>tool</u>");
    assert.equal(await page.locator("#answer *, #reasoning *, #tools img, #tools u, #tools em").count(), 0, "no element made from model output");
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    assert.deepEqual(errors, [], "page errors");
  } finally {
    await page.close();
  }
});

test("demo server: unknown profiles, unknown paths and paths out of the package are refused", async () => {
  const chat = await fetch(new URL("api/chat", url), { method: "POST", body: JSON.stringify({ profile: "nope", messages: [] }) });
  assert.equal(chat.status, 400);
  assert.equal((await fetch(new URL("nothing-here", url))).status, 404);
  assert.equal((await fetch(new URL("pkg/..%2F..%2FCargo.toml", url))).status, 404);
  const wasm = await fetch(new URL("pkg/llm_wire_bg.wasm", url));
  assert.equal(wasm.headers.get("content-type"), "application/wasm");
  await wasm.arrayBuffer();
});

test("demo server, live mode: the page's body is forwarded to the provider and its stream piped back", async () => {
  const { createServer } = await import("node:http");
  const profile = PROFILES.find((p) => p.agent.model.provider === "anthropic");
  const stream = readFileSync(new URL(profile.fixture, FIXTURES));
  let seen;
  // A stand-in for the provider, on loopback: it records the request and answers with a recording.
  const provider = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    seen = { method: req.method, url: req.url, headers: req.headers, body: JSON.parse(body) };
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(stream);
  });
  await new Promise((r) => provider.listen(0, "127.0.0.1", r));
  const env = { LLM_WIRE_API_KEY: "test-key", LLM_WIRE_BASE_URL: `http://127.0.0.1:${provider.address().port}/v1/`, LLM_WIRE_MODEL: "claude-test" };
  const live = await startServer({ port: 0, env });
  try {
    assert.deepEqual(await (await fetch(new URL("api/config", live.url))).json(), { mode: "live", model: "claude-test", baseUrl: env.LLM_WIRE_BASE_URL.slice(0, -1) });
    const body = { model: "claude-test", max_tokens: 64, messages: [{ role: "user", content: "Hi" }], stream: true };
    const res = await fetch(new URL("api/chat", live.url), { method: "POST", body: JSON.stringify({ profile: profile.id, messages: [], body }) });
    assert.equal(res.status, 200);
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), stream, "the provider's stream, unchanged");
    assert.equal(seen.url, "/v1/messages");
    assert.equal(seen.headers["x-api-key"], "test-key");
    assert.deepEqual(seen.body, body);
  } finally {
    live.server.close();
    provider.close();
  }
});

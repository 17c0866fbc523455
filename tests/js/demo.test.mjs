// The web demo (web-demo/, `make demo`), driven in Chromium through Playwright at a desktop
// and a phone width, as a visitor would: pick a recorded conversation, replay it, watch it
// stream, read the answer and inspect each turn. What the page shows must be what an
// Accumulator makes of the same recorded bytes in Node (and what each fixture's
// `.expect.json` asserts); each turn's request must be buildRequest's for the messages so far,
// tool results included; model output must never become live HTML. Screenshots go to
// web-demo/screenshots/ (git-ignored).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, existsSync, mkdirSync } from "node:fs";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { checkExpect } from "./expect.mjs";

const { Accumulator, asMessage, buildRequest } = await import("../../pkg/node.mjs");
const { startServer } = await import("../../web-demo/server.mjs");
const { PROFILES, SYSTEM } = await import("../../web-demo/profiles.mjs");

const FIXTURES = new URL("../fixtures/", import.meta.url);
const SHOTS = fileURLToPath(new URL("../../web-demo/screenshots/", import.meta.url));
const VIEWPORTS = { desktop: { width: 1280, height: 860 }, phone: { width: 390, height: 844 } };
const profile = (id) => PROFILES.find((p) => p.id === id);

/** What the demo's tools answered in the recorded tool conversations, turn after turn. */
const TOOL_RESULTS = {
  "responses-calculator": [["19"], ["57"], ["570"]],
  "chat-agent": [["Mexico", "Pydantic AI"], ["sunny"]],
  "deepseek-reasoning-tool": [[JSON.stringify({ location: "San Francisco", temperature: 18, unit: "celsius", conditions: "fog" })]],
  "vertex-streamed-arguments": [["Boston", "San Francisco"].map((location) => JSON.stringify({ location, temperature: 18, unit: "celsius", conditions: "fog" }))],
};

/** The final message Node makes of a recorded turn, checked against its `.expect.json`. */
function recorded(p, fixture) {
  return replayInNode(p, fixture).message;
}

/** A recorded turn through an Accumulator in Node: its final message and its result. */
function replayInNode(p, fixture) {
  const acc = new Accumulator({ agent: p.agent, provider: p.agent.model.provider });
  acc.push(new Uint8Array(readFileSync(new URL(fixture, FIXTURES))));
  const message = acc.finish();
  let result;
  try {
    result = { value: acc.result() };
  } catch (err) {
    result = { error: { code: err.code, message: err.message } };
  }
  acc.free();
  const expectPath = new URL(fixture.replace(/\.(sse|eventstream)$/, ".expect.json"), FIXTURES);
  if (existsSync(expectPath)) checkExpect(message, JSON.parse(readFileSync(expectPath, "utf8")), fixture);
  return { message, result };
}

/** The words of a text, without markdown's punctuation: what rendering must keep. */
const words = (text) => text.match(/[\p{L}\p{N}]+/gu) ?? [];

let server, url, browser;

before(async () => {
  // Without the page's libraries the page never gets ready: say so at once, not after a
  // timeout in every test.
  for (const lib of ["marked", "dompurify"]) {
    assert.ok(existsSync(new URL(`../../web-demo/node_modules/${lib}`, import.meta.url)), `web-demo/node_modules/${lib} is missing: run \`make demo\` or \`make test\`, which install it`);
  }
  // A quarter of the replay's pauses: still streamed in many pieces over real HTTP, but quick.
  ({ server, url } = await startServer({ port: 0, delayScale: 0.25, env: {} }));
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

/** A fresh page at a demo server, ready; `errors` collects page errors and console errors. */
async function open(viewport, at = url) {
  const page = await browser.newPage({ viewport });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  await page.goto(at);
  await page.waitForSelector("body[data-state=ready]", { timeout: 10000 }).catch((err) => {
    throw new Error(`the demo page did not get ready: ${errors.join("; ") || err.message}`);
  });
  return { page, errors };
}

/** Picks a conversation the way a visitor does (on a phone the list is folded first). */
async function pick(page, id) {
  if (!(await page.isVisible(`input[value=${id}]`))) await page.click("#picker summary");
  await page.click(`input[value=${id}]`);
  assert.equal(await page.isChecked(`input[value=${id}]`), true);
}

/** Records every page state and every answer length the transcript goes through. */
async function watch(page) {
  await page.evaluate(() => {
    const seen = (window.__seen = { states: [], statuses: [], lengths: [], waitingShown: false });
    new MutationObserver(() => {
      const state = document.body.dataset.state;
      if (seen.states.at(-1) !== state) seen.states.push(state);
      const status = document.querySelector("#status").textContent;
      if (seen.statuses.at(-1) !== status) seen.statuses.push(status);
      const waiting = document.querySelector(".turn:last-of-type .waiting");
      if (state === "waiting" && waiting && getComputedStyle(waiting).display !== "none") seen.waitingShown = true;
      const lengths = [...document.querySelectorAll(".answer, .reasoning-body, .tool-args")].map((e) => e.textContent.length).join("/");
      if (seen.lengths.at(-1) !== lengths) seen.lengths.push(lengths);
    }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ["data-state"] });
  });
}

async function replay(page, id) {
  await pick(page, id);
  await watch(page);
  await page.click("#send");
  await page.waitForSelector("body[data-state=done]", { timeout: 30000 });
  return page.evaluate(() => window.__seen);
}

/** Opens an inspector tab for a turn and returns its raw JSON. */
async function inspect(page, turn, tab) {
  await page.selectOption("#inspect-turn", { value: String(turn) });
  await page.click(`#tab-${tab}`);
  await page.check("#raw");
  const text = await page.textContent("#panel pre.raw");
  await page.uncheck("#raw");
  return tab === "events" ? text.split("\n").map((line) => JSON.parse(line)) : JSON.parse(text);
}

/** Nothing on the page is wider than the screen, whatever panel is open. */
async function assertNoSideways(page, what) {
  for (const tab of ["request", "events", "message", "result"]) {
    await page.click(`#tab-${tab}`);
    const [scroll, width, tall, height] = await page.evaluate(() => {
      const root = document.documentElement;
      return [root.scrollWidth, root.clientWidth, root.scrollHeight, root.clientHeight];
    });
    assert.ok(scroll <= width, `${what}, ${tab} tab: the page is ${scroll} px wide on a ${width} px screen`);
    // On a wide screen the columns scroll, not the page.
    if (width >= 1200) assert.ok(tall <= height, `${what}, ${tab} tab: the page is ${tall} px tall on a ${height} px screen`);
  }
  await page.click("#tab-request");
}

// ---- every recorded conversation, at both widths ---------------------------------------------

for (const [width, viewport] of Object.entries(VIEWPORTS)) {
  for (const p of PROFILES) {
    test(`${width}: the conversation "${p.title}" shows what Node makes of its recordings, turn by turn`, async () => {
      const { page, errors } = await open(viewport);
      try {
        await replay(page, p.id);
        const turns = page.locator(".turn");
        const messages = [{ role: "system", content: SYSTEM }, { role: "user", content: p.prompt }];
        assert.equal(await page.textContent(".bubble.user"), p.prompt);

        for (let i = 0; i < p.turns.length; i++) {
          const { message: want, result: wantResult } = replayInNode(p, p.turns[i]);
          const turn = turns.nth(i);
          const label = `${p.turns[i]}`;

          // This turn's request: buildRequest's, for every message so far.
          const built = buildRequest(p.agent, messages, { stream: true, baseUrl: p.baseUrl });
          assert.deepEqual(await inspect(page, i, "request"), { ...built, body: JSON.parse(built.body) }, `${label}: request`);

          // The rendered turn.
          assert.deepEqual(words(await turn.locator(".answer").textContent()), words(want.text), `${label}: answer text`);
          assert.deepEqual(words(await turn.locator(".reasoning-body").textContent()), words(want.reasoning), `${label}: reasoning`);
          assert.equal(await turn.locator("details.reasoning").isVisible(), want.reasoning.length > 0, `${label}: reasoning shown when there is some`);
          assert.deepEqual(await turn.locator(".tool-name").allTextContents(), want.toolCalls.map((c) => c.name), `${label}: tool calls`);
          const args = await turn.locator(".tool-args").allTextContents();
          want.toolCalls.forEach((call, k) => assert.equal(args[k], JSON.stringify(JSON.parse(call.arguments || "{}"), null, 2), `${label}: arguments of ${call.name}, formatted`));
          const finish = await turn.locator(".finish").textContent();
          assert.ok(finish.startsWith(want.finishReason) && finish.endsWith(want.complete ? "· complete" : "· incomplete"), `${label}: finish: ${finish}`);
          if (want.usage) {
            const usage = await turn.locator("table.usage").evaluate((t) => Object.fromEntries([...t.tHead.rows[0].cells].map((th, k) => [th.textContent, t.tBodies[0].rows[0].cells[k].textContent])));
            assert.equal(usage.Input, want.usage.inputTokens.toLocaleString("en"), `${label}: input tokens`);
            assert.equal(usage.Output, want.usage.outputTokens.toLocaleString("en"), `${label}: output tokens`);
            assert.equal(usage.Total, want.usage.totalTokens.toLocaleString("en"), `${label}: total tokens`);
          } else {
            assert.equal(await turn.locator("table.usage").count(), 0, `${label}: no usage table without usage`);
          }
          const chunks = Number((await turn.locator(".facts").textContent()).match(/from (\d+) chunks/)[1]);
          assert.ok(chunks > 1, `${label}: streamed in several chunks (${chunks})`);
          const shownErrors = await turn.locator(".error").allTextContents();
          if (want.error) assert.ok(shownErrors.some((e) => e.includes(want.error.message)), `${label}: the error is shown: ${shownErrors}`);
          else assert.deepEqual(shownErrors, [], `${label}: no error shown`);

          // The inspector: the final message Node makes of the same bytes, its events and result.
          assert.deepEqual(await inspect(page, i, "message"), want, `${label}: final message`);
          const events = await inspect(page, i, "events");
          assert.equal(events.filter((e) => e.type === "text").map((e) => e.text).join(""), want.text, `${label}: text events`);
          // The page reads arguments as live partial JSON: each call's last value is its arguments.
          want.toolCalls.forEach((call, k) => {
            let parsed;
            try { parsed = JSON.parse(call.arguments); } catch { return; } // a refused call's text
            const values = events.filter((e) => e.type === "tool_call_partial" && e.index === k).map((e) => e.value);
            assert.ok(values.length > 0, `${label}: live values of ${call.name}`);
            assert.deepEqual(values.at(-1), parsed, `${label}: the last live value of ${call.name}`);
          });
          assert.deepEqual(await inspect(page, i, "result"), wantResult, `${label}: result`);

          // Tool calls ran in the page; their results go into the next turn's request.
          const outputs = await turn.locator(".tool-result code").allTextContents();
          const answerTool = want.toolCalls.some((c) => c.name === "final_result");
          if (want.toolCalls.length && !want.error && !answerTool) {
            assert.deepEqual(outputs, TOOL_RESULTS[p.id][i], `${label}: tool results`);
            messages.push(asMessage(want), ...want.toolCalls.map((c, k) => ({ role: "tool", content: outputs[k], metadata: { tool_call_id: c.id } })));
          } else {
            assert.deepEqual(outputs, [], `${label}: no tool ran`);
          }
        }
        assert.equal(await turns.count(), p.turns.length, "one transcript entry per recorded turn");
        const last = recorded(p, p.turns.at(-1));
        const endsAtCall = last.toolCalls.length > 0 && !last.toolCalls.some((c) => c.name === "final_result");
        assert.equal(await page.locator(".notice").count(), endsAtCall ? 1 : 0, "a recording that ends at a tool call says so");
        assert.match(await page.textContent("#status"), last.error ? /^Ended with an error/ : /^Done/);
        assert.deepEqual(errors, [], "page errors");
        await page.screenshot({ path: `${SHOTS}${width}-${p.id}.png`, fullPage: true });
        await assertNoSideways(page, p.title);
      } finally {
        await page.close();
      }
    });
  }
}

// ---- what a visitor does, at both widths ------------------------------------------------------

for (const [width, viewport] of Object.entries(VIEWPORTS)) {
  test(`${width}: replay mode is said plainly, and there is no field to type into`, async () => {
    const { page, errors } = await open(viewport);
    try {
      assert.equal(await page.textContent("#mode"), "Replay mode");
      const note = await page.textContent("#mode-note");
      assert.match(note, /^Replay mode: no model is called\./);
      assert.match(note, /LLM_WIRE_API_KEY/);
      assert.equal(await page.isVisible("#message"), false, "no text field in replay mode");
      assert.equal(await page.textContent("#recorded-prompt"), PROFILES[0].prompt);
      assert.equal(await page.textContent("#send"), "Replay");
      await page.screenshot({ path: `${SHOTS}${width}-ready.png` });
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  test(`${width}: picking a conversation shows its prompt, and picking again after a replay starts afresh`, async () => {
    const { page } = await open(viewport);
    try {
      const [first, second] = [profile("openai-text"), profile("minimax-think-tags")];
      await pick(page, first.id);
      assert.equal(await page.textContent("#recorded-prompt"), first.prompt);
      assert.equal(await page.textContent("#chat-title"), first.title);
      if (width === "phone") assert.equal(await page.isVisible(`input[value=${first.id}]`), false, "the list folds away once picked");
      await page.click("#send");
      await page.waitForSelector("body[data-state=done]");
      assert.equal(await page.textContent("#send"), "Replay again");
      await pick(page, second.id);
      assert.equal(await page.textContent("#recorded-prompt"), second.prompt);
      assert.equal(await page.locator(".turn").count(), 0, "the previous conversation is gone");
      assert.equal(await page.textContent("#send"), "Replay");
      assert.equal(await page.isDisabled("#inspect-turn"), true, "nothing to inspect yet");
    } finally {
      await page.close();
    }
  });

  test(`${width}: the page shows it is waiting for the first byte, then the answer streams in`, async () => {
    const { page, errors } = await open(viewport);
    try {
      await pick(page, "anthropic-thinking");
      await page.click("#tab-events");
      await watch(page);
      await page.click("#send");
      await page.waitForSelector("body[data-state=waiting]");
      await page.screenshot({ path: `${SHOTS}${width}-waiting.png` });
      await page.waitForSelector("body[data-state=streaming]");
      assert.equal(await page.textContent("#send"), "Stop", "a stream can be stopped");
      await page.screenshot({ path: `${SHOTS}${width}-streaming.png` });
      await page.waitForSelector("body[data-state=done]");
      const seen = await page.evaluate(() => window.__seen);
      assert.deepEqual(seen.states, ["waiting", "streaming", "done"]);
      assert.deepEqual(seen.statuses.slice(0, 2), ["Waiting for the first byte", "Streaming"], "the status line says so too");
      const listed = await page.locator("#panel ol.events li").count();
      assert.ok(seen.waitingShown, "the waiting indicator was on screen while waiting");
      assert.ok(seen.lengths.length > 10, `the text arrived in many steps (${seen.lengths.length})`);
      const events = await inspect(page, 0, "events");
      assert.equal(listed, events.length, "the open events tab listed every event as it came");
      const chunks = await page.textContent(".facts");
      assert.match(chunks, new RegExp(`${events.length} events from (\\d+) chunks`));
      assert.ok(Number(chunks.match(/from (\d+) chunks/)[1]) > 10, "the bytes came in many chunks");
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  test(`${width}: an HTTP error from the provider is shown with its message, and the page can go on`, async () => {
    const { page, errors } = await open(viewport);
    try {
      const body = JSON.stringify({ error: { message: "Rate limit reached", type: "rate_limit_exceeded" } });
      await page.route("**/api/chat", (route) => route.fulfill({ status: 429, contentType: "application/json", body }));
      await replay(page, "openai-text");
      assert.equal(await page.textContent(".turn .error"), "HTTP 429: Rate limit reached");
      assert.equal(await page.getAttribute(".turn", "data-state"), "error");
      assert.match(await page.textContent("#status"), /^Ended with an error · 1 turn/);
      await page.unroute("**/api/chat");
      await page.click("#send");
      await page.waitForSelector(".turn[data-state=done]");
      assert.equal(await page.locator(".turn").count(), 1, "replaying again starts afresh");
      assert.deepEqual(errors.filter((e) => !e.includes("429")), [], "no page error but the failed request's own console line");
    } finally {
      await page.close();
    }
  });

  test(`${width}: markdown is rendered, and hostile markdown runs nothing`, async () => {
    const hostile = [
      "**Bold** and a [safe link](https://example.com/ok).\n\n",
      "<script>window.__pwned = 1</script>\n\n",
      "<img src=x onerror=\"window.__pwned = 2\"> and ![tracker](https://example.com/pixel.png)\n\n",
      "[click me](javascript:window.__pwned=3) and [data](data:text/html,hi) and ",
      "<a href=\"javascript:window.__pwned=4\" onclick=\"window.__pwned=5\">raw link</a>\n\n",
      "<iframe src=\"javascript:window.__pwned=6\"></iframe>\n\n```html\n<b onmouseover=\"window.__pwned=7\">code</b>\n```\n",
    ].join("");
    const reasoning = "<img src=x onerror=\"window.__pwned = 8\">*thinking*";
    // An OpenAI Chat stream whose text and reasoning are hostile, cut mid-tag across chunks.
    const chunk = (delta, finish = null) => `data: ${JSON.stringify({ id: "x", model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const sse = chunk({ reasoning_content: reasoning }) + [...hostile.matchAll(/[^]{1,23}/g)].map(([piece]) => chunk({ content: piece })).join("")
      + chunk({ tool_calls: [{ index: 0, id: "c1", type: "function", function: { name: "<u>tool</u>", arguments: "{\"q\":\"<em>x</em>\"}" } }] }, "tool_calls")
      + "data: [DONE]\n\n";
    const { page, errors } = await open(viewport);
    try {
      await page.route("**/api/chat", (route) => route.fulfill({ status: 200, contentType: "text/event-stream", body: sse }));
      await replay(page, "openai-text");
      const answer = page.locator(".answer");
      assert.equal(await answer.locator("strong").first().textContent(), "Bold", "markdown is rendered");
      assert.equal(await page.textContent(".reasoning-body em"), "thinking");
      assert.equal(await page.locator(".turn script, .turn img, .turn iframe, .turn b, .turn u, .turn em:not(.reasoning-body em)").count(), 0, "no element made from the model's HTML");
      const attributes = await page.locator(".turn *").evaluateAll((nodes) => nodes.flatMap((n) => [...n.attributes].map((a) => a.name)));
      assert.deepEqual(attributes.filter((name) => name.startsWith("on") || name === "src" || name === "style"), [], "no event handler, source or style");
      const links = await answer.locator("a").evaluateAll((nodes) => nodes.map((a) => [a.textContent, a.getAttribute("href"), a.getAttribute("rel")]));
      assert.deepEqual(links, [
        ["safe link", "https://example.com/ok", "noopener noreferrer nofollow"],
        ["image: tracker", "https://example.com/pixel.png", "noopener noreferrer nofollow"],
        ["click me", null, null],
        ["data", null, null],
      ]);
      const text = await answer.textContent();
      for (const shown of ["<script>window.__pwned = 1</script>", "<img src=x onerror=\"window.__pwned = 2\">", "raw link", "<b onmouseover"]) {
        assert.ok(text.includes(shown), `the model's HTML is shown as text: ${shown}`);
      }
      for (const a of await answer.locator("a:not([href])").all()) await a.click();
      assert.equal(await page.textContent(".tool-name"), "<u>tool</u>");
      assert.equal(await page.evaluate(() => window.__pwned), undefined, "nothing ran");
      await page.screenshot({ path: `${SHOTS}${width}-hostile.png`, fullPage: true });
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  test(`${width}: a tool conversation runs the calculator in the page and finishes in its fourth turn`, async () => {
    const { page, errors } = await open(viewport);
    try {
      await replay(page, "responses-calculator");
      const turns = page.locator(".turn");
      assert.equal(await turns.count(), 4);
      assert.deepEqual(await page.locator(".tool-result code").allTextContents(), ["19", "57", "570"]);
      assert.equal(await turns.nth(3).locator(".answer strong").textContent(), "570", "the last turn's answer, in bold");
      // The second turn sent the first turn back in the Responses API's shape: its reasoning
      // item (id and encrypted content, as store: false needs), its call, and the call's result.
      const request = await inspect(page, 1, "request");
      const [reasoning, ...sent] = request.body.input.slice(1);
      assert.equal(reasoning.type, "reasoning");
      assert.match(reasoning.id, /^rs_/);
      assert.ok(reasoning.encrypted_content.length > 0, "the encrypted reasoning goes back");
      assert.deepEqual(sent, [
        { arguments: "{\"a\":12,\"b\":7,\"op\":\"add\"}", call_id: "call_AB6AaRZ1FYZB2RwS6A5vbdqn", name: "calculator", type: "function_call" },
        { call_id: "call_AB6AaRZ1FYZB2RwS6A5vbdqn", output: "19", type: "function_call_output" },
      ]);
      assert.equal((await inspect(page, 3, "request")).body.input.filter((item) => item.type === "function_call_output").length, 3);
      assert.match(await page.textContent("#status"), /^Done · 4 turns/);
      await page.screenshot({ path: `${SHOTS}${width}-tools.png`, fullPage: true });
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  test(`${width}: tool arguments are formatted JSON, signatures are folded, usage is a table`, async () => {
    const { page, errors } = await open(viewport);
    try {
      await replay(page, "chat-agent");
      assert.equal(await page.locator(".tool-args").nth(2).textContent(), "{\n  \"city\": \"Mexico City\"\n}");
      await page.selectOption("#inspect-turn", { value: "2" });
      await page.click("#tab-message");
      // In the final message, a tool call's JSON-text arguments show as the JSON they hold.
      assert.equal(await page.locator("#panel .json-text .tag").first().textContent(), "JSON text");
      assert.ok((await page.locator("#panel .json-text").first().textContent()).includes("\"label\": \"Capital\""));

      await pick(page, "anthropic-thinking");
      await page.click("#send");
      await page.waitForSelector("body[data-state=done]");
      assert.equal(await page.textContent("details.reasoning .signed"), "signed");
      const want = recorded(profile("anthropic-thinking"), profile("anthropic-thinking").turns[0]);
      const signature = want.content[0].signature;
      await page.click("#tab-message");
      const fold = page.locator("#panel details.fold");
      assert.equal(await fold.count(), 1, "the one signature is folded");
      assert.equal(await fold.evaluate((d) => d.open), false);
      assert.equal(await fold.locator(".len").textContent(), `${signature.length} characters`);
      assert.ok(!(await page.innerText("#panel")).includes(signature), "the signature is not on screen");
      await fold.locator("summary").click();
      assert.ok((await page.innerText("#panel")).includes(signature), "one click shows it");

      const table = page.locator("table.usage");
      assert.deepEqual(await table.locator("th").allTextContents(), ["Input", "Cached", "Cache write", "Output", "Total"]);
      assert.deepEqual(await table.locator("td").allTextContents(), ["43", "0", "0", "282", "325"]);
      await page.screenshot({ path: `${SHOTS}${width}-inspector.png`, fullPage: true });
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  test(`${width}: keyboard only: arrow keys pick a conversation, Enter replays it, Escape stops it`, async () => {
    const { page, errors } = await open(viewport);
    try {
      if (width === "phone") {
        await page.focus("#picker summary");
        await page.keyboard.press("Enter");
      }
      await page.focus(`input[value=${PROFILES[0].id}]`);
      await page.keyboard.press("ArrowDown");
      assert.equal(await page.textContent("#chat-title"), PROFILES[1].title);
      await page.focus("#send");
      await page.keyboard.press("Enter");
      await page.waitForSelector("body[data-state=streaming]");
      await page.keyboard.press("Escape");
      await page.waitForSelector("body[data-state=done]");
      assert.match(await page.textContent("#status"), /^Stopped · \d+ turns? /);
      const stopped = (await page.locator(".turn").count()) - 1;
      const message = await inspect(page, stopped, "message");
      assert.equal(message.complete, false);
      assert.deepEqual(message.error, { message: "stopped by the user", code: "transport_error", outcome: "indeterminate", retryable: true });
      assert.equal(await page.locator(".turn").nth(stopped).locator(".tool-result").count(), 0, "a stopped turn runs no tool");
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });
}

// ---- live mode ----------------------------------------------------------------------------------

/** A stand-in for a provider on loopback: answers each request with the next recording. */
async function provider(recordings) {
  const seen = [];
  const stub = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    seen.push({ method: req.method, url: req.url, headers: req.headers, body: JSON.parse(body) });
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(readFileSync(new URL(recordings[seen.length - 1] ?? recordings.at(-1), FIXTURES)));
  });
  await new Promise((r) => stub.listen(0, "127.0.0.1", r));
  return { stub, seen, baseUrl: `http://127.0.0.1:${stub.address().port}/v1/` };
}

test("live mode: the server builds the request with the key and pipes the provider's stream back", async () => {
  const p = profile("anthropic-thinking");
  const { stub, seen, baseUrl } = await provider(p.turns);
  const env = { LLM_WIRE_API_KEY: "test-key", LLM_WIRE_BASE_URL: baseUrl, LLM_WIRE_MODEL: "claude-test" };
  const live = await startServer({ port: 0, env });
  try {
    assert.deepEqual(await (await fetch(new URL("api/config", live.url))).json(), { mode: "live", model: "claude-test", baseUrl: baseUrl.slice(0, -1) });
    const messages = [{ role: "user", content: "Hi" }];
    const res = await fetch(new URL("api/chat", live.url), { method: "POST", body: JSON.stringify({ profile: p.id, turn: 0, messages }) });
    assert.equal(res.status, 200);
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), readFileSync(new URL(p.turns[0], FIXTURES)), "the provider's stream, unchanged");
    const agent = { ...p.agent, model: { ...p.agent.model, id: "claude-test" } };
    assert.equal(seen[0].url, "/v1/messages");
    assert.equal(seen[0].headers["x-api-key"], "test-key");
    assert.deepEqual(seen[0].body, JSON.parse(buildRequest(agent, messages, { stream: true }).body));

    const bad = await fetch(new URL("api/chat", live.url), { method: "POST", body: JSON.stringify({ profile: p.id, messages: [{ role: "wizard", content: "x" }] }) });
    assert.equal(bad.status, 400);
    assert.equal((await bad.json()).path, "messages[0].role", "a bad message is refused with its path, not forwarded");
    assert.equal(seen.length, 1);
  } finally {
    live.server.close();
    stub.close();
  }
});

test("live mode in the page: type, send, and the tool loop runs against the provider until it answers", async () => {
  const p = profile("responses-calculator");
  const { stub, seen, baseUrl } = await provider(p.turns);
  const live = await startServer({ port: 0, env: { LLM_WIRE_API_KEY: "k", LLM_WIRE_BASE_URL: baseUrl } });
  const { page, errors } = await open(VIEWPORTS.desktop, live.url);
  try {
    assert.equal(await page.textContent("#mode"), "Live mode");
    assert.match(await page.textContent("#mode-note"), /^Live: your messages go to http:\/\/127\.0\.0\.1/);
    await pick(page, p.id);
    assert.equal(await page.inputValue("#message"), p.prompt, "the profile's prompt is suggested");
    await page.fill("#message", "What is (12 + 7) * 3 * 10?");
    await page.press("#message", "Enter");
    await page.waitForSelector("body[data-state=done]", { timeout: 30000 });
    assert.equal(seen.length, 4, "four requests: one per turn");
    assert.ok(seen.every((r) => r.url === "/v1/responses" && r.headers.authorization === "Bearer k"));
    assert.equal(seen[0].body.input[0].content, "What is (12 + 7) * 3 * 10?");
    assert.deepEqual(seen[3].body.input.filter((i) => i.type === "function_call_output").map((i) => i.output), ["19", "57", "570"]);
    assert.equal(await page.locator(".turn").last().locator(".answer strong").textContent(), "570");
    assert.equal(await page.isVisible("#reset"), true, "a live chat can be started anew");
    assert.equal(await page.inputValue("#message"), "", "ready for a follow-up");
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
    live.server.close();
    stub.close();
  }
});

test("demo server: unknown profiles and turns, unknown paths and paths out of the package are refused", async () => {
  const chat = (body) => fetch(new URL("api/chat", url), { method: "POST", body: JSON.stringify(body) });
  assert.equal((await chat({ profile: "nope", turn: 0, messages: [] })).status, 400);
  const beyond = await chat({ profile: "openai-text", turn: 1, messages: [] });
  assert.equal(beyond.status, 404);
  assert.match((await beyond.json()).error, /has no turn 1/);
  assert.equal((await fetch(new URL("api/chat", url), { method: "POST", body: "{not json" })).status, 400);
  assert.equal((await fetch(new URL("nothing-here", url))).status, 404);
  assert.equal((await fetch(url, { method: "PUT" })).status, 405);
  assert.equal((await fetch(url, { method: "HEAD" })).status, 200);
  assert.equal((await fetch(new URL("pkg/..%2F..%2FCargo.toml", url))).status, 404);
  const page = await fetch(url);
  assert.match(page.headers.get("content-security-policy"), /script-src 'self' 'wasm-unsafe-eval'/);
  await page.text();
  const wasm = await fetch(new URL("pkg/llm_wire_bg.wasm", url));
  assert.equal(wasm.headers.get("content-type"), "application/wasm");
  await wasm.arrayBuffer();
});

test("a page that cannot load the package says why instead of spinning", async () => {
  const page = await browser.newPage({ viewport: VIEWPORTS.phone });
  try {
    await page.route("**/pkg/llm_wire_bg.wasm", (route) => route.fulfill({ status: 404, body: "not found" }));
    await page.goto(url);
    await page.waitForSelector("#mode-note.failed");
    assert.equal(await page.textContent("#mode"), "Not started");
    assert.match(await page.textContent("#mode-note"), /^The demo could not start: .*Run `make demo`/);
    assert.equal(await page.getAttribute("body", "data-state"), "loading");
    assert.equal(await page.isDisabled("#send"), true);
  } finally {
    await page.close();
  }
});

// The demo page: build the request, POST it, stream the answer through an Accumulator and
// render every event as it comes. Model output only ever goes into the page as text
// (textContent / append of strings), never as HTML.
import init, { Accumulator, buildChatArgs } from "/pkg/web.mjs";
import { PROFILES, SYSTEM, streamingBody } from "/profiles.mjs";

const $ = (id) => document.getElementById(id);
const pretty = (value) => JSON.stringify(value, null, 2);
const el = (tag, className, text) => Object.assign(document.createElement(tag), className ? { className } : {}, text != null ? { textContent: text } : {});

await init();
const config = await (await fetch("/api/config")).json();
$("mode").textContent = config.mode === "live" ? `live · ${config.baseUrl}` : "offline · recorded streams";
$("mode").classList.add(config.mode);

for (const p of PROFILES) $("profile").append(new Option(p.label, p.id));
const profile = () => PROFILES.find((p) => p.id === $("profile").value);
function choose() {
  const p = profile();
  $("fixture").textContent = config.mode === "live" ? `forwarded to the provider (${apiName(p)})` : `replays tests/fixtures/${p.fixture}`;
  $("message").value = p.prompt;
}
const apiName = (p) => (p.agent.model.provider === "anthropic" ? "Anthropic Messages" : p.agent.model.apiType === "responses" ? "Responses" : "Chat Completions");
$("profile").addEventListener("change", choose);
$("message").addEventListener("keydown", (e) => { if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); $("chat").requestSubmit(); } });
$("chat").addEventListener("submit", (e) => { e.preventDefault(); send(); });
choose();
$("send").disabled = false;
document.body.dataset.state = "ready";

/** One exchange: the system prompt and the typed message, sent with the chosen profile's agent. */
async function send() {
  if (document.body.dataset.state === "streaming") return;
  const p = profile();
  const agent = config.model ? { ...p.agent, model: { ...p.agent.model, id: config.model } } : p.agent;
  const messages = [{ role: "system", content: SYSTEM }, { role: "user", content: $("message").value }];
  const view = reset(messages[1].content);
  $("send").disabled = true;
  document.body.dataset.state = "streaming";
  try {
    let body;
    try {
      body = streamingBody(agent, buildChatArgs(agent, messages));
    } catch (err) {
      return view.error({ message: err.message, code: err.code, path: err.path });
    }
    $("request").textContent = pretty(body);
    await stream(view, agent, await fetch("/api/chat", {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ profile: p.id, messages, body }),
    }));
  } catch (err) {
    view.error({ message: String(err?.message ?? err), code: "demo" });
  } finally {
    $("send").disabled = false;
    document.body.dataset.state = "done";
  }
}

/** fetch → push → render, then finish() and result(). */
async function stream(view, agent, response) {
  if (!response.ok) return view.error({ message: `HTTP ${response.status}: ${await response.text()}`, code: "http" });
  const acc = new Accumulator({ agent, provider: agent.model.provider });
  try {
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        view.received(value.length);
        view.events(acc.push(value));
      }
      view.events(acc.flush());
    } catch (err) {
      view.events(acc.abort(String(err))); // the transport failed: text kept, message incomplete
    }
    const message = acc.finish();
    view.done(message);
    $("final").textContent = pretty(message);
    try {
      $("result").textContent = pretty(acc.result());
    } catch (err) {
      $("result").textContent = `throws ${err.code}: ${err.message}`;
      $("result").classList.add("failed");
    }
  } finally {
    acc.free();
  }
}

const reason = (normalised, raw) => (raw && raw !== normalised ? `${normalised} (provider: ${raw})` : normalised);

/** Clears the answer panels and returns the renderer of this exchange's events. */
function reset(userText) {
  for (const id of ["request", "answer", "reasoning", "tools", "errors", "events", "final", "result", "meta", "signed"]) $(id).replaceChildren();
  $("result").classList.remove("failed");
  for (const id of ["finish", "usage", "received"]) $(id).textContent = "–";
  $("you").hidden = false;
  $("you").textContent = userText;
  $("reasoning-box").hidden = true;
  $("reasoning-box").open = true;
  $("answer").classList.add("empty");
  const tools = [];
  let bytes = 0, chunks = 0, count = 0;

  const view = {
    received(n) {
      bytes += n; chunks += 1;
      $("received").textContent = `${bytes} bytes in ${chunks} chunks`;
      $("received").dataset.chunks = chunks;
    },
    events(events) {
      for (const event of events) {
        count += 1;
        $("events").append(JSON.stringify(event) + "\n");
        view[event.type]?.(event);
      }
      $("event-count").textContent = count;
    },
    start(e) { $("meta").textContent = [e.provider, e.model, e.id].filter(Boolean).join(" · "); },
    text(e) { $("answer").classList.remove("empty"); $("answer").append(e.text); },
    reasoning(e) { $("reasoning-box").hidden = false; $("reasoning").append(e.text); },
    reasoning_signature() { $("signed").textContent = "signed"; },
    tool_call_start(e) {
      const li = el("li", "tool streaming");
      const head = el("div", "tool-head");
      head.append(el("strong", "tool-name", e.name), el("code", "tool-id", e.id));
      const args = el("pre", "tool-args");
      li.append(head, args);
      $("tools").append(li);
      tools[e.index] = { li, args };
    },
    tool_call_delta(e) { tools[e.index]?.args.append(e.argumentsDelta); },
    tool_call_end(e) {
      const call = tools[e.index];
      if (!call) return;
      call.li.classList.remove("streaming");
      try { call.args.textContent = pretty(JSON.parse(e.arguments || "{}")); } catch { call.args.textContent = e.arguments; }
    },
    usage({ usage: u }) {
      const extra = [u.reasoningTokens ? `${u.reasoningTokens} reasoning` : "", u.cacheReadTokens ? `${u.cacheReadTokens} cached` : ""].filter(Boolean);
      $("usage").textContent = `${u.inputTokens} in · ${u.outputTokens} out · ${u.totalTokens} total${extra.length ? ` (${extra.join(", ")})` : ""}`;
    },
    finish(e) { $("finish").textContent = reason(e.reason, e.rawReason); },
    /** The message's own finish reason (an error overrides what the provider said) and completeness. */
    done(m) { $("finish").textContent = `${reason(m.finishReason, m.rawFinishReason)} · ${m.complete ? "complete" : "incomplete"}`; },
    error(e) {
      const box = el("div", "error");
      box.append(el("strong", null, e.code ? `${e.code}: ` : "error: "), e.message);
      const notes = [e.outcome, e.retryable ? "retryable" : "", e.path ? `at ${e.path}` : ""].filter(Boolean).join(" · ");
      if (notes) box.append(el("small", null, notes));
      $("errors").append(box);
    },
  };
  return view;
}

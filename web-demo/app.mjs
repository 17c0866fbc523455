// The demo page. A conversation is a loop of assistant turns: build the request with
// buildRequest, POST the messages to the demo server, read the streamed answer through an
// Accumulator and show each event as it arrives; when a turn ends in tool calls, run the tools
// here and send their results in the next turn. Model text is shown as sanitised markdown
// (render.mjs); everything else the model sends goes into the page as text.
import init, { Accumulator, asMessage, buildRequest } from "/pkg/web.mjs";
import { PROFILES, SYSTEM, agentOf } from "/profiles.mjs";
import { ANSWER_TOOLS, runTool, toolMessage } from "/tools.mjs";
import { el, jsonView, prettyJson, renderMarkdown, usageTable } from "/render.mjs";

const $ = (id) => document.getElementById(id);
/** A tool loop stops after this many turns, whatever the model does. */
const MAX_TURNS = 8;
const wide = matchMedia("(min-width: 760px)");
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

let config;
try {
  await init();
  config = await (await fetch("/api/config")).json();
} catch (err) {
  // Without the package or the server there is nothing to show: say why rather than spin.
  $("mode").textContent = "Not started";
  $("mode-note").textContent = `The demo could not start: ${err.message}. Run \`make demo\`, which builds the package and serves this page.`;
  $("mode-note").classList.add("failed");
  $("mode-note").hidden = false;
  throw err;
}
const live = config.mode === "live";

/** The conversation on screen: its profile, the messages so far and one record per turn. */
let chat;
/** Set while a conversation runs; aborting it stops the turn in flight. */
let running;

// ---- mode, picker and composer -----------------------------------------------------------------

$("mode").textContent = live ? "Live mode" : "Replay mode";
$("mode").classList.add(config.mode);
const note = $("mode-note");
if (live) {
  note.append(el("strong", null, "Live: "), `your messages go to ${config.baseUrl}${config.model ? ` (model ${config.model})` : ""}. The API key stays on the demo server.`);
} else {
  note.append(el("strong", null, "Replay mode: no model is called."),
    " Each conversation replays what a real provider sent, byte for byte, through llm-wire. Pick one and press Replay. To talk to a model, start the demo with ",
    el("code", null, "LLM_WIRE_API_KEY"), " and ", el("code", null, "LLM_WIRE_BASE_URL"), " set.");
}
note.hidden = false;
$("profiles-legend").textContent = live ? "Agents" : "Recorded conversations";

const turnsLabel = (p) => (p.turns.length > 1 ? `${p.turns.length} turns` : "1 turn");
const toolNames = (p) => (p.agent.tools ?? []).map((t) => t.name);
for (const p of PROFILES) {
  const radio = Object.assign(document.createElement("input"), { type: "radio", name: "profile", value: p.id });
  const body = el("span", "option-body");
  const detail = live ? (toolNames(p).length ? `tools: ${toolNames(p).join(", ")}` : "no tools") : turnsLabel(p);
  body.append(el("span", "option-title", p.title), el("span", "option-api", `${p.api} · ${detail}`));
  if (!live) body.append(el("span", "option-summary", p.summary));
  const label = el("label", "option");
  label.append(radio, body);
  $("profiles").append(label);
}
$("profiles").addEventListener("change", (e) => choose(PROFILES.find((p) => p.id === e.target.value)));
// On a phone the list folds away once a conversation is picked, the one already picked too.
$("profiles").addEventListener("click", (e) => {
  if (e.target.name === "profile" && !wide.matches) $("picker").open = false;
});
wide.addEventListener("change", () => { if (wide.matches) $("picker").open = true; });
$("picker").open = wide.matches;

$("composer").addEventListener("submit", (e) => {
  e.preventDefault();
  if (running) return running.abort();
  if (live) {
    const text = $("message").value.trim();
    if (text) run(text);
  } else {
    if (chat.records.length) choose(chat.profile); // replay again from the start
    run(chat.profile.prompt);
  }
});
$("message").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    $("composer").requestSubmit();
  }
});
$("reset").addEventListener("click", () => choose(chat.profile));
document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && running) running.abort();
});

/** Starts a new conversation with `profile`. */
function choose(profile) {
  if (running) return;
  chat = { profile, agent: agentOf(profile, config.model), messages: [{ role: "system", content: SYSTEM }], records: [] };
  for (const radio of document.querySelectorAll("input[name=profile]")) radio.checked = radio.value === profile.id;
  $("picked").textContent = profile.title;
  $("chat-title").textContent = profile.title;
  const meta = [profile.api, chat.agent.model.id];
  if (!live) meta.push(turnsLabel(profile));
  $("chat-meta").replaceChildren(...meta.map((m) => el("span", "chip", m)));

  const intro = el("div", "intro");
  intro.id = "intro";
  intro.append(el("p", "intro-summary", live ? `Speaks ${profile.api}${toolNames(profile).length ? `, with the tools ${toolNames(profile).join(", ")} run in this page` : ""}.` : profile.summary));
  intro.append(el("p", "intro-how", live
    ? "Send a message: the answer streams in through an Accumulator, tool calls run here and their results go back to the model."
    : "Press Replay to stream the recorded answer through an Accumulator; tool calls run in this page and their results go into the next turn's request."));
  $("transcript").replaceChildren(intro);

  $("recorded").hidden = live;
  $("message").hidden = !live;
  $("recorded-prompt").textContent = profile.prompt;
  if (live) $("message").value = profile.prompt;
  inspector.reset();
  if (document.body.dataset.state !== "loading") setState("ready");
}

/** The page's state (body[data-state]): loading, ready, waiting, streaming, tools, done. */
function setState(state, status) {
  document.body.dataset.state = state;
  const busy = state === "waiting" || state === "streaming" || state === "tools";
  $("transcript").setAttribute("aria-busy", String(busy));
  for (const radio of document.querySelectorAll("input[name=profile]")) radio.disabled = busy;
  const send = $("send");
  send.disabled = state === "loading";
  send.textContent = busy ? "Stop" : live ? "Send" : chat?.records.length ? "Replay again" : "Replay";
  send.classList.toggle("stop", busy);
  $("message").disabled = busy;
  $("reset").hidden = !live || busy || !chat?.records.length;
  $("hint").textContent = busy ? "Esc stops" : live ? "Enter sends · Shift+Enter for a new line" : "";
  $("status").textContent = status ?? (state === "ready" ? "" : $("status").textContent);
}

// ---- a conversation: turns until the model stops calling tools --------------------------------------

async function run(text) {
  const c = chat;
  c.messages.push({ role: "user", content: text });
  $("intro")?.remove();
  pinned = true;
  follow(() => $("transcript").append(el("div", "bubble user", text)));
  if (live) $("message").value = "";
  running = new AbortController();
  const started = performance.now();
  let last;
  try {
    for (let step = 0; step < MAX_TURNS; step++) {
      last = await turn(c, running.signal);
      if (!last.next) break;
      if (step + 1 === MAX_TURNS) follow(() => $("transcript").append(el("p", "notice", `Stopped after ${MAX_TURNS} turns: the model kept calling tools.`)));
    }
  } finally {
    const ran = c.records.length;
    const outcome = running.signal.aborted ? "Stopped" : last?.failed ? "Ended with an error" : "Done";
    running = undefined;
    setState("done", `${outcome} · ${ran} ${ran === 1 ? "turn" : "turns"} · ${seconds(performance.now() - started)}`);
  }
}

/**
 * One assistant turn: request, stream, final message; then its tool calls run here. Returns its
 * record, with `next` set when the results are to go back to the model.
 */
async function turn(c, signal) {
  const record = { n: c.records.length, events: [], bytes: 0, chunks: 0, started: performance.now() };
  c.records.push(record);
  const view = turnView(record);
  inspector.add(record);
  const status = c.profile.turns.length > 1 || record.n ? ` · turn ${record.n + 1}` : "";

  try {
    record.request = buildRequest(c.agent, c.messages, { stream: true, baseUrl: live ? config.baseUrl : c.profile.baseUrl });
  } catch (err) {
    return view.fail({ code: err.code, message: err.message, path: err.path });
  }
  inspector.update(record);
  setState("waiting", `Waiting for the first byte${status}`);
  view.waiting();

  let response;
  try {
    response = await fetch("/api/chat", {
      method: "POST", headers: { "content-type": "application/json" }, signal,
      body: JSON.stringify({ profile: c.profile.id, turn: record.n, messages: c.messages }),
    });
    if (!response.ok) return view.fail(await httpError(response));
  } catch (err) {
    return view.fail(signal.aborted ? { code: "stopped", message: "Stopped before the first byte." } : { code: "network", message: String(err?.message ?? err) });
  }

  // partialJson: a call's arguments show as a value that fills in while they stream.
  const acc = new Accumulator({ agent: c.agent, provider: c.agent.model.provider, partialJson: true });
  try {
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (!record.firstByte) {
          record.firstByte = performance.now();
          setState("streaming", `Streaming${status}`);
          view.streaming();
        }
        record.bytes += value.length;
        record.chunks += 1;
        view.events(acc.push(value));
      }
      view.events(acc.flush());
    } catch (err) {
      // The transport failed or the visitor stopped it: the text so far is kept, the message is
      // incomplete.
      view.events(acc.abort(signal.aborted ? "stopped by the user" : String(err?.message ?? err)));
    }
    record.final = acc.finish();
    try {
      record.result = { value: acc.result() };
    } catch (err) {
      record.result = { error: { code: err.code, message: err.message } };
    }
  } finally {
    acc.free();
  }
  record.ended = performance.now();
  view.done(record.final);
  inspector.update(record);

  const final = record.final;
  record.failed = Boolean(final.error);
  if (final.error || signal.aborted) return record;
  if (!final.toolCalls.length) {
    c.messages.push(asMessage(final)); // kept for the next message of a live chat
    return record;
  }
  const answer = final.toolCalls.findIndex((call) => ANSWER_TOOLS.has(call.name));
  if (answer >= 0) {
    view.answered(answer);
    return record;
  }
  setState("tools", `Running ${final.toolCalls.map((call) => call.name).join(", ")} in the page`);
  const outputs = final.toolCalls.map((call, i) => view.ran(i, runTool(call)).output);
  c.messages.push(asMessage(final), ...final.toolCalls.map((call, i) => toolMessage(call, outputs[i])));
  if (!live && record.n + 1 >= c.profile.turns.length) {
    view.notice("The recording ends here. Live, the page would now send the tool results back to the model in the next turn.");
    return record;
  }
  record.next = true;
  return record;
}

/** An HTTP error from the demo server or the provider, with the message its JSON body gives. */
async function httpError(response) {
  const text = await response.text();
  let message = text;
  try {
    const body = JSON.parse(text);
    const said = body.error?.message ?? body.error ?? body.message ?? text;
    message = typeof said === "string" ? said : JSON.stringify(said);
  } catch {
    // not JSON: the text as it is
  }
  return { code: `HTTP ${response.status}`, message };
}

// ---- one turn on screen -------------------------------------------------------------------

// The newest content stays in view while it grows, unless the visitor scrolled away from it.
// Wide screens scroll the transcript; a phone scrolls the page, with the composer stuck to the
// bottom of the screen.
let pinned = true;
/** How far the end of the transcript is below the bottom of what can be seen of it. */
function belowView() {
  const box = $("transcript");
  if (wide.matches) return box.scrollHeight - box.scrollTop - box.clientHeight;
  return box.getBoundingClientRect().bottom - $("composer").getBoundingClientRect().top;
}
const track = () => { pinned = Math.abs(belowView()) < 80; };
$("transcript").addEventListener("scroll", track, { passive: true });
addEventListener("scroll", track, { passive: true });
function follow(update) {
  update();
  if (!pinned) return;
  const below = belowView();
  if (wide.matches) $("transcript").scrollTop += below;
  else if (below > 0) scrollBy(0, below + 12);
}

const reasonText = (reason, raw) => (raw && raw !== reason ? `${reason} (${raw})` : reason);

/** The transcript entry of one assistant turn, and the handlers of its events. */
function turnView(record) {
  const article = el("article", "turn");
  article.dataset.state = "waiting";
  article.setAttribute("aria-label", `Assistant, turn ${record.n + 1}`);
  const head = el("header", "turn-head");
  const model = el("span", "turn-model");
  head.append(el("span", "avatar"), el("span", "who", "Assistant"), model);
  const wait = el("p", "waiting");
  const elapsed = el("span", "elapsed");
  const waitLabel = document.createTextNode("Waiting for the first byte");
  wait.append(el("span", "dots"), waitLabel, elapsed);
  const shown = () => { wait.hidden = true; };
  const reasoningBox = el("details", "reasoning");
  reasoningBox.open = true;
  reasoningBox.hidden = true;
  const signed = el("span", "signed");
  const summary = el("summary");
  summary.append(el("span", null, "Reasoning"), signed);
  const reasoningBody = el("div", "md reasoning-body");
  reasoningBox.append(summary, reasoningBody);
  const answer = el("div", "md answer");
  answer.hidden = true;
  const tools = el("ol", "tools");
  const errors = el("div", "errors");
  const foot = el("footer", "turn-foot");
  foot.hidden = true;
  article.append(head, wait, reasoningBox, answer, tools, errors, foot);
  follow(() => $("transcript").append(article));

  let text = "";
  let reasoning = "";
  let dirty = false;
  const cards = [];
  const caret = el("span", "caret");
  const paint = () => {
    if (!dirty) return;
    dirty = false;
    follow(() => {
      if (text) renderMarkdown(answer, text);
      if (reasoning) renderMarkdown(reasoningBody, reasoning);
      if (article.dataset.state !== "streaming" || !text) return;
      // The caret goes after the last character, inside the innermost last element.
      let last = answer;
      while (last.lastElementChild) last = last.lastElementChild;
      last.append(caret);
    });
  };
  const schedule = () => {
    if (!dirty) requestAnimationFrame(paint);
    dirty = true;
  };
  let ticker;

  const handlers = {
    start(e) { model.textContent = e.model ?? ""; },
    text(e) { text += e.text; answer.hidden = false; shown(); schedule(); },
    reasoning(e) { reasoning += e.text; reasoningBox.hidden = false; shown(); schedule(); },
    reasoning_signature() { reasoningBox.hidden = false; signed.textContent = "signed"; },
    tool_call_start(e) {
      const li = el("li", "tool");
      li.dataset.state = "streaming";
      const top = el("div", "tool-head");
      const state = el("span", "tool-state", "calling…");
      top.append(el("span", "tool-icon"), el("strong", "tool-name", e.name), el("code", "tool-id", e.id), state);
      const args = el("pre", "tool-args");
      const result = el("div", "tool-result");
      result.hidden = true;
      li.append(top, args, result);
      shown();
      follow(() => tools.append(li));
      cards[e.index] = { li, args, state, result };
    },
    // The raw text until the arguments parse to a first value, then the value as it grows.
    tool_call_delta(e) { if (!cards[e.index]?.live) follow(() => cards[e.index]?.args.append(e.argumentsDelta)); },
    tool_call_partial(e) {
      const card = cards[e.index];
      if (!card) return;
      card.live = true;
      follow(() => { card.args.textContent = JSON.stringify(e.value, null, 2); });
    },
    tool_call_end(e) {
      const card = cards[e.index];
      if (!card) return;
      card.li.dataset.state = "called";
      card.state.textContent = "called";
      follow(() => { card.args.textContent = prettyJson(e.arguments); });
    },
    error(e) {
      const box = el("div", "error");
      box.setAttribute("role", "alert");
      box.append(el("strong", null, e.code ? `${e.code}: ` : "Error: "), e.message);
      const notes = [e.outcome, e.retryable ? "retryable" : "", e.path ? `at ${e.path}` : ""].filter(Boolean).join(" · ");
      if (notes) box.append(el("small", null, notes));
      shown();
      follow(() => errors.append(box));
    },
  };

  return {
    waiting() {
      ticker = setInterval(() => { elapsed.textContent = seconds(performance.now() - record.started); }, 100);
    },
    streaming() {
      clearInterval(ticker);
      article.dataset.state = "streaming";
      waitLabel.data = "Receiving";
      elapsed.textContent = "";
    },
    events(events) {
      const added = events.map((event) => ({ at: performance.now() - record.started, event }));
      record.events.push(...added);
      for (const event of events) handlers[event.type]?.(event);
      if (added.length) inspector.events(record, added);
    },
    done(final) {
      clearInterval(ticker);
      shown();
      article.dataset.state = final.error ? "error" : "done";
      dirty = true;
      paint();
      if (!final.complete) article.classList.add("incomplete");
      const facts = el("p", "facts");
      facts.append(el("span", `finish ${final.complete ? "" : "bad"}`, `${reasonText(final.finishReason, final.rawFinishReason)} · ${final.complete ? "complete" : "incomplete"}`));
      if (record.firstByte) facts.append(el("span", null, `first byte ${seconds(record.firstByte - record.started)} · all ${seconds(record.ended - record.started)}`));
      facts.append(el("span", null, `${record.events.length} events from ${record.chunks} chunks`));
      const inspect = el("button", "ghost small", "Inspect");
      inspect.type = "button";
      inspect.setAttribute("aria-label", `Inspect turn ${record.n + 1}`);
      inspect.addEventListener("click", () => inspector.select(record, true));
      head.append(inspect);
      follow(() => {
        foot.append(facts);
        if (final.usage) foot.append(usageTable(final.usage));
        foot.hidden = false;
      });
    },
    ran(index, outcome) {
      const card = cards[index];
      card.li.dataset.state = outcome.ok ? "ran" : "failed";
      card.state.textContent = outcome.ok ? "ran in the page" : "failed";
      follow(() => {
        card.result.hidden = false;
        card.result.append(el("span", "label", outcome.ok ? "Result" : "Error"), el("code", null, outcome.ok ? outcome.output : outcome.error));
      });
      return outcome;
    },
    answered(index) {
      const card = cards[index];
      card.li.dataset.state = "answer";
      card.state.textContent = "the structured answer";
    },
    notice(message) {
      follow(() => article.append(el("p", "notice", message)));
    },
    fail(error) {
      clearInterval(ticker);
      record.failed = true;
      article.dataset.state = "error";
      wait.remove();
      handlers.error(error);
      inspector.update(record);
      return record;
    },
  };
}

// ---- the inspector: what each turn sent and received, as data -------------------------------------

const TABS = {
  request: {
    caption: () => (live ? "buildRequest(agent, messages, {stream: true}); the server adds the key" : "buildRequest(agent, messages, {stream: true})"),
    data: (r) => r.request && { ...r.request, body: JSON.parse(r.request.body) },
    empty: "Built when the turn starts.",
  },
  events: {
    caption: (r) => `acc.push(chunk) for each chunk, then flush(): ${r.events.length} events from ${r.bytes.toLocaleString("en")} bytes in ${r.chunks} chunks`,
    data: (r) => (r.events.length ? r.events.map(({ event }) => event) : undefined),
    empty: "Events appear here as they arrive.",
  },
  message: {
    caption: () => "acc.finish(): the final message",
    data: (r) => r.final,
    empty: "Shown when the stream ends.",
  },
  result: {
    caption: () => "acc.result(): what process() returns for this response",
    data: (r) => r.result,
    empty: "Shown when the stream ends.",
  },
};

const inspector = {
  selected: undefined,
  tab: "request",

  reset() {
    this.selected = undefined;
    $("inspect-turn").replaceChildren();
    $("inspect-turn").disabled = true;
    this.render();
  },
  add(record) {
    $("inspect-turn").append(new Option(String(record.n + 1), String(record.n)));
    $("inspect-turn").disabled = false;
    this.select(record);
  },
  select(record, focus = false) {
    this.selected = record;
    $("inspect-turn").value = String(record.n);
    this.render();
    if (focus) {
      $("panel").scrollIntoView({ block: "nearest" });
      $(`tab-${this.tab}`).focus();
    }
  },
  update(record) {
    if (record === this.selected) this.render();
  },
  /** New events of a turn: added to the list on screen rather than drawn anew. */
  events(record, added) {
    if (record !== this.selected || this.tab !== "events") return;
    const list = $("panel").querySelector("ol.events");
    if (!list || $("raw").checked) return this.render();
    $("panel-caption").textContent = TABS.events.caption(record);
    list.append(...added.map(eventRow));
  },
  /** The raw JSON text of what the panel shows. */
  raw() {
    const value = this.selected && TABS[this.tab].data(this.selected);
    if (value === undefined) return "";
    if (this.tab === "events") return value.map((e) => JSON.stringify(e)).join("\n");
    return JSON.stringify(value, null, 2);
  },
  render() {
    const tab = TABS[this.tab];
    const record = this.selected;
    const panel = $("panel");
    panel.setAttribute("aria-labelledby", `tab-${this.tab}`);
    $("panel-caption").textContent = record ? tab.caption(record) : "";
    const value = record && tab.data(record);
    if (value === undefined) return panel.replaceChildren(el("p", "empty", record ? tab.empty : "Start a conversation to see what goes over the wire."));
    if ($("raw").checked) return panel.replaceChildren(el("pre", "raw", this.raw()));
    if (this.tab === "events") return panel.replaceChildren(eventList(record));
    if (this.tab === "result") return panel.replaceChildren(resultView(value));
    if (this.tab === "request") return panel.replaceChildren(requestView(value));
    panel.replaceChildren(jsonView(value));
  },
};

function requestView(request) {
  const box = el("div", "request");
  const line = el("p", "request-line");
  line.append(el("span", "method", request.method), el("span", "url", request.url));
  const headers = el("table", "headers");
  headers.append(el("caption", "sr-only", "Headers"));
  for (const [name, value] of Object.entries(request.headers)) {
    const row = headers.insertRow();
    row.append(el("th", null, name), el("td", null, value));
  }
  box.append(line, headers, el("h3", null, "Body"), jsonView(request.body));
  return box;
}

function eventList(record) {
  const list = el("ol", "events");
  list.append(...record.events.map(eventRow));
  return list;
}

/** One event: when it came (after the request started), its type and the rest of it. */
function eventRow({ at, event }) {
  const { type, ...rest } = event;
  const row = el("li", `event ev-${type}`);
  row.append(el("span", "at", `+${Math.round(at)} ms`), el("span", "type", type), el("code", null, JSON.stringify(rest)));
  return row;
}

function resultView(result) {
  if (result.error) {
    const box = el("div", "error");
    box.append(el("strong", null, `throws ${result.error.code}: `), result.error.message);
    return box;
  }
  if (typeof result.value === "string") return el("p", "plain", result.value);
  return jsonView(result.value);
}

$("inspect-turn").addEventListener("change", (e) => inspector.select(chat.records[Number(e.target.value)]));
$("raw").addEventListener("change", () => inspector.render());
$("copy").addEventListener("click", async () => {
  try {
    await navigator.clipboard.writeText(inspector.raw());
    $("copy").textContent = "Copied";
  } catch {
    $("copy").textContent = "Copy failed";
  }
  setTimeout(() => { $("copy").textContent = "Copy"; }, 1500);
});
const tabs = [...document.querySelectorAll("[role=tab]")];
function openTab(button) {
  for (const t of tabs) {
    t.setAttribute("aria-selected", String(t === button));
    t.tabIndex = t === button ? 0 : -1;
  }
  inspector.tab = button.dataset.tab;
  inspector.render();
}
for (const button of tabs) {
  button.addEventListener("click", () => openTab(button));
  button.addEventListener("keydown", (e) => {
    const step = { ArrowRight: 1, ArrowLeft: -1 }[e.key];
    if (!step) return;
    const next = tabs[(tabs.indexOf(button) + step + tabs.length) % tabs.length];
    next.focus();
    openTab(next);
  });
}

choose(PROFILES[0]);
setState("ready");

// The contenders. Each `make()` builds its own state (client, decoder, accumulator) and returns
// `run(chunks, stream)`, which consumes the chunks (Uint8Array[]) and resolves to the normalised
// result { text, reasoning, toolCalls: [{ id, name, arguments }] }. Nothing is shared between
// contenders: each one gets its own client and its own copy of the chunks (see run.mjs).

import { createParser } from "eventsource-parser";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { streamText, tool, jsonSchema } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { Accumulator } from "../pkg/node.mjs";
import { Accumulator as StreamAccumulator } from "../pkg/stream/node.mjs";

// ---- in-process transport: a fetch that answers with the chunks as a ReadableStream ----------
function sseResponse(chunks) {
  let i = 0;
  const body = new ReadableStream({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]);
      else controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
}
/** A fetch for SDK clients; `current.chunks` is set before each run. */
function fakeFetch(current) {
  return async (_url, init) => {
    if (init?.body && typeof init.body.cancel === "function") await init.body.cancel();
    return sseResponse(current.chunks);
  };
}
const MESSAGES = [{ role: "user", content: "hi" }];

// ---- llm-wire -------------------------------------------------------------------------------
// The full module (`llm-wire`) and the stream entry's own module (`llm-wire/stream`): the same
// code, compiled into two modules of different sizes.
const llmWireOf = (name, Accumulator) => ({
  name,
  formats: ["openai", "anthropic"],
  make() {
    return async (chunks, stream) => {
      const acc = new Accumulator({ format: stream.format === "openai" ? "openai-chat" : "anthropic" });
      let n = 0;
      for (const c of chunks) n += acc.push(c).length;
      const m = acc.finish();
      // Freed explicitly: an Accumulator left to the FinalizationRegistry keeps its wasm memory
      // (its scratch buffer, the message) until an event-loop turn, and later big pushes got
      // 2–4× slower in this long process (see FINDINGS.md). Users should free() too.
      acc.free();
      if (m.error) throw new Error(`llm-wire error: ${m.error.message}`);
      return { text: m.text, reasoning: m.reasoning, toolCalls: m.toolCalls, events: n };
    };
  },
});
const llmWire = llmWireOf("llm-wire Accumulator", Accumulator);
const llmWireStream = llmWireOf("llm-wire/stream Accumulator", StreamAccumulator);

// ---- the minimal JS baseline: TextDecoder + eventsource-parser + JSON.parse + concatenation --
function openaiDelta(st, j) {
  const d = j.choices?.[0]?.delta;
  if (!d) return;
  if (typeof d.content === "string") st.text += d.content;
  if (typeof d.reasoning_content === "string") st.reasoning += d.reasoning_content;
  if (d.tool_calls) {
    for (const tc of d.tool_calls) {
      const i = tc.index ?? st.toolCalls.length;
      const call = (st.toolCalls[i] ??= { id: "", name: "", arguments: "" });
      if (tc.id) call.id = tc.id;
      if (tc.function?.name) call.name = tc.function.name;
      if (tc.function?.arguments) call.arguments += tc.function.arguments;
    }
  }
}
function anthropicEvent(st, j) {
  switch (j.type) {
    case "content_block_start": {
      const b = j.content_block;
      st.blocks[j.index] = b.type;
      if (b.type === "tool_use") st.toolCalls.push(st.calls[j.index] = { id: b.id, name: b.name, arguments: "" });
      else if (b.type === "text" && b.text) st.text += b.text;
      break;
    }
    case "content_block_delta": {
      const d = j.delta;
      if (d.type === "text_delta") st.text += d.text;
      else if (d.type === "thinking_delta") st.reasoning += d.thinking;
      else if (d.type === "input_json_delta") st.calls[j.index].arguments += d.partial_json;
      break;
    }
    case "error": throw new Error(j.error?.message ?? "error");
  }
}
const baseline = {
  name: "JS baseline",
  formats: ["openai", "anthropic"],
  make() {
    return async (chunks, stream) => {
      const st = { text: "", reasoning: "", toolCalls: [], calls: {}, blocks: {} };
      const onJson = stream.format === "openai" ? openaiDelta : anthropicEvent;
      const parser = createParser({
        onEvent(ev) {
          if (ev.data === "[DONE]") return;
          onJson(st, JSON.parse(ev.data));
        },
      });
      const dec = new TextDecoder();
      for (const c of chunks) parser.feed(dec.decode(c, { stream: true }));
      parser.feed(dec.decode());
      for (const c of st.toolCalls) if (c.arguments === "") c.arguments = "{}";
      return { text: st.text, reasoning: st.reasoning, toolCalls: st.toolCalls };
    };
  },
};

// ---- openai ---------------------------------------------------------------------------------
function openaiClient(current) {
  return new OpenAI({ apiKey: "sk-bench", baseURL: "http://bench.invalid/v1", fetch: fakeFetch(current), maxRetries: 0 });
}
/** An `openai` contender: a client whose fetch replays the chunks, and what it does with it. */
function openaiContender(name, consume) {
  return {
    name,
    formats: ["openai"],
    make() {
      const current = {};
      const client = openaiClient(current);
      return async (chunks) => {
        current.chunks = chunks;
        return consume(client);
      };
    },
  };
}
const openaiHelper = openaiContender("openai .stream() helper", async (client) => {
  const s = client.chat.completions.stream({ model: "gpt-4o", messages: MESSAGES, stream_options: { include_usage: true } });
  const c = await s.finalChatCompletion();
  const msg = c.choices[0]?.message ?? {};
  return {
    text: msg.content ?? "", reasoning: "",
    toolCalls: (msg.tool_calls ?? []).map((t) => ({ id: t.id, name: t.function.name, arguments: t.function.arguments })),
  };
});
const openaiCreate = openaiContender("openai create({stream}) + concat", async (client) => {
  const stream = await client.chat.completions.create({ model: "gpt-4o", messages: MESSAGES, stream: true });
  const st = { text: "", reasoning: "", toolCalls: [] };
  for await (const chunk of stream) openaiDelta(st, chunk);
  return st;
});

// ---- @anthropic-ai/sdk ----------------------------------------------------------------------
const anthropicSdk = {
  name: "@anthropic-ai/sdk MessageStream",
  formats: ["anthropic"],
  make() {
    const current = {};
    const client = new Anthropic({ apiKey: "sk-ant-bench", baseURL: "http://bench.invalid", fetch: fakeFetch(current), maxRetries: 0 });
    return async (chunks) => {
      current.chunks = chunks;
      const m = await client.messages.stream({ model: "claude-bench", max_tokens: 1024, messages: MESSAGES }).finalMessage();
      const out = { text: "", reasoning: "", toolCalls: [] };
      for (const b of m.content) {
        if (b.type === "text") out.text += b.text;
        else if (b.type === "thinking") out.reasoning += b.thinking;
        else if (b.type === "tool_use") out.toolCalls.push({ id: b.id, name: b.name, arguments: JSON.stringify(b.input) });
      }
      return out;
    };
  },
};

// ---- the AI SDK -----------------------------------------------------------------------------
function aiSdk(name, format, makeModel) {
  return {
    name,
    formats: [format],
    make() {
      const current = {};
      const model = makeModel(fakeFetch(current));
      return async (chunks, stream) => {
        current.chunks = chunks;
        // Tools declared without `execute`, so the SDK reports the calls and stops.
        const tools = {};
        for (const c of stream.expected.toolCalls) tools[c.name] ??= tool({ inputSchema: jsonSchema({ type: "object" }) });
        let failure;
        const r = streamText({ model, prompt: "hi", tools, maxOutputTokens: 1024, onError: ({ error }) => { failure = error; } });
        const [text, reasoning, calls] = await Promise.all([r.text, r.reasoningText, r.toolCalls]);
        if (failure) throw failure;
        return {
          text, reasoning: reasoning ?? "",
          toolCalls: calls.map((c) => ({ id: c.toolCallId, name: c.toolName, arguments: JSON.stringify(c.input) })),
        };
      };
    },
  };
}
const aiOpenai = aiSdk("ai streamText (@ai-sdk/openai)", "openai",
  (fetch) => createOpenAI({ apiKey: "sk-bench", baseURL: "http://bench.invalid/v1", fetch }).chat("gpt-4o"));
const aiAnthropic = aiSdk("ai streamText (@ai-sdk/anthropic)", "anthropic",
  (fetch) => createAnthropic({ apiKey: "sk-ant-bench", baseURL: "http://bench.invalid/v1", fetch })("claude-bench"));

globalThis.AI_SDK_LOG_WARNINGS = false;
export const BASELINE = baseline.name;
export const CONTENDERS = [baseline, llmWire, llmWireStream, openaiHelper, openaiCreate, anthropicSdk, aiOpenai, aiAnthropic];

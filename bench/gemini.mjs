// A Gemini `streamGenerateContent?alt=sse` stream: llm-wire against a minimal JS baseline
// (eventsource-parser + JSON.parse + concatenation) and Google's own SDK (@google/genai's
// generateContentStream, its fetch answered with the chunks). Paired rounds (paired.mjs). Run
// alone (`node bench/gemini.mjs [--quick]`) or from run.mjs, which adds its table to RESULTS.md.

import { createParser } from "eventsource-parser";
import { GoogleGenAI } from "@google/genai";
import { rng } from "./gen.mjs";
import { llmWire, pairedSection, runAlone } from "./paired.mjs";

const WORDS = ["the", " river", " runs", " past", " old", " stone", " walls", ",", " and", " a", " café", " 🌊", "\n", " quietly", " \"here\""];

/** A Gemini 2.5-like stream: thought summaries, then the answer's text, then one function call
 * (whole, with an id and a signature, as Gemini sends calls), each chunk restating the usage and
 * the model; the last chunk carries `finishReason`. Events end in CRLF, as Google's do. */
export function geminiStream({ seed = 5, thoughts = 800, text = 2500, argWords = 900 } = {}) {
  const r = rng(seed);
  const words = (n) => Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)]).join("");
  const expected = { text: "", reasoning: "", toolCalls: [] };
  const events = [];
  let output = 0;
  const chunk = (parts, finishReason) => {
    output += parts.length * 3;
    const candidate = { content: { parts, role: "model" }, index: 0, ...(finishReason ? { finishReason } : {}) };
    const usageMetadata = { promptTokenCount: 120, candidatesTokenCount: output, totalTokenCount: 120 + output };
    events.push(`data: ${JSON.stringify({ candidates: [candidate], usageMetadata, modelVersion: "gemini-2.5-flash", responseId: "bench-response" })}\r\n\r\n`);
  };
  for (let i = 0; i < thoughts; i++) {
    const t = words(2 + Math.floor(r() * 10));
    expected.reasoning += t;
    chunk([{ text: t, thought: true }]);
  }
  for (let i = 0; i < text; i++) {
    const t = words(2 + Math.floor(r() * 10));
    expected.text += t;
    chunk([{ text: t }]);
  }
  const args = { query: words(argWords), limit: 10 };
  chunk([{ functionCall: { id: "call-bench", name: "lookup", args }, thoughtSignature: "CpwICpkIAXLI2nxlU6gsWZaZHRYkX1orzuM8vSUFwaAt1JRxEC2hJzPAcAu3PWaKz7X" }], "STOP");
  expected.toolCalls.push({ id: "call-bench", name: "lookup", arguments: JSON.stringify(args) });
  const bytes = new TextEncoder().encode(events.join(""));
  return { name: "Gemini thoughts + text + call", bytes, events: events.length, expected };
}

/** What one chunk adds to the result, for the JS contenders. */
function onChunk(out, chunk) {
  for (const part of chunk.candidates?.[0]?.content?.parts ?? []) {
    if (part.functionCall) {
      const { id, name, args } = part.functionCall;
      out.toolCalls.push({ id, name, arguments: JSON.stringify(args ?? {}) });
    } else if (typeof part.text === "string") {
      if (part.thought) out.reasoning += part.text;
      else out.text += part.text;
    }
  }
}

const baseline = {
  name: "baseline (eventsource-parser + JSON.parse + concatenation)",
  make: () => async (chunks) => {
    const out = { text: "", reasoning: "", toolCalls: [] };
    const parser = createParser({ onEvent: (event) => onChunk(out, JSON.parse(event.data)) });
    const dec = new TextDecoder();
    for (const c of chunks) parser.feed(dec.decode(c, { stream: true }));
    parser.feed(dec.decode());
    return out;
  },
};

/** @google/genai's generateContentStream; the SDK calls the global fetch, answered here. */
const googleSdk = {
  name: "@google/genai generateContentStream",
  make: () => {
    const ai = new GoogleGenAI({ apiKey: "bench" });
    return async (chunks) => {
      const realFetch = globalThis.fetch;
      globalThis.fetch = async () => {
        let i = 0;
        const body = new ReadableStream({ pull(c) { if (i < chunks.length) c.enqueue(chunks[i++]); else c.close(); } });
        return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
      };
      try {
        const out = { text: "", reasoning: "", toolCalls: [] };
        const stream = await ai.models.generateContentStream({ model: "gemini-2.5-flash", contents: "hi" });
        for await (const chunk of stream) onChunk(out, chunk);
        return out;
      } finally {
        globalThis.fetch = realFetch;
      }
    };
  },
};

const CONTENDERS = [baseline, ...llmWire("gemini"), googleSdk];

/** The Gemini section of RESULTS.md, as lines. */
export const gemini = (options = {}) => pairedSection("## Gemini streamGenerateContent (SSE)", geminiStream(), CONTENDERS, options);

runAlone(import.meta.url, gemini);

// One large event costs at most three times its size in wasm memory (docs/design.md, "Speed,
// size and memory"), in every format, and without live partial JSON at most three times the
// text it carries. The measurement is `bench/memory-peak.mjs`'s own, run as it runs (each case in
// a fresh process, growth of wasm memory over a fresh instance), over the package in `pkg/`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const script = fileURLToPath(new URL("../../bench/memory-peak.mjs", import.meta.url));
const pkg = fileURLToPath(new URL("../../pkg/", import.meta.url));

const CASES = [];
for (const mb of [1, 10]) {
  for (const what of ["text", "arguments"]) {
    for (const how of ["64KiB", "whole", "string"]) CASES.push(`${what} event ${mb} MB (${how})`);
  }
}
// Every other format and framing, in 64 KiB chunks and whole, and live partial JSON.
for (const what of [
  "Chat reasoning", "Anthropic text", "Anthropic thinking", "Anthropic tool input", "Responses text delta",
  "Gemini text", "Gemini text, JSON array", "Gemini thought", "Gemini function call", "Bedrock text",
]) {
  for (const how of ["64KiB", "whole"]) CASES.push(`${what} event 10 MB (${how})`);
}
// Live partial JSON on one 10 MB delta holds the decoded value beside the arguments, and its
// event carries the arguments as a JSON string inside the event's JSON: at most 3x the event,
// over 3x the value (docs/limits-and-security.md).
const EVENT_ONLY = [
  "Chat arguments, live partial JSON", "Chat answer, live partial JSON with outputs",
].flatMap((what) => ["64KiB", "whole"].map((how) => `${what} event 10 MB (${how})`));

test("one event of 1 or 10 MB of text, reasoning or arguments grows wasm memory by at most 3x its size", () => {
  const names = [...CASES, ...EVENT_ONLY];
  const out = execFileSync(process.execPath, [script, pkg, ...names], { encoding: "utf8" });
  const lines = out.split("\n").filter((line) => names.some((name) => line.startsWith(name)));
  assert.equal(lines.length, names.length, out);
  for (const line of lines) {
    const ofInput = Number(/([\d.]+)x the input/.exec(line)?.[1]);
    const ofEvent = Number(/([\d.]+)x the event/.exec(line)?.[1]);
    assert.ok(ofEvent > 0 && ofEvent <= 3, `over 3x the event: ${line}`);
    if (CASES.some((name) => line.startsWith(name))) assert.ok(ofInput > 0 && ofInput <= 3, `over 3x the text: ${line}`);
  }
});

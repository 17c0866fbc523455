#!/usr/bin/env node
// llm-wire inspect: reads a recorded response, streamed (SSE and the other framings) or a whole
// JSON body, and shows what the package makes of it: on a terminal a readable summary, else (or
// with --json) the stream's events as NDJSON and then the final message.
import { readFileSync } from "node:fs";
import { Accumulator, toMessage } from "../node.mjs";

// A closed pipe (`| head`) ends the output quietly.
process.stdout.on("error", (err) => process.exit(err.code === "EPIPE" ? 0 : 1));

const HELP = `usage: llm-wire inspect <file | -> [--json] [--split N] [--format F]
       llm-wire --help | --version

inspect reads a recorded provider response from a file (- for standard input): a stream (an
SSE body, or another framing the Accumulator reads) or a whole JSON body, told apart by the
first byte that is not blank ({ is a JSON body). A stream goes through the Accumulator, a body
through toMessage; both give the same normalised message.

  --json       print JSON: a stream's events as NDJSON, then {"type":"final",...} with the
               message (the default when the output is not a terminal)
  --split N    feed a stream N bytes at a time (the message must not change)
  --format F   the stream's format: auto (default), openai-chat, anthropic, openai-responses
  --help       this text
  --version    the package's version
`;

function fail(message) {
  process.stderr.write(`llm-wire: ${message}\n(llm-wire --help for usage)\n`);
  process.exit(2);
}

const args = process.argv.slice(2);
if (args.includes("--help") || args.includes("-h")) {
  process.stdout.write(HELP);
  process.exit(0);
}
if (args.includes("--version") || args.includes("-v")) {
  const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  process.stdout.write(`${version}\n`);
  process.exit(0);
}
if (args[0] !== "inspect") fail(args.length ? `unknown command ${JSON.stringify(args[0])}` : "no command");
let file;
let split = 0;
let format = "auto";
let json = !process.stdout.isTTY;
for (let i = 1; i < args.length; i++) {
  if (args[i] === "--split") {
    split = Number(args[++i]);
    if (!Number.isInteger(split) || split < 1) fail("--split takes a positive whole number of bytes");
  } else if (args[i] === "--format") {
    format = args[++i];
    if (format === undefined) fail("--format takes a format name");
  } else if (args[i] === "--json") {
    json = true;
  } else if (args[i].startsWith("--")) {
    fail(`unknown option ${JSON.stringify(args[i])}`);
  } else if (file === undefined) {
    file = args[i];
  } else {
    fail(`unexpected argument ${JSON.stringify(args[i])}`);
  }
}
if (file === undefined) fail("no input file (use - for standard input)");

let body;
try {
  body = new Uint8Array(readFileSync(file === "-" ? 0 : file));
} catch (err) {
  fail(`cannot read ${file}: ${err.message}`);
}

const out = (value) => process.stdout.write(JSON.stringify(value) + "\n");
const firstByte = body.find((b) => b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09);
if (firstByte === 0x7b) {
  inspectBody();
} else {
  inspectStream();
}

/** A whole JSON body, read by `toMessage`. */
function inspectBody() {
  let message;
  try {
    message = toMessage(new TextDecoder().decode(body));
  } catch (err) {
    process.stderr.write(`llm-wire: ${err.code ?? "error"}: ${err.message}\n`);
    process.exit(1);
  }
  if (json) out({ type: "final", message });
  else summary("JSON body", message, []);
}

/** A stream, fed to an Accumulator whole or `split` bytes at a time. */
function inspectStream() {
  let acc;
  try {
    acc = new Accumulator({ format });
  } catch (err) {
    fail(err.message);
  }
  const events = [];
  const take = (list) => {
    if (json) list.forEach(out);
    else events.push(...list);
  };
  const pieces = split ? Math.ceil(body.length / split) : 1;
  for (let i = 0; i < pieces; i++) {
    const piece = split ? body.subarray(i * split, (i + 1) * split) : body;
    try {
      take(acc.push(piece));
    } catch (err) {
      process.stderr.write(`llm-wire: ${err.code}: ${err.message}\n`);
      break;
    }
  }
  take(acc.flush());
  const detected = acc.format; // finish() ends the accumulator, and its format with it
  const message = acc.finish();
  if (json) out({ type: "final", format: detected, message });
  else summary(`${detected} stream`, message, events);
}

/** The message as a person reads it: what came, then the answer's parts. */
function summary(what, message, events) {
  const lines = [];
  const counts = new Map();
  for (const event of events) counts.set(event.type, (counts.get(event.type) ?? 0) + 1);
  const tally = [...counts].map(([type, n]) => `${n} ${type}`).join(", ");
  lines.push(`${what}${tally ? `: ${events.length} events (${tally})` : ""}`);
  const source = [message.provider, message.model, message.id && `id ${message.id}`].filter(Boolean).join(", ");
  if (source) lines.push(source);
  const section = (title, text) => {
    if (text) lines.push("", `${title}:`, ...text.split("\n").map((line) => `  ${line}`));
  };
  section("reasoning", message.reasoning);
  section("text", message.text);
  if (message.toolCalls.length) {
    lines.push("", "tool calls:");
    for (const call of message.toolCalls) lines.push(`  ${call.name}(${call.arguments})  id ${call.id}`);
  }
  lines.push("");
  const raw = message.rawFinishReason && message.rawFinishReason !== message.finishReason ? ` (${message.rawFinishReason})` : "";
  lines.push(`finish: ${message.finishReason}${raw}, ${message.complete ? "complete" : "incomplete"}`);
  if (message.usage) {
    const u = message.usage;
    const extra = [
      u.reasoningTokens !== undefined && `${u.reasoningTokens} reasoning`,
      u.cacheReadTokens !== undefined && `${u.cacheReadTokens} cache read`,
      u.cacheWriteTokens !== undefined && `${u.cacheWriteTokens} cache write`,
    ].filter(Boolean);
    lines.push(`usage: ${u.inputTokens} in, ${u.outputTokens} out, ${u.totalTokens} total${extra.length ? ` (${extra.join(", ")})` : ""}`);
  }
  if (message.error) lines.push(`error: ${message.error.code ?? "error"}: ${message.error.message} (${message.error.outcome})`);
  if (message.choices) lines.push(`choices: ${message.choices.length} (the first shown; --json for all)`);
  process.stdout.write(lines.join("\n") + "\n");
}

#!/usr/bin/env node
// llm-wire inspect <file.sse | -> [--split N] [--format F]
// Prints the events of a recorded stream as NDJSON, then the final message.
import { readFileSync } from "node:fs";
import { Accumulator } from "../node.mjs";

// A closed pipe (`| head`) ends the output quietly.
process.stdout.on("error", (err) => process.exit(err.code === "EPIPE" ? 0 : 1));

const USAGE = "usage: llm-wire inspect <file.sse | -> [--split N] [--format auto|openai-chat|anthropic|openai-responses]";

function fail(message) {
  process.stderr.write(`llm-wire: ${message}\n${USAGE}\n`);
  process.exit(2);
}

const args = process.argv.slice(2);
if (args[0] !== "inspect") fail(args.length ? `unknown command ${JSON.stringify(args[0])}` : "no command");
let file;
let split = 0;
let format = "auto";
for (let i = 1; i < args.length; i++) {
  if (args[i] === "--split") {
    split = Number(args[++i]);
    if (!Number.isInteger(split) || split < 1) fail("--split takes a positive whole number of bytes");
  } else if (args[i] === "--format") {
    format = args[++i];
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
let acc;
try {
  acc = new Accumulator({ format });
} catch (err) {
  fail(err.message);
}
const out = (value) => process.stdout.write(JSON.stringify(value) + "\n");
const pieces = split ? Math.ceil(body.length / split) : 1;
for (let i = 0; i < pieces; i++) {
  const piece = split ? body.subarray(i * split, (i + 1) * split) : body;
  try {
    acc.push(piece).forEach(out);
  } catch (err) {
    process.stderr.write(`llm-wire: ${err.code}: ${err.message}\n`);
    break;
  }
}
acc.flush().forEach(out);
out({ type: "final", format: acc.format, message: acc.finish() });

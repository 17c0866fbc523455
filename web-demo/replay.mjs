// `make demo`: replays a recorded provider stream through the built package, in realistic
// network-sized pieces, and prints every event and then the final message.
// Usage: node web-demo/replay.mjs [file.sse ...]   (default: a few fixtures of different APIs)
import { readFileSync } from "node:fs";
import { Accumulator } from "../pkg/node.mjs";

const root = new URL("../tests/fixtures/", import.meta.url);
const files = process.argv.slice(2).length
  ? process.argv.slice(2)
  : ["deepseek/vercel-reasoning-tool-call.sse", "minimax/gomodel-m27-think-tags-stream.sse", "openai-chat/pyd-parallel-tool-calls.sse"]
      .map((f) => new URL(f, root));

for (const file of files) {
  const body = new Uint8Array(readFileSync(file));
  console.log(`\n=== ${String(file).replace(/^file:\/\//, "")} (${body.length} bytes)`);
  const acc = new Accumulator();
  let seed = 7;
  for (let at = 0; at < body.length; ) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const size = 64 + (seed % 1024); // pieces of 64 to 1087 bytes, as a network delivers them
    for (const event of acc.push(body.subarray(at, at + size))) console.log(JSON.stringify(event));
    at += size;
  }
  for (const event of acc.flush()) console.log(JSON.stringify(event));
  console.log(`--- detected format: ${acc.format}`);
  console.log(JSON.stringify(acc.finish(), null, 2));
}

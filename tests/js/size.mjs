// The size budget: the release .wasm plus its JS glue, gzipped, must stay within 80 KB.
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";

const BUDGET = 80 * 1024;
const dir = new URL("../../pkg/", import.meta.url);
const files = ["llm_wire_bg.wasm", "llm_wire.js"];
let total = 0;
for (const file of files) {
  const bytes = readFileSync(new URL(file, dir));
  const gz = gzipSync(bytes, { level: 9 }).length;
  total += gz;
  console.log(`${file}: ${bytes.length} bytes, ${gz} gzipped`);
}
console.log(`total gzipped: ${total} bytes (budget ${BUDGET})`);
// The budget is enforced (`--enforce`) once the size work of the benchmark issue lands; until
// then the figure is reported on every `make test` so it cannot drift unseen.
if (total > BUDGET) {
  console.log(`over the size budget by ${total - BUDGET} bytes`);
  if (process.argv.includes("--enforce")) process.exit(1);
}

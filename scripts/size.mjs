// The package's size guard rail: each entry's release module and the ES glue that loads it,
// each file gzipped (level 9), added up per entry. `make size` (and `make bench`) print both and
// fail when one is over its budget; `make test` prints them. The budgets leave room for plain code: they are there so that a change which
// grows the module a lot is seen (docs/design.md, "Speed, size and memory").
//
//   node scripts/size.mjs [PKG_DIR]     (default: pkg/)

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const ENTRIES = [
  { name: "llm-wire (every export)", budgetKb: 120, files: ["llm_wire_bg.wasm", "llm_wire.js"] },
  { name: "llm-wire/stream (the Accumulator)", budgetKb: 72, files: ["stream/llm_wire_stream_bg.wasm", "stream/llm_wire_stream.js"] },
];

const dir = process.argv[2] ?? fileURLToPath(new URL("../pkg/", import.meta.url));
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

let over = 0;
for (const { name, budgetKb, files } of ENTRIES) {
  let total = 0;
  for (const file of files) {
    const path = join(dir, file);
    if (!existsSync(path)) {
      console.error(`size: ${path} is missing (build the package with \`make pkg\`)`);
      process.exit(1);
    }
    const bytes = readFileSync(path);
    const gzipped = gzipSync(bytes, { level: 9 }).length;
    total += gzipped;
    console.log(`  ${file}: ${bytes.length} bytes, ${gzipped} gzipped`);
  }
  const within = total <= budgetKb * 1024;
  console.log(`${name}: ${kb(total)} gzipped, ${within ? "within" : "OVER"} its budget of ${budgetKb} KB`);
  if (!within) over += 1;
}
process.exit(over ? 1 : 0);

// The package's size: each module's release .wasm plus its JS glue, gzipped (level 9).
//
// Two modules. The full one (`llm-wire`) has every export; the stream entry
// (`llm-wire/stream`) has the Accumulator alone, for pages that only read streams.
// BUDGET is issue 8's: 80 KB for each. `make test` prints both sizes and fails when either is
// above it (bench/FINDINGS.md, "Size", says where the bytes go and what brought them down).
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";

const BUDGET = 80 * 1024;
const pkg = new URL("../../pkg/", import.meta.url);
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

function measure(name, files) {
  let total = 0;
  for (const file of files) {
    const bytes = readFileSync(new URL(file, pkg));
    const gz = gzipSync(bytes, { level: 9 }).length;
    total += gz;
    console.log(`${file}: ${bytes.length} bytes, ${gz} gzipped`);
  }
  console.log(`${name}: ${kb(total)} gzipped`);
  return total;
}

let failed = false;
function check(total) {
  const left = BUDGET - total;
  console.log(`  budget ${kb(BUDGET)}: ${left >= 0 ? `met, ${kb(left)} to spare` : `FAIL: ${kb(-left)} over`}`);
  if (left < 0) failed = true;
}
check(measure("llm-wire (every export)", ["llm_wire_bg.wasm", "llm_wire.js"]));
check(measure("llm-wire/stream (the Accumulator)", ["stream/llm_wire_stream_bg.wasm", "stream/llm_wire_stream.js"]));
if (failed) process.exit(1);

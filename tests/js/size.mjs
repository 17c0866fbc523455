// The package's size: the release .wasm plus its JS glue, gzipped (level 9).
//
// Two numbers. TARGET is issue 8's budget (80 KB), which the release build does not meet yet:
// it is printed with the gap on every `make test`. CEILING is what the build measures today
// plus a little slack: going above it fails `make test`, so the size cannot grow unseen while
// the work towards TARGET goes on (see bench/FINDINGS.md, "Size"). Lower CEILING whenever a
// change makes the package smaller; never raise it without saying why in the commit.
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";

const TARGET = 80 * 1024;
const CEILING = 131 * 1024;
const dir = new URL("../../pkg/", import.meta.url);
const files = ["llm_wire_bg.wasm", "llm_wire.js"];
let total = 0;
for (const file of files) {
  const bytes = readFileSync(new URL(file, dir));
  const gz = gzipSync(bytes, { level: 9 }).length;
  total += gz;
  console.log(`${file}: ${bytes.length} bytes, ${gz} gzipped`);
}
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
console.log(`total gzipped: ${kb(total)} (ceiling ${kb(CEILING)}; issue 8 target ${kb(TARGET)})`);
if (total > TARGET) console.log(`target not met: ${kb(total - TARGET)} over ${kb(TARGET)}`);
if (total > CEILING) {
  console.log(`FAIL: the package grew above its ceiling by ${kb(total - CEILING)}`);
  process.exit(1);
}

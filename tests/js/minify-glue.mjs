// Build step (the Makefile's `pkg`): minifies wasm-bindgen's ES module glue in place, keeping
// the names of what it exports.
//
//   node tests/js/minify-glue.mjs GLUE.js TYPES_FILE_NAME
//
// esbuild's `--keep-names` would keep every function's name, each through a call in the output
// (the glue's thirty import functions among them), about 0.3 KB gzipped more. Only the exports'
// names are visible to a user (`Accumulator.name`, `buildRequest.name`, a stack trace): they are
// set once after minifying, from the glue's own `export { ... }` list. The first line tells
// Deno where the types are (`@ts-self-types`).

import { readFileSync, writeFileSync } from "node:fs";
import { transformSync } from "esbuild";

const [path, types] = process.argv.slice(2);
if (!path || !types) {
  console.error("usage: node minify-glue.mjs GLUE.js TYPES_FILE_NAME");
  process.exit(2);
}

const { code, warnings } = transformSync(readFileSync(path, "utf8"), { minify: true, format: "esm" });
for (const warning of warnings) console.warn(`minify-glue: ${warning.text}`);
const list = code.match(/export\s*\{([^}]*)\};?\s*$/);
if (!list) {
  console.error(`minify-glue: no export list at the end of the minified ${path}`);
  process.exit(1);
}
const names = list[1].split(",").map((pair) => {
  const [local, exported = local] = pair.trim().split(/\s+as\s+/);
  // `default` is the init function, wasm-bindgen's `__wbg_init`.
  return `[${local},${JSON.stringify(exported === "default" ? "__wbg_init" : exported)}]`;
});
// Functions and classes only: an exported enum is a frozen object, which has no name to set.
const rename = `for(const[f,n]of[${names.join()}])typeof f=="function"&&Object.defineProperty(f,"name",{value:n});`;
const banner = `/* @ts-self-types="./${types}" */\n`;
writeFileSync(path, banner + code.slice(0, list.index) + rename + code.slice(list.index));

// Build step (the Makefile's `pkg`): gives the names that only the module and its generated glue
// share short replacements, in the module and in every glue file at once.
//
//   node tests/js/short-names.mjs MODULE.wasm GLUE_OR_TYPES_FILE...
//
// wasm-bindgen names each import after the JS function it wraps plus a 16-hex-digit hash
// (`__wbg_call_21b33caed002b436`), and its own exports `__wbindgen_malloc`, `__wbg_accumulator_free`
// and the like. Those names are written in the module's import and export sections and again in
// the glue (twice over in the minified glue, which keeps function names), and the hashes do not
// compress: about 1 KB gzipped of the package (bench/FINDINGS.md). Here every import, and every
// export whose name starts with `__wbg` or `__wbindgen`, is renamed `_0`, `_1`, ... The public
// exports (`accumulator_push`, `process`, ...) and `memory` keep their names.
//
// The module's sections are rewritten with their new lengths; nothing else in it moves. Each
// glue or types file has every old name replaced where it stands as a whole token. Every import
// must be found in every glue file given (a `.d.ts` file lists exports only), and every
// wasm-bindgen export a glue calls must be in the module: a file that fails either was
// generated from another module, and the step fails rather than ship a package whose glue
// cannot instantiate it. An import that is not wasm-bindgen's stops it too.

import { readFileSync, writeFileSync } from "node:fs";

const [wasmPath, ...textPaths] = process.argv.slice(2);
if (!wasmPath || textPaths.length === 0) {
  console.error("usage: node short-names.mjs MODULE.wasm GLUE_OR_TYPES_FILE...");
  process.exit(2);
}

const bytes = readFileSync(wasmPath);
if (bytes.readUInt32LE(0) !== 0x6d736100) fail(`${wasmPath} is not a wasm module`);

/** Reads an unsigned LEB128 at `at`: [value, next offset]. */
function leb(buf, at) {
  let value = 0;
  let shift = 0;
  for (;;) {
    if (at >= buf.length) fail(`${wasmPath} is truncated`);
    const b = buf[at++];
    value += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if (b < 0x80) return [value, at];
  }
}

function encodeLeb(value) {
  const out = [];
  do {
    let b = value % 128;
    value = Math.floor(value / 128);
    if (value > 0) b |= 0x80;
    out.push(b);
  } while (value > 0);
  return Buffer.from(out);
}

function encodeName(name) {
  const text = Buffer.from(name, "utf8");
  return Buffer.concat([encodeLeb(text.length), text]);
}

function readName(buf, at) {
  const [len, start] = leb(buf, at);
  return [buf.toString("utf8", start, start + len), start + len];
}

function fail(message) {
  console.error(`short-names: ${message}`);
  process.exit(1);
}

// The sections, as [id, body].
const sections = [];
for (let at = 8; at < bytes.length; ) {
  const id = bytes[at];
  const [size, start] = leb(bytes, at + 1);
  sections.push([id, bytes.subarray(start, start + size)]);
  at = start + size;
}

const renames = new Map();
const imports = new Set();
/** The public exports, which keep their names. */
const kept = [];
const internal = (name) => name.startsWith("__wbg") || name.startsWith("__wbindgen");
let next = 0;
function shortName(old) {
  if (!renames.has(old)) renames.set(old, `_${(next++).toString(36)}`);
  return renames.get(old);
}

/** Skips an import's description (function, table, memory, global or tag). */
function skipImportDesc(buf, at) {
  const kind = buf[at++];
  const limits = (p) => {
    const flags = buf[p++];
    [, p] = leb(buf, p);
    if (flags & 1) [, p] = leb(buf, p);
    return p;
  };
  switch (kind) {
    case 0: return leb(buf, at)[1];
    case 1: return limits(at + 1);
    case 2: return limits(at);
    case 3: return at + 2;
    case 4: return leb(buf, at + 1)[1];
    default: fail(`unknown import kind ${kind}`);
  }
}

function rewriteImports(body) {
  let [count, at] = leb(body, 0);
  const parts = [encodeLeb(count)];
  while (count--) {
    let module, field;
    [module, at] = readName(body, at);
    [field, at] = readName(body, at);
    const descStart = at;
    at = skipImportDesc(body, at);
    // Every import is wasm-bindgen's own: a plain name (`memory`) could not be replaced safely.
    if (!internal(field)) fail(`the import ${field} is not one of wasm-bindgen's`);
    imports.add(field);
    parts.push(encodeName(module), encodeName(shortName(field)), body.subarray(descStart, at));
  }
  return Buffer.concat(parts);
}

function rewriteExports(body) {
  let [count, at] = leb(body, 0);
  const parts = [encodeLeb(count)];
  while (count--) {
    let name;
    [name, at] = readName(body, at);
    const descStart = at;
    at = leb(body, at + 1)[1];
    if (!internal(name)) kept.push(name);
    parts.push(encodeName(internal(name) ? shortName(name) : name), body.subarray(descStart, at));
  }
  return Buffer.concat(parts);
}

const out = [bytes.subarray(0, 8)];
for (const [id, body] of sections) {
  const newBody = id === 2 ? rewriteImports(body) : id === 7 ? rewriteExports(body) : body;
  out.push(Buffer.from([id]), encodeLeb(newBody.length), newBody);
}
// A public export could already be called like a short name: refuse rather than clash.
const taken = new Set(renames.values());
for (const name of kept) if (taken.has(name)) fail(`the export ${name} clashes with a short name`);

// Whole tokens only: a name is never replaced inside a longer one.
const escape = (s) => s.replace(/[$]/g, "\\$");
const pattern = new RegExp(`(?<![A-Za-z0-9_$])(${[...renames.keys()].map(escape).join("|")})(?![A-Za-z0-9_$])`, "g");
const texts = textPaths.map((path) => {
  const text = readFileSync(path, "utf8");
  const seen = new Set();
  const replaced = text.replace(pattern, (old) => {
    seen.add(old);
    return renames.get(old);
  });
  if (!path.endsWith(".d.ts")) {
    const missing = [...imports].filter((name) => !seen.has(name));
    if (missing.length) fail(`${path} does not provide the module's imports ${missing.join(", ")}`);
    // And the other way: a wasm-bindgen export the glue calls that the module lacks (a glue
    // generated from another build of the module).
    const stale = [...new Set(replaced.match(/(?<![A-Za-z0-9_$])wasm\.__wb(?:g|indgen)[A-Za-z0-9_$]*/g) ?? [])];
    if (stale.length) fail(`${path} calls exports the module lacks: ${stale.join(", ")}`);
  }
  return [path, replaced];
});

writeFileSync(wasmPath, Buffer.concat(out));
for (const [path, text] of texts) writeFileSync(path, text);
console.log(`short-names: ${renames.size} names shortened in ${wasmPath} and ${textPaths.length} files`);

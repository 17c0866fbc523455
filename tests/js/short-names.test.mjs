// The build step that shortens the names a module and its glue share (tests/js/short-names.mjs),
// on a module assembled here: the rewritten module must still be valid, with its imports and
// internal exports renamed in it and in the glue alike, and its public exports untouched.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const script = fileURLToPath(new URL("./short-names.mjs", import.meta.url));

const name = (s) => [s.length, ...Buffer.from(s)];
const section = (id, body) => [id, body.length, ...body];

/** A module importing two functions and exporting memory, two internal and one public function. */
function moduleBytes() {
  const imports = [2, ...name("./m_bg.js"), ...name("__wbg_log_0123456789abcdef"), 0, 0,
    ...name("./m_bg.js"), ...name("__wbindgen_throw_fedcba9876543210"), 0, 0];
  const exports = [4, ...name("memory"), 2, 0, ...name("__wbindgen_malloc"), 0, 2,
    ...name("__wbg_thing_free"), 0, 2, ...name("run"), 0, 2];
  return Buffer.from([
    0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0,
    ...section(1, [1, 0x60, 0, 0]),
    ...section(2, imports),
    ...section(3, [1, 0]),
    ...section(5, [1, 0, 1]),
    ...section(7, exports),
    ...section(10, [1, 4, 0, 0x10, 0, 0x0b]),
  ]);
}

const glue = `const imports = { "./m_bg.js": {
  __wbg_log_0123456789abcdef: function () { console.log("__wbg_log_0123456789abcdefX stays"); },
  __wbindgen_throw_fedcba9876543210: function () { throw new Error(); },
} };
wasm.__wbindgen_malloc(1); wasm.__wbg_thing_free(0); wasm.run(); wasm.memory;`;

function setUp(glueText = glue) {
  const dir = mkdtempSync(join(tmpdir(), "short-names-"));
  const files = { wasm: join(dir, "m_bg.wasm"), js: join(dir, "m.js"), dts: join(dir, "m.d.ts") };
  writeFileSync(files.wasm, moduleBytes());
  writeFileSync(files.js, glueText);
  writeFileSync(files.dts, "readonly __wbindgen_malloc: (a: number) => number;\nreadonly run: () => void;\n");
  return files;
}

test("imports and internal exports are renamed in the module and the glue alike", () => {
  const files = setUp();
  execFileSync(process.execPath, [script, files.wasm, files.js, files.dts]);
  const module = new WebAssembly.Module(readFileSync(files.wasm));
  const imports = WebAssembly.Module.imports(module).map((i) => `${i.module}:${i.name}`);
  const exports = WebAssembly.Module.exports(module).map((e) => e.name);
  assert.deepEqual(imports, ["./m_bg.js:_0", "./m_bg.js:_1"]);
  assert.deepEqual(exports, ["memory", "_2", "_3", "run"]);
  const js = readFileSync(files.js, "utf8");
  assert.match(js, /\b_0: function \(\) \{ console\.log\("__wbg_log_0123456789abcdefX stays"\)/);
  assert.match(js, /\b_1: function/);
  assert.match(js, /wasm\._2\(1\); wasm\._3\(0\); wasm\.run\(\); wasm\.memory;/);
  assert.equal(readFileSync(files.dts, "utf8"), "readonly _2: (a: number) => number;\nreadonly run: () => void;\n");
  // The renamed module instantiates against the renamed glue's names.
  new WebAssembly.Instance(module, { "./m_bg.js": { _0() {}, _1() {} } });
});

test("a glue file that calls an export the module lacks stops the build", () => {
  const files = setUp(`${glue}\nwasm.__wbindgen_free(0);`);
  const run = spawnSync(process.execPath, [script, files.wasm, files.js]);
  assert.equal(run.status, 1);
  assert.match(run.stderr.toString(), /calls exports the module lacks: wasm\.__wbindgen_free/);
});

test("a glue file that lacks one of the module's imports stops the build and changes nothing", () => {
  const files = setUp(glue.replace(/__wbindgen_throw_fedcba9876543210/, "__wbindgen_throw_other"));
  const before = readFileSync(files.wasm);
  const run = spawnSync(process.execPath, [script, files.wasm, files.js]);
  assert.equal(run.status, 1);
  assert.match(run.stderr.toString(), /does not provide the module's imports __wbindgen_throw_fedcba9876543210/);
  assert.deepEqual(readFileSync(files.wasm), before);
});

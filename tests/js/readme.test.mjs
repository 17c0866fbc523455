// Every code block of the README, run as written against the packed tarball and type-checked
// with `tsc --strict` (the Deno one with `deno check`, which is strict too). Only the provider's
// URL is replaced, by a local server that replays recorded responses: a preloaded module points
// `fetch` from api.openai.com and api.anthropic.com at it (Miniflare's outbound service does the
// same for the Worker). A block no runner below claims fails the suite: a new block needs one.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startServer } from "./runtimes/server.mjs";
import { bin, here, packedProject, repo, run, startChromium } from "./runtimes/project.mjs";

const { Accumulator, toMessage } = await import("../../pkg/node.mjs");

const fixture = (name) => new Uint8Array(readFileSync(new URL(`../fixtures/${name}`, import.meta.url)));
/** The recorded responses the server replays, and the final message each gives. */
const RECORDED = {
  openaiStream: fixture("openai-chat/pyd-text-stream-usage.sse"),
  openaiBody: fixture("openai-chat/vercel-openai-text.json"),
  anthropicStream: fixture("anthropic/vercel-text.sse"),
  anthropicBody: fixture("anthropic/vercel-text.json"),
};
const finalOf = (bytes) => { const acc = new Accumulator(); acc.push(bytes); return acc.finish(); };
const sse = (body) => ({ type: "text/event-stream", body });
const json = (body) => ({ type: "application/json", body });

/** The README's code blocks: {heading, lang, code, first} (`first` its first line). */
function readmeBlocks() {
  const text = readFileSync(join(repo, "README.md"), "utf8");
  const blocks = [];
  let heading = "";
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (/^#{1,4} /.test(lines[i])) heading = lines[i].replace(/^#+ /, "");
    const open = /^```(\w*)$/.exec(lines[i]);
    if (!open) continue;
    const start = ++i;
    while (!lines[i].startsWith("```")) i++;
    const code = lines.slice(start, i).join("\n") + "\n";
    blocks.push({ heading, lang: open[1], code, first: lines[start] });
  }
  return blocks;
}

const blocks = readmeBlocks();
const claimed = new Set();
/** The one block under `heading` in `lang` whose first line is `first` (any, when not given). */
function block(heading, lang, first) {
  const found = blocks.filter((b) => b.heading === heading && b.lang === lang && (first === undefined || b.first === first));
  assert.equal(found.length, 1, `one ${lang} block under "${heading}"${first ? ` starting ${first}` : ""}`);
  claimed.add(found[0]);
  return found[0].code;
}

let setup, work, project, server, url, chromium;
const typeChecked = [];

before(async () => {
  setup = packedProject("readme");
  ({ work, project } = setup);
  // The build tools a user's project has, as the test tools' copies.
  for (const name of ["esbuild", "rollup", "@rollup/plugin-node-resolve", "@web/rollup-plugin-import-meta-assets"]) {
    mkdirSync(join(project, "node_modules", name, ".."), { recursive: true });
    symlinkSync(join(here, "node_modules", name), join(project, "node_modules", name));
  }
  ({ server, url } = await startServer({
    stream: RECORDED.openaiStream,
    root: project,
    routes: {
      "/api/chat": () => sse(RECORDED.openaiStream),
      "/v1/chat/completions": (request) => (request.stream ? sse(RECORDED.openaiStream) : json(RECORDED.openaiBody)),
      "/v1/messages": (request) => (request.stream ? sse(RECORDED.anthropicStream) : json(RECORDED.anthropicBody)),
    },
  }));
  // The provider's URL, replaced: loaded before the block's own code.
  writeFileSync(join(project, "replay.mjs"), `const original = globalThis.fetch;
globalThis.fetch = (input, init) => original(String(input).replace(/^https:\\/\\/api\\.(openai|anthropic)\\.com/, ${JSON.stringify(url)}), init);
`);
  chromium = await startChromium();
});

after(async () => {
  await chromium?.close();
  server?.close();
  setup?.dispose();
});

/** Runs a block's file with Node, the provider's URL replaced; its standard output. */
const node = (file) => run("node", ["--import", "./replay.mjs", file], { cwd: project, env: { ...process.env, OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "" } });

test("Getting it: the package is built, packed and installed with the README's commands", async () => {
  const [build, pack] = block("Getting it", "sh", "make pkg            # builds pkg/ (installs the Rust and wasm tools it needs when missing)").trim().split("\n");
  execFileSync("bash", ["-c", build.replace(/#.*/, "")], { cwd: repo, stdio: "ignore" });
  // `npm pack ./pkg` where ./pkg is the repository's, in a directory of this test's.
  const packing = join(work, "packing");
  mkdirSync(packing);
  symlinkSync(join(repo, "pkg"), join(packing, "pkg"));
  execFileSync("bash", ["-c", `${pack.replace(/#.*/, "")} --silent`], { cwd: packing });
  const tarball = /writes (\S+)/.exec(pack)[1];
  const installing = join(work, "installing");
  mkdirSync(installing);
  writeFileSync(join(installing, "package.json"), JSON.stringify({ name: "app", private: true }));
  copyFileSync(join(packing, tarball), join(installing, tarball));
  const install = block("Getting it", "sh", `npm install ./${tarball}`);
  execFileSync("bash", ["-c", install], { cwd: installing, env: { ...process.env, npm_config_audit: "false", npm_config_fund: "false", npm_config_offline: "true" }, stdio: "ignore" });
  const installed = JSON.parse(readFileSync(join(installing, "node_modules/llm-wire/package.json"), "utf8"));
  assert.equal(`${installed.name}-${installed.version}.tgz`, tarball, "the comment names the tarball npm pack writes");
});

test("A plain browser page: the page streams the answer into the page", async () => {
  const page = block("A plain browser page", "html");
  writeFileSync(join(project, "plain.html"), page);
  typeChecked.push(["plain-page.mjs", /<script type="module">\n([\s\S]*)<\/script>/.exec(page)[1].replace(/^ {2}/gm, "")]);
  const want = finalOf(RECORDED.openaiStream);
  const shown = await chromium.open(`${url}/plain.html`, { selector: "pre", done: (text) => document.querySelector("pre")?.textContent === text, arg: want.text });
  assert.deepEqual(shown.errors, []);
  assert.equal(shown.text, want.text);
  assert.ok(shown.console.some((line) => line.startsWith(`${want.finishReason} `)), `the finish reason is logged: ${shown.console}`);
});

test("With a bundler: the Rollup set-up and the esbuild script build a page that streams the answer", async () => {
  const main = block("With a bundler", "js", "// main.mjs");
  const want = finalOf(RECORDED.openaiStream);
  typeChecked.push(["main.mjs", main]);
  for (const [name, first, build] of [
    ["rollup.config.mjs", "// rollup.config.mjs", (dir) => run(bin("rollup"), ["-c", "--silent"], { cwd: dir })],
    ["build.mjs", "// build.mjs", (dir) => run("node", ["build.mjs"], { cwd: dir })],
  ]) {
    const dir = join(project, name.replace(/\..*/, ""));
    mkdirSync(dir);
    symlinkSync(join(project, "node_modules"), join(dir, "node_modules"));
    writeFileSync(join(dir, "main.mjs"), main);
    const config = block("With a bundler", "js", first);
    writeFileSync(join(dir, name), config);
    typeChecked.push([name, config]);
    await build(dir);
    writeFileSync(join(dir, "dist/index.html"), `<!doctype html><body><script type="module" src="./main.js"></script></body>`);
    const shown = await chromium.open(`${url}/${name.replace(/\..*/, "")}/dist/index.html`, { selector: "pre", done: (text) => document.querySelector("pre")?.textContent === text, arg: want.text });
    assert.deepEqual(shown.errors, [], name);
    assert.equal(shown.text, want.text, name);
  }
});

test("Node (ESM): the streamed answer is written out, then its usage", async () => {
  const code = block("Node (ESM)", "js");
  writeFileSync(join(project, "node-esm.mjs"), code);
  typeChecked.push(["node-esm.mjs", code]);
  const want = finalOf(RECORDED.openaiStream);
  const out = await node("node-esm.mjs");
  assert.ok(out.startsWith(want.text), out);
  assert.match(out.slice(want.text.length), new RegExp(`inputTokens: ${want.usage.inputTokens}`));
});

test("Node (CommonJS): the whole answer's text and usage are printed", async () => {
  const code = block("Node (CommonJS)", "js");
  writeFileSync(join(project, "node-cjs.cjs"), code);
  typeChecked.push(["node-cjs.cjs", code]);
  const want = toMessage(new TextDecoder().decode(RECORDED.anthropicBody));
  const out = await node("node-cjs.cjs");
  assert.ok(out.startsWith(`${want.text} {`), out);
  assert.match(out, new RegExp(`outputTokens: ${want.usage.outputTokens}`));
});

test("Deno: the README's command runs the app, and deno check accepts it", async () => {
  const code = block("Deno", "js");
  assert.equal(code.split("\n")[0], "// app.mjs");
  writeFileSync(join(project, "app.mjs"), code);
  const command = block("Deno", "sh").trim();
  const env = { ...process.env, PATH: `${join(here, "node_modules/.bin")}:${process.env.PATH}`, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1", ANTHROPIC_API_KEY: "" };
  // The one change: the provider's URL replaced by the preloaded module.
  const out = await run("bash", ["-c", command.replace(/^deno run /, "deno run --quiet --preload=./replay.mjs ")], { cwd: project, env });
  const want = finalOf(RECORDED.anthropicStream);
  assert.ok(out.startsWith(want.text), out);
  // `manual`: the packages are the project's node_modules, as `deno run` found them.
  writeFileSync(join(project, "deno-check.json"), JSON.stringify({ compilerOptions: { checkJs: true, strict: true }, nodeModulesDir: "manual" }));
  await run("deno", ["check", "--quiet", "--config=deno-check.json", "app.mjs"], { cwd: project, env }).catch((err) => assert.fail(`deno check: ${err.stderr}`));
});

test("Cloudflare Workers: the Worker answers with the normalised events as NDJSON", async () => {
  const code = block("Cloudflare Workers", "js");
  const dir = join(project, "worker");
  mkdirSync(join(dir, "dist"), { recursive: true });
  writeFileSync(join(dir, "worker.mjs"), code);
  typeChecked.push(["worker.mjs", code]);
  // Bundled as Wrangler does: its conditions, and the .wasm a module of its own.
  const esbuild = await import("esbuild");
  await esbuild.build({
    entryPoints: [join(dir, "worker.mjs")], bundle: true, format: "esm", platform: "neutral", outdir: join(dir, "dist"),
    conditions: ["workerd", "worker", "browser"], logLevel: "error",
    plugins: [{ name: "wasm-modules", setup(b) {
      b.onResolve({ filter: /\.wasm$/ }, (a) => {
        copyFileSync(join(a.resolveDir, a.path), join(dir, "dist", a.path.split("/").pop()));
        return { path: "./" + a.path.split("/").pop(), external: true };
      });
    } }],
  });
  const { Miniflare } = await import("miniflare");
  const mf = new Miniflare({
    modules: true,
    scriptPath: join(dir, "dist/worker.js"),
    modulesRoot: join(dir, "dist"),
    modulesRules: [{ type: "ESModule", include: ["**/*.js"] }, { type: "CompiledWasm", include: ["**/*.wasm"] }],
    bindings: { OPENAI_API_KEY: "" },
    compatibilityDate: "2025-01-01",
    // The provider's URL, replaced.
    outboundService: (request) => fetch(request.url.replace(/^https:\/\/api\.openai\.com/, url), request),
  });
  try {
    const res = await mf.dispatchFetch("http://localhost/", { method: "POST", body: JSON.stringify({ messages: [{ role: "user", content: "Hello" }] }) });
    assert.equal(res.headers.get("content-type"), "application/x-ndjson");
    const lines = (await res.text()).trim().split("\n").map((line) => JSON.parse(line));
    const want = finalOf(RECORDED.openaiStream);
    assert.deepEqual(lines.at(-1), { type: "final", message: want });
    assert.equal(lines.filter((e) => e.type === "text").map((e) => e.text).join(""), want.text);
  } finally {
    await mf.dispose();
  }
});

test("The inputs: the agent's request body and the structured output's response format are printed", async () => {
  const code = block("The inputs", "js");
  writeFileSync(join(project, "inputs.mjs"), code);
  typeChecked.push(["inputs.mjs", code]);
  const out = await node("inputs.mjs");
  assert.match(out, /"tools": \[/);
  assert.match(out, /"tool_call_id": "call_1"/);
  assert.match(out, /json_schema/);
});

test("blocks that are not JavaScript are run elsewhere or are commands of this repository", () => {
  // `make demo` and `make test` are the suite itself; the Rust blocks are the crate's.
  block("Two commands", "sh");
  block("Getting it", "toml");
  block("Rust", "rust");
});

test("every JavaScript block compiles under tsc --strict, and every block has a runner", async () => {
  const unclaimed = blocks.filter((b) => !claimed.has(b)).map((b) => `${b.heading} (${b.lang}): ${b.first}`);
  assert.deepEqual(unclaimed, [], "README blocks no test runs");
  const dir = join(project, "typecheck");
  mkdirSync(dir);
  for (const [name, code] of typeChecked) writeFileSync(join(dir, name), code);
  symlinkSync(join(project, "node_modules"), join(dir, "node_modules"));
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({
    compilerOptions: {
      strict: true, allowJs: true, checkJs: true, noEmit: true, target: "es2022", module: "nodenext", moduleResolution: "nodenext",
      lib: ["es2022", "dom", "dom.iterable", "dom.asynciterable", "esnext.disposable"], types: ["node"], typeRoots: [join(here, "node_modules/@types")],
      // This plugin's package.json `exports` names no types: its declarations, found by hand.
      paths: { "@web/rollup-plugin-import-meta-assets": ["./node_modules/@web/rollup-plugin-import-meta-assets/dist/index.d.ts"] },
    },
    files: typeChecked.map(([name]) => name),
  }));
  assert.ok(typeChecked.length >= 8, `${typeChecked.length} blocks to check`);
  await run(bin("tsc"), ["-p", "tsconfig.json"], { cwd: dir }).catch((err) => assert.fail(`tsc --strict:\n${err.stdout}`));
});

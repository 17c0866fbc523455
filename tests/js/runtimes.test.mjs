// The packed tarball (`npm pack` of pkg/), installed into small projects and run there: Node
// ESM, Node CommonJS, Deno, workerd (a Worker streaming from a local server), Chromium through
// Playwright (a plain ESM page and a bundled page), and a consumer compiled by `tsc --strict`.
// Every runtime replays the same recorded stream and must give the same final message.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { mkdtempSync, writeFileSync, readFileSync, mkdirSync, cpSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "./runtimes/server.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const bin = (name) => join(here, "node_modules", ".bin", name);
const FIXTURE = "deepseek/vercel-reasoning-tool-call.sse";
const body = new Uint8Array(readFileSync(new URL(`../fixtures/${FIXTURE}`, import.meta.url)));
const { Accumulator } = await import("../../pkg/node.mjs");

/** A child process that reads from this process's server: it must not block the event loop. */
const run = async (file, args, options) => (await promisify(execFile)(file, args, { timeout: 60000, ...options })).stdout;
const expected = (() => { const a = new Accumulator(); a.push(body); return a.finish(); })();

let work, project, server, url;

before(async () => {
  work = mkdtempSync(join(tmpdir(), "llm-wire-pack-"));
  const tarball = execFileSync("npm", ["pack", "--silent", "--pack-destination", work], { cwd: join(here, "../../pkg") }).toString().trim().split("\n").pop();
  project = join(work, "project");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--offline", "--loglevel=error", join(work, tarball)], { cwd: project });
  ({ server, url } = await startServer({ stream: body, root: project }));
});

after(() => {
  server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** What a runtime printed: one JSON line, the final message. */
const finalOf = (output) => JSON.parse(output.toString().trim().split("\n").pop());

function same(message, where) {
  assert.equal(message.reasoning, expected.reasoning, `${where}: reasoning`);
  assert.equal(message.text, expected.text, `${where}: text`);
  assert.deepEqual(message.toolCalls, expected.toolCalls, `${where}: tool calls`);
  assert.ok(expected.toolCalls.length > 0 && expected.reasoning.length > 0, "the fixture exercises reasoning and tool calls");
}

const STREAM_SCRIPT = (imports) => `${imports}
const res = await fetch(process.env.STREAM_URL);
let final;
for await (const item of streamEvents(res.body)) if (item.type === "final") final = item.message;
console.log(JSON.stringify(final));
`;

// Both entries: the full module, and the stream entry with the Accumulator alone.
const ENTRIES = [
  { name: "llm-wire", file: "", wasm: "llm_wire_bg.wasm" },
  { name: "llm-wire/stream", file: "-stream", wasm: "stream/llm_wire_stream_bg.wasm" },
];

for (const entry of ENTRIES) {
  test(`Node ESM: import from ${entry.name} needs no init`, async () => {
    writeFileSync(join(project, `esm${entry.file}.mjs`), STREAM_SCRIPT(`import { streamEvents } from "${entry.name}";`));
    same(finalOf(await run("node", [`esm${entry.file}.mjs`], { cwd: project, env: { ...process.env, STREAM_URL: `${url}/stream` } })), `node esm ${entry.name}`);
  });

  test(`Node CommonJS: require('${entry.name}') needs no init`, async () => {
    writeFileSync(join(project, `cjs${entry.file}.cjs`), `const { Accumulator, AccumulatorStream } = require("${entry.name}");
  (async () => {
    const res = await fetch(process.env.STREAM_URL);
    const stream = res.body.pipeThrough(new AccumulatorStream());
    let final;
    for await (const item of stream) if (item.type === "final") final = item.message;
    console.log(JSON.stringify(final));
  })();`);
    same(finalOf(await run("node", [`cjs${entry.file}.cjs`], { cwd: project, env: { ...process.env, STREAM_URL: `${url}/stream` } })), `node cjs ${entry.name}`);
  });

  test(`Deno: import from ${entry.name} needs no init`, async () => {
    writeFileSync(join(project, `deno${entry.file}.mjs`), STREAM_SCRIPT(`import { streamEvents } from "${entry.name}";\nconst process = { env: Deno.env.toObject() };`));
    const out = await run(bin("deno"), ["run", "--quiet", "--allow-read", "--allow-env", "--allow-net=127.0.0.1", `deno${entry.file}.mjs`], {
      cwd: project, env: { ...process.env, STREAM_URL: `${url}/stream`, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
    });
    same(finalOf(out), `deno ${entry.name}`);
  });

  test(`workerd: a Worker streams from a local server through ${entry.name}`, async () => {
    writeFileSync(join(project, `worker${entry.file}.mjs`), `import { AccumulatorStream } from "${entry.name}";
  export default {
    async fetch(request, env) {
      const upstream = await fetch(env.STREAM_URL);
      const stream = new AccumulatorStream();
      const reader = upstream.body.pipeThrough(stream).getReader();
      while (!(await reader.read()).done) {}
      return Response.json(stream.message);
    },
  };`);
    const outdir = join(project, `worker-dist${entry.file}`);
    // As wrangler does: the .wasm stays a module of its own, beside the bundle.
    const esbuild = await import("esbuild");
    await esbuild.build({
      entryPoints: [join(project, `worker${entry.file}.mjs`)], bundle: true, format: "esm", platform: "neutral",
      conditions: ["workerd", "worker", "browser"], outdir, logLevel: "error",
      plugins: [{ name: "wasm-beside", setup(b) { b.onResolve({ filter: /\.wasm$/ }, (a) => ({ path: "./" + a.path.split("/").pop(), external: true })); } }],
    });
    cpSync(join(project, "node_modules/llm-wire", entry.wasm), join(outdir, entry.wasm.split("/").pop()));
    const { Miniflare } = await import("miniflare");
    const mf = new Miniflare({
      modules: true,
      scriptPath: join(outdir, `worker${entry.file}.js`),
      modulesRoot: outdir,
      modulesRules: [{ type: "ESModule", include: ["**/*.js"] }, { type: "CompiledWasm", include: ["**/*.wasm"] }],
      bindings: { STREAM_URL: `${url}/stream` },
      compatibilityDate: "2025-01-01",
    });
    try {
      const res = await mf.dispatchFetch("http://localhost/");
      same(await res.json(), `workerd ${entry.name}`);
    } finally {
      await mf.dispose();
    }
  });
}

test("the CLI inspects a recorded stream at any split", () => {
  const file = fileURLToPath(new URL(`../fixtures/${FIXTURE}`, import.meta.url));
  const whole = execFileSync(join(project, "node_modules", ".bin", "llm-wire"), ["inspect", file]).toString().trim().split("\n");
  const split = execFileSync(join(project, "node_modules", ".bin", "llm-wire"), ["inspect", "-", "--split", "7"], { input: readFileSync(file) }).toString().trim().split("\n");
  const last = JSON.parse(whole.at(-1));
  assert.equal(last.format, "openai-chat");
  same(last.message, "cli");
  assert.deepEqual(JSON.parse(split.at(-1)), last);
  assert.ok(whole.slice(0, -1).every((line) => typeof JSON.parse(line).type === "string"), "NDJSON events first");
});

async function inChromium(page) {
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  try {
    const tab = await browser.newPage();
    const errors = [];
    tab.on("pageerror", (e) => errors.push(String(e)));
    await tab.goto(`${url}/${page}`);
    await tab.waitForFunction(() => document.body.dataset.done === "1", null, { timeout: 20000 }).catch(() => {});
    assert.deepEqual(errors, [], "page errors");
    return JSON.parse(await tab.textContent("#out"));
  } finally {
    await browser.close();
  }
}

const PAGE_SCRIPT = `
const res = await fetch("/stream");
let final;
for await (const item of streamEvents(res.body)) if (item.type === "final") final = item.message;
document.querySelector("#out").textContent = JSON.stringify(final);
document.body.dataset.done = "1";`;

test("Chromium: a plain ESM page with one await init()", async () => {
  writeFileSync(join(project, "plain.html"), `<!doctype html><body><pre id="out"></pre><script type="module">
import init, { streamEvents } from "/node_modules/llm-wire/web.mjs";
await init();${PAGE_SCRIPT}
</script></body>`);
  same(await inChromium("plain.html"), "chromium plain");
});

for (const entry of ENTRIES) {
  test(`Chromium: a bundled page (esbuild, browser condition) with ${entry.name} needs no init`, async () => {
    writeFileSync(join(project, `entry${entry.file}.mjs`), `import { streamEvents } from "${entry.name}";${PAGE_SCRIPT}`);
    const outdir = join(project, `bundle${entry.file}`);
    execFileSync(bin("esbuild"), [`entry${entry.file}.mjs`, "--bundle", "--format=esm", "--platform=browser", "--external:*.wasm", `--outdir=${outdir}`, "--log-level=error"], { cwd: project });
    cpSync(join(project, "node_modules/llm-wire", entry.wasm), join(outdir, entry.wasm.split("/").pop()));
    writeFileSync(join(project, `bundled${entry.file}.html`), `<!doctype html><body><pre id="out"></pre><script type="module" src="/bundle${entry.file}/entry${entry.file}.js"></script></body>`);
    same(await inChromium(`bundled${entry.file}.html`), `chromium bundled ${entry.name}`);
  });
}

test("the published declarations have no `any` type", () => {
  for (const file of ["llm_wire.d.ts", "index.d.ts", "stream/llm_wire_stream.d.ts", "stream/index.d.ts"]) {
    const text = readFileSync(join(project, "node_modules/llm-wire", file), "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
    assert.doesNotMatch(text, /\bany\b/, file);
  }
});

test("TypeScript: a consumer compiles with tsc --strict against the published types", () => {
  writeFileSync(join(project, "consumer.ts"), readFileSync(join(here, "runtimes/consumer.ts")));
  writeFileSync(join(project, "consumer-stream.ts"), readFileSync(join(here, "runtimes/consumer-stream.ts")));
  writeFileSync(join(project, "consumer-accumulator.ts"), readFileSync(join(here, "runtimes/consumer-accumulator.ts")));
  writeFileSync(join(project, "tsconfig.json"), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, target: "es2022", module: "nodenext", moduleResolution: "nodenext", lib: ["es2022", "dom", "esnext.disposable"], skipLibCheck: false },
    files: ["consumer.ts", "consumer-stream.ts", "consumer-accumulator.ts"],
  }));
  try {
    execFileSync(bin("tsc"), ["-p", "tsconfig.json"], { cwd: project, stdio: "pipe" });
  } catch (err) {
    assert.fail(`tsc --strict rejected the consumer:\n${err.stdout}`);
  }
});

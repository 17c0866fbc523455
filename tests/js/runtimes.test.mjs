// The packed tarball (`npm pack` of pkg/), installed into a project as a user installs it, and
// used the way each runtime and bundler uses it: Node ESM and CommonJS, Deno, Bun, workerd (a
// Worker bundled as Wrangler bundles it), Chromium (a plain page with `init()`, and pages built
// by Vite, webpack, Rollup and esbuild with their usual set-up), the CLI, and consumers compiled
// by `tsc --strict`. Every runtime replays the same recorded stream and must give the same final
// message. The tests run a few at a time: most of their time is spent waiting on a child.
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { writeFileSync, readFileSync, mkdirSync, cpSync, copyFileSync, readdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "./runtimes/server.mjs";
import { bin, here, packedProject, run, startChromium } from "./runtimes/project.mjs";

const FIXTURE = "deepseek/vercel-reasoning-tool-call.sse";
const body = new Uint8Array(readFileSync(new URL(`../fixtures/${FIXTURE}`, import.meta.url)));
const JSON_FIXTURE = "anthropic/pyd-thinking.json";
const jsonBody = readFileSync(new URL(`../fixtures/${JSON_FIXTURE}`, import.meta.url), "utf8");
const { Accumulator, toMessage } = await import("../../pkg/node.mjs");

const { expected, expectedEvents } = (() => {
  const acc = new Accumulator();
  const events = [...acc.push(body), ...acc.flush()];
  return { expected: acc.finish(), expectedEvents: events };
})();

let setup, project, server, url, chromium;

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

const CJS_SCRIPT = (entry) => `const { AccumulatorStream } = require("${entry}");
(async () => {
  const res = await fetch(process.env.STREAM_URL);
  const stream = res.body.pipeThrough(new AccumulatorStream());
  let final;
  for await (const item of stream) if (item.type === "final") final = item.message;
  console.log(JSON.stringify(final));
})();`;

// Both entries: the full module, and the stream entry with the Accumulator alone.
const ENTRIES = [
  { name: "llm-wire", file: "", wasm: "llm_wire_bg.wasm" },
  { name: "llm-wire/stream", file: "-stream", wasm: "stream/llm_wire_stream_bg.wasm" },
];

/** A page's module that imports only `Accumulator` from `entry` and reads the replayed stream. */
const ACCUMULATOR_PAGE = (entry) => `import { Accumulator } from "${entry}";

const response = await fetch("/stream");
const acc = new Accumulator();
const reader = response.body.getReader();
for (;;) {
  const { done, value } = await reader.read();
  if (done) break;
  acc.push(value);
}
document.querySelector("#out").textContent = JSON.stringify(acc.finish());
document.body.dataset.done = "1";
`;

const PAGE = (script) => `<!doctype html><body><pre id="out"></pre><script type="module" src="${script}"></script></body>`;

/**
 * Each bundler as its documentation sets it up for a browser page, given the page's module
 * `source` in `dir`: it writes the bundle and a page into `dir` and gives the page's path.
 * None is told where the .wasm is: each must find it from the package's own files.
 */
const BUNDLERS = {
  // Vite: a production build of an index.html, no configuration.
  async vite(dir) {
    writeFileSync(join(dir, "index.html"), PAGE("./main.mjs"));
    // `base: "./"`: the page is served from a directory of the test server, not from its root.
    await run(bin("vite"), ["build", "--base=./", "--logLevel", "error"], { cwd: dir });
    return "dist/index.html";
  },
  // webpack 5: production mode, no configuration beyond the entry and the output.
  async webpack(dir) {
    const { default: webpack } = await import("webpack");
    const compiler = webpack({
      mode: "production",
      context: dir,
      entry: "./main.mjs",
      output: { path: join(dir, "dist"), filename: "main.js" },
      performance: { hints: false },
    });
    const stats = await new Promise((resolve, reject) => compiler.run((err, s) => (err ? reject(err) : resolve(s))));
    await new Promise((resolve) => compiler.close(resolve));
    assert.ok(!stats.hasErrors(), stats.toString("errors-only"));
    writeFileSync(join(dir, "dist/index.html"), PAGE("./main.js"));
    return "dist/index.html";
  },
  // Rollup: node-resolve for the package (its `browser` condition) and the plugin that emits
  // what `new URL(..., import.meta.url)` names, as Rollup's users set it up for any asset.
  async rollup(dir) {
    const { rollup } = await import("rollup");
    const { nodeResolve } = await import("@rollup/plugin-node-resolve");
    const { importMetaAssets } = await import("@web/rollup-plugin-import-meta-assets");
    const bundle = await rollup({
      input: join(dir, "main.mjs"),
      plugins: [nodeResolve({ browser: true, rootDir: dir }), importMetaAssets()],
      onwarn: (warning) => assert.fail(`rollup: ${warning.message}`),
    });
    await bundle.write({ dir: join(dir, "dist"), format: "es" });
    await bundle.close();
    writeFileSync(join(dir, "dist/index.html"), PAGE("./main.js"));
    return "dist/index.html";
  },
  // esbuild: the README's build script (esbuild leaves `new URL(..., import.meta.url)` alone,
  // so the script puts the module beside the bundle, found through the package's exports).
  async esbuild(dir, entry) {
    const wasm = entry === "llm-wire" ? "llm-wire/llm_wire_bg.wasm" : "llm-wire/stream/llm_wire_stream_bg.wasm";
    writeFileSync(join(dir, "build.mjs"), `import * as esbuild from "esbuild";
import { copyFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
await esbuild.build({ entryPoints: ["main.mjs"], bundle: true, format: "esm", platform: "browser", outdir: "dist", logLevel: "error" });
await copyFile(fileURLToPath(import.meta.resolve("${wasm}")), "dist/${wasm.split("/").pop()}");
`);
    await run("node", ["build.mjs"], { cwd: dir });
    writeFileSync(join(dir, "dist/index.html"), PAGE("./main.js"));
    return "dist/index.html";
  },
};

before(async () => {
  setup = packedProject("runtimes");
  project = setup.project;
  // The project's own build tool, as a user's project has it: the test tools' copy.
  symlinkSync(join(here, "node_modules/esbuild"), join(project, "node_modules/esbuild"));
  ({ server, url } = await startServer({ stream: body, root: project }));
  chromium = await startChromium();
});

after(async () => {
  await chromium?.close();
  server?.close();
  setup?.dispose();
});

describe("the packed package", { concurrency: 3 }, () => {
  for (const entry of ENTRIES) {
    test(`Node ESM: import from ${entry.name} needs no init`, async () => {
      writeFileSync(join(project, `esm${entry.file}.mjs`), STREAM_SCRIPT(`import { streamEvents } from "${entry.name}";`));
      same(finalOf(await run("node", [`esm${entry.file}.mjs`], { cwd: project, env: { ...process.env, STREAM_URL: `${url}/stream` } })), `node esm ${entry.name}`);
    });

    test(`Node CommonJS: require('${entry.name}') needs no init`, async () => {
      writeFileSync(join(project, `cjs${entry.file}.cjs`), CJS_SCRIPT(entry.name));
      same(finalOf(await run("node", [`cjs${entry.file}.cjs`], { cwd: project, env: { ...process.env, STREAM_URL: `${url}/stream` } })), `node cjs ${entry.name}`);
    });

    test(`Bun: import and require of ${entry.name} need no init`, async () => {
      writeFileSync(join(project, `bun${entry.file}.mjs`), STREAM_SCRIPT(`import { streamEvents } from "${entry.name}";`));
      writeFileSync(join(project, `bun${entry.file}.cjs`), CJS_SCRIPT(entry.name));
      const env = { ...process.env, STREAM_URL: `${url}/stream`, NO_COLOR: "1" };
      same(finalOf(await run(bin("bun"), ["run", `bun${entry.file}.mjs`], { cwd: project, env })), `bun esm ${entry.name}`);
      same(finalOf(await run(bin("bun"), ["run", `bun${entry.file}.cjs`], { cwd: project, env })), `bun cjs ${entry.name}`);
    });

    test(`Deno: import from ${entry.name} needs no init`, async () => {
      writeFileSync(join(project, `deno${entry.file}.mjs`), STREAM_SCRIPT(`import { streamEvents } from "${entry.name}";\nconst process = { env: Deno.env.toObject() };`));
      const out = await run(bin("deno"), ["run", "--quiet", "--allow-read", "--allow-env", "--allow-net=127.0.0.1", `deno${entry.file}.mjs`], {
        cwd: project, env: { ...process.env, STREAM_URL: `${url}/stream`, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
      });
      same(finalOf(out), `deno ${entry.name}`);
    });

    test(`workerd: a Worker bundled as Wrangler does, with only Accumulator from ${entry.name}`, async () => {
      writeFileSync(join(project, `worker${entry.file}.mjs`), `import { Accumulator } from "${entry.name}";
  export default {
    async fetch(request, env) {
      const upstream = await fetch(env.STREAM_URL);
      const acc = new Accumulator();
      const reader = upstream.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        acc.push(value);
      }
      return Response.json(acc.finish());
    },
  };`);
      const outdir = join(project, `worker-dist${entry.file}`);
      mkdirSync(outdir);
      // As Wrangler does: its conditions, and every .wasm a module of its own beside the bundle.
      const esbuild = await import("esbuild");
      await esbuild.build({
        entryPoints: [join(project, `worker${entry.file}.mjs`)], bundle: true, format: "esm", platform: "neutral",
        conditions: ["workerd", "worker", "browser"], outdir, logLevel: "error",
        plugins: [{ name: "wasm-modules", setup(b) {
          b.onResolve({ filter: /\.wasm$/ }, (a) => {
            const path = join(a.resolveDir, a.path);
            copyFileSync(path, join(outdir, a.path.split("/").pop()));
            return { path: "./" + a.path.split("/").pop(), external: true };
          });
        } }],
      });
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

    for (const [bundler, build] of Object.entries(BUNDLERS)) {
      test(`Chromium: a ${bundler} bundle that imports only Accumulator from ${entry.name}`, async () => {
        const dir = join(project, `${bundler}${entry.file}`);
        mkdirSync(dir);
        writeFileSync(join(dir, "main.mjs"), ACCUMULATOR_PAGE(entry.name));
        const page = await build(dir, entry.name);
        const files = readdirSync(join(dir, "dist"), { recursive: true });
        assert.ok(files.some((f) => String(f).endsWith(".wasm")), `${bundler} emitted the .wasm: ${files.join(", ")}`);
        const { errors, text } = await chromium.open(`${url}/${bundler}${entry.file}/${page}`);
        assert.deepEqual(errors, [], "page errors");
        same(JSON.parse(text), `${bundler} ${entry.name}`);
      });
    }
  }

  // The first report: with `sideEffects: false`, a bundler dropped browser.mjs, and its
  // initialisation, when a page imported only functions that come straight from the glue.
  test("Chromium: an esbuild bundle that imports only toMessage keeps the initialisation", async () => {
    const dir = join(project, "esbuild-glue-only");
    mkdirSync(dir);
    writeFileSync(join(dir, "body.json"), jsonBody);
    writeFileSync(join(dir, "main.mjs"), `import { toMessage } from "llm-wire";
const message = toMessage(await (await fetch("/esbuild-glue-only/body.json")).text());
document.querySelector("#out").textContent = JSON.stringify(message);
document.body.dataset.done = "1";
`);
    const page = await BUNDLERS.esbuild(dir, "llm-wire");
    const { errors, text } = await chromium.open(`${url}/esbuild-glue-only/${page}`);
    assert.deepEqual(errors, [], "page errors");
    assert.deepEqual(JSON.parse(text), toMessage(jsonBody));
  });

  test("Chromium: a plain ESM page with one await init()", async () => {
    writeFileSync(join(project, "plain.html"), `<!doctype html><body><pre id="out"></pre><script type="module">
import init, { streamEvents } from "/node_modules/llm-wire/web.mjs";
await init();
const res = await fetch("/stream");
let final;
for await (const item of streamEvents(res.body)) if (item.type === "final") final = item.message;
document.querySelector("#out").textContent = JSON.stringify(final);
document.body.dataset.done = "1";
</script></body>`);
    const { errors, text } = await chromium.open(`${url}/plain.html`);
    assert.deepEqual(errors, [], "page errors");
    same(JSON.parse(text), "chromium plain");
  });

  test("a bundle that did not emit the .wasm fails at import with a message that says so", async () => {
    const dir = join(project, "no-wasm");
    mkdirSync(dir);
    writeFileSync(join(dir, "main.mjs"), `import { Accumulator } from "llm-wire";\nnew Accumulator();`);
    execFileSync(bin("esbuild"), ["main.mjs", "--bundle", "--format=esm", "--platform=browser", "--outdir=dist", "--log-level=error"], { cwd: dir });
    writeFileSync(join(dir, "dist/index.html"), PAGE("./main.js"));
    const { errors } = await chromium.open(`${url}/no-wasm/dist/index.html`, { done: () => true });
    assert.equal(errors.length, 1, errors.join("\n"));
    assert.match(errors[0], /llm-wire: cannot load its WebAssembly module from http:\/\/[^ ]+\/no-wasm\/dist\/llm_wire_bg\.wasm/);
    assert.match(errors[0], /With a bundler/);
  });

  test("the CLI reads a recorded stream at any split, and a JSON body with toMessage", async () => {
    const cli = join(project, "node_modules", ".bin", "llm-wire");
    const file = fileURLToPath(new URL(`../fixtures/${FIXTURE}`, import.meta.url));
    const whole = (await run(cli, ["inspect", file])).trim().split("\n");
    const split = execFileSync(cli, ["inspect", "-", "--split", "7"], { input: readFileSync(file) }).toString().trim().split("\n");
    const last = JSON.parse(whole.at(-1));
    assert.equal(last.format, "openai-chat");
    same(last.message, "cli");
    assert.deepEqual(JSON.parse(split.at(-1)), last);
    assert.ok(whole.slice(0, -1).every((line) => typeof JSON.parse(line).type === "string"), "NDJSON events first");
    const jsonFile = fileURLToPath(new URL(`../fixtures/${JSON_FIXTURE}`, import.meta.url));
    const fromBody = (await run(cli, ["inspect", "--json", jsonFile])).trim().split("\n");
    assert.equal(fromBody.length, 1);
    assert.deepEqual(JSON.parse(fromBody[0]), { type: "final", message: toMessage(jsonBody) });
  });

  test("the CLI has --help and --version, and refuses what it does not know", async () => {
    const cli = join(project, "node_modules", ".bin", "llm-wire");
    assert.match(await run(cli, ["--help"]), /^usage: llm-wire inspect <file \| -> \[--json\]/);
    const { version } = JSON.parse(readFileSync(join(project, "node_modules/llm-wire/package.json"), "utf8"));
    assert.equal((await run(cli, ["--version"])).trim(), version);
    for (const [args, said] of [[[], /no command/], [["inspect"], /no input file/], [["inspect", "x", "--splat"], /unknown option "--splat"/], [["lint"], /unknown command "lint"/]]) {
      const failed = await run(cli, args).then(() => assert.fail(`${args} succeeded`), (err) => err);
      assert.equal(failed.code, 2, `${args}: exit status`);
      assert.match(failed.stderr, said);
    }
  });

  test("the CLI on a terminal prints a readable summary of the message", async () => {
    // `script` gives the CLI a terminal as its output, as a person running it has.
    const file = fileURLToPath(new URL(`../fixtures/${FIXTURE}`, import.meta.url));
    const cli = join(project, "node_modules", ".bin", "llm-wire");
    const shown = (await run("script", ["-qec", `${cli} inspect ${file}`, "/dev/null"])).replace(/\r\n/g, "\n");
    assert.ok(shown.startsWith(`openai-chat stream: ${expectedEvents.length} events (`), shown);
    for (const { type } of expectedEvents) assert.ok(shown.split("\n")[0].includes(` ${type}`), `the tally names ${type}`);
    assert.ok(shown.includes(`\nreasoning:\n  ${expected.reasoning.split("\n")[0]}`), shown);
    const call = expected.toolCalls[0];
    assert.ok(shown.includes(`\ntool calls:\n  ${call.name}(${call.arguments})  id ${call.id}\n`), shown);
    assert.match(shown, /\nfinish: tool_calls, complete\nusage: \d+ in, \d+ out, \d+ total/);
    assert.doesNotMatch(shown, /^\{/m, "no JSON on a terminal");
  });

  test("the published declarations have no `any` type", () => {
    const declarations = ["llm_wire.d.ts", "index.d.ts", "web.d.mts", "stream/llm_wire_stream.d.ts", "stream/index.d.ts", "stream/web.d.mts"];
    for (const file of declarations) {
      const text = readFileSync(join(project, "node_modules/llm-wire", file), "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
      assert.doesNotMatch(text, /\bany\b/, file);
    }
  });

  test("TypeScript: consumers compile with tsc --strict against the published types", async () => {
    const consumers = ["consumer.ts", "consumer-stream.ts", "consumer-accumulator.ts", "consumer-web.ts"];
    for (const file of consumers) cpSync(join(here, "runtimes", file), join(project, file));
    writeFileSync(join(project, "tsconfig.json"), JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, target: "es2022", module: "nodenext", moduleResolution: "nodenext", lib: ["es2022", "dom", "dom.iterable", "esnext.disposable"], types: [], skipLibCheck: false },
      files: consumers,
    }));
    try {
      await run(bin("tsc"), ["-p", "tsconfig.json"], { cwd: project });
    } catch (err) {
      assert.fail(`tsc --strict rejected a consumer:\n${err.stdout}`);
    }
  });
});

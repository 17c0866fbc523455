// What the suites that test the packed package share: a project with the tarball installed (as a
// user installs it), the test tools of tests/js, child processes that do not block the event
// loop (they read from this process's servers), and one headless Chromium.
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

export const here = fileURLToPath(new URL("..", import.meta.url));
export const repo = join(here, "../..");
/** A tool installed in tests/js (npm ci of its lock). */
export const bin = (name) => join(here, "node_modules", ".bin", name);

/** Runs a program to its end; its standard output. */
export const run = async (file, args, options) =>
  (await promisify(execFile)(file, args, { timeout: 120000, maxBuffer: 64 << 20, ...options })).stdout;

/** `npm pack` of pkg/ installed offline into a new project; `dispose()` removes both. */
export function packedProject(prefix) {
  const work = mkdtempSync(join(tmpdir(), `llm-wire-${prefix}-`));
  const out = execFileSync("npm", ["pack", "--silent", "--pack-destination", work], { cwd: join(repo, "pkg") });
  const tarball = join(work, out.toString().trim().split("\n").pop());
  const project = join(work, "project");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--offline", "--loglevel=error", tarball], { cwd: project });
  return { work, project, tarball, dispose: () => rmSync(work, { recursive: true, force: true }) };
}

/** One headless Chromium for a suite: `open(url)` loads a page, waits for `body[data-done]` (or
 * for `done(arg)` to be true) and gives the text of `#out` (or of `selector`), the page's errors
 * and its console lines. */
export async function startChromium() {
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  async function open(url, { selector = "#out", done = () => document.body.dataset.done === "1", arg = null } = {}) {
    const tab = await browser.newPage();
    const errors = [];
    const console = [];
    tab.on("pageerror", (e) => errors.push(String(e)));
    tab.on("console", (m) => console.push(m.text()));
    try {
      await tab.goto(url);
      await tab.waitForFunction(done, arg, { timeout: 30000 }).catch(() => {});
      return { errors, console, text: await tab.textContent(selector) };
    } finally {
      await tab.close();
    }
  }
  return { open, close: () => browser.close() };
}

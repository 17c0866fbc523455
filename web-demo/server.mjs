// The web demo's server (`make demo`): the page, the built package under /pkg/, the page's two
// libraries under /vendor/, and POST /api/chat, which answers one assistant turn with a
// provider's SSE stream. The page sends `{profile, turn, messages}`.
//
// - Replay (the default): it streams the profile's recording of that turn from tests/fixtures/
//   as real SSE over HTTP: a pause before the first byte, then seeded pieces of a few dozen to a
//   few hundred bytes, paced so that text arrives at a readable speed. No network, no key.
// - Live: with LLM_WIRE_API_KEY and LLM_WIRE_BASE_URL set (LLM_WIRE_MODEL optional), it builds
//   the request with the package's buildRequest (the key stays here) and pipes the stream back.
//
// Usage: node web-demo/server.mjs   (PORT=8787 by default)
import { createServer } from "node:http";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { PROFILES, agentOf } from "./profiles.mjs";
import { rng } from "../bench/gen.mjs";
import { buildRequest } from "../pkg/node.mjs";

const DEMO = fileURLToPath(new URL(".", import.meta.url));
const PKG = fileURLToPath(new URL("../pkg/", import.meta.url));
const FIXTURES = fileURLToPath(new URL("../tests/fixtures/", import.meta.url));
const TYPES = {
  ".html": "text/html; charset=utf-8", ".mjs": "text/javascript", ".js": "text/javascript",
  ".css": "text/css", ".wasm": "application/wasm", ".json": "application/json", ".ts": "text/plain",
};
const STATIC = {
  "/": "index.html", "/app.mjs": "app.mjs", "/style.css": "style.css", "/profiles.mjs": "profiles.mjs",
  "/render.mjs": "render.mjs", "/tools.mjs": "tools.mjs",
  "/vendor/marked.mjs": "node_modules/marked/lib/marked.esm.js",
  "/vendor/purify.mjs": "node_modules/dompurify/dist/purify.es.mjs",
};
// Nothing but the page's own files runs, even if model output slipped past the sanitiser;
// the module needs 'wasm-unsafe-eval' to compile.
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; "
  + "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * Starts the demo server. `delayScale` multiplies the replay pauses (0 = no pauses);
 * `env` holds the LLM_WIRE_* settings (live mode when the key and base URL are set).
 */
export function startServer({ port = 8787, host = "127.0.0.1", delayScale = 1, env = process.env } = {}) {
  const live = env.LLM_WIRE_API_KEY && env.LLM_WIRE_BASE_URL
    ? { key: env.LLM_WIRE_API_KEY, baseUrl: env.LLM_WIRE_BASE_URL.replace(/\/+$/, ""), model: env.LLM_WIRE_MODEL || undefined }
    : undefined;

  const server = createServer(async (req, res) => {
    try {
      const { pathname } = new URL(req.url, "http://demo");
      if (req.method === "GET" && pathname === "/api/config") {
        return json(res, 200, { mode: live ? "live" : "replay", model: live?.model, baseUrl: live?.baseUrl });
      }
      if (req.method === "POST" && pathname === "/api/chat") {
        const request = JSON.parse(await readBody(req));
        const profile = PROFILES.find((p) => p.id === request?.profile);
        if (!profile) return json(res, 400, { error: `unknown profile ${JSON.stringify(request?.profile)}` });
        if (live) return forward(res, live, profile, request.messages);
        const fixture = Number.isInteger(request.turn) ? profile.turns[request.turn] : undefined;
        if (!fixture) return json(res, 404, { error: `the recording of "${profile.title}" has no turn ${JSON.stringify(request.turn)}` });
        return replay(res, fixture, `${profile.id}/${request.turn}`, delayScale);
      }
      if (req.method !== "GET" && req.method !== "HEAD") return json(res, 405, { error: "method not allowed" });
      const file = STATIC[pathname] ? join(DEMO, STATIC[pathname]) : pathname.startsWith("/pkg/") ? inside(PKG, pathname.slice(5)) : undefined;
      if (!file) return json(res, 404, { error: "not found" });
      const data = await readFile(file).catch(() => undefined);
      if (!data) return json(res, 404, { error: "not found" });
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "cache-control": "no-store", "content-security-policy": CSP });
      res.end(data);
    } catch (err) {
      if (!res.headersSent) json(res, err instanceof SyntaxError ? 400 : 500, { error: String(err?.message ?? err) });
      else res.destroy();
    }
  });

  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve({ server, url: `http://${host}:${server.address().port}/`, live: Boolean(live) }));
  });
}

// ---- replay: a recorded turn, streamed -------------------------------------------------------

const DATA = Buffer.from("data:");

/**
 * The fixture as SSE, cut in seeded network-sized pieces (the same turn is always cut the same
 * way). A model sends a token or so per event, so the pause after a piece grows with the events
 * it carries: about 20 a second, slow enough to watch the text arrive.
 */
async function replay(res, fixture, seed, delayScale) {
  const body = await readFile(inside(FIXTURES, fixture));
  let closed = false;
  res.on("close", () => { closed = true; });
  const next = seeded(seed);
  const pause = (ms) => (ms * delayScale > 0 ? new Promise((r) => setTimeout(r, ms * delayScale)) : undefined);
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store", "x-llm-wire-fixture": fixture });
  res.flushHeaders();
  await pause(350 + next() * 450); // the model's time to first token
  for (let at = 0; at < body.length && !closed; ) {
    const piece = body.subarray(at, at + 24 + Math.floor(next() ** 2 * 400)); // mostly small, now and then a big one
    res.write(piece);
    at += piece.length;
    let events = 0;
    for (let i = piece.indexOf(DATA); i >= 0; i = piece.indexOf(DATA, i + 1)) events += 1;
    await pause(4 + events * (25 + next() * 40));
  }
  res.end();
}

/** The benchmark's seeded generator, seeded from a string (FNV-1a). */
function seeded(text) {
  return rng([...text].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0, 2166136261));
}

// ---- live: the request built here, the provider's stream piped back --------------------------

async function forward(res, live, profile, messages) {
  let request;
  try {
    request = buildRequest(agentOf(profile, live.model), messages, { stream: true, baseUrl: live.baseUrl, apiKey: live.key });
  } catch (err) {
    return json(res, 400, { error: err.message, code: err.code, path: err.path });
  }
  const upstream = await fetch(request.url, request);
  res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "text/event-stream", "cache-control": "no-store" });
  if (upstream.body) for await (const chunk of upstream.body) res.write(chunk);
  res.end();
}

// ---- helpers ---------------------------------------------------------------------------------

/** `root`/`relative`, or undefined when it would leave `root`. */
function inside(root, relative) {
  let path;
  try { path = normalize(join(root, decodeURIComponent(relative))); } catch { return undefined; }
  return path.startsWith(root.endsWith(sep) ? root : root + sep) ? path : undefined;
}

function json(res, status, value) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
}

async function readBody(req) {
  let text = "";
  for await (const chunk of req) {
    text += chunk;
    if (text.length > 1 << 20) throw new Error("request body too large");
  }
  return text;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === normalize(process.argv[1])) {
  if (!existsSync(join(DEMO, "node_modules/marked")) || !existsSync(join(DEMO, "node_modules/dompurify"))) {
    console.error("llm-wire demo: web-demo/node_modules is missing: run `make demo` (it installs the page's libraries with npm ci)");
    process.exit(1);
  }
  const { url, live } = await startServer({ port: Number(process.env.PORT ?? 8787) });
  console.log(`llm-wire demo: ${url}`);
  console.log(live
    ? `  live: forwarding to ${process.env.LLM_WIRE_BASE_URL}${process.env.LLM_WIRE_MODEL ? ` (model ${process.env.LLM_WIRE_MODEL})` : ""}`
    : "  replay: recorded conversations from tests/fixtures/, no network and no key (set LLM_WIRE_API_KEY and LLM_WIRE_BASE_URL to talk to a model)");
  console.log("  Ctrl-C stops it.");
}

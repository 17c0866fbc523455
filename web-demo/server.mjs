// The web demo's server (`make demo`): the page, the built package under /pkg/, and
// POST /api/chat, which answers with a provider's SSE stream.
//
// - Offline (the default): it replays the profile's recorded fixture from tests/fixtures/ as real
//   SSE over HTTP, in seeded pieces of a few dozen to a few hundred bytes a few ms apart.
// - Live: with LLM_WIRE_API_KEY and LLM_WIRE_BASE_URL set (LLM_WIRE_MODEL optional), it forwards
//   the request body the page built to the provider and pipes the stream back.
//
// Usage: node web-demo/server.mjs   (PORT=8787 by default)
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { PROFILES, apiOf } from "./profiles.mjs";
import { rng } from "../bench/gen.mjs";

const DEMO = fileURLToPath(new URL(".", import.meta.url));
const PKG = fileURLToPath(new URL("../pkg/", import.meta.url));
const FIXTURES = fileURLToPath(new URL("../tests/fixtures/", import.meta.url));
const TYPES = {
  ".html": "text/html; charset=utf-8", ".mjs": "text/javascript", ".js": "text/javascript",
  ".css": "text/css", ".wasm": "application/wasm", ".json": "application/json", ".ts": "text/plain",
};
const STATIC = { "/": "index.html", "/app.mjs": "app.mjs", "/style.css": "style.css", "/profiles.mjs": "profiles.mjs" };

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
        const profile = PROFILES.find((p) => p.id === request.profile);
        if (!profile) return json(res, 400, { error: `unknown profile ${JSON.stringify(request.profile)}` });
        return live ? forward(res, live, profile, request.body) : replay(req, res, profile, delayScale);
      }
      if (req.method !== "GET") return json(res, 405, { error: "method not allowed" });
      const file = STATIC[pathname] ? join(DEMO, STATIC[pathname]) : pathname.startsWith("/pkg/") ? inside(PKG, pathname.slice(5)) : undefined;
      if (!file) return json(res, 404, { error: "not found" });
      const data = await readFile(file).catch(() => undefined);
      if (!data) return json(res, 404, { error: "not found" });
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "cache-control": "no-store" });
      res.end(data);
    } catch (err) {
      if (!res.headersSent) json(res, 500, { error: String(err?.message ?? err) });
      else res.destroy();
    }
  });

  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve({ server, url: `http://${host}:${server.address().port}/`, live: Boolean(live) }));
  });
}

// ---- offline: a recorded stream, replayed ---------------------------------------------------

/** The profile's fixture as SSE, in seeded network-sized pieces with network-like pauses. */
async function replay(req, res, profile, delayScale) {
  const body = await readFile(inside(FIXTURES, profile.fixture));
  let closed = false;
  res.on("close", () => { closed = true; });
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store", "x-llm-wire-fixture": profile.fixture });
  const next = seeded(profile.id);
  for (let at = 0; at < body.length && !closed; ) {
    const size = 24 + Math.floor(next() ** 2 * 400); // mostly small pieces, now and then a big one
    res.write(body.subarray(at, at + size));
    at += size;
    const pause = (next() < 0.1 ? 40 + next() * 60 : 3 + next() * 25) * delayScale; // the odd slow gap
    if (pause > 0) await new Promise((r) => setTimeout(r, pause));
  }
  res.end();
}

/** The benchmark's seeded generator, seeded from a string (FNV-1a): the same profile is always
 * cut the same way. */
function seeded(text) {
  return rng([...text].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0, 2166136261));
}

// ---- live: the page's request body, forwarded to the provider --------------------------------

const PATHS = { chat: "/chat/completions", responses: "/responses", anthropic: "/messages" };

async function forward(res, live, profile, body) {
  const api = apiOf(profile.agent);
  const headers = { "content-type": "application/json", accept: "text/event-stream" };
  if (api === "anthropic") Object.assign(headers, { "x-api-key": live.key, "anthropic-version": "2023-06-01" });
  else headers.authorization = `Bearer ${live.key}`;
  const upstream = await fetch(live.baseUrl + PATHS[api], { method: "POST", headers, body: JSON.stringify(body) });
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
  const { url, live } = await startServer({ port: Number(process.env.PORT ?? 8787) });
  console.log(`llm-wire demo: ${url}`);
  console.log(live
    ? `  live: forwarding to ${process.env.LLM_WIRE_BASE_URL}${process.env.LLM_WIRE_MODEL ? ` (model ${process.env.LLM_WIRE_MODEL})` : ""}`
    : "  offline: replaying recorded streams from tests/fixtures/ (set LLM_WIRE_API_KEY and LLM_WIRE_BASE_URL to forward to a provider)");
  console.log("  Ctrl-C stops it.");
}

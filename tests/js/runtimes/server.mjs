// A local server that replays a recorded stream as real SSE over HTTP, in small pieces with a
// short pause between them (what a browser, a Worker or Node reads from a provider), and serves
// static files for the browser pages.
import { createServer } from "node:http";
import { readFileSync, existsSync, statSync } from "node:fs";
import { extname, join, normalize } from "node:path";

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };

/** Starts the server on a free loopback port; `stream` is the body replayed at `/stream`. */
export function startServer({ stream, root }) {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, "http://x");
    if (url.pathname === "/stream") {
      res.writeHead(200, { "content-type": "text/event-stream", "access-control-allow-origin": "*" });
      for (let at = 0; at < stream.length; at += 97) {
        res.write(stream.subarray(at, at + 97));
        await new Promise((r) => setTimeout(r, 1));
      }
      res.end();
      return;
    }
    const path = normalize(join(root, decodeURIComponent(url.pathname)));
    if (!path.startsWith(root) || !existsSync(path) || !statSync(path).isFile()) {
      res.writeHead(404).end("not found");
      return;
    }
    res.writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream" });
    res.end(readFileSync(path));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, url: `http://127.0.0.1:${server.address().port}` })));
}

// A local server that replays a recorded stream as real SSE over HTTP, in small pieces with a
// short pause between them (what a browser, a Worker or Node reads from a provider), and serves
// static files for the browser pages.
import { createServer } from "node:http";
import { readFileSync, existsSync, statSync } from "node:fs";
import { extname, join, normalize } from "node:path";

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };

/**
 * Starts the server on a free loopback port; `stream` is the body replayed at `/stream`, and
 * `routes` maps other paths to a function of the request's JSON body (or `undefined`) that gives
 * the recorded response to replay, `{ type, body }`.
 */
export function startServer({ stream, root, routes = {} }) {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, "http://x");
    const route = url.pathname === "/stream" ? () => ({ type: "text/event-stream", body: stream }) : routes[url.pathname];
    if (route) {
      let text = "";
      for await (const piece of req) text += piece;
      const { type, body } = route(text ? JSON.parse(text) : undefined);
      res.writeHead(200, { "content-type": type, "access-control-allow-origin": "*" });
      for (let at = 0; at < body.length; at += 97) {
        res.write(body.subarray(at, at + 97));
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

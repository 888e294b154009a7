// The baseline: a bare node:http server answering 302 from an in-memory Map (no framework, no
// database, no click recording). Started as a child process by bench/redirect.ts.
// Usage: node --import tsx bench/baseline-server.ts <link count>; reports {type:"ready", url} over IPC.
import { createServer } from "node:http";
import { allLinks, associationBodies } from "./lib/dataset.js";
import { errorPage, passwordForm } from "../src/http/pages.js";

interface Entry {
  url: string;
  max: number;
  count: number;
  password: boolean;
}

const count = Number(process.argv[2] ?? "1");
const links = new Map<string, Entry>();
for (const l of allLinks(count)) links.set(l.alias, { url: l.url, max: l.maxClicks ?? Infinity, count: 0, password: l.password });

// Pages of the same size as the service's, so the password and 403 scenarios compare like with like.
const FORM = passwordForm(false);
const LIMIT = errorPage(403, {
  title: "Click limit reached",
  heading: "This link has reached its click limit",
  text: "Its owner allowed a set number of visits, and they have all been used.",
});

// The association scenario's two files: the same bytes, JSON, cacheable (src/http/routes/deeplinks.ts).
const FILES = new Map(Object.entries(associationBodies()).map(([path, body]) => [path, Buffer.from(body)]));

const server = createServer((req, res) => {
  const file = FILES.get(req.url ?? "");
  if (file !== undefined) {
    res.writeHead(200, { "content-type": "application/json", "cache-control": "public, max-age=300", "content-length": file.length });
    res.end(file);
    return;
  }
  const entry = links.get((req.url ?? "/").slice(1));
  if (entry === undefined) {
    res.writeHead(404, { "content-type": "text/plain", "cache-control": "private, no-store" });
    res.end("not found");
  } else if (entry.password) {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "private, no-store" });
    res.end(FORM);
  } else if (entry.count >= entry.max) {
    res.writeHead(403, { "content-type": "text/html; charset=utf-8", "cache-control": "private, no-store" });
    res.end(LIMIT);
  } else {
    entry.count++;
    res.writeHead(302, { location: entry.url, "cache-control": "private, no-store" });
    res.end();
  }
});

server.listen(0, "127.0.0.1", () => {
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  process.send?.({ type: "ready", url: `http://127.0.0.1:${port}`, links: links.size });
});

process.on("message", (msg: { type?: string }) => {
  if (msg.type === "stats") process.send?.({ type: "stats", rss: process.memoryUsage().rss });
});
const stop = () => server.close(() => process.exit(0));
process.once("SIGTERM", stop);
process.once("disconnect", stop);

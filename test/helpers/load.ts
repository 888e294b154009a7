// Request loops for failure tests: each answer is kept (what, where, status, when), and every error answer
// is checked against the contract's error body as it arrives.
import { request } from "node:http";

export interface Answer {
  kind: string;
  /** Which server answered (its base URL). */
  server: string;
  status: number;
  at: number;
}

export interface Received {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One GET/POST over a fresh HTTP request (no redirect followed), with its status, headers and body. */
export function send(url: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Received> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: opts.method ?? "GET", headers: opts.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    req.end(opts.body);
  });
}

/**
 * What a 503 must be: Retry-After in seconds, and the contract's error body with code `unavailable`
 * (JSON, or the HTML page for a browser), nothing of the cause in it. Returns the problem, or null.
 */
export function problemWith503(r: Received): string | null {
  if (r.status !== 503) return null;
  if (r.headers["retry-after"] !== "5") return `503 without Retry-After: 5 (${String(r.headers["retry-after"])})`;
  if (/ECONN|postgres|sqlite|SQLITE|pg_|select |127\.0\.0\.1|at .*\.ts|\/tmp\//i.test(r.body)) return `503 body leaks internals: ${r.body}`;
  const type = String(r.headers["content-type"] ?? "");
  if (type.startsWith("text/html")) return r.body.includes("Temporarily unavailable") ? null : `503 page: ${r.body.slice(0, 200)}`;
  let body: unknown;
  try {
    body = JSON.parse(r.body);
  } catch {
    return `503 body not JSON: ${r.body.slice(0, 200)}`;
  }
  const b = body as Record<string, unknown>;
  const keys = Object.keys(b).sort().join(",");
  if (keys !== "code,message,status" || b.status !== "error" || b.code !== "unavailable" || typeof b.message !== "string") return `503 body: ${r.body}`;
  return null;
}

/** Runs `step` in `n` parallel loops until stop() is called; stop() resolves once every loop has ended. */
export function loops(n: number, step: (loop: number, i: number) => Promise<void>): { stop(): Promise<void> } {
  let running = true;
  const all = Array.from({ length: n }, async (_, loop) => {
    for (let i = 0; running; i++) await step(loop, i);
  });
  return {
    async stop() {
      running = false;
      await Promise.all(all);
    },
  };
}

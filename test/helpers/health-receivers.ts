// Real destinations for link health tests: a node:http server whose paths answer 200, 404, 500, a redirect
// loop, no answer, 429 or what the test sets, recording each request and the most requests it held at once;
// an expired certificate signed by the test CA (openssl ca, which can date a certificate in the past); and a server
// that checks such destinations when the test says so.
import { execFileSync } from "node:child_process";
import { writeFileSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { type TestCa, type TestDns, startDns } from "./webhook-receivers.js";
import { type TestServer, type TestServerOptions, startTestServer } from "./server.js";

export interface Destinations {
  /** http://<host>:<port> */
  origin: string;
  /** Requests per path (method and path). */
  seen: Array<{ method: string; path: string }>;
  /** The most requests in flight at once. */
  maxInFlight: number;
  /** What /flip answers. */
  flip: number;
  /** How long /each/* waits before answering (ms). */
  eachDelayMs: number;
  close(): Promise<void>;
}

/** `host` names the server in its origin (a name the test's DNS answers with 127.0.0.1: snip refuses its own host). */
export async function startDestinations(host = "dest.test"): Promise<Destinations> {
  let inFlight = 0;
  const pending = new Set<ServerResponse>();
  const d: Destinations = { origin: "", seen: [], maxInFlight: 0, flip: 200, eachDelayMs: 0, close: async () => undefined };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? "/";
    d.seen.push({ method: req.method ?? "", path });
    inFlight++;
    d.maxInFlight = Math.max(d.maxInFlight, inFlight);
    res.on("close", () => inFlight--);
    const end = (status: number, headers: Record<string, string> = {}) => res.writeHead(status, headers).end();
    if (path === "/ok") return end(200);
    if (path === "/404") return end(404);
    if (path === "/500") return end(500);
    if (path === "/429") return end(429, { "retry-after": "60" });
    if (path === "/loop-a") return end(302, { location: "/loop-b" });
    if (path === "/loop-b") return end(301, { location: `${d.origin}/loop-a` });
    if (path === "/get-only") return end(req.method === "HEAD" ? 405 : 200);
    if (path === "/flip") return end(d.flip);
    if (path === "/slow" || path.startsWith("/slow/")) {
      pending.add(res);
      return;
    }
    if (path.startsWith("/each/")) {
      setTimeout(() => end(200), d.eachDelayMs);
      return;
    }
    end(404);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  d.origin = `http://${host}:${(server.address() as AddressInfo).port}`;
  d.close = () =>
    new Promise<void>((resolve) => {
      for (const res of pending) res.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return d;
}

/** A leaf for localhost signed by the test CA whose validity ended in 2020. */
export function expiredCertificate(ca: TestCa): { key: string; cert: string } {
  const run = (...args: string[]) => execFileSync("openssl", args, { cwd: ca.dir, stdio: "pipe" });
  writeFileSync(
    join(ca.dir, "ca.cnf"),
    "[ca]\ndefault_ca=d\n[d]\ndir=.\ndatabase=index.txt\nnew_certs_dir=.\nserial=serial\ndefault_md=sha256\npolicy=p\ncopy_extensions=copy\n[p]\ncommonName=supplied\n",
  );
  writeFileSync(join(ca.dir, "index.txt"), "");
  writeFileSync(join(ca.dir, "serial"), "1000\n");
  run("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "expired.key", "-out", "expired.csr", "-subj", "/CN=localhost");
  run(
    "ca",
    "-batch",
    "-config",
    "ca.cnf",
    "-in",
    "expired.csr",
    "-out",
    "expired.crt",
    "-cert",
    "ca.crt",
    "-keyfile",
    "ca.key",
    "-startdate",
    "20200101000000Z",
    "-enddate",
    "20200201000000Z",
    "-notext",
    "-extfile",
    "leaf.ext",
  );
  return { key: readFileSync(join(ca.dir, "expired.key"), "utf8"), cert: readFileSync(join(ca.dir, "expired.crt"), "utf8") };
}

/** An HTTPS server answering 200 with the given certificate. */
export async function startHttps(tls: { key: string; cert: string }): Promise<{ url: string; close(): Promise<void> }> {
  const server = createHttpsServer(tls, (_req, res) => res.writeHead(200).end());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://localhost:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface CheckingServer {
  server: TestServer;
  dest: Destinations;
  dns: TestDns;
  close(): Promise<void>;
}

/**
 * A test server with LINK_CHECKS on and destinations to check (`dest`, at dest.test: its own DNS server answers
 * 127.0.0.1 for names under .test). The scheduler's timer is stopped: only the test's passes check anything
 * (`server.ctx.linkHealth.runNow()`), at the moments a ManualClock gives them.
 */
export async function startCheckingServer(opts: TestServerOptions = {}): Promise<CheckingServer> {
  const dest = await startDestinations();
  const dns = await startDns((name) => (name.endsWith(".test") ? ["127.0.0.1"] : []));
  const env = { LINK_CHECKS: "on", WEBHOOK_ALLOW_PRIVATE: "true", DNS_SERVERS: dns.server, LINK_CHECK_TIMEOUT_MS: "1000", LINK_CHECK_HOST_RATE: "10000" };
  const server = await startTestServer({ ...opts, env: { ...env, ...opts.env } });
  await server.ctx.linkHealth.stop();
  return {
    server,
    dest,
    dns,
    async close() {
      await server.close();
      await dest.close();
      await dns.close();
    },
  };
}
